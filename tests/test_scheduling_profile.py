"""KubeSchedulerConfiguration → Profile translation."""

from __future__ import annotations

import pytest

from kruleset.errors import ScenarioError
from kruleset.model.config import PluginSet, SchedulerConfig
from kruleset.rules.scheduler.config import PLUGINS, profile_for, register_plugin


def test_no_config_is_upstream_defaults():
    p = profile_for(None, quotas_present=False)
    scores = {a.name: a.weight for a in p.active("scheduler.score").rules}
    assert scores == {
        "scheduler.score.NodeResourcesFit": 1,
        "scheduler.score.NodeResourcesBalancedAllocation": 1,
        "scheduler.score.TaintToleration": 3,
        "scheduler.score.NodeAffinity": 2,
        "scheduler.score.PodTopologySpread": 2,
        "scheduler.score.InterPodAffinity": 2,
        "scheduler.score.ImageLocality": 1,  # in v1.35's default profile
        "scheduler.score.DynamicResources": 2,
    }
    assert p.active("scheduler.filter").names() == (
        "scheduler.filter.NodeUnschedulable", "scheduler.filter.NodeName",
        "scheduler.filter.TaintToleration", "scheduler.filter.NodeAffinity",
        "scheduler.filter.NodePorts", "scheduler.filter.NodeResourcesFit",
        "scheduler.filter.PodTopologySpread", "scheduler.filter.InterPodAffinity",
        "scheduler.filter.DynamicResources")


def test_config_with_no_plugins_keeps_default_order_and_weights():
    p = profile_for(SchedulerConfig(), quotas_present=False)
    d = profile_for(None, quotas_present=False)
    for rs in ("scheduler.filter", "scheduler.queue", "scheduler.preenqueue"):
        assert p.active(rs).names() == d.active(rs).names()
    assert ({a.name: a.weight for a in p.active("scheduler.score").rules}
            == {a.name: a.weight for a in d.active("scheduler.score").rules})


def test_disable_and_weights_per_point():
    cfg = SchedulerConfig(plugins={
        "score": PluginSet(enabled=(("NodeAffinity", 7),), disabled=("TaintToleration",)),
        "filter": PluginSet(disabled=("TaintToleration",)),
    })
    p = profile_for(cfg, quotas_present=False)
    names = p.active("scheduler.score").names()
    assert names[0] == "scheduler.score.NodeAffinity"
    assert "scheduler.score.TaintToleration" not in names
    assert p.active("scheduler.score").get("scheduler.score.NodeAffinity").weight == 7
    assert not p.active("scheduler.filter").enabled("scheduler.filter.TaintToleration")


def test_star_disables_every_default_at_that_point():
    cfg = SchedulerConfig(plugins={"score": PluginSet(enabled=(("NodeResourcesFit", 5),),
                                                      disabled=("*",))})
    p = profile_for(cfg, quotas_present=False)
    assert p.active("scheduler.score").names() == ("scheduler.score.NodeResourcesFit",)
    assert len(p.active("scheduler.filter").names()) == 9


def test_multipoint_disable_removes_everywhere():
    cfg = SchedulerConfig(plugins={"multiPoint": PluginSet(disabled=("NodeAffinity",))})
    p = profile_for(cfg, quotas_present=False)
    assert not p.active("scheduler.filter").enabled("scheduler.filter.NodeAffinity")
    assert not p.active("scheduler.score").enabled("scheduler.score.NodeAffinity")


def test_scoring_strategy_and_percentage():
    cfg = SchedulerConfig(plugin_args={"NodeResourcesFit": {"scoringStrategy": {
        "type": "RequestedToCapacityRatio",
        "resources": [{"name": "intel.com/foo", "weight": 5}, {"name": "cpu", "weight": 3},
                      {"name": "memory"}],
        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                               {"utilization": 100, "score": 10}]}}}},
        percentage_of_nodes_to_score=50)
    p = profile_for(cfg, quotas_present=False)
    a = p.active("scheduler.score").get("scheduler.score.NodeResourcesFit")
    assert a.args["type"] == "RequestedToCapacityRatio"
    assert a.args["resources"] == (("intel.com/foo", 5), ("cpu", 3), ("memory", 1))
    assert a.args["shape"] == ((0, 0), (100, 10))
    assert p.setting("percentageOfNodesToScore") == 50


def test_default_preemption_args_pass_through():
    cfg = SchedulerConfig(plugin_args={"DefaultPreemption": {
        "minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 5}})
    p = profile_for(cfg, quotas_present=False)
    o = p.overrides["scheduler.postfilter"]
    if "scheduler.postfilter.DefaultPreemption" in o.enable:
        assert o.args["scheduler.postfilter.DefaultPreemption"] == {
            "minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 5}


def test_unknown_plugin_suggests_a_near_name():
    cfg = SchedulerConfig(plugins={"filter": PluginSet(disabled=("TaintTolerations",))})
    with pytest.raises(ScenarioError) as e:
        profile_for(cfg, quotas_present=False)
    assert "did you mean 'TaintToleration'?" in str(e.value)
    with pytest.raises(ScenarioError):
        profile_for(SchedulerConfig(plugin_args={"NodeResourceFit": {}}), quotas_present=False)


def test_quotas_swap_preemption_for_capacity_scheduling():
    saved = dict(PLUGINS)
    try:
        register_plugin("CapacityScheduling", {"postFilter": ("scheduler.postfilter.X",)})
        p = profile_for(None, quotas_present=True)
        o = p.overrides["scheduler.postfilter"]
        assert "scheduler.postfilter.DefaultPreemption" not in o.enable
        # With a configuration, the configuration decides.
        p2 = profile_for(SchedulerConfig(), quotas_present=True)
        o2 = p2.overrides["scheduler.postfilter"]
        assert "scheduler.postfilter.X" not in o2.enable
    finally:
        PLUGINS.clear()
        PLUGINS.update(saved)


def test_bad_args_are_refused():
    cfg = SchedulerConfig(plugin_args={"NodeResourcesFit": {"scoringStrategy": {"type": "Most"}}})
    with pytest.raises(ScenarioError):
        profile_for(cfg, quotas_present=False)
    cfg2 = SchedulerConfig(plugin_args={"NodeResourcesFit": {"scoringStrategy": {
        "type": "MostAllocated", "resources": [{"name": "cpu", "weight": -1}]}}})
    with pytest.raises(ScenarioError):
        profile_for(cfg2, quotas_present=False)
