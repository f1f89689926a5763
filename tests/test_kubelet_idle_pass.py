"""Differential test: the kubelet's pass fast paths decide exactly as the full pass.

``FastPaths.quiet_kubelet`` (on by default) takes two fast paths of
``kruleset.rules.kubelet.eviction.fast_pass``: ``idle_pass``, a pass on a node
where nothing changed since a pass that met no threshold and evicted nothing
(only held conditions can expire), and ``quiet_pass``, a pass on a node whose
manager remembers nothing (its first pass, typically) computed without the
steps when nothing is met and no pod has a local-storage limit, with its bulk
form for first passes (``FirstPasses``, which leaves nodes a shared memory);
the latter two are taken only without a trace, so the odd (untraced) seeds
exercise them.  With the
option off every pass runs the reference pipeline (``eviction_pass``).  Here
seeded random clusters (hard and soft thresholds with grace periods and
minimum reclaim, transition periods, housekeeping intervals, memory, disk and
pid usage, local-storage limits, critical pods, and timeline changes: usage
updates, deletions, new pods, new nodes, labels, readiness) are simulated
with the option on and off, and compared: the decisions, the node conditions
and taints after every kubelet step, the managers' memory at the end and,
with tracing on, the trace itself.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kruleset
from kruleset.rules.kubelet.eviction import fast_pass
from kruleset.rules.kubelet.eviction.manager import manager_state, peek_state
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.paths import paths_for
from kruleset.sim import kubelet
from kruleset.sim.core import Simulation

# The kubelet passes the default FastPaths chooses (what the simulation's kubelets call).
KUBELET_PASS = paths_for(FastPaths()).kubelet_pass

SEEDS = range(120)


def _pod(rng: random.Random) -> str:
    mem = rng.choice([256, 512, 1024, 1536, 2048])
    parts = [f"requests(memory={rng.choice([128, 256, 1024])}Mi)",
             f"grace-period={rng.choice(['0s', '1s', '5s', '30s'])}"]
    if rng.random() < 0.1:
        parts.append("critical")
    else:
        parts.append(f"priority={rng.choice([0, 10, 100])}")
    usage = [f"memory={mem}Mi"]
    if rng.random() < 0.4:
        usage.append(f"ephemeral-storage={rng.choice([1, 2, 4])}Gi")
    if rng.random() < 0.3:
        usage.append(f"pids={rng.choice([100, 1000, 5000])}")
    parts.append(f"usage({', '.join(usage)})")
    if rng.random() < 0.15:
        parts.append(f"limits(memory=4Gi, ephemeral-storage={rng.choice([1, 3, 8])}Gi)")
    text = " ".join(parts)
    if rng.random() < 0.1:
        text += (" {\n  emptydir cache size-limit=1Gi "
                 f"usage={rng.choice(['512Mi', '2Gi'])}\n}}")
    return text


def scenario(seed: int) -> str:
    """A random cluster whose nodes come under pressure and recover at various times."""
    rng = random.Random(seed)
    lines = [f'scenario "idle {seed}"', "kubelet * {"]
    hard = [f"memory.available<{rng.choice(['500Mi', '1Gi', '3Gi'])}"]
    if rng.random() < 0.5:
        hard.append(f"nodefs.available<{rng.choice(['10%', '5Gi'])}")
    if rng.random() < 0.3:
        hard.append("pid.available<20000")
    lines.append("  eviction-hard " + " ".join(hard))
    if rng.random() < 0.5:
        lines.append(f"  eviction-soft memory.available<{rng.choice(['2Gi', '4Gi'])}")
        lines.append(f"  eviction-soft-grace-period memory.available={rng.choice(['0s', '20s'])}")
    if rng.random() < 0.3:
        lines.append("  eviction-minimum-reclaim memory.available=500Mi")
    lines.append(f"  eviction-pressure-transition-period {rng.choice(['15s', '1m', '5m'])}")
    lines.append(f"  housekeeping-interval {rng.choice(['5s', '10s'])}")
    lines.append("}")
    n_nodes = rng.randint(1, 4)
    for i in range(1, n_nodes + 1):
        lines.append(f"node node-{i} cpu=4 memory=8Gi ephemeral-storage=20Gi pods=110")
    count = 0
    for i in range(1, n_nodes + 1):
        for _ in range(rng.randint(1, 6)):
            count += 1
            lines.append(f"pod default/r{count} on node-{i} {_pod(rng)}")
    t = 0
    for _ in range(rng.randint(0, 5)):
        t += rng.choice([3, 10, 30, 60, 90])
        node = f"node-{rng.randint(1, n_nodes)}"
        kind = rng.random()
        if kind < 0.25:
            stmt = f"usage node {node} memory.available={rng.choice(['200Mi', '2Gi', '6Gi'])}"
        elif kind < 0.45 and count:
            stmt = (f"usage pod default/r{rng.randint(1, count)} "
                    f"memory={rng.choice(['100Mi', '3Gi'])}")
        elif kind < 0.6 and count:
            stmt = f"delete pod default/r{rng.randint(1, count)}"
        elif kind < 0.75:
            count += 1
            stmt = f"create pod default/r{count} on {node} {_pod(rng)}".replace("\n", "\n  ")
        elif kind < 0.85:
            stmt = f"node {node} {rng.choice(['not-ready', 'ready'])}"
        elif kind < 0.92:
            stmt = f"label node {node} tier={rng.choice('ab')}"
        else:
            n_nodes += 1
            stmt = f"create node node-{n_nodes} cpu=4 memory=1Gi ephemeral-storage=20Gi pods=110"
        lines.append(f"at {t}s {{\n  {stmt}\n}}")
    return "\n".join(lines) + "\n"


def _simulate(text: str, shortcut: bool, trace: bool,
              monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    steps: list[Any] = []
    original = kubelet.KubeletController.step

    def step(self: kubelet.KubeletController, sim: Simulation) -> bool:
        out = original(self, sim)
        steps.append((sim.now, out, [(n.name, dict(n.conditions), list(n.taints))
                                     for n in sim.state.nodes.values()]))
        return out

    monkeypatch.setattr(kubelet.KubeletController, "step", step)
    try:
        sim = Simulation(kruleset.load(text), trace=trace,
                         fast=FastPaths(quiet_kubelet=shortcut))
        sim.run()
    finally:
        monkeypatch.undo()
    memory = []
    for n in sim.state.nodes.values():
        st = manager_state(n)
        memory.append((n.name, st.thresholds_met, st.first_observed, st.last_observed,
                       st.last_obs_time, st.conditions, st.last_pass, st.idle,
                       st.idle_signals, st.idle_node))
    entries = ([(e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries]
               if sim.trace is not None else [])
    return [d.to_json() for d in sim.decisions], steps, memory, entries, sim.now


@pytest.mark.parametrize("seed", SEEDS)
def test_idle_pass_decides_as_the_full_pass(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    trace = seed % 2 == 0
    full = _simulate(text, False, trace, monkeypatch)
    short = _simulate(text, True, trace, monkeypatch)
    assert short[0] == full[0]
    assert short[1] == full[1]
    assert short[2] == full[2]
    assert short[3] == full[3]
    assert short[4] == full[4]


def test_the_generator_exercises_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most seeds evict and then take idle passes while conditions are held."""
    taken = [0]
    original = fast_pass.idle_pass

    def counting(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        if out is not None:
            taken[0] += 1
        return out

    seeds_taken = seeds_evicting = 0
    for seed in SEEDS:
        taken[0] = 0
        monkeypatch.setattr(KUBELET_PASS, "idle", counting)
        decisions = _simulate(scenario(seed), True, False, monkeypatch)[0]
        seeds_taken += taken[0] > 0
        seeds_evicting += any('"evicted"' in str(d) or "evicted" in str(d) for d in decisions)
    assert seeds_taken >= 40 and seeds_evicting >= 40


def test_the_generator_exercises_the_quiet_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Untraced seeds settle most first passes in bulk (``FirstPasses``), refuse some,
    and take the quiet pass on some later passes, refusing it on others."""
    outcomes = {"taken": 0, "refused": 0, "first": 0, "first refused": 0}
    original, take = fast_pass.quiet_pass, fast_pass.FirstPasses.take

    def counting(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        outcomes["taken" if out is not None else "refused"] += 1
        return out

    def counting_first(self: Any, node: Any, config: Any) -> bool:
        fresh = peek_state(node) is None
        out = take(self, node, config)
        if fresh:
            outcomes["first" if out else "first refused"] += 1
        return out

    for seed in SEEDS[1::2]:
        monkeypatch.setattr(KUBELET_PASS, "quiet", counting)
        monkeypatch.setattr(fast_pass.FirstPasses, "take", counting_first)
        _simulate(scenario(seed), True, False, monkeypatch)
    assert outcomes["first"] >= 40 and outcomes["first refused"] >= 40
    assert outcomes["taken"] >= 20 and outcomes["refused"] >= 50


def test_with_the_option_off_only_the_reference_pass_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``FastPaths(quiet_kubelet=False)`` never asks the fast paths; on, both are asked."""
    asked: list[str] = []

    def refuse(name: str) -> Any:
        def fast(*args: Any, **kwargs: Any) -> None:
            asked.append(name)
        return fast

    monkeypatch.setattr(KUBELET_PASS, "idle", refuse("idle"))
    monkeypatch.setattr(KUBELET_PASS, "quiet", refuse("quiet"))
    monkeypatch.setattr(fast_pass.FirstPasses, "take", refuse("first"))
    for seed in SEEDS[:20]:
        sim = Simulation(kruleset.load(scenario(seed)), fast=FastPaths(quiet_kubelet=False))
        sim.run()
    assert asked == []
    for seed in SEEDS[:20]:
        Simulation(kruleset.load(scenario(seed))).run()
    assert {"idle", "quiet", "first"} <= set(asked)
