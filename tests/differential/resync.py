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

Where the node search starts.  A scheduler remembers where its last search
stopped (``nextStartNodeIndex``, ``schedule_one.go`` ``findNodesThatFitPod``)
and, under percentageOfNodesToScore, the next search looks only at the nodes
from there.  The one-cycle oracle is a scheduler just started: it begins at
node 0, while kruleset, over time, begins where its previous cycles left it.
So the oracle is first moved to kruleset's start: a warm-up pod arrives before
the attempting pod, naming (a NodeAffinity ``matchFields`` on
``metadata.name``, which upstream's PreFilter turns into a PreFilterResult)
exactly as many nodes as the start index and fitting none of them (a label no
node has), so the search gives that many nodes a status and moves on by that
many; it stays pending, asks for nothing and never preempts.  A profile that
disables NodeAffinity leaves no such way; there kruleset's attempt is taken
again from the same state with its search started at node 0 (the same
simulation, the start reset just before that attempt), and that is compared.
Where the search starts over time is what the timeline comparison checks.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import attrs

from kruleset.rules.scheduler.node_selection import next_start_index, set_next_start_index
from kruleset.sim.core import Simulation

from .compare import FIELDS, _field, _oracle_attempt
from .kr_side import Attempt, recording, scenario_from
from .oracle import finish_oracle, start_oracle

__all__ = ["Resynced", "check_resynced", "oracle_input", "run_snapshots"]

# The warm-up pod that moves the one-cycle oracle's node search (module doc).
WARM_UP = "kr-resync-warm-up"
_NO_SUCH_LABEL = "kruleset.test/no-node-has-this-label"


@attrs.define
class Resynced:
    """How one cluster's attempts compared."""

    incoming: int = 0               # incoming pods in the cluster
    attempts: int = 0               # kruleset attempts compared
    warmed: int = 0                 # of which the oracle's node search was moved first
    restarted: int = 0              # of which kruleset's search was started at node 0
    pods_agreeing: int = 0          # incoming pods whose every attempt agreed
    mismatches: list[str] = attrs.field(factory=list)

    @property
    def agreed(self) -> bool:
        """No attempt disagreed."""
        return not self.mismatches


def _key(pod: dict[str, Any]) -> str:
    meta = pod["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def _state(sim: Simulation, order: list[str], pod: str) -> dict[str, Any]:
    pods = sim.state.pods
    bound = {k: ps.node for k, ps in pods.items() if ps.node is not None and not ps.gone}
    nominated = {k: ps.nominated for k, ps in pods.items()
                 if ps.node is None and not ps.gone and ps.nominated and k != pod}
    return {"bound": bound, "order": list(order), "nominated": nominated,
            "own": pods[pod].nominated or "", "start": next_start_index(sim.state)}


def run_snapshots(case: dict[str, Any], *, restart: int | None = None
                  ) -> list[tuple[dict[str, Any], Attempt]]:
    """kruleset's attempts on the one-cycle ``case``, each with its state before.

    ``restart``: the index of an attempt whose node search starts at node 0
    (the state before it is unchanged: the start is reset after it is read).
    """
    out: list[tuple[dict[str, Any], Attempt]] = []
    with tempfile.TemporaryDirectory(prefix="kr-resync-") as tmp:
        scenario = scenario_from(case, Path(tmp))
    order: list[str] = []

    def before(sim: Simulation, ps: Any) -> dict[str, Any]:
        state = _state(sim, order, ps.key)
        if len(out) == restart:
            set_next_start_index(sim.state, 0)
        return state

    with recording(lambda state, a: out.append((state, a)), before=before,
                   on_bind=lambda ps: order.append(ps.key)):
        Simulation(scenario, trace=True).run()
    return out


def _node_affinity_on(case: dict[str, Any]) -> bool:
    """Whether the profile the oracle uses keeps NodeAffinity's PreFilter and Filter."""
    profiles = (case.get("config") or {}).get("profiles") or [{}]
    profile = next((p for p in profiles if p.get("schedulerName") == "default-scheduler"),
                   profiles[0])
    plugins = profile.get("plugins") or {}
    for point in ("multiPoint", "preFilter", "filter"):
        off = {p.get("name") for p in (plugins.get(point) or {}).get("disabled") or ()}
        if off & {"NodeAffinity", "*"}:
            return False
    return True


def search_start(case: dict[str, Any], state: dict[str, Any]) -> int:
    """Where kruleset's node search began, as an index into the case's nodes."""
    n = len(case.get("nodes") or ())
    return state.get("start", 0) % n if n else 0


def warm_up_pod(case: dict[str, Any], count: int) -> dict[str, Any]:
    """A pod that moves a fresh scheduler's node search on by ``count`` nodes (module doc)."""
    names = [n["metadata"]["name"] for n in case["nodes"][:count]]
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": names}],
            "matchExpressions": [{"key": _NO_SUCH_LABEL, "operator": "Exists"}]}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": WARM_UP, "namespace": WARM_UP},
            "spec": {"containers": [{"name": "c", "image": "warm-up"}],
                     "preemptionPolicy": "Never",
                     "affinity": {"nodeAffinity": {
                         "requiredDuringSchedulingIgnoredDuringExecution": {
                             "nodeSelectorTerms": [term]}}}}}


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
    start = search_start(case, state)
    if start and _node_affinity_on(case):
        out["incoming"].insert(0, warm_up_pod(case, start))
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
    for i, (state, a) in enumerate(runs):
        given = oracle_input(case, state, a.pod)
        *warm, entry = _run_oracle(binary, given)
        if search_start(case, state):
            if warm:
                (w,) = warm
                assert w["result"] == "unschedulable" and not w.get("nominated"), w
                res.warmed += 1
            else:
                # The oracle's search cannot be moved: kruleset's is started at 0.
                res.restarted += 1
                a = run_snapshots(case, restart=i)[i][1]
        want = _oracle_attempt(entry, a.instant)
        res.attempts += 1
        for f in fields:
            if want[f] != _field(a, f):
                bad.add(a.pod)
                res.mismatches.append(f"{a.pod} at {a.time} ms {f}: oracle {want[f]!r} "
                                      f"kruleset {_field(a, f)!r}")
    res.pods_agreeing = sum(1 for k in incoming if k not in bad)
    return res
