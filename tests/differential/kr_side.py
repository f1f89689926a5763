"""Running kruleset on an oracle case: the same cluster through kruleset's own inputs.

The cluster (namespaces, priority classes, nodes, bound pods, PDBs,
ElasticQuotas) is written as a Kubernetes ``kind: List`` file and read by
kruleset's manifest loader, the scheduler configuration as a
KubeSchedulerConfiguration file read by ``config scheduler``'s loader, and
every incoming pod (read by the same manifest loader) is created on the
timeline one second after the previous one, as the oracle creates them one
after the other.  Every scheduling attempt kruleset makes is recorded in
the oracle's shape (:class:`Attempt`).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from kruleset.manifests import load_objects, load_scheduler_config
from kruleset.model.objects import Pod
from kruleset.model.scenario import Create, Event, Scenario
from kruleset.sim.core import Simulation
from kruleset.sim.scheduler import SchedulerController

__all__ = ["Attempt", "ARRIVAL_MS", "run_kruleset", "write_inputs"]

_BOUND = "differential.bound"  # sim.extra: pod key -> the node it was last bound to
# Incoming pod i (from 0) is created at (i + 1) * ARRIVAL_MS.
ARRIVAL_MS = 1000


@attrs.define
class Attempt:
    """One scheduling attempt, in the oracle's terms."""

    pod: str
    time: int
    result: str                 # scheduled | unschedulable | gated
    node: str = ""
    feasible: list[str] = attrs.field(factory=list)
    scores: dict[str, int] = attrs.field(factory=dict)
    message: str = ""
    nominated: str = ""
    victims: list[str] = attrs.field(factory=list)
    # claim key -> its devices (DRIVER/POOL/NAME, sorted), when scheduled with claims
    allocations: dict[str, list[str]] = attrs.field(factory=dict)
    changed: bool = False       # the attempt changed the cluster (bound, nominated, preempted)
    rejected: bool = False      # bound, then refused by the kubelet's admission

    @property
    def instant(self) -> int:
        """Which incoming pod's arrival this attempt belongs to (0-based)."""
        return self.time // ARRIVAL_MS - 1


def write_inputs(case: dict[str, Any], folder: Path) -> tuple[Path, list[Path], Path | None]:
    """Write ``case`` as kruleset's inputs: cluster.json, incoming-N.json, scheduler.json."""
    folder.mkdir(parents=True, exist_ok=True)
    items: list[dict[str, Any]] = []
    for kind in ("namespaces", "priorityClasses", "nodes", "pods", "pdbs", "elasticQuotas",
                 "deviceClasses", "resourceSlices", "resourceClaims"):
        items.extend(case.get(kind) or ())
    cluster = folder / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items},
                                  indent=1))
    incoming = []
    for i, pod in enumerate(case.get("incoming") or ()):
        path = folder / f"incoming-{i + 1}.json"
        path.write_text(json.dumps(pod, indent=1))
        incoming.append(path)
    config = None
    if case.get("config"):
        config = folder / "scheduler.json"
        config.write_text(json.dumps(case["config"], indent=1))
    return cluster, incoming, config


def scenario_from(case: dict[str, Any], folder: Path) -> Scenario:
    """The kruleset scenario of ``case`` (its input files are written to ``folder``)."""
    cluster, incoming, config = write_inputs(case, folder)
    # The oracle deletes victims with grace period 0 (its README's limits: no
    # terminating pods), so every pod here gets a zero grace period: victims
    # are gone at once and the preemptor is retried in the same instant.
    objects = tuple(_no_grace(o) for o in load_objects(cluster))
    events = []
    for i, path in enumerate(incoming):
        (pod,) = [o for o in load_objects(path) if isinstance(o, Pod)]
        events.append(Event((i + 1) * ARRIVAL_MS, i, Create(_no_grace(pod))))
    scheduler = load_scheduler_config(config) if config is not None else None
    return Scenario(title="differential", file=str(cluster), objects=objects,
                    events=tuple(events), scheduler=scheduler,
                    run_until=(len(incoming) + 1) * ARRIVAL_MS)


