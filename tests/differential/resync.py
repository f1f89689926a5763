"""Every attempt kruleset makes, against the one-cycle oracle started from kruleset's own state.

The timeline oracle has no CapacityScheduling (its README's limits), and the
one-cycle oracle has no queue: on an ElasticQuota cluster ``compare.py``
stops where kruleset's queue retries a pod the one-cycle oracle does not.
Here each scheduling attempt kruleset makes is compared on its own: the
cluster as kruleset had it just before the attempt (the bound pods, in the
order they were bound, victims gone; the pods nominated to a node, known to
the oracle's nominator) is given to the one-cycle oracle with the attempting
pod as its only incoming pod (its own nomination kept, ``noRetry``), and the
oracle's cycle is compared with kruleset's attempt: result, node, feasible
nodes, per-node total scores, message word for word, nomination, victims.

So every decision of every incoming pod is compared, retries included; what
is not compared this way is *when* the queue retries a pod (the timeline
comparison, ``cycle_timeline.py``, does that where the timeline oracle runs).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import attrs

from kruleset.sim.core import Simulation

from .compare import FIELDS, _field, _oracle_attempt
from .kr_side import Attempt, recording, scenario_from
from .oracle import finish_oracle, start_oracle

__all__ = ["Resynced", "check_resynced", "run_snapshots"]


@attrs.define
class Resynced:
    """How one cluster's attempts compared."""

    incoming: int = 0               # incoming pods in the cluster
    attempts: int = 0               # kruleset attempts compared
    pods_agreeing: int = 0          # incoming pods whose every attempt agreed
    mismatches: list[str] = attrs.field(factory=list)

    @property
    def agreed(self) -> bool:
        """No attempt disagreed."""
        return not self.mismatches


def _key(pod: dict[str, Any]) -> str:
    meta = pod["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def _snapshotting(out: list[tuple[dict[str, Any], Attempt]]) -> Any:
    """Record, per attempt, kruleset's state before it and the attempt itself."""
    order: list[str] = []
    return recording(lambda state, a: out.append((state, a)),
                     before=lambda sim, ps: _state(sim, order, ps.key),
                     on_bind=lambda ps: order.append(ps.key))


def _state(sim: Simulation, order: list[str], pod: str) -> dict[str, Any]:
    pods = sim.state.pods
    bound = {k: ps.node for k, ps in pods.items() if ps.node is not None and not ps.gone}
    nominated = {k: ps.nominated for k, ps in pods.items()
                 if ps.node is None and not ps.gone and ps.nominated and k != pod}
    return {"bound": bound, "order": list(order), "nominated": nominated,
            "own": pods[pod].nominated or ""}


def run_snapshots(case: dict[str, Any]) -> list[tuple[dict[str, Any], Attempt]]:
    """kruleset's attempts on the one-cycle ``case``, each with its state before."""
    out: list[tuple[dict[str, Any], Attempt]] = []
    with tempfile.TemporaryDirectory(prefix="kr-resync-") as tmp:
        scenario = scenario_from(case, Path(tmp))
    with _snapshotting(out):
        Simulation(scenario, trace=True).run()
    return out


def oracle_input(case: dict[str, Any], state: dict[str, Any], pod: str) -> dict[str, Any]:
    """The one-cycle oracle's input: ``case``'s cluster as ``state`` has it, ``pod`` arriving."""
    every = {_key(p): p for p in list(case.get("pods") or ()) + list(case.get("incoming") or ())}
    bound = state["bound"]
    # Pods bound from the start first (input order), then in the order kruleset bound them.
    keys = [_key(p) for p in case.get("pods") or () if _key(p) in bound and _key(p) not in
            state["order"]]
    keys += [k for k in dict.fromkeys(state["order"]) if k in bound]
    pods = []
    for k in keys:
        p = json.loads(json.dumps(every[k]))
        p["spec"]["nodeName"] = bound[k]
        pods.append(p)
    for k, node in state["nominated"].items():
        p = json.loads(json.dumps(every[k]))
        p.setdefault("status", {})["nominatedNodeName"] = node
        pods.append(p)
    arriving = json.loads(json.dumps(every[pod]))
    if state["own"]:
        arriving.setdefault("status", {})["nominatedNodeName"] = state["own"]
    out = {k: v for k, v in case.items() if k not in ("pods", "incoming")}
    out["pods"] = pods
    out["incoming"] = [arriving]
    out["noRetry"] = True
    return out


def _run_oracle(binary: Path, case: dict[str, Any], tries: int = 3) -> list[dict[str, Any]]:
    """The oracle's answer; run again when its informers timed out (a busy machine)."""
    for left in range(tries - 1, -1, -1):
        try:
            return finish_oracle(start_oracle(binary, case))
        except RuntimeError as err:
            if left == 0 or "did not catch up" not in str(err):
                raise
    raise AssertionError("unreachable")


def check_resynced(binary: Path, case: dict[str, Any], *, scores: bool = True) -> Resynced:
    """Compare every attempt kruleset makes on ``case`` with the oracle's cycle from its state."""
    incoming = [_key(p) for p in case.get("incoming") or ()]
    res = Resynced(incoming=len(incoming))
    runs = run_snapshots(case)
    fields = FIELDS if scores else tuple(f for f in FIELDS if f != "scores")
    bad: set[str] = set()
    for state, a in runs:
        (entry,) = _run_oracle(binary, oracle_input(case, state, a.pod))
        want = _oracle_attempt(entry, a.instant)
        res.attempts += 1
        for f in fields:
            if want[f] != _field(a, f):
                bad.add(a.pod)
                res.mismatches.append(f"{a.pod} at {a.time} ms {f}: oracle {want[f]!r} "
                                      f"kruleset {_field(a, f)!r}")
    res.pods_agreeing = sum(1 for k in incoming if k not in bad)
    return res
