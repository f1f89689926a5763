"""Differential test: PDB selections kept as pods are added decide as the namespace walk.

``FastPaths.pdb_selection`` finds a PodDisruptionBudget's pods in an index
(:mod:`kruleset.rules.disruption.fast_selection`) instead of walking its
namespace (:func:`kruleset.rules.disruption.pdb.selected_pods`).  Random
clusters with budgets of every selector shape (one label, a label and a set,
a set alone, ``!key``, empty), pods created, deleted, recreated under the same
name with other labels, made unready, evicted, nodes drained, budgets created,
replaced and deleted over time, must give the same decisions, traces and
expectation results with the index on and off; and at any moment the index
must select what the walk selects.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kruleset
from kruleset.model.objects import Pod, PodDisruptionBudget
from kruleset.model.selectors import LabelSelector, Requirement
from kruleset.model.state import ClusterState
from kruleset.rules.disruption import fast_selection, pdb
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.sim.core import Simulation

OFF = FastPaths(pdb_selection=False)
SELECTORS = ("app=a", "app=b", "app=a, tier in (x, y)", "tier in (x)", "!canary", "")
APPS, TIERS, NAMESPACES = "abc", "xyz", ("default", "ns1")


def _labels(rng: random.Random) -> str:
    parts = [f"app={rng.choice(APPS)}"]
    if rng.random() < 0.6:
        parts.append(f"tier={rng.choice(TIERS)}")
    if rng.random() < 0.2:
        parts.append("canary=yes")
    return f"labels({', '.join(parts)})"


def _budget(rng: random.Random, ref: str) -> str:
    limit = rng.choice(["min-available=1", "min-available=2", "min-available=50%",
                        "max-unavailable=1", "max-unavailable=34%"])
    policy = " unhealthy-pod-eviction-policy=AlwaysAllow" if rng.random() < 0.2 else ""
    return f"pdb {ref} selector({rng.choice(SELECTORS)}) {limit}{policy}"


def scenario(seed: int) -> str:
    """A small cluster whose budgets and pods change while pods are evicted."""
    rng = random.Random(seed)
    nodes = rng.randint(2, 4)
    lines = [f"node n{i} cpu=8 memory=16Gi" for i in range(1, nodes + 1)]
    lines.append(f"deployment web replicas={rng.randint(2, 5)} labels(app=a, tier=x) cpu=1 "
                 "grace-period=5s")
    pods = []
    for k in range(rng.randint(4, 12)):
        ref = f"{rng.choice(NAMESPACES)}/p{k}"
        pods.append(ref)
        lines.append(f"pod {ref} on n{rng.randint(1, nodes)} {_labels(rng)} cpu=500m "
                     f"grace-period={rng.choice([0, 3, 30])}s")
    budgets = [f"{rng.choice(NAMESPACES)}/b{j}" for j in range(rng.randint(1, 4))]
    for ref in budgets:
        lines.append(_budget(rng, ref))
    live = list(budgets)
    for t in range(1, rng.randint(6, 14)):
        at = f"at {t * 4}s"
        if live:
            lines.append(f"{at} expect pdb {rng.choice(live)} "
                         f"disruptions-allowed={rng.randint(0, 2)}")
        step = rng.random()
        if step < 0.2:
            lines.append(f"{at} evict pod {rng.choice(pods + ['web-1', 'web-2'])}")
        elif step < 0.3:
            lines.append(f"{at} drain node n{rng.randint(1, nodes)}")
        elif step < 0.45:
            ref = f"{rng.choice(NAMESPACES)}/q{t}"
            pods.append(ref)
            lines.append(f"{at} create pod {ref} {_labels(rng)} cpu=500m")
        elif step < 0.55:
            ref = rng.choice(pods)
            # deleted at once, then recreated under the same name with other labels
            lines.append(f"{at} delete pod {ref} grace-period=0s")
            lines.append(f"at {t * 4 + 1}s create pod {ref} {_labels(rng)} cpu=500m")
        elif step < 0.65:
            lines.append(f"{at} unready pod {rng.choice(pods)}")
        elif step < 0.75:
            # a budget replaced by a new object (or created again) under the same name
            ref = rng.choice(budgets)
            if ref in live:
                lines.append(f"{at} delete pdb {ref}")
            lines.append(f"at {t * 4 + 1}s create {_budget(rng, ref)}")
            live = [*(b for b in live if b != ref), ref]
        elif step < 0.8 and live:
            ref = rng.choice(live)
            lines.append(f"{at} delete pdb {ref}")
            live.remove(ref)
        else:
            lines.append(f"{at} ready pod {rng.choice(pods)}")
    return "\n".join(lines) + "\n"


def _outcome(text: str, fast: FastPaths, trace: bool) -> list[Any]:
    sim = Simulation(kruleset.load(text), fast=fast, trace=trace)
    result = sim.run()
    out: list[Any] = [d.to_json() for d in sim.decisions]
    out.extend(r.to_json() for r in result.expectations)
    if sim.trace is not None:
        out.extend((e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_index_decides_and_traces_as_the_walk(seed: int) -> None:
    text = scenario(seed)
    trace = seed % 2 == 0
    assert _outcome(text, FastPaths(), trace) == _outcome(text, OFF, trace)


def test_scenarios_exercise_budgets() -> None:
    """The generator's runs reach the budget rule and both of its answers."""
    reasons = set()
    for seed in range(40):
        sim = Simulation(kruleset.load(scenario(seed)))
        sim.run()
        reasons.update(d.reason for d in sim.decisions if d.kind == "eviction-api")
    assert {"200 OK", "429 Too Many Requests"} <= reasons


