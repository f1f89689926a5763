"""The candidate index decides DefaultPreemption's dry run and pick as the walk does.

``kruleset.rules.scheduler.fast.candidates.CandidateIndex`` replaces the walk
over ``numCandidates`` potential nodes and the sort of their candidates by
sorted position lists and segment trees kept across preemptors.  Checked two
ways:

* the index alone against a plain walk and a stable sort, over random
  judgements (non-violating and violating candidates, failures, keys with
  ties in every place), random changes and random numbers wanted;
* whole simulations with the cycle cache on and off
  (``FastPaths(cycle_cache=...)``), on clusters larger than the number of
  candidates wanted (a small ``minCandidateNodesAbsolute``, so the walk stops
  early and the stop rule, the capped violating list and the frontier moving
  on all matter), with PDB violations, equal priorities, start times, nominated
  pods, ties in every pick criterion, and events in between (deletes, cordons,
  taints, new nodes) that change the potential nodes: decisions, every
  PostFilter result and, traced, every trace entry must be the same.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import kruleset
from kruleset.model.objects import Node
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState
from kruleset.rules.engine import UNSCHEDULABLE, Failure
from kruleset.rules.profile import load_profile
from kruleset.rules.scheduler.fast import cycle_cache
from kruleset.rules.scheduler.fast.candidates import CandidateIndex
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.preemption import defaultpreemption as preemption
from kruleset.rules.scheduler.preemption.postfilter import Candidate
from kruleset.sim.core import Simulation
from kruleset.sim.scheduler import SchedulerController
from kruleset.sim.setup import build_profile
from tests.test_cycle_cache import _view

# --- the index against a plain walk -------------------------------------------------------

NO = Failure("no", UNSCHEDULABLE)


def _walk(results: list[Any], wanted: int, keys: dict[str, tuple[int, ...]]
          ) -> tuple[int, list[Candidate], tuple[Candidate, str | None] | None]:
    """The reference loop and a stable sort: visited, candidates, (best, runner-up node)."""
    fine: list[Candidate] = []
    bad: list[Candidate] = []
    visited = 0
    for got in results:
        visited += 1
        if not isinstance(got, Candidate):
            continue
        if got.num_pdb_violations == 0:
            if len(fine) < wanted:
                fine.append(got)
        elif len(bad) < wanted:
            bad.append(got)
        if fine and len(fine) + len(bad) >= wanted:
            break
    found = fine + bad
    if not found:
        return visited, found, None
    ranked = sorted(found, key=lambda c: keys[c.node])
    return visited, found, (ranked[0], ranked[1].node if len(ranked) > 1 else None)


def _judgement(rng: random.Random, name: str, keys: dict[str, tuple[int, ...]]) -> Any:
    roll = rng.random()
    if roll < 0.4:
        return NO
    violations = 0 if roll < 0.75 else rng.randint(1, 2)
    c = Candidate(name, (), violations)
    # Few distinct values: ties in every place of the key (the node's place is not in it).
    keys[name] = (violations, rng.randint(0, 2), rng.randint(0, 2), rng.randint(1, 2),
                  rng.randint(-1, 0))
    return c


@pytest.mark.parametrize("seed", range(200))
def test_the_index_finds_what_the_walk_finds(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every third seed traced (each position keeps a place in a judgement log); traced,
    a query's visits, read only at the end (after later changes), are those of the
    query.  Half the traced seeds take a new base of the results at every query."""
    from kruleset.rules.scheduler.fast import candidates

    rng = random.Random(seed)
    traced = seed % 3 == 0
    monkeypatch.setattr(candidates, "_REBASE_AT", 0 if seed % 2 else 1 << 30)
    n = rng.randint(1, 70)
    nodes = [Node(f"n{i}", Resources(cpu=1)) for i in range(n)]
    keys: dict[str, tuple[int, ...]] = {}
    current = {node.name: _judgement(rng, node.name, keys) for node in nodes}
    log: list[tuple[Any, ...]] | None = [] if traced else None
    index = CandidateIndex(nodes, log, True)  # type: ignore[arg-type]
    visits: list[tuple[Any, ...]] = []
    for _ in range(12):
        wanted = rng.randint(1, n + 2)
        judged: list[str] = []

        def judge(node: Any, judged: list[str] = judged) -> Any:
            judged.append(node.name)
            if log is None:
                return current[node.name]
            log.append((current[node.name], [], 0, "", node.name))
            return len(log) - 1

        w = index.query(wanted, judge, lambda c: keys[c.node])
        visited, found, pick = _walk([current[node.name] for node in nodes], wanted, keys)
        assert w.visited == visited
        assert list(index.candidates(w)) == found
        if traced:
            seen = [current[node.name] for node in nodes[:visited]]
            visits.append((index.visits(w), seen, [int(c.node[1:]) for c in found],
                           [keys[c.node] for c in found]))
        assert w.failed == sum(1 for node in nodes[:visited]
                               if not isinstance(current[node.name], Candidate))
        if pick is not None:
            place, best, runner = index.best_two(w)
            assert found[place] is pick[0]
            assert best == keys[pick[0].node]
            assert runner == (None if pick[1] is None else keys[pick[1]])
        assert len(set(judged)) == len(judged)  # each node judged once per change
        changed = rng.sample([node.name for node in nodes], rng.randint(0, min(n, 4)))
        for name in changed:
            current[name] = _judgement(rng, name, keys)
        index.changed(changed)
    for got, seen, positions, wanted_keys in visits:
        assert log is not None
        assert [log[k][0] for k in got.own()] == seen
        assert got.chosen() == positions
        assert got.names() == [f"n{p}" for p in positions]
        assert got.keys() == wanted_keys


