"""kruleset against the timeline oracle: one case through both, compared pod by pod.

The case (the oracle's JSON, see ``timeline_generator.py``) is written as
kruleset's own inputs: priority classes, nodes and bound pods as a
``kind: List`` read by the manifest loader; every timeline event as the
timeline statement a ``.kr`` file would use (``create``, ``delete pod …
grace-period=``, ``ungate``, ``label``/``taint``/``untaint``/``cordon``/
``uncordon node``).  Compared for every pod: each scheduling attempt (time,
result, node, message word for word, nominated node, victims deleted) and
the final placement (bound where, pending, terminating or deleted).

Score ties: kruleset takes the first of the best nodes in node order, the
oracle upstream's score heap (its README, "Comparing with it"); where the two
place a pod on different nodes and kruleset's traced scores show the
oracle's node tied at the best score, kruleset is run again taking the
oracle's node at that attempt, so that the comparison goes on (counted as a
tie followed); past ``follow_ties`` of them it stops there, counted as a tie,
not a disagreement.  A pod kruleset's kubelet refuses (the oracle runs no
kubelet) stops the comparison at that bind (``Outcome.refused``).

Where preemption's dry run starts: with fewer candidates wanted than nodes
to try (``minCandidateNodesPercentage``/``minCandidateNodesAbsolute``), which
nodes become candidates depends on the order the dry run visits them in.
Upstream starts it at a random offset (``GetOffsetAndNumCandidates``) into a
list of the potential nodes filled from a map (``NodesForStatusCode``), so
any rotation of the node order is an outcome upstream can give; kruleset
starts at the first node (documented), the timeline oracle takes the map's
order as it comes.  Where the two nominate different nodes at an attempt,
kruleset is run again with its dry run started at each other offset in turn
(``offsets``), and the comparison goes on with the first that makes that
attempt agree (counted as an offset followed); if none does, the
disagreement stands.

Preemption ties: where kruleset's candidates tie on every criterion but the
last (the node order), upstream takes the first key of a map
(``pickOneNodeForPreemption``: "sort of randomly"), and start times it
compares are ``metav1.Time``, whole seconds once through the API server;
the timeline oracle breaks such ties by node order too, but keeps its
start times to the microsecond of its ticks, so a pod bound in the same
instant as a pod already running counts as started later there.  Where the
oracle nominated another node of kruleset's tie, kruleset is made to take it
(counted with the score ties followed).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from kruleset.manifests import load_objects, load_scheduler_config
from kruleset.model.objects import Node, Pod
from kruleset.model.scenario import (
    Cordon,
    Create,
    DeletePod,
    Event,
    LabelNode,
    Scenario,
    TaintNode,
    Ungate,
)
from kruleset.model.selectors import Taint
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.preemption import evaluator
from kruleset.rules.scheduler.preemption.defaultpreemption import DefaultPreemption
from kruleset.rules.scheduler.preemption.pick import default_pick_key
from kruleset.sim import scheduler as sim_scheduler
from kruleset.sim.core import Simulation
from kruleset.sim.scheduler import SchedulerController

from .oracle import find_binary

__all__ = ["TIMELINE_ENV", "Outcome", "Ties", "check_timeline", "compare_timeline",
           "find_timeline_oracle", "oracle_case", "run_kruleset_timeline", "run_timeline_oracle"]

TIMELINE_ENV = "KRULESET_TIMELINE_ORACLE"
REPO_ROOT = Path(__file__).resolve().parents[2]


def find_timeline_oracle() -> tuple[Path | None, str]:
    """The timeline oracle binary, or None with the reason it is absent."""
    return find_binary(TIMELINE_ENV, "oracle-timeline/bin/kr-timeline-oracle",
                       "the timeline oracle")


def run_timeline_oracle(binary: Path, case: dict[str, Any]) -> dict[str, Any]:
    """The oracle's output for ``case``."""
    proc = subprocess.run([str(binary)], input=json.dumps(case).encode(), capture_output=True,
                          timeout=120, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the timeline oracle failed (exit {proc.returncode}): "
                           f"{proc.stderr.decode(errors='replace')[-2000:]}")
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def oracle_case(binary: Path, case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the oracle; a deletion of a pod already gone (a victim of a preemption the
    generator could not foresee) is an API error there, so such events are dropped
    from the case, and the case the oracle ran is returned with its output."""
    case = json.loads(json.dumps(case))
    for _ in range(50):
        try:
            return case, run_timeline_oracle(binary, case)
        except RuntimeError as e:
            m = re.search(r"at (\d+) ms, delete pod ([^\s:]+).*not found", str(e))
            if m is None:
                raise
            at, name = int(m.group(1)), m.group(2)
            case["timeline"] = [ev for ev in case["timeline"]
                                if not (ev["at"] == at and ev["op"] == "delete"
                                        and ev["name"] == name)]
    raise RuntimeError("too many events dropped")


# --- kruleset's side ----------------------------------------------------------------------

def _objects(items: list[dict[str, Any]], folder: Path, name: str) -> list[Any]:
    path = folder / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return list(load_objects(path))


def _taint(t: dict[str, Any]) -> Taint:
    return Taint(t["key"], t.get("value", ""), t["effect"])


def scenario_of(case: dict[str, Any], folder: Path) -> Scenario:
    """The kruleset scenario of a timeline case (its files written to ``folder``)."""
    for obj in case.get("pods") or ():
        obj.setdefault("apiVersion", "v1")
        obj.setdefault("kind", "Pod")
    items = [{"apiVersion": "v1", "kind": "Namespace", **ns}
             for ns in case.get("namespaces") or ()]
    items += [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", **pc}
              for pc in case.get("priorityClasses") or ()]
    items += [{"apiVersion": "v1", "kind": "Node", **n} for n in case.get("nodes") or ()]
    items += list(case.get("pods") or ())
    items += [{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", **pdb}
              for pdb in case.get("pdbs") or ()]
    objects = _objects(items, folder, "cluster.json")
    scheduler = None
    if case.get("config"):
        (folder / "scheduler.json").write_text(json.dumps(case["config"]))
        scheduler = load_scheduler_config(folder / "scheduler.json")
    taints: dict[str, list[Taint]] = {}
    for n in case.get("nodes") or ():
        taints[n["metadata"]["name"]] = [_taint(t) for t in n.get("spec", {}).get("taints", ())]
    gates: dict[str, list[str]] = {}
    made = list(case.get("pods") or ()) + [ev["pod"] for ev in case.get("timeline") or ()
                                           if ev["op"] == "create" and "pod" in ev]
    for pod in made:
        meta = pod["metadata"]
        gates[f"{meta.get('namespace', 'default')}/{meta['name']}"] = [
            g["name"] for g in pod["spec"].get("schedulingGates", ())]
    events: list[Event] = []
    for i, ev in enumerate(sorted(case.get("timeline") or (), key=lambda e: e["at"])):
        if ev["op"] == "ungate" and "gates" not in ev:  # every gate the pod still has
            ev = {**ev, "gates": list(gates.get(ev["name"], ()))}
        if ev["op"] == "ungate":
            gates[ev["name"]] = [g for g in gates.get(ev["name"], ()) if g not in ev["gates"]]
        for action in _actions(ev, folder, i, taints):
            events.append(Event(ev["at"], len(events), action))
    # The oracle's default end: the last event + 60 s.
    until = case.get("until")
    if until is None:
        until = max([ev["at"] for ev in case.get("timeline") or ()] + [0]) + 60_000
    return Scenario(title="timeline differential", file=str(folder / "cluster.json"),
                    objects=tuple(objects), events=tuple(events), scheduler=scheduler,
                    run_until=until)


def _actions(ev: dict[str, Any], folder: Path, i: int,
             taints: dict[str, list[Taint]]) -> list[Any]:
    op = ev["op"]
    if op == "create":
        if "pod" in ev:
            item = {"apiVersion": "v1", "kind": "Pod", **ev["pod"]}
        else:
            item = {"apiVersion": "v1", "kind": "Node", **ev["node"]}
            name = ev["node"]["metadata"]["name"]
            taints[name] = [_taint(t) for t in ev["node"].get("spec", {}).get("taints", ())]
        (obj,) = [o for o in _objects([item], folder, f"event-{i}.json")
                  if isinstance(o, Pod | Node)]
        return [Create(obj)]
    if op == "delete":
        grace = ev.get("gracePeriodSeconds")
        return [DeletePod(ev["name"], None if grace is None else grace * 1000)]
    if op == "ungate":
        return [Ungate(ev["name"], g) for g in ev["gates"]]
    if op == "patchNode":
        name = ev["name"]
        out: list[Any] = []
        for key, value in (ev.get("labels") or {}).items():
            out.append(LabelNode(name, key, value))
        if "taints" in ev:
            new = [_taint(t) for t in ev["taints"]]
            old = taints[name]
            out += [TaintNode(name, t, False) for t in old if t not in new]
            out += [TaintNode(name, t, True) for t in new if t not in old]
            taints[name] = new
        if "unschedulable" in ev:
            out.append(Cordon(name, bool(ev["unschedulable"])))
        return out
    raise ValueError(f"timeline op {op!r} is not generated")


@attrs.define
class Ties:
    """What one kruleset attempt could have decided otherwise, as upstream may."""

    best: set[str] = attrs.field(factory=set)  # the nodes tied at the best score
    potential: int = 0  # the nodes its preemption dry run could start at
    # the candidates tied with the chosen one on every criterion but node order (known
    # where the reference pick ran: ``run_kruleset_timeline(reference=True)``)
    picks: set[str] = attrs.field(factory=set)


def run_kruleset_timeline(case: dict[str, Any], forced: Mapping[int, str] | None = None,
                          offsets: Mapping[int, int] | None = None, *, reference: bool = False
                          ) -> tuple[list[Any], dict[str, dict[str, Any]], list[Ties]]:
    """kruleset's attempts, final states, and per attempt what it could have chosen.

    ``forced`` maps an attempt's index to a node tied at the best score that
    attempt must take instead of kruleset's first in node order: the oracle's
    choice at a tie, so that the comparison can go on past it; at a
    preemption, a candidate tied with kruleset's on every criterion but node
    order.  ``offsets`` maps an attempt's index to where its preemption dry run
    starts instead of the first potential node (module doc).  With any of them
    given, or ``reference``, the preemption fast paths are off: the reference
    dry run and pick run, and each attempt's tied candidates are recorded.
    """
    ties: list[Ties] = []
    picks = dict(forced or {})
    starts = dict(offsets or {})
    potential = [0]
    tied: set[str] = set()
    original = SchedulerController._attempt
    original_pick = evaluator.pick_candidate
    original_cycle = sim_scheduler.schedule_one
    original_offset = DefaultPreemption.offset_and_num_candidates

    def attempt(self: SchedulerController, sim: Simulation, ctx: Any, qp: Any) -> bool:
        trace = sim.trace
        assert trace is not None
        start = len(trace.attempts)
        potential[0] = 0
        tied.clear()
        changed = original(self, sim, ctx, qp)
        best: set[str] = set()
        for rec in trace.attempts[start:]:
            scored = rec[-1]
            if scored is not None:
                names, totals, _ = scored
                top = max(totals)
                best = {n for n, t in zip(names, totals, strict=True) if t == top}
        ties.append(Ties(best, potential[0], set(tied)))
        return changed

    def pick(ctx: Any, candidates: Any, order: Any = None) -> Any:
        found, decided = original_pick(ctx, candidates, order)
        if found is None or len(candidates) < 2:
            return found, decided
        key = default_pick_key(ctx)
        top = key(found)[:-1]
        same = {c.node: c for c in candidates if key(c)[:-1] == top}
        tied.update(same)
        node = picks.get(len(ties))
        if node is not None and node in same and node != found.node:
            return same[node], decided
        return found, decided

    def offset(self: DefaultPreemption, ctx: Any, num_nodes: int) -> tuple[int, int]:
        first, wanted = original_offset(self, ctx, num_nodes)
        potential[0] = num_nodes
        return starts.get(len(ties), first) % max(num_nodes, 1), wanted

    def cycle(ctx: Any, ps: Any, *, advance: bool = True) -> Any:
        result = original_cycle(ctx, ps, advance=advance)
        node = picks.get(len(ties))
        if node is not None and result.node not in (None, node) and node in result.scores \
                and result.scores[node] == result.scores[result.node]:
            result = attrs.evolve(result, node=node)
        return result

    with tempfile.TemporaryDirectory(prefix="kr-timeline-") as tmp:
        scenario = scenario_of(json.loads(json.dumps(case)), Path(tmp))
        SchedulerController._attempt = attempt  # type: ignore[method-assign]
        sim_scheduler.schedule_one = cycle  # type: ignore[assignment]
        DefaultPreemption.offset_and_num_candidates = offset  # type: ignore[method-assign]
        evaluator.pick_candidate = pick
        try:
            slow = reference or starts or picks
            fast = FastPaths(cycle_cache=False, victims=False) if slow else None
            sim = Simulation(scenario, trace=True, fast=fast)
            sim.run()
        finally:
            SchedulerController._attempt = original  # type: ignore[method-assign]
            sim_scheduler.schedule_one = original_cycle  # type: ignore[assignment]
            DefaultPreemption.offset_and_num_candidates = original_offset  # type: ignore
            evaluator.pick_candidate = original_pick
    final: dict[str, dict[str, Any]] = {}
    for key, ps in sim.state.pods.items():
        if ps.gone:
            state = "deleted"
        elif ps.terminating:
            state = "terminating"
        elif ps.node is not None:
            state = "bound"
        else:
            state = "pending"
        # refused: bound, then refused by kubelet admission (the oracle has no kubelet)
        final[key] = {"state": state, "node": ps.node or "",
                      "refused": ps.outcome == "rejected"}
    return list(sim.attempts), final, ties


# --- the comparison -----------------------------------------------------------------------

@attrs.define
class Outcome:
    """How one case compared."""

    pods: int = 0                # pods compared
    agreeing: int = 0            # pods whose every attempt and final state agreed
    attempts: int = 0            # oracle attempts compared
    tie: bool = False            # stopped at a score tie
    tie_at: tuple[int, str] | None = None  # (attempt index, the oracle's tied node) there
    tie_time: int | None = None  # the simulated time of that attempt
    ties_followed: int = 0       # score ties where kruleset was made to take the oracle's node
    # (attempt index, its number of potential nodes) where the two nominated different
    # nodes and kruleset's dry run could start elsewhere (module doc)
    pick_at: tuple[int, int] | None = None
    offsets_followed: int = 0    # attempts whose dry run kruleset was made to start elsewhere
    refused: tuple[str, int] | None = None  # (pod, ms): kruleset's kubelet refused it there
    varied: bool = False         # the oracle's runs differed; kruleset matched one of them
    mismatches: list[str] = attrs.field(factory=list)

    @property
    def agreed(self) -> bool:
        """No disagreement."""
        return not self.mismatches


_FIELDS = ("time", "result", "node", "message", "nominated", "victims")


def _oracle_row(a: dict[str, Any]) -> tuple[Any, ...]:
    return (a["time"], a["result"], a.get("node", ""), a.get("message", ""),
            a.get("nominated", ""), tuple(sorted(a.get("victims") or ())))


def _kr_row(a: Any) -> tuple[Any, ...]:
    return (a.time, a.result, a.node, a.message, a.nominated, tuple(a.victims))


def check_timeline(binary: Path, case: dict[str, Any], reruns: int = 20,
                   follow_ties: int = 8) -> Outcome:
    """Compare kruleset with the oracle on ``case``.

    Score ties: where the oracle took another node tied at the best score,
    kruleset is run again taking the oracle's node at that attempt (up to
    ``follow_ties`` times), so that the comparison goes on past the tie.

    The oracle is not always deterministic: whether a victim deleted at once
    by an asynchronous preemption is seen by the queue before or after the
    preemptor's PreEnqueue gate is lifted is a race its harness does not pin
    (measured: the same input gives either outcome).  And where preemption's
    candidates tie on every criterion, upstream takes "the first such node"
    of a list filled from a Go map (``pickOneNodeForPreemption``, step 6:
    "sort of randomly"), so each such preemption may nominate any of them
    (measured: images seed 124502's three preemptors agreed with kruleset on
    one run of three).  On a disagreement the oracle is run again, up to
    ``reruns`` times (only a disagreeing case pays for them); kruleset agreeing
    with one of its outcomes counts as agreement, marked ``varied``.
    """
    case, first = oracle_case(binary, case)
    out, run = _follow(case, first, follow_ties)
    if out.agreed:
        return out
    seen = {json.dumps(first, sort_keys=True)}
    for _ in range(reruns):
        again = run_timeline_oracle(binary, case)
        key = json.dumps(again, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        other, _ = _follow(case, again, follow_ties)
        if other.agreed:
            other.varied = True
            return other
    return out


def _follow(case: dict[str, Any], oracle: dict[str, Any], follow_ties: int
            ) -> tuple[Outcome, Any]:
    """Compare, taking the oracle's node at each score tie it resolved differently and
    starting a dry run elsewhere where the two nominated different nodes (module doc)."""
    forced: dict[int, str] = {}
    offsets: dict[int, int] = {}
    run = run_kruleset_timeline(case)
    out = compare_timeline(case, oracle, run)
    while len(forced) + len(offsets) < follow_ties:
        if out.tie_at is not None and out.tie_at[0] not in forced:
            forced[out.tie_at[0]] = out.tie_at[1]
        elif out.pick_at is not None and out.pick_at[0] not in offsets \
                and out.pick_at[0] not in forced:
            i, potential = out.pick_at
            want = [a for a in oracle["attempts"] if a["result"] != "skipped"][i]["nominated"]
            _, _, ties = run_kruleset_timeline(case, forced, offsets, reference=True)
            if want in ties[i].picks:
                forced[i] = want
            else:
                found = _offset_agreeing(case, oracle, forced, offsets, i, potential)
                if found is None:
                    break
                offsets[i] = found
        else:
            break
        run = run_kruleset_timeline(case, forced, offsets)
        out = compare_timeline(case, oracle, run)
    out.ties_followed, out.offsets_followed = len(forced), len(offsets)
    return out, run


def _offset_agreeing(case: dict[str, Any], oracle: dict[str, Any], forced: dict[int, str],
                     offsets: dict[int, int], i: int, potential: int) -> int | None:
    """The first dry-run start, past kruleset's own, that makes attempt ``i`` agree."""
    want = [a for a in oracle["attempts"] if a["result"] != "skipped"]
    for start in range(1, potential):
        attempts, _, _ = run_kruleset_timeline(case, forced, {**offsets, i: start})
        if i < len(attempts) and _oracle_row(want[i]) == _kr_row(attempts[i]) \
                and want[i]["pod"] == attempts[i].pod:
            return start
    return None


