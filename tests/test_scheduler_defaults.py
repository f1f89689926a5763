"""The default scheduler profile is data: the rule sets follow it, not module import order."""

from __future__ import annotations

from kruleset.rules.engine import Rule, RuleSet
from kruleset.rules.registry import get_ruleset
from kruleset.rules.scheduler import defaults
from kruleset.rules.scheduler.defaults import (
    DEFAULT_ARGS,
    DEFAULT_PLUGINS,
    IN_TREE_PLUGINS,
    arrange,
    default_order,
)


def _noop(*_: object) -> None:
    return None


def test_registered_scheduler_rule_sets_follow_the_default_profile() -> None:
    for point, rs_name in defaults.EXTENSION_POINTS.items():
        try:
            rs = get_ruleset(rs_name)
        except KeyError:
            continue
        order = default_order(point)
        names = [r.name for r in rs.rules]
        assert names[:len(order)] == [n for n, _ in order], rs_name
        for r in rs.rules[:len(order)]:
            if point == "score":
                assert r.weight == dict(order)[r.name], r.name
            assert dict(r.args) == dict(DEFAULT_ARGS.get(r.name, r.args)), r.name


def test_default_filter_order_is_upstreams() -> None:
    # default_plugins.go: NodeUnschedulable, NodeName, TaintToleration,
    # NodeAffinity, NodePorts, NodeResourcesFit, ..., PodTopologySpread, InterPodAffinity,
    # DynamicResources.
    plugins = [p for p, _ in DEFAULT_PLUGINS if "filter" in IN_TREE_PLUGINS[p]]
    assert plugins == ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                       "NodePorts", "NodeResourcesFit", "PodTopologySpread",
                       "InterPodAffinity", "DynamicResources"]
    assert [n for n, _ in default_order("filter")] == [
        f"scheduler.filter.{p}" for p in plugins]


def test_arrange_orders_whatever_the_registration_order() -> None:
    wanted = [n for n, _ in default_order("filter")]
    rs = RuleSet("scheduler.filter", "predicate", "test copy")
    rs.add(Rule("example.filter.Mine", "", "", _noop))
    for name in reversed(wanted):
        rs.add(Rule(name, "", "", _noop))
    rs.add(Rule("example.filter.Later", "", "", _noop))
    arrange([rs])
    assert [r.name for r in rs.rules] == [*wanted, "example.filter.Mine",
                                          "example.filter.Later"]
    fit = rs.rule(defaults.FILTER_NODE_RESOURCES_FIT)
    assert dict(fit.args) == dict(DEFAULT_ARGS[defaults.FILTER_NODE_RESOURCES_FIT])


def test_arrange_sets_default_score_weights() -> None:
    rs = RuleSet("scheduler.score", "score", "test copy")
    for name, _ in reversed(default_order("score")):
        rs.add(Rule(name, "", "", _noop))
    arrange([rs])
    assert {r.name: r.weight for r in rs.rules} == {
        "scheduler.score.TaintToleration": 3, "scheduler.score.NodeAffinity": 2,
        "scheduler.score.NodeResourcesFit": 1, "scheduler.score.PodTopologySpread": 2,
        "scheduler.score.InterPodAffinity": 2,
        "scheduler.score.NodeResourcesBalancedAllocation": 1,
        "scheduler.score.DynamicResources": 2,
        "scheduler.score.ImageLocality": 1}