def test_a_changed_node_beyond_the_frontier_waits_for_the_walk() -> None:
    """Only judged positions are judged again; the others are judged when reached."""
    nodes = [Node(f"n{i}", Resources(cpu=1)) for i in range(6)]
    keys = {f"n{i}": (0, 0, 0, 1, 0, i) for i in range(6)}
    calls: list[str] = []

    def judge(node: Any) -> Any:
        calls.append(node.name)
        return Candidate(node.name, ())

    index = CandidateIndex(nodes, None, True)  # type: ignore[arg-type]
    w = index.query(2, judge, lambda c: keys[c.node])
    assert (w.visited, calls) == (2, ["n0", "n1"])
    index.changed(["n1", "n4"])
    w = index.query(2, judge, lambda c: keys[c.node])
    assert (w.visited, calls) == (2, ["n0", "n1", "n1"])


# --- whole simulations, cycle cache on and off ----------------------------------------------

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: {pct}
      minCandidateNodesAbsolute: {absolute}
"""


def _low(rng: random.Random) -> str:
    return (f"priority={rng.choice([0, 10, 10, 50])} "
            f"started=-{rng.choice([1, 2, 2, 5])}s "
            f"grace-period={rng.choice(['0s', '0s', '2s'])} "
            f"labels(app={rng.choice('ab')}) "
            f"requests(cpu={rng.choice([500, 900, 900, 1000])}m, memory=1Gi)")


def _preemptor(rng: random.Random) -> str:
    return (f"priority={rng.choice([50, 100, 1000, 1000])} "
            f"grace-period=0s requests(cpu={rng.choice([900, 1500, 3000])}m, memory=1Gi)")


def scenario(seed: int, config: Path) -> str:
    """Many nodes full of low-priority pods, and bursts of identical preemptors."""
    rng = random.Random(seed)
    n = rng.randint(8, 40)
    lines = [f'scenario "candidate index {seed}"', f'config scheduler "{config}"',
             f"nodes node-[1..{n}] cpu=4 memory=16Gi pods=110 "
             "labels(topology.kubernetes.io/zone=z1)"]
    for j in range(rng.randint(0, 2)):
        lines.append(f"pdb default/keep-{j} selector(app={rng.choice('ab')}) "
                     f"max-unavailable={rng.choice([0, 1, 2])}")
    same = _low(rng)  # one shape on many nodes: ties in every pick criterion
    for i in range(1, n + 1):
        for k in range(1, rng.randint(1, 4) + 1):
            attrs = same if rng.random() < 0.6 else _low(rng)
            lines.append(f"pod default/low-{i}-{k} on node-{i} {attrs}")
    if rng.random() < 0.5:
        lines.append(f"pods default/early-[1..{rng.randint(1, 3)}] {_preemptor(rng)}")
    for t in range(1, rng.randint(2, 5)):
        lines.append(f"at {t}s {{")
        lines.append(f"  create pods default/b{t}-[1..{rng.randint(2, n)}] {_preemptor(rng)}")
        event = rng.random()
        node = f"node-{rng.randint(1, n)}"
        if event < 0.15:
            lines.append(f"  taint node {node} dedicated=x:NoSchedule")
        elif event < 0.3:
            lines.append(f"  cordon node {node}")
        elif event < 0.45:
            lines.append(f"  delete pod default/low-{rng.randint(1, n)}-1")
        elif event < 0.55:
            lines.append(f"  create node node-new-{t} cpu=4 memory=16Gi pods=110 "
                         "labels(topology.kubernetes.io/zone=z1)")
        lines.append("}")
    return "\n".join(lines) + "\n"


def _config(tmp_path: Path, seed: int) -> Path:
    rng = random.Random(-seed)
    path = tmp_path / "scheduler.yaml"
    path.write_text(CONFIG.format(pct=rng.choice([0, 10, 30]), absolute=rng.choice([1, 2, 3, 5])))
    return path


def _simulate(text: str, cache: bool, trace: bool, monkeypatch: pytest.MonkeyPatch,
              profile: Path | None = None) -> tuple[Any, ...]:
    results: list[Any] = []
    original = preemption.preempt

    def preempt(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        results.append(_view(out))
        return out

    monkeypatch.setattr(preemption, "preempt", preempt)
    try:
        loaded = kruleset.load(text)
        prof = build_profile(loaded)
        if profile is not None:
            prof = prof.merged(load_profile(profile))
        sim = Simulation(loaded, profile=prof, trace=trace, fast=FastPaths(cycle_cache=cache))
        sim.run()
    finally:
        monkeypatch.setattr(preemption, "preempt", original)
    hits = sum(c.memo.hits for c in sim.controllers if isinstance(c, SchedulerController))
    entries = ([(e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries]
               if sim.trace is not None else [])
    final = [(ps.key, ps.phase, ps.node, ps.nominated, ps.schedule_message)
             for ps in sim.state.pods.values()]
    return [d.to_json() for d in sim.decisions], results, final, entries, hits


@pytest.mark.parametrize("seed", range(60))
def test_the_cache_decides_as_the_walk(seed: int, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed, _config(tmp_path, seed))
    trace = seed % 3 == 0
    # Every other traced seed folds the search's changes into a new base at each change.
    monkeypatch.setattr(cycle_cache, "_FOLD", 0 if seed % 2 == 0 else 64)
    without = _simulate(text, False, trace, monkeypatch)
    with_cache = _simulate(text, True, trace, monkeypatch)
    assert without[4] == 0
    assert with_cache[:4] == without[:4]


def test_the_generator_stops_early_and_preempts(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk stops before the last node, nodes are preempted on, the cache answers,
    and the pick is decided by more than one criterion."""
    stopped = preempted = hit = 0
    criteria: set[str] = set()
    for seed in range(60):
        text = scenario(seed, _config(tmp_path, seed))
        decisions, results, _, _, hits = _simulate(text, True, False, monkeypatch)
        hit += hits > 0
        preempted += any(d["kind"] == "preempted" for d in decisions)
        nodes = int(text.split("node-[1..")[1].split("]")[0])
        stopped += any(r is not None and 0 < len(r[5]) < nodes for r in results)
        criteria |= {r[3].split(":")[0] for r in results if r is not None and r[3]}
    assert hit >= 40 and preempted >= 40 and stopped >= 30
    assert {"scheduler.preemption.pick.fewest-pdb-violations",
            "scheduler.preemption.pick.lowest-highest-priority",
            "scheduler.preemption.pick.latest-start",
            "scheduler.preemption.pick.first-declared-node"} <= criteria


