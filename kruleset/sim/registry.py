"""What the simulation is made of: controllers, timeline-action handlers, API admission steps.

Each mechanism's module registers its parts here when it is imported
(:func:`register_controller`, :func:`register_action`,
:func:`register_pod_admission`); :class:`~kruleset.sim.core.Simulation`
builds one of each controller and calls the handlers.  Kept apart from the
simulation so that mechanism modules depend on this registry, not on the
simulation loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..rules.engine import Failure

# The registry stores callables over the running simulation without naming its
# type: the simulation imports the registry, and naming it back would close a
# cycle.  Each mechanism types its own functions with ``Simulation``.
AnySimulation = Any

__all__ = [
    "ACTIONS",
    "CONTROLLERS",
    "POD_ADMISSION",
    "POD_CHANGES",
    "Controller",
    "register_action",
    "register_controller",
    "register_pod_admission",
]


class Controller(Protocol):
    """A mechanism that acts over time (see module doc for phases)."""

    name: str
    phase: int

    def step(self, sim: AnySimulation) -> bool: ...  # noqa: D102
    def next_time(self, sim: AnySimulation) -> int | None: ...  # noqa: D102


#: What the mechanism modules registered, read by the simulation (``sim/core.py``):
#: controller factories, action handlers by action type, pod admission checks and
#: each check's handler of a pod's change (None: none).
CONTROLLERS: list[Callable[[AnySimulation], Controller]] = []
ACTIONS: dict[type, Callable[[AnySimulation, Any], None]] = {}
POD_ADMISSION: list[Callable[[AnySimulation, Any], Any]] = []
POD_CHANGES: list[Callable[[AnySimulation, Any], Any] | None] = []


def register_controller(factory: Callable[[AnySimulation], Controller]) -> None:
    """Add a controller factory; every :class:`Simulation` builds one of each."""
    CONTROLLERS.append(factory)


def register_action(cls: type, handler: Callable[[AnySimulation, Any], None]) -> None:
    """Say which function carries out timeline actions of type ``cls``."""
    ACTIONS[cls] = handler


def register_pod_admission(
    fn: Callable[[AnySimulation, Any], Any], *,
    changes: Callable[[AnySimulation, Any], Mapping[str, Any] | Failure | None] | None = None,
) -> None:
    """Add an API admission step run on every pod created (``fn(sim, pod) -> pod``).

    ``changes(sim, pod)``, if given, says what ``fn`` would do as the fields it
    sets (empty: none), a refusal, or None (ask ``fn``).  It must read only
    fields no other step sets, and not the pod's name or its containers'
    names: the pods of one ``pods … on NODE`` range of the time-0 cluster
    (which differ in those only) are all given their first pod's answer
    (``kruleset.sim.setup.create_running_range``).  When every step has one,
    a pod is admitted with a single copy instead of one per step (creating
    150,000 pods copied each of them twice).
    """
    POD_ADMISSION.append(fn)
    POD_CHANGES.append(changes)
