"""A scheduler plugin added from outside decides the same with the fast paths on and off.

The test adds plugins as ARCHITECTURE.md's recipe says (define the rule,
declare what its fast forms need on it, register it; enabled, the profile
runs it): a filter whose answer depends on the pods bound to the node (it
declares nothing, so no fast path may answer for it: victim selection's
arithmetic and the cycle cache step aside), a filter that reads the node
alone (``Reads("node", …)``: the arithmetic runs it once per node) and a score
without a batch form.  On the preemption generator's clusters, where they
reject nodes and preemption must remove pods, every decision (and, traced,
the trace) is the same with every fast path on as with all of them off.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any

import pytest
from test_fast_paths_off import NONE, _decisions
from test_preemption_fastpath import scenario

import kruleset
from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.engine import Reads
from kruleset.rules.registry import get_ruleset
from kruleset.rules.scheduler.fast import dry_run
from kruleset.rules.scheduler.framework import FastPaths, ScheduleContext
from kruleset.rules.scheduler.node_selection import node_pods
from kruleset.sim.core import Simulation

CROWDED = "test.filter.TwoOfAppA"
ZONED = "test.filter.AppCOutOfZ1"
FEWER = "test.score.FewerPods"


def _two_of_app_a(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                  node: NodeState) -> kruleset.Failure | None:
    """At most two app=a pods per node: depends on the node's pods (and on the pods a
    dry run takes away, which the overlay says)."""
    if pod.labels.get("app") != "a":
        return None
    if sum(1 for ps in node_pods(ctx, node) if ps.pod.labels.get("app") == "a") >= 2:
        return kruleset.Failure("node(s) already run two app=a pods")
    return None


def _app_c_out_of_z1(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                     node: NodeState) -> kruleset.Failure | None:
    if pod.labels.get("app") == "c" and node.labels.get("topology.kubernetes.io/zone") == "z1":
        return kruleset.Failure("node(s) are not for app=c")
    return None


def _app(pod: Pod) -> Hashable | None:
    return pod.labels.get("app")


def _fewer_pods(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                node: NodeState) -> int:
    return max(0, 10 - len(node.pods)) * 10


CROWDED_RULE = kruleset.Rule(CROWDED, doc="At most two app=a pods per node.", source="test",
                             fn=_two_of_app_a)
ZONED_RULE = kruleset.Rule(ZONED, doc="app=c pods stay out of zone z1.", source="test",
                           fn=_app_c_out_of_z1, reads=Reads("node", _app))
FEWER_RULE = kruleset.Rule(FEWER, doc="Fewer pods, higher score.", source="test",
                           fn=_fewer_pods, weight=2)


@pytest.fixture
def added(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Register rules for one test: ``added(rule, ruleset)``, undone afterwards."""
    def add(rule: kruleset.Rule, ruleset: str) -> None:
        rs = get_ruleset(ruleset)
        monkeypatch.setattr(rs, "rules", list(rs.rules))
        kruleset.register(rule, ruleset)

    yield add


def _plans(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each arithmetic plan asked for exists (recorded from now on)."""
    seen: list[bool] = []
    real = dry_run.fast_plan

    def counted(ctx: Any, pod: Pod, *, traced: bool = False) -> Any:
        got = real(ctx, pod, traced=traced)
        seen.append(got is not None)
        return got

    monkeypatch.setattr(dry_run, "fast_plan", counted)
    return seen


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_an_added_filter_and_score_decide_as_the_reference(seed: int, added: Any) -> None:
    added(CROWDED_RULE, "scheduler.filter")
    added(ZONED_RULE, "scheduler.filter")
    added(FEWER_RULE, "scheduler.score")
    text = scenario(seed)
    trace = seed % 9 == 0
    assert _decisions(text, NONE, trace=trace) == _decisions(text, FastPaths(), trace=trace)


@pytest.mark.parametrize("seed", range(1, 60, 3))
def test_a_declared_node_filter_keeps_the_arithmetic(seed: int, added: Any) -> None:
    added(ZONED_RULE, "scheduler.filter")
    added(FEWER_RULE, "scheduler.score")
    text = scenario(seed)
    trace = seed % 9 == 1
    assert _decisions(text, NONE, trace=trace) == _decisions(text, FastPaths(), trace=trace)


def _run(text: str, trace: bool) -> Simulation:
    sim = Simulation(kruleset.load(text), trace=trace)
    sim.run()
    return sim


def _fails(sim: Simulation, rule: str) -> int:
    assert sim.trace is not None
    return sum(1 for e in sim.trace.entries if e.rule == rule and e.result == "fail")


def test_the_added_plugins_reject_nodes_and_pods_preempt(
        added: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: the filters reject nodes where pods preempt; victim selection's
    arithmetic runs with the declared filter and steps aside for the undeclared one."""
    added(ZONED_RULE, "scheduler.filter")
    added(FEWER_RULE, "scheduler.score")
    plans = _plans(monkeypatch)
    texts = [scenario(seed) for seed in range(30)]
    zoned = preempted = 0
    for text in texts:
        zoned += _fails(_run(text, True), ZONED)
        preempted += sum(1 for d in _run(text, False).decisions if d.kind == "preempted")
    assert zoned > 10 and preempted > 10
    assert sum(plans) > 10

    added(CROWDED_RULE, "scheduler.filter")
    plans.clear()
    crowded = 0
    for text in texts:
        crowded += _fails(_run(text, True), CROWDED)
        _run(text, False)
    assert crowded > 10
    assert plans and not any(plans)
