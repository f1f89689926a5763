"""What the simulation's helper modules need of a running simulation, as a Protocol.

:mod:`kruleset.sim.expect`, :mod:`kruleset.sim.setup` and
:mod:`kruleset.sim.dra_claims` work on a :class:`~kruleset.sim.core.Simulation`,
which imports them; they name the part of it they use here instead of
importing it back, so no import cycle remains even for type checkers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..model.config import KubeletConfig
from ..model.scenario import Scenario
from ..model.state import ClusterState, PodState
from ..rules.engine import Trace
from ..rules.profile import Profile
from ..rules.scheduler.framework import FastPaths

__all__ = ["SimulationView"]


class SimulationView(Protocol):
    """The attributes and services of a running simulation that its helpers use."""

    scenario: Scenario
    state: ClusterState
    profile: Profile
    trace: Trace | None  # None: tracing off
    now: int
    victims: dict[str, list[str]]
    kubelet_evictions: list[str]
    eviction_status: dict[str, int]
    kubelets: dict[str, KubeletConfig]
    default_kubelet: KubeletConfig
    extra: dict[str, Any]
    fast: FastPaths
    attempts: Sequence[Any]  # every scheduling attempt (kruleset.sim.scheduler.AttemptRecord)
    queue: Any  # the scheduling queue (None until the scheduler controller exists)

    def record(self, kind: str, ps: PodState | str, node: str | None = None, by: str = "",
               reason: str = "", message: str = "", rules: tuple[str, ...] = ()) -> Any:
        """Add a decision to the report."""

    def changed(self) -> None:
        """Something changed that may let a pending pod schedule."""

    def wildcard_event(self, what: str) -> None:
        """A change that retries every unschedulable pod after its backoff."""

    def kubelet_config(self, node: str) -> KubeletConfig:
        """The kubelet settings in force on ``node``."""

    def admit_to_api(self, pod: Any) -> Any:
        """The API admission steps on a new pod (the pod, or a refusal)."""

    def admission_changes(self, pod: Any) -> Any:
        """What the API admission steps would set on ``pod``, a refusal, or None."""

    def add_running(self, pods: list[Any], node: str) -> None:
        """Admitted pods of the time-0 cluster created running on ``node``."""

    def bind(self, ps: PodState, node: str, rules: tuple[str, ...] = (),
             admit: bool = True) -> bool:
        """Bind ``ps`` to ``node`` through kubelet admission."""

    def terminate(self, ps: PodState, outcome: str, *, by: str = "", reason: str = "",
                  message: str = "", grace: int | None = None,
                  rules: tuple[str, ...] = ()) -> None:
        """Start deleting ``ps`` (the workload controllers delete their pods)."""

    def wake(self, time: int) -> None:
        """Make sure the simulation stops at ``time``."""