PICK_PROFILE = """rulesets:
  scheduler.preemption.pick:
    order: [scheduler.preemption.pick.fewest-victims]
"""


@pytest.mark.parametrize("seed", range(0, 60, 5))
def test_other_pick_criteria_pick_from_the_index_candidates(
        seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a non-default pick order the index keeps no keys; the rules pick."""
    text = scenario(seed, _config(tmp_path, seed))
    profile = tmp_path / "profile.yaml"
    profile.write_text(PICK_PROFILE)
    trace = seed % 2 == 0
    without = _simulate(text, False, trace, monkeypatch, profile)
    with_cache = _simulate(text, True, trace, monkeypatch, profile)
    assert with_cache[:4] == without[:4]


def test_the_fold_keeps_the_failures_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A handed-out search's failures never change, whether later changes fold or not."""
    state = ClusterState()
    nodes = [state.add_node(Node(f"n{i}", Resources(cpu=1000, pods=10))) for i in range(4)]
    memo = cycle_cache.CycleCache(state)
    first = {node.name: Failure(f"f-{node.name}", UNSCHEDULABLE) for node in nodes}
    memo.keep_all_failed("k", dict(first), 0)
    monkeypatch.setattr(cycle_cache, "_FOLD", 1)
    handed = []
    for step in range(4):
        state.touch(f"n{step}")
        got = memo.all_failed("k", nodes, 0, lambda node, s=step: Failure(
            f"g{s}-{node.name}", UNSCHEDULABLE))
        assert got is not None
        handed.append((got, {name: got[name] for name in got}))
    for got, seen in handed:
        assert dict(got.items()) == seen and list(got) == list(first)
        assert [got.get(n) for n in got] == list(seen.values())
