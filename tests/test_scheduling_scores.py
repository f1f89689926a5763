"""Score rules and their upstream integer (and float) arithmetic."""

from __future__ import annotations

import math

from test_scheduling_support import (
    GI,
    MI,
    Requirement,
    Taint,
    Toleration,
    bind,
    cluster,
    node,
    node_term,
    pod,
    preferred,
    required,
    sel,
    spread,
    wterm,
)

from kruleset.model.config import SchedulerConfig
from kruleset.rules.scheduler.config import profile_for
from kruleset.rules.scheduler.cycle import schedule_pod
from kruleset.rules.scheduler.scores.noderesourcesbalancedallocation import balanced_score
from kruleset.rules.scheduler.scores.noderesourcesfit import (
    broken_linear,
    least_allocated,
    most_allocated,
    requested_to_capacity_ratio,
)
from kruleset.rules.scheduler.scores.normalize import default_normalize

SHAPE = ((0, 0), (100, 10))
# seed 003 §10: resources foo (weight 5), memory (1), cpu (3); (allocatable, requested incl. pod)
NODE1 = [(4, 1 + 2, 5), (1024, 256 + 256, 1), (8, 1 + 2, 3)]
NODE2 = [(8, 2 + 2, 5), (1024, 512 + 256, 1), (8, 6 + 2, 3)]


def test_worked_example_gives_5_and_7_on_the_documents_scale():
    assert requested_to_capacity_ratio(NODE1, SHAPE, scale=1) == 5
    assert requested_to_capacity_ratio(NODE2, SHAPE, scale=1) == 7


def test_worked_example_as_upstream_scores_it():
    # Scaled shape (x10): foo 75, memory 50, cpu 37 -> round(536/9) = 60; node 2: 625/9 -> 69.
    assert requested_to_capacity_ratio(NODE1, SHAPE) == 60
    assert requested_to_capacity_ratio(NODE2, SHAPE) == 69


def test_rtcr_leaves_zero_scoring_resources_out_of_the_weights():
    # cpu at 0% scores 0 and is left out: (50*1) / 1, not (50*1 + 0*3) / 4.
    assert requested_to_capacity_ratio([(100, 50, 1), (8, 0, 3)], SHAPE) == 50


def test_broken_linear_interpolates_and_clamps():
    shape = ((0, 100), (50, 0), (100, 50))
    assert broken_linear(shape, 0) == 100
    assert broken_linear(shape, 25) == 50
    assert broken_linear(shape, 75) == 25
    assert broken_linear(shape, 150) == 50
    # Decreasing segments truncate toward zero as Go does.
    assert broken_linear(((0, 10), (3, 0)), 1) == 7  # 10 + trunc(-10/3)


def test_least_and_most_allocated_integer_math():
    pairs = [(4000, 1000, 1), (8 * GI, 3 * GI, 1)]
    # cpu (3000*100)//4000 = 75, memory (5*100)//8 = 62 -> 137 // 2 = 68.
    assert least_allocated(pairs) == 68
    # cpu 25, memory 37 -> 31.
    assert most_allocated(pairs) == 31
    assert least_allocated([(4000, 5000, 1)]) == 0
    assert most_allocated([(4000, 5000, 1)]) == 100


def test_balanced_allocation_float_math():
    # fractions 0.25 and 0.5: std 0.125 -> int(87.5) = 87.
    assert balanced_score([(4000, 1000, 1), (8, 4, 1)]) == 87
    three = [(10, 1, 1), (10, 5, 1), (10, 9, 1)]
    fr = [0.1, 0.5, 0.9]
    mean = sum(fr) / 3
    std = math.sqrt(sum((f - mean) ** 2 for f in fr) / 3)
    assert balanced_score(three) == int((1 - std) * 100)


def test_balanced_allocation_skips_pods_requesting_nothing():
    s = cluster(node("n1"), node("n2"))
    bind(s, pod("x", 3000, GI), "n1")
    r = schedule_pod(s, pod("be"))
    assert r.per_rule["scheduler.score.NodeResourcesBalancedAllocation"] == {"n1": 0, "n2": 0}
    r2 = schedule_pod(s, pod("p", 500, GI))
    assert r2.per_rule["scheduler.score.NodeResourcesBalancedAllocation"]["n2"] > 0


def test_least_allocated_uses_non_zero_defaults():
    s = cluster(node("n1", cpu=1000, memory=1000 * MI))
    r = schedule_pod(s, pod("be"))
    assert r.node == "n1"
    s2 = cluster(node("n1", cpu=1000, memory=1000 * MI), node("n2", cpu=1000, memory=1000 * MI))
    r2 = schedule_pod(s2, pod("be"))
    # 100m of 1000m -> 90, 200Mi of 1000Mi -> 80: (90 + 80) // 2 = 85.
    assert r2.per_rule["scheduler.score.NodeResourcesFit"] == {"n1": 85, "n2": 85}


def test_default_normalize():
    assert default_normalize([0, 0], False) == [0, 0]
    assert default_normalize([0, 0], True) == [100, 100]
    assert default_normalize([1, 3], False) == [33, 100]
    assert default_normalize([1, 3], True) == [67, 0]


def test_taint_toleration_score_counts_untolerated_prefer_no_schedule():
    s = cluster(node("n1", taints=(Taint("a", "", "PreferNoSchedule"),
                                   Taint("b", "", "PreferNoSchedule"))),
                node("n2", taints=(Taint("a", "", "PreferNoSchedule"),)), node("n3"))
    r = schedule_pod(s, pod("p"))
    assert r.per_rule["scheduler.score.TaintToleration"] == {"n1": 0, "n2": 50, "n3": 100}
    # A NoSchedule-effect toleration does not count for PreferNoSchedule scoring.
    tol = (Toleration("a", "Exists", "", "NoSchedule"),)
    r2 = schedule_pod(s, pod("q", tolerations=tol))
    assert r2.per_rule["scheduler.score.TaintToleration"]["n2"] == 50
    tol2 = (Toleration("a", "Exists", "", ""),)
    r3 = schedule_pod(s, pod("q", tolerations=tol2))
    assert r3.per_rule["scheduler.score.TaintToleration"] == {"n1": 0, "n2": 100, "n3": 100}