def compare_timeline(case: dict[str, Any], oracle: dict[str, Any],
                     run: tuple[list[Any], dict[str, dict[str, Any]], list[Ties]]
                     | None = None) -> Outcome:
    """Compare kruleset's run of ``case`` (made here if not given) with the oracle's output."""
    attempts, final, ties = run if run is not None else run_kruleset_timeline(case)
    want = [a for a in oracle["attempts"] if a["result"] != "skipped"]
    out = Outcome()
    # Attempts in order, until the first score tie the two resolve differently
    # (or the first preemption that nominated another node, which is not cut).
    stop_time: int | None = None
    for i, (o, k) in enumerate(zip(want, attempts, strict=False)):
        if o["pod"] == k.pod and o["time"] == k.time and o["result"] == k.result \
                == "unschedulable" and o.get("nominated") and k.nominated \
                and o["nominated"] != k.nominated and ties[i].potential > 1:
            out.pick_at = (i, ties[i].potential)
            break
        if (o["pod"], o.get("node")) != (k.pod, k.node or None) and o["result"] == "scheduled" \
                and k.result == "scheduled" and o["time"] == k.time \
                and o.get("node") in ties[i].best and k.node in ties[i].best:
            out.tie = True
            out.tie_at = (i, o["node"])
            out.tie_time = o["time"]
            stop_time = o["time"]
            want, attempts = want[:i], attempts[:i]
            break
    if stop_time is None:
        cut = _refusal(want, attempts, final)
        if cut is not None:
            out.refused, want, attempts = cut
            stop_time = out.refused[1]
    pods = sorted({a["pod"] for a in want} | {a.pod for a in attempts} | set(final))
    for pod in pods:
        o_rows = [_oracle_row(a) for a in want if a["pod"] == pod]
        k_rows = [_kr_row(a) for a in attempts if a.pod == pod]
        out.pods += 1
        out.attempts += len(o_rows)
        bad = _diff_rows(pod, o_rows, k_rows)
        if stop_time is None:
            bad += _diff_final(pod, oracle, final)
        if bad:
            out.mismatches += bad
        else:
            out.agreeing += 1
    return out


