"""Differential test: CapacityScheduling's arithmetic dry run decides exactly as the general one.

``kruleset.rules.quota.fast_reclaim._Cycle`` walks a node's pods, takes potential victims out of
the quota usage and reprieves them on four integers per namespace, and
refuses nodes without any possible victim before sorting; the general path
(``FastPaths(reclaim=False)``) runs the victim rules, a
:class:`~kruleset.rules.quota.accounting.QuotaView` and the filters.  Seeded random
clusters (quota namespaces lending and borrowing, a namespace without quota,
priorities, start times, PDBs, nominated pods, host ports, taints, some
extended resources that send a cycle to the general path) are simulated both
ways, with and without tracing, and every decision, every PostFilter result
and the trace are compared.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kruleset
from kruleset.rules.quota import capacity_scheduling as quota_reclaim
from kruleset.rules.quota import fast_reclaim
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.preemption.postfilter import PostFilterResult
from kruleset.sim.core import Simulation

SEEDS = range(120)


def _pod(rng: random.Random, *, pending: bool) -> str:
    cpu = rng.choice([250, 500, 1000, 1000, 1500, 2000])
    parts = [f"priority={rng.choice([0, 10, 100, 100] if pending else [0, 10, 100])}",
             f"grace-period={rng.choice(['0s', '0s', '3s'])}"]
    req = [f"cpu={cpu}m", f"memory={rng.choice([128, 500, 1024])}Mi"]
    if rng.random() < 0.04:
        req.append("example.com/gpu=1")
    parts.append(f"requests({', '.join(req)})")
    parts.append(f"labels(app={rng.choice('ab')})")
    if not pending:
        parts.append(f"started=-{rng.randint(1, 4)}s")
    if rng.random() < 0.06:
        parts.append("host-ports(8080)")
    if pending and rng.random() < 0.05:
        parts.append("preemption=Never")
    return " ".join(parts)


def scenario(seed: int) -> str:
    """A random full cluster where pods of lending quotas reclaim from borrowers."""
    rng = random.Random(seed)
    lines = [f'scenario "reclaim {seed}"']
    n_nodes = rng.randint(3, 9)
    for i in range(1, n_nodes + 1):
        extra = " example.com/gpu=2" if rng.random() < 0.1 else ""
        taint = " taints(dedicated=x:NoSchedule)" if rng.random() < 0.08 else ""
        lines.append(f"node node-{i} cpu={rng.choice([2, 4, 4, 6])} memory=8Gi "
                     f"pods={rng.choice([4, 6, 110])}{extra}{taint}")
    quota_ns = [f"ns-{k}" for k in range(1, rng.randint(2, 5) + 1)]
    for ns in quota_ns:
        lo = rng.choice([1, 2, 3, 4])
        hi = lo * rng.choice([1, 2, 3])
        lines.append(f"quota {ns} min(cpu={lo}, memory=8Gi) max(cpu={hi}, memory=16Gi)")
    namespaces = [*quota_ns, "free"]
    for j in range(rng.randint(0, 2)):
        lines.append(f"pdb {rng.choice(namespaces)}/pdb-{j} selector(app={rng.choice('ab')}) "
                     f"max-unavailable={rng.choice([0, 1])}")
    count = 0
    borrowers = quota_ns[: max(1, len(quota_ns) // 2)]
    for i in range(1, n_nodes + 1):
        for _ in range(rng.randint(1, 5)):
            count += 1
            ns = rng.choice(borrowers + ["free"] if rng.random() < 0.8 else namespaces)
            lines.append(f"pod {ns}/r{count} on node-{i} {_pod(rng, pending=False)}")
    for k in range(rng.randint(0, 3)):
        lines.append(f"pod {rng.choice(namespaces)}/early{k} {_pod(rng, pending=True)}")
    lines.append("at 1s {")
    for k in range(rng.randint(3, 10)):
        lines.append(f"  create pod {rng.choice(namespaces)}/p{k} {_pod(rng, pending=True)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _result_view(r: PostFilterResult | None) -> Any:
    if r is None:
        return None
    return (r.nominated_node, [v.key for v in r.victims], r.message, r.decided_by, r.plugin,
            [p.key for p in r.clear_nominations], r.eligible,
            [(c.node, [v.key for v in c.victims], c.num_pdb_violations,
              [p.key for p in c.reprieved],
              sorted(c.details.get("violating", ())), dict(c.details.get("why", {})))
             for c in r.candidates])


def _simulate(text: str, fast: bool, trace: bool, monkeypatch: pytest.MonkeyPatch
              ) -> tuple[list[Any], list[Any], list[Any], int]:
    results: list[Any] = []
    judged = [0]
    original_reclaim = quota_reclaim.reclaim
    original_select = fast_reclaim._Cycle.select

    def reclaim(*args: Any, **kwargs: Any) -> Any:
        out = original_reclaim(*args, **kwargs)
        results.append(_result_view(out))
        return out

    def select(self: Any, node: Any) -> Any:
        out = original_select(self, node)
        judged[0] += out is not None
        return out

    monkeypatch.setattr(quota_reclaim, "reclaim", reclaim)
    monkeypatch.setattr(fast_reclaim._Cycle, "select", select)
    try:
        sim = Simulation(kruleset.load(text), trace=trace, fast=FastPaths(reclaim=fast))
        sim.run()
    finally:
        monkeypatch.setattr(quota_reclaim, "reclaim", original_reclaim)
        monkeypatch.setattr(fast_reclaim._Cycle, "select", original_select)
    entries = ([(e.rule, e.subject, e.result, e.why) for e in sim.trace.entries]
               if sim.trace is not None else [])
    return [d.to_json() for d in sim.decisions], results, entries, judged[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_fast_reclaim_decides_as_the_general_path(seed: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    trace = seed % 2 == 0
    slow = _simulate(text, False, trace, monkeypatch)
    fast = _simulate(text, True, trace, monkeypatch)
    assert slow[3] == 0
    assert fast[1] == slow[1]
    assert fast[0] == slow[0]
    assert fast[2] == slow[2]


def test_the_generator_exercises_the_fast_reclaim(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most seeds reclaim through the arithmetic dry run, some pick nodes, some find none."""
    judged = chosen = failed = 0
    for seed in SEEDS:
        _, results, _, n = _simulate(scenario(seed), True, False, monkeypatch)
        judged += n
        for r in results:
            if r is None:
                continue
            if r[0]:
                chosen += 1
            else:
                failed += 1
    assert judged >= 300 and chosen >= 40 and failed >= 10
