"""Differential test: results kept across scheduling cycles change no decision.

The scheduler keeps, per pod shape, each node's filter failure and
preemption dry-run result, and re-judges only the nodes the cluster's touched
log names (``kruleset.rules.scheduler.fast.cycle_cache``).  Here seeded random clusters where
many pending pods share a shape (ranges) are simulated with the cache and
without it (``Simulation(..., fast=FastPaths(cycle_cache=False))``): decisions, every PostFilter
result and the pods' final states must be identical, with events in between
(taints, cordons, deletes, new pods) that move the epoch, terminating
victims (grace periods), PodDisruptionBudgets, nominated pods of several
priorities, host ports and pods that the cache must not take (anti-affinity,
spread).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kruleset
from kruleset.rules.quota import capacity_scheduling as quota_reclaim
from kruleset.rules.scheduler.fast import cycle_cache
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.preemption import defaultpreemption as preemption
from kruleset.rules.scheduler.preemption.postfilter import PostFilterResult
from kruleset.sim.core import Simulation
from kruleset.sim.scheduler import SchedulerController

SEEDS = range(120)


def _shape(rng: random.Random) -> str:
    cpu = rng.choice([300, 900, 1500, 3000])
    parts = [f"priority={rng.choice([100, 500, 1000])}",
             f"grace-period={rng.choice(['0s', '0s', '3s'])}",
             f"requests(cpu={cpu}m, memory={rng.choice([256, 500, 2048])}Mi)",
             f"labels(app={rng.choice('ab')})"]
    if rng.random() < 0.1:
        parts.append("host-ports(8080)")
    if rng.random() < 0.1:
        parts.append("tolerations(dedicated=x:NoSchedule)")
    text = " ".join(parts)
    if rng.random() < 0.1:
        text += (" {\n  anti-affinity pod required app=a topology=kubernetes.io/hostname\n}")
    elif rng.random() < 0.1:
        text += (" {\n  spread max-skew=1 topology=topology.kubernetes.io/zone "
                 "selector(app=b)\n}")
    return text


def scenario(seed: int) -> str:
    """Full nodes of low-priority pods, then bursts of identical pending pods."""
    rng = random.Random(seed)
    n = rng.randint(3, 12)
    lines = [f'scenario "cycle cache {seed}"',
             f"nodes node-[1..{n}] cpu=4 memory=16Gi pods={rng.choice([6, 110])} "
             "labels(topology.kubernetes.io/zone=z1)"]
    if rng.random() < 0.3:
        lines.append(f"pdb default/keep selector(app=low) max-unavailable={rng.choice([0, 1])}")
    for i in range(1, n + 1):
        k = rng.randint(1, 4)
        lines.append(f"pods default/low-{i}-[1..{k}] on node-{i} priority={rng.choice([0, 10])} "
                     f"grace-period={rng.choice(['0s', '2s'])} labels(app=low) "
                     f"requests(cpu={rng.choice([500, 900, 1000])}m, memory=1Gi)")
    for b in range(rng.randint(1, 3)):
        lines.append(f"pods default/early{b}-[1..{rng.randint(1, 4)}] {_shape(rng)}")
    for t in range(1, rng.randint(2, 5)):
        lines.append(f"at {t}s {{")
        lines.append(f"  create pods default/b{t}-[1..{rng.randint(2, 2 * n)}] "
                     + _shape(rng).replace("\n", "\n  "))
        event = rng.random()
        node = f"node-{rng.randint(1, n)}"
        if event < 0.2:
            lines.append(f"  taint node {node} dedicated=x:NoSchedule")
        elif event < 0.35:
            lines.append(f"  cordon node {node}")
        elif event < 0.5:
            lines.append(f"  delete pod default/low-{rng.randint(1, n)}-1")
        lines.append("}")
    return "\n".join(lines) + "\n"


def _view(r: PostFilterResult | None) -> Any:
    if r is None:
        return None
    return (r.nominated_node, [v.key for v in r.victims], r.message, r.decided_by,
            [p.key for p in r.clear_nominations],
            [(c.node, [v.key for v in c.victims], c.num_pdb_violations,
              [p.key for p in c.reprieved]) for c in r.candidates])


def _simulate(text: str, enabled: bool, monkeypatch: pytest.MonkeyPatch
              ) -> tuple[list[Any], list[Any], list[Any], int]:
    results: list[Any] = []
    original = preemption.preempt

    def preempt(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        results.append(_view(out))
        return out

    monkeypatch.setattr(preemption, "preempt", preempt)
    try:
        sim = Simulation(kruleset.load(text), fast=FastPaths(cycle_cache=enabled))
        sim.run()
    finally:
        monkeypatch.setattr(preemption, "preempt", original)
    hits = sum(c.memo.hits for c in sim.controllers if isinstance(c, SchedulerController))
    final = [(ps.key, ps.phase, ps.node, ps.nominated, ps.schedule_message)
             for ps in sim.state.pods.values()]
    return [d.to_json() for d in sim.decisions], results, final, hits


@pytest.mark.parametrize("seed", SEEDS)
def test_cache_decides_as_without(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    without = _simulate(text, False, monkeypatch)
    with_cache = _simulate(text, True, monkeypatch)
    assert without[3] == 0
    assert with_cache[1] == without[1]
    assert with_cache[0] == without[0]
    assert with_cache[2] == without[2]


def test_the_generator_exercises_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most seeds answer searches and dry-run nodes from the cache and preempt."""
    hit = preempted = 0
    for seed in SEEDS:
        decisions, _, _, hits = _simulate(scenario(seed), True, monkeypatch)
        hit += hits > 0
        preempted += any(d["kind"] == "preempted" for d in decisions)
    assert hit >= len(SEEDS) // 2
    assert preempted >= len(SEEDS) // 2