def test_node_affinity_weights_sum_and_normalise():
    s = cluster(node("n1", labels={"label-1": "key-1"}), node("n2", labels={"label-2": "key-2"}),
                node("n3", labels={"label-1": "key-1", "label-2": "key-2"}))
    aff = preferred((1, node_term(Requirement("label-1", "In", ("key-1",)))),
                    (50, node_term(Requirement("label-2", "In", ("key-2",)))))
    r = schedule_pod(s, pod("p", node_affinity=aff))
    assert r.per_rule["scheduler.score.NodeAffinity"] == {"n1": 1, "n2": 98, "n3": 100}
    assert r.node == "n3"


def test_inter_pod_affinity_score_min_max_normalisation():
    s = cluster(node("n1", labels={"zone": "a"}), node("n2", labels={"zone": "b"}),
                node("n3", labels={"zone": "c"}))
    bind(s, pod("s2", labels={"security": "S2"}), "n1")
    bind(s, pod("s1", labels={"security": "S1"}), "n2")
    p = pod("p", pod_anti_affinity_preferred=(wterm(100, "zone", sel(security="S2")),),
            pod_affinity_preferred=(wterm(30, "zone", sel(security="S1")),))
    r = schedule_pod(s, p)
    # raw: n1 -100, n2 +30, n3 0 -> (s + 100) / 130 * 100 truncated.
    assert r.per_rule["scheduler.score.InterPodAffinity"] == {
        "n1": 0, "n2": 100, "n3": int(100.0 * (100 / 130))}
    assert r.node == "n2"


def test_existing_pods_required_affinity_attracts_with_hard_weight():
    s = cluster(node("n1"), node("n2"))
    from test_scheduling_support import term
    bind(s, pod("fan", pod_affinity=(term("kubernetes.io/hostname", sel(app="star")),)), "n2")
    r = schedule_pod(s, pod("star", labels={"app": "star"}))
    assert r.per_rule["scheduler.score.InterPodAffinity"] == {"n1": 0, "n2": 100}


def test_most_allocated_profile_packs():
    cfg = SchedulerConfig(plugin_args={"NodeResourcesFit": {"scoringStrategy": {
        "type": "MostAllocated"}}})
    prof = profile_for(cfg, quotas_present=False)
    s = cluster(node("n1"), node("n2"))
    bind(s, pod("x", 1000, GI), "n2")
    assert schedule_pod(s, pod("p", 1000, GI), prof).node == "n2"
    assert schedule_pod(s, pod("p", 1000, GI)).node == "n1"


def test_system_default_spread_counts_nodes_without_a_zone_as_one_domain():
    # Found by the differential tests (kube-scheduler v1.35.4): under the system
    # default constraints, nodes lacking the zone label are not ignored, and
    # PreScore reads their zone as "", one more domain in the zone weight
    # ln(domains + 2); they still get no zone term in Score.
    zone = "topology.kubernetes.io/zone"
    s = cluster(node("n1", labels={zone: "a", "kubernetes.io/hostname": "n1"}),
                node("n2", labels={zone: "a", "kubernetes.io/hostname": "n2"}),
                node("n3", labels={"kubernetes.io/hostname": "n3"}))
    for i in range(2):
        bind(s, pod(f"e{i}", labels={"app": "cache"}), "n1")
    p = pod("p", labels={"app": "cache"}, owner_kind="ReplicaSet", owner_name="rs-cache")
    r = schedule_pod(s, p)
    host, zones = math.log(3 + 2), math.log(2 + 2)   # 3 nodes; zones "a" and ""
    raw = {"n1": round(2 * host + 2 + 2 * zones + 4), "n2": round(2 + 2 * zones + 4), "n3": 2}
    hi, lo = max(raw.values()), min(raw.values())
    assert raw == {"n1": 12, "n2": 9, "n3": 2}
    assert r.per_rule["scheduler.score.PodTopologySpread"] == {
        n: 100 * (hi + lo - v) // hi for n, v in raw.items()}


def test_spread_score_counts_a_nodes_own_pods_whatever_the_inclusion_policies():
    # Found by the differential tests (kube-scheduler v1.35.4): Score counts the
    # pods on the scored node for a hostname constraint without reading
    # nodeAffinityPolicy; here NodeAffinity is disabled, so nodes the pod's
    # required affinity excludes are feasible and still count their pods.
    from kruleset.model.config import PluginSet

    cfg = SchedulerConfig(plugins={"multiPoint": PluginSet(disabled=("NodeAffinity",))})
    prof = profile_for(cfg, quotas_present=False)
    host = "kubernetes.io/hostname"
    s = cluster(node("n1", labels={host: "n1"}), node("n2", labels={host: "n2"}))
    bind(s, pod("e", labels={"app": "a"}), "n1")
    p = pod("p", labels={"app": "a"},
            node_affinity=required(node_term(Requirement("zone", "In", ("nowhere",)))),
            spread=(spread(3, host, sel(app="a"), when_unsatisfiable="ScheduleAnyway"),))
    r = schedule_pod(s, p, prof)
    # raw n1 = round(1 * ln(2 + 2) + 3 - 1) = 3, n2 = 2; 100 * (3 + 2 - raw) // 3.
    assert r.per_rule["scheduler.score.PodTopologySpread"] == {"n1": 66, "n2": 100}