def _refusal(want: list[dict[str, Any]], attempts: list[Any],
             final: dict[str, dict[str, Any]]
             ) -> tuple[tuple[str, int], list[dict[str, Any]], list[Any]] | None:
    """Where kruleset's kubelet refused a pod the scheduler bound (a profile disabled a
    filter its admission checks): the timeline oracle runs no kubelet, so from there the
    clusters differ.  The attempts up to that bind, on both sides."""
    refused = {p for p, f in final.items() if f.get("refused")}
    j = next((j for j, a in enumerate(attempts)
              if a.pod in refused and a.result == "scheduled"), None)
    if j is None:
        return None
    t = attempts[j].time
    mine = attempts[:j + 1]
    same = sum(1 for a in mine if a.time == t)
    theirs = [a for a in want if a["time"] < t]
    theirs += [a for a in want if a["time"] == t][:same]
    return (attempts[j].pod, t), theirs, mine


def _diff_rows(pod: str, o_rows: list[tuple[Any, ...]], k_rows: list[tuple[Any, ...]]
               ) -> list[str]:
    bad = []
    for n, (o, k) in enumerate(zip(o_rows, k_rows, strict=False), 1):
        if o != k:
            diffs = [f"{f}: oracle {ov!r} kruleset {kv!r}"
                     for f, ov, kv in zip(_FIELDS, o, k, strict=True) if ov != kv]
            bad.append(f"{pod} attempt {n}: " + "; ".join(diffs))
            return bad
    if len(o_rows) != len(k_rows):
        bad.append(f"{pod}: oracle made {len(o_rows)} attempt(s) at "
                   f"{[r[0] for r in o_rows]}, kruleset {len(k_rows)} at "
                   f"{[r[0] for r in k_rows]}")
    return bad


def _diff_final(pod: str, oracle: dict[str, Any], final: dict[str, dict[str, Any]]
                ) -> list[str]:
    o = next((f for f in oracle["final"] if f["pod"] == pod), None)
    k = final.get(pod)
    if o is None or k is None:
        return [f"{pod}: final state only in {'kruleset' if o is None else 'the oracle'}"]
    o_state = (o["state"], o.get("node", "") if o["state"] in ("bound", "terminating") else "")
    k_state = (k["state"], k["node"] if k["state"] in ("bound", "terminating") else "")
    if o_state != k_state:
        return [f"{pod}: final oracle {o_state} kruleset {k_state}"]
    return []
