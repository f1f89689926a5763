"""Differential test: preemption's and quota reclaim's fast paths decide exactly as the general one.

Victim selection has an arithmetic fast path (free resources and host ports
counted directly instead of re-running the filters with an overlay) that is
only taken when no other filter can change its answer by removing pods.  The
general path stays callable (``FastPaths(victims=False)``).  Here
seeded random clusters (priorities, start times, PDBs, host ports, extended
resources, pod (anti-)affinity, spread constraints, nominated pods,
ElasticQuotas) are simulated both ways and everything preemption decides is
compared: the decisions, every PostFilter result (nominated node, victims in
order, candidates with their victims, reprieved pods and reasons, message,
deciding criterion) and, with tracing on, the trace itself.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kruleset
from kruleset.rules.quota import capacity_scheduling as quota_reclaim
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.preemption import defaultpreemption as preemption
from kruleset.rules.scheduler.preemption.postfilter import PostFilterResult
from kruleset.sim.core import Simulation

SEEDS = range(150)


def _pod_attrs(rng: random.Random, *, pending: bool) -> str:
    cpu = rng.choice([100, 250, 500, 900, 1000, 1500, 2000, 3000])
    mem = rng.choice([64, 256, 500, 1024, 2048])
    prio = rng.choice([50, 100, 1000, 1000] if pending else [0, 10, 10, 50, 100])
    parts = [f"priority={prio}",
             f"grace-period={rng.choice(['0s', '0s', '5s'])}"]
    req = [f"cpu={cpu}m", f"memory={mem}Mi"]
    if rng.random() < 0.15:
        req.append(f"example.com/gpu={rng.choice([1, 2])}")
    if rng.random() < 0.1:
        req.append(f"ephemeral-storage={rng.choice([1, 4])}Gi")
    parts.append(f"requests({', '.join(req)})")
    parts.append(f"labels(app={rng.choice('abc')})")
    if not pending:
        parts.append(f"started=-{rng.randint(1, 5)}s")
    if rng.random() < 0.12:
        parts.append(f"host-ports({rng.choice([8080, 9090])})")
    block = []
    if rng.random() < 0.08:
        block.append(f"anti-affinity pod required app={rng.choice('abc')} "
                     "topology=kubernetes.io/hostname")
    if pending and rng.random() < 0.08:
        block.append(f"affinity pod required app={rng.choice('abc')} "
                     "topology=topology.kubernetes.io/zone")
    if pending and rng.random() < 0.08:
        block.append(f"spread max-skew=1 topology=topology.kubernetes.io/zone "
                     f"selector(app={rng.choice('abc')})")
    text = " ".join(parts)
    if block:
        text += " {\n  " + "\n  ".join(block) + "\n}"
    return text


def scenario(seed: int) -> str:
    """A random cluster where most pending pods must preempt."""
    rng = random.Random(seed)
    quotas = seed % 4 == 3
    lines = [f'scenario "fastpath {seed}"']
    n_nodes = rng.randint(2, 7)
    for i in range(1, n_nodes + 1):
        attrs = [f"cpu={rng.choice([2, 4, 4, 8])}", "memory=8Gi",
                 f"pods={rng.choice([4, 5, 110])}",
                 f"labels(topology.kubernetes.io/zone=z{i % 2})"]
        if rng.random() < 0.3:
            attrs.append("example.com/gpu=2")
        if rng.random() < 0.2:
            attrs.append("ephemeral-storage=10Gi")
        if rng.random() < 0.1:
            attrs.append("taints(dedicated=x:NoSchedule)")
        lines.append(f"node node-{i} " + " ".join(attrs))
    namespaces = ["default"]
    if quotas:
        namespaces = ["ns-1", "ns-2", "ns-3"]
        for ns in namespaces:
            lines.append(f"namespace {ns}")
            lo = rng.choice([1, 2, 4])
            lines.append(f"quota {ns} min(cpu={lo}, memory=8Gi) max(cpu={lo * 3}, memory=32Gi)")
    for j in range(rng.randint(0, 2)):
        ns = rng.choice(namespaces)
        lines.append(f"pdb {ns}/pdb-{j} selector(app={rng.choice('abc')}) "
                     f"max-unavailable={rng.choice([0, 1, 2])}")
    count = 0
    for i in range(1, n_nodes + 1):
        for _ in range(rng.randint(1, 5)):
            count += 1
            ns = rng.choice(namespaces)
            lines.append(f"pod {ns}/r{count} on node-{i} {_pod_attrs(rng, pending=False)}")
    for k in range(rng.randint(1, 4)):
        lines.append(f"pod {rng.choice(namespaces)}/early{k} {_pod_attrs(rng, pending=True)}")
    lines.append("at 1s {")
    for k in range(rng.randint(2, 8)):
        lines.append(f"  create pod {rng.choice(namespaces)}/p{k} "
                     + _pod_attrs(rng, pending=True).replace("\n", "\n  "))
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
              ) -> tuple[list[Any], list[Any], list[Any]]:
    results: list[Any] = []
    original_preempt = preemption.preempt
    original_reclaim = quota_reclaim.reclaim

    def preempt(*args: Any, **kwargs: Any) -> Any:
        out = original_preempt(*args, **kwargs)
        results.append(_result_view(out))
        return out

    def reclaim(*args: Any, **kwargs: Any) -> Any:
        out = original_reclaim(*args, **kwargs)
        results.append(_result_view(out))
        return out

    monkeypatch.setattr(preemption, "preempt", preempt)
    monkeypatch.setattr(quota_reclaim, "reclaim", reclaim)
    try:
        sim = Simulation(kruleset.load(text), trace=trace, fast=FastPaths(victims=fast))
        sim.run()
    finally:
        monkeypatch.setattr(preemption, "preempt", original_preempt)
        monkeypatch.setattr(quota_reclaim, "reclaim", original_reclaim)
    entries = ([(e.rule, e.subject, e.result, e.why) for e in sim.trace.entries]
               if sim.trace is not None else [])
    return [d.to_json() for d in sim.decisions], results, entries


@pytest.mark.parametrize("seed", SEEDS)
def test_fast_path_decides_as_the_general_path(seed: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    trace = seed % 3 == 0
    slow = _simulate(text, False, trace, monkeypatch)
    fast = _simulate(text, True, trace, monkeypatch)
    assert fast[1] == slow[1]
    assert fast[0] == slow[0]
    assert fast[2] == slow[2]


def test_the_generator_exercises_preemption(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most seeds preempt, some fail to, some reclaim quota: the comparison is not vacuous."""
    chosen = failed = 0
    for seed in SEEDS:
        _, results, _ = _simulate(scenario(seed), True, False, monkeypatch)
        for r in results:
            if r is None:
                continue
            if r[0]:
                chosen += 1
            else:
                failed += 1
    assert chosen >= 40 and failed >= 10


def test_the_simulation_option_switches_the_plan() -> None:
    """``FastPaths(victims=False)`` on the context means no plan: the general path runs."""
    from kruleset.model.objects import Container, Node, Pod
    from kruleset.model.resources import Resources
    from kruleset.model.state import ClusterState
    from kruleset.rules.profile import Profile
    from kruleset.rules.scheduler.fast.plan import fast_plan
    from kruleset.rules.scheduler.framework import ScheduleContext

    state = ClusterState()
    state.add_node(Node("n1", Resources(cpu=1000, memory=2**30, pods=10)))
    pod = Pod("default", "p", containers=(Container("c", Resources(cpu=100)),))
    ctx = ScheduleContext(state, Profile.default())
    ctx.pod = pod
    assert fast_plan(ctx, pod) is not None
    ctx.fast = FastPaths(victims=False)
    ctx.extra.clear()
    assert fast_plan(ctx, pod) is None
