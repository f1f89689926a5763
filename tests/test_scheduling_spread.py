"""PodTopologySpread: seed 003 §5's examples and the plugin's edge cases."""

from __future__ import annotations

from test_scheduling_support import bind, cluster, node, node_term, pod, required, sel, spread

from kruleset.model.selectors import Requirement, Taint
from kruleset.rules.scheduler.cycle import schedule_pod

Z = "zone"


def four_nodes(extra_node1: int = 0):
    s = cluster(*(node(f"node{i}", labels={Z: "zoneA" if i <= 2 else "zoneB", "node": f"node{i}"})
                  for i in range(1, 5)))
    for i, n in enumerate(("node1", "node2", "node3")):
        bind(s, pod(f"p{i}", labels={"foo": "bar"}), n)
    return s


def feasible(s, p):
    r = schedule_pod(s, p)
    return set(r.feasible) if r.node else set(), r


def test_one_constraint_goes_to_zone_b():
    s = four_nodes()
    p = pod("mypod", labels={"foo": "bar"}, spread=(spread(1, Z, sel(foo="bar")),))
    names, r = feasible(s, p)
    assert names == {"node3", "node4"}
    assert r.node in ("node3", "node4")


def test_max_skew_two_allows_zone_a():
    s = four_nodes()
    p = pod("mypod", labels={"foo": "bar"}, spread=(spread(2, Z, sel(foo="bar")),))
    names, _ = feasible(s, p)
    assert names == {"node1", "node2", "node3", "node4"}


def test_node_key_only_node4():
    s = four_nodes()
    p = pod("mypod", labels={"foo": "bar"}, spread=(spread(1, "node", sel(foo="bar")),))
    names, r = feasible(s, p)
    assert r.node == "node4" and names == {"node4"}


def test_two_constraints_node4():
    s = four_nodes()
    p = pod("mypod", labels={"foo": "bar"},
            spread=(spread(1, Z, sel(foo="bar")), spread(1, "node", sel(foo="bar"))))
    _, r = feasible(s, p)
    assert r.node == "node4"


def test_conflicting_constraints_pending():
    s = cluster(*(node(f"node{i}", labels={Z: "zoneA" if i <= 2 else "zoneB", "node": f"node{i}"})
                  for i in range(1, 4)))
    for i, n in enumerate(("node1", "node1", "node2", "node3", "node3")):
        bind(s, pod(f"p{i}", labels={"foo": "bar"}), n)
    p = pod("mypod", labels={"foo": "bar"},
            spread=(spread(1, Z, sel(foo="bar")), spread(1, "node", sel(foo="bar"))))
    r = schedule_pod(s, p)
    assert r.node is None
    assert r.message == ("0/3 nodes are available: 3 node(s) didn't match pod topology "
                         "spread constraints.")
    assert all(f.code == "Unschedulable" for f in r.fit_error.failures.values())


def test_node_without_key_is_unresolvable_and_ignored():
    s = four_nodes()
    s.add_node(node("node5", labels={"zone-typo": "zoneC"}))
    p = pod("mypod", labels={"foo": "bar"}, spread=(spread(1, Z, sel(foo="bar")),))
    r = schedule_pod(s, p)
    assert "node5" not in r.feasible


def test_node_affinity_policy_honor_excludes_zone_c():
    s = cluster(*(node(f"node{i}", labels={Z: z}) for i, z in
                  enumerate(("zoneA", "zoneA", "zoneB", "zoneB", "zoneC"), 1)))
    for i, n in enumerate(("node1", "node2", "node3")):
        bind(s, pod(f"p{i}", labels={"foo": "bar"}), n)
    aff = required(node_term(Requirement(Z, "NotIn", ("zoneC",))))
    p = pod("mypod", labels={"foo": "bar"}, node_affinity=aff,
            spread=(spread(1, Z, sel(foo="bar")),))
    r = schedule_pod(s, p)
    assert r.node == "node4"
    # Ignore: zoneC (0 pods) counts as the global minimum, so zone B (1) + 1 - 0 > 1 fails too.
    p2 = pod("mypod", labels={"foo": "bar"}, node_affinity=aff,
             spread=(spread(1, Z, sel(foo="bar"), node_affinity_policy="Ignore"),))
    assert schedule_pod(s, p2).node is None