def _sel(*reqs: Requirement) -> LabelSelector:
    return LabelSelector(reqs)


def test_index_follows_added_and_replaced_pods() -> None:
    """At each step the index selects what the walk selects, for every selector shape."""
    rng = random.Random(7)
    st = ClusterState()
    budgets = [
        PodDisruptionBudget("default", "one", _sel(Requirement("app", "In", ("a",))),
                            min_available=1),
        PodDisruptionBudget("default", "set", _sel(Requirement("app", "In", ("a", "b")),
                                                   Requirement("tier", "In", ("x",))),
                            min_available=1),
        PodDisruptionBudget("default", "not", _sel(Requirement("canary", "DoesNotExist")),
                            min_available=1),
        PodDisruptionBudget("default", "all", _sel(), min_available=1),
        PodDisruptionBudget("ns1", "other", _sel(Requirement("app", "In", ("a",))),
                            min_available=1),
    ]
    for b in budgets:
        st.pdbs[b.key] = b
    fast_selection.sync(st, budgets)
    for step in range(300):
        labels = {"app": rng.choice(APPS)}
        if rng.random() < 0.5:
            labels["tier"] = rng.choice(TIERS)
        if rng.random() < 0.2:
            labels["canary"] = "yes"
        ps = st.add_pod(Pod(rng.choice(NAMESPACES), f"p{rng.randint(0, 60)}", labels=labels))
        if rng.random() < 0.1:
            ps.gone = True
        if step % 50 == 49:  # a budget replaced by a new object under the same name
            old = budgets.pop(0)
            new = PodDisruptionBudget(old.namespace, old.name, old.selector, min_available=2)
            budgets.append(new)
            st.pdbs[new.key] = new
        for b in budgets:
            walked = pdb.selected_pods(st, b)
            indexed = fast_selection.selected_pods(st, b)
            assert sorted(p.key for p in indexed) == sorted(p.key for p in walked)
            assert {id(p) for p in indexed} == {id(p) for p in walked}
            assert (pdb.pdb_status(st, b, 0, FastPaths())
                    == pdb.pdb_status(st, b, 0, OFF))