def _no_grace(obj: Any) -> Any:
    return obj.replace(grace_period=0) if isinstance(obj, Pod) else obj


@contextmanager
def recording(record: Callable[[Any, Attempt], None], *,
              before: Callable[[Simulation, Any], Any] = lambda sim, ps: None,
              on_bind: Callable[[Any], None] = lambda ps: None) -> Iterator[None]:
    """Every attempt of the scheduler controller handed to ``record`` (a test-only wrapper),
    with what ``before`` read of the simulation just before it; ``on_bind`` hears each bind."""
    original = SchedulerController._attempt
    original_bind = Simulation.bind

    def attempt(self: SchedulerController, sim: Simulation, ctx: Any, qp: Any) -> bool:
        ps = qp.ps
        trace = sim.trace
        assert trace is not None
        seen = before(sim, ps)
        start = len(trace.attempts)
        was = (ps.node, ps.nominated, len(sim.victims.get(ps.key, ())))
        changed = original(self, sim, ctx, qp)
        record(seen, _attempt_of(sim, ps, trace.attempts[start:], was))
        return changed

    def bind(self: Simulation, ps: Any, node: str, *args: Any, **kw: Any) -> bool:
        on_bind(ps)
        # The node even if the kubelet then refuses the pod: the scheduler's decision.
        self.extra.setdefault(_BOUND, {})[ps.key] = node
        return original_bind(self, ps, node, *args, **kw)

    SchedulerController._attempt = attempt  # type: ignore[method-assign]
    Simulation.bind = bind  # type: ignore[method-assign]
    try:
        yield
    finally:
        SchedulerController._attempt = original  # type: ignore[method-assign]
        Simulation.bind = original_bind  # type: ignore[method-assign]


def _attempt_of(sim: Simulation, ps: Any, records: list[Any],
                before: tuple[str | None, str | None, int]) -> Attempt:
    victims = sorted(sim.victims.get(ps.key, ())[before[2]:])
    node = ps.node
    if ps.outcome == "rejected" and node is None:
        # The scheduler bound it and the kubelet's admission refused it (a
        # filter the profile disabled): the scheduler's decision is the bind.
        node = sim.extra.get(_BOUND, {}).get(ps.key)
    if node is not None:
        result = "scheduled"
    elif ps.schedule_message == "SchedulingGated":
        result = "gated"
    else:
        result = "unschedulable"
    a = Attempt(ps.key, sim.now, result, node=node or "",
                message="" if node is not None else ps.schedule_message or "",
                # A bind clears the nomination (before any kubelet refusal).
                nominated="" if node is not None else ps.nominated or "", victims=victims,
                rejected=ps.outcome == "rejected")
    a.changed = (node, ps.nominated) != before[:2] or bool(victims)
    dra = sim.state.dra
    if node is not None and dra is not None:
        for _entry, _name, cs, _err in dra.claims_of(ps.pod):
            if cs is not None and cs.allocation is not None:
                a.allocations[cs.key] = sorted(d.id for d in cs.allocation.devices)
    if result == "scheduled" and records:
        # The traced attempt record (what the JSON report's "attempts" show):
        # the feasible nodes in the scheduler's node order, and the totals.
        _, _, _, feasible, scored = records[-1]
        order = list(sim.state.nodes)
        a.feasible = sorted(feasible, key=order.index)
        if scored is not None:
            names, totals, _ = scored
            a.scores = dict(zip(names, totals, strict=True))
    return a


def run_kruleset(case: dict[str, Any], folder: Path | None = None) -> list[Attempt]:
    """Every scheduling attempt kruleset makes on ``case``, in order."""
    attempts: list[Attempt] = []
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="kr-diff-") as tmp:
            scenario = scenario_from(case, Path(tmp))
    else:
        scenario = scenario_from(case, folder)
    with recording(lambda _, a: attempts.append(a)):
        Simulation(scenario, trace=True).run()
    return attempts