def test_min_domains_makes_global_minimum_zero():
    s = cluster(node("n1", labels={Z: "a"}), node("n2", labels={Z: "b"}))
    bind(s, pod("x1", labels={"app": "w"}), "n1")
    bind(s, pod("x2", labels={"app": "w"}), "n2")
    p = pod("p", labels={"app": "w"}, spread=(spread(1, Z, sel(app="w"), min_domains=3),))
    # 2 domains < minDomains 3: global minimum 0, so 1 + 1 - 0 > 1 everywhere.
    assert schedule_pod(s, p).node is None
    p2 = pod("p", labels={"app": "w"}, spread=(spread(1, Z, sel(app="w"), min_domains=2),))
    assert schedule_pod(s, p2).node == "n1"


def test_taints_policy_honor_ignores_tainted_domain():
    s = cluster(node("n1", labels={Z: "a"}), node("n2", labels={Z: "b"}),
                node("n3", labels={Z: "c"}, taints=(Taint("t", "", "NoSchedule"),)))
    bind(s, pod("x1", labels={"app": "w"}), "n1")
    bind(s, pod("x2", labels={"app": "w"}), "n2")
    ignore = pod("p", labels={"app": "w"}, spread=(spread(1, Z, sel(app="w")),))
    assert schedule_pod(s, ignore).node is None  # zone c (tainted, 0 pods) is the minimum
    honor = pod("p", labels={"app": "w"},
                spread=(spread(1, Z, sel(app="w"), node_taints_policy="Honor"),))
    assert schedule_pod(s, honor).node == "n1"


def test_other_namespaces_and_terminating_pods_do_not_count():
    s = cluster(node("n1", labels={Z: "a"}), node("n2", labels={Z: "b"}))
    bind(s, pod("x1", labels={"app": "w"}, ns="other"), "n1")
    bind(s, pod("x2", labels={"app": "w"}, ns="other"), "n1")
    t = bind(s, pod("x3", labels={"app": "w"}), "n1")
    t.deletion_time = 30_000
    p = pod("p", labels={"app": "w"}, spread=(spread(1, Z, sel(app="w")),))
    assert set(schedule_pod(s, p).feasible) == {"n1", "n2"}


def test_match_label_keys_count_only_same_revision():
    s = cluster(node("n1", labels={Z: "a"}), node("n2", labels={Z: "b"}))
    bind(s, pod("old1", labels={"app": "w", "hash": "1"}), "n1")
    bind(s, pod("old2", labels={"app": "w", "hash": "1"}), "n1")
    p = pod("p", labels={"app": "w", "hash": "2"},
            spread=(spread(1, Z, sel(app="w"), match_label_keys=("hash",)),))
    assert set(schedule_pod(s, p).feasible) == {"n1", "n2"}
    p_all = pod("p", labels={"app": "w", "hash": "2"}, spread=(spread(1, Z, sel(app="w")),))
    assert set(schedule_pod(s, p_all).feasible) == {"n2"}


def test_selector_not_matching_itself():
    s = four_nodes()
    p = pod("mypod", labels={"other": "x"}, spread=(spread(1, Z, sel(foo="bar")),))
    # zone A: 2 + 0 - 1 = 1 <= 1: both zones allowed.
    assert len(schedule_pod(s, p).feasible) == 4


def test_schedule_anyway_prefers_fewer_matching_pods():
    s = four_nodes()
    p = pod("mypod", labels={"foo": "bar"},
            spread=(spread(1, Z, sel(foo="bar"), when_unsatisfiable="ScheduleAnyway"),))
    r = schedule_pod(s, p)
    assert set(r.feasible) == {"node1", "node2", "node3", "node4"}
    per = r.per_rule["scheduler.score.PodTopologySpread"]
    # weight ln(2 + 2); zone A: round(2 * 1.386) = 3, zone B: round(1.386) = 1;
    # normalised 100 * (3 + 1 - s) // 3.
    assert per == {"node1": 33, "node2": 33, "node3": 100, "node4": 100}
    assert r.node == "node4"  # node3 has a pod: LeastAllocated is equal, balanced too