# --- CapacityScheduling reclaim: only the two best candidates are needed --------------

QUOTA_SEEDS = range(60)


def quota_scenario(seed: int) -> str:
    """Borrowing namespaces fill the nodes; lenders reclaim in bursts of identical pods."""
    rng = random.Random(seed)
    n = rng.randint(3, 10)
    lines = [f'scenario "reclaim cache {seed}"',
             f"nodes node-[1..{n}] cpu=4 memory=16Gi pods=110"]
    spaces = rng.randint(2, 4)
    total = 4 * n
    for i in range(1, spaces + 1):
        lo = max(1, total // spaces - rng.choice([0, 1]))
        lines.append(f"quota ns-{i} min(cpu={lo}, memory=64Gi) max(cpu={2 * lo}, memory=128Gi)")
    for node in range(1, n + 1):
        for k in range(rng.randint(2, 4)):
            ns = rng.randint(1, max(1, spaces // 2))
            lines.append(f"pod ns-{ns}/b-{node}-{k} on node-{node} "
                         f"priority={rng.choice([0, 0, 10, 50])} "
                         f"grace-period={rng.choice(['0s', '0s', '2s'])} "
                         f"started=-{rng.randint(1, 9)}s requests(cpu=1, memory=1Gi)")
    for t in range(1, rng.randint(2, 4)):
        lines.append(f"at {t}s {{")
        for i in range(spaces // 2 + 1, spaces + 1):
            lines.append(f"  create pods ns-{i}/r{t}-[1..{rng.randint(1, n)}] "
                         f"priority={rng.choice([0, 10, 100])} grace-period=0s "
                         f"requests(cpu={rng.choice([1, 1, 2])}, memory=1Gi)")
        lines.append("}")
    return "\n".join(lines) + "\n"


def _reclaim_view(r: PostFilterResult | None) -> Any:
    if r is None:
        return None
    # Candidates are left out: with the cache on, nodes that cannot beat the
    # runner-up are not dry-run, so fewer candidates are listed.
    return (r.nominated_node, [v.key for v in r.victims], r.message, r.decided_by,
            [p.key for p in r.clear_nominations])


def _simulate_reclaim(text: str, enabled: bool, monkeypatch: pytest.MonkeyPatch
                      ) -> tuple[list[Any], list[Any], int]:
    results: list[Any] = []
    original = quota_reclaim.reclaim
    candidates = [0]

    def reclaim(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        results.append(_reclaim_view(out))
        if out is not None:
            candidates[0] += len(out.candidates)
        return out

    monkeypatch.setattr(quota_reclaim, "reclaim", reclaim)
    try:
        sim = Simulation(kruleset.load(text), fast=FastPaths(cycle_cache=enabled))
        sim.run()
    finally:
        monkeypatch.setattr(quota_reclaim, "reclaim", original)
    return [d.to_json() for d in sim.decisions], results, candidates[0]


@pytest.mark.parametrize("seed", QUOTA_SEEDS)
def test_reclaim_with_cache_decides_as_without(seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    text = quota_scenario(seed)
    without = _simulate_reclaim(text, False, monkeypatch)
    with_cache = _simulate_reclaim(text, True, monkeypatch)
    assert with_cache[1] == without[1]
    assert with_cache[0] == without[0]


def test_the_reclaim_generator_prunes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reclaim happens, and the cache skips dry runs (fewer candidates listed)."""
    reclaimed = pruned = 0
    for seed in QUOTA_SEEDS:
        text = quota_scenario(seed)
        decisions, _, listed = _simulate_reclaim(text, True, monkeypatch)
        _, _, all_listed = _simulate_reclaim(text, False, monkeypatch)
        reclaimed += any(d["kind"] == "preempted" for d in decisions)
        pruned += listed < all_listed
    assert reclaimed >= len(QUOTA_SEEDS) // 2
    assert pruned >= len(QUOTA_SEEDS) // 4


# --- tracing on: the same entries, replayed from what the cache kept ---------------------

def _traced(text: str, enabled: bool, monkeypatch: pytest.MonkeyPatch
            ) -> tuple[list[Any], list[Any], int]:
    sim = Simulation(kruleset.load(text), trace=True, fast=FastPaths(cycle_cache=enabled))
    sim.run()
    assert sim.trace is not None
    hits = sum(c.memo.hits for c in sim.controllers if isinstance(c, SchedulerController))
    entries = [(e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries]
    assert len(entries) == len(sim.trace)
    return [d.to_json() for d in sim.decisions], entries, hits


@pytest.mark.parametrize("seed", range(0, 120, 2))
def test_traced_cache_records_as_without(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches, dry-run nodes and the pick, traced with the cache on, record exactly
    the entries they record with it off (the pod's subject substituted on replay).

    Every other seed takes a new base of the search's failures at each change,
    the others never do, so both the base and the changes since are read.
    """
    text = scenario(seed)
    monkeypatch.setattr(cycle_cache, "_REBASE", 0 if seed % 4 == 0 else 1 << 30)
    without = _traced(text, False, monkeypatch)
    with_cache = _traced(text, True, monkeypatch)
    assert without[2] == 0
    assert with_cache[0] == without[0]
    assert with_cache[1] == without[1]


def test_traced_runs_use_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Traced simulations answer from the cache too (else the test above proves nothing)."""
    hit = sum(_traced(scenario(seed), True, monkeypatch)[2] > 0 for seed in range(0, 120, 2))
    assert hit >= 30


def _traced_reclaim(text: str, enabled: bool, monkeypatch: pytest.MonkeyPatch
                    ) -> tuple[list[Any], list[Any], list[Any]]:
    sim = Simulation(kruleset.load(text), trace=True, fast=FastPaths(cycle_cache=enabled))
    sim.run()
    assert sim.trace is not None
    entries = [(e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries]
    prefilter = [e for e in entries if e[0].startswith("scheduler.prefilter.CapacityScheduling")]
    skipped = [e for e in entries if e[2].endswith(": not dry-run")]
    return [d.to_json() for d in sim.decisions], prefilter, skipped


@pytest.mark.parametrize("seed", range(0, 60, 2))
def test_traced_reclaim_decides_as_without(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Traced, the reclaim skips the same nodes (saying so) and decides as without
    the cache; PreFilter lists the same nominated pods from the namespace sums."""
    text = quota_scenario(seed)
    without = _traced_reclaim(text, False, monkeypatch)
    with_cache = _traced_reclaim(text, True, monkeypatch)
    assert with_cache[0] == without[0]
    assert with_cache[1] == without[1]
    assert without[2] == []


def test_traced_reclaim_explains_the_skipped_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nodes left out of the dry run are in the trace, with the runner-up that beats them."""
    skipped = [e for seed in range(0, 60, 2)
               for e in _traced_reclaim(quota_scenario(seed), True, monkeypatch)[2]]
    assert len(skipped) >= 10
    assert any("even its best possible keys lose (scheduler.preemption.pick." in e[3]
               for e in skipped)
    nominated = [e for seed in range(0, 60, 2)
                 for e in _traced_reclaim(quota_scenario(seed), True, monkeypatch)[1]
                 if "nominated" in e[3]]
    assert nominated


def test_a_traced_search_replays_a_changed_node_from_the_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The base of failures is kept; a node changed since is read from the changes,
    with its new failure (here a plain one: the rules before the failing one passed).
    A change made after the search is not read: it sees only the changes before it."""
    from kruleset.model.objects import Node
    from kruleset.model.resources import Resources
    from kruleset.model.state import ClusterState
    from kruleset.rules.engine import Failure, Trace
    from kruleset.rules.scheduler.fast.search_trace import trace_kept

    monkeypatch.setattr(cycle_cache, "_REBASE", 1 << 30)
    state = ClusterState()
    nodes = [state.add_node(Node(f"n{i}", Resources(cpu=1000, pods=10))) for i in (1, 2)]
    names = ["first", "second"]
    cpu = Failure("Insufficient cpu", "Unschedulable", "second")
    taint = Failure("untolerated taint", "UnschedulableAndUnresolvable", "first")
    memo = cycle_cache.CycleCache(state)
    failures = {"n1": cpu, "n2": cpu}
    info = {name: cycle_cache.plain_info(names, f) for name, f in failures.items()}
    cycle_cache.keep_all_failed_traced(memo, "k", failures, 0, names, info)
    first = cycle_cache.all_failed_traced(memo, "k", nodes, 0, names,
                                          lambda node: (cpu, (1, cpu.reason)))
    assert first is not None
    state.touch("n2")
    got = cycle_cache.all_failed_traced(memo, "k", nodes, 0, names,
                                        lambda node: (taint, (0, taint.reason)))
    assert got is not None
    out, base, since, odd, count = got
    assert base is first[1] and base["n2"] is cpu
    assert out["n2"] is taint and count == 3
    assert since == ([("n2", (taint.rule, taint.reason, None))], 1)
    trace = Trace()
    rules: Any = [(None, None, name) for name in names]
    pod: Any = type("P", (), {"key": "ns/p"})()
    trace_kept(trace, pod, rules, base, odd, since, count)
    state.touch("n1")
    later = cycle_cache.all_failed_traced(memo, "k", nodes, 0, names,
                                          lambda node: (taint, (0, taint.reason)))
    assert later is not None and later[1] is base and later[2][1] == 2
    assert [(e.rule, e.subject, e.result, e.why) for e in trace.entries] == [
        ("first", "ns/p on n1", "pass", ""), ("second", "ns/p on n1", "fail", "Insufficient cpu"),
        ("first", "ns/p on n2", "fail", "untolerated taint")]
    assert len(trace) == 3
