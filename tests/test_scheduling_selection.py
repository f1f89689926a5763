"""Node selection: percentageOfNodesToScore, zone order, nominated pods, run_filters overlays."""

from __future__ import annotations

from test_scheduling_support import (
    GI,
    bind,
    cluster,
    node,
    pod,
    sel,
    spread,
    term,
)

from kruleset.rules.profile import Profile
from kruleset.rules.scheduler import node_selection as nsel
from kruleset.rules.scheduler.cycle import ScheduleContext, schedule_one, schedule_pod

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def test_num_feasible_nodes_to_find():
    f = nsel.num_feasible_nodes_to_find
    assert f(99, 10) == 99          # below 100 nodes: all
    assert f(200, 10) == 100        # at least 100
    assert f(200, None) == 100      # 50 - 1 = 49% of 200 = 98 -> 100
    assert f(1000, 0) == 420        # 50 - 8 = 42%
    assert f(5000, None) == 500     # 50 - 40 = 10%
    assert f(10000, None) == 500    # floor of 5%
    assert f(5000, 100) == 5000
    assert f(5000, 150) == 5000     # above 100 behaves as 100
    assert f(5000, 3) == 150


def test_zone_order_interleaves():
    s = cluster(*(node(f"Node {i}", labels={ZONE: "1" if i <= 4 else "2"}) for i in range(1, 7)))
    assert [n.name for n in nsel.node_order(s)] == [
        "Node 1", "Node 5", "Node 2", "Node 6", "Node 3", "Node 4"]


def test_zone_key_uses_region_and_zone():
    assert nsel.zone_key({}) == ""
    region = "topology.kubernetes.io/region"
    assert nsel.zone_key({ZONE: "a"}) != nsel.zone_key({ZONE: "a", region: "r"})


def test_search_continues_where_the_previous_cycle_stopped():
    s = cluster(*(node(f"n{i:03}") for i in range(1, 201)))
    prof = Profile(settings={"percentageOfNodesToScore": 10})
    ctx = ScheduleContext(s, prof)
    first = schedule_one(ctx, s.add_pod(pod("a")))
    assert first.node == "n001" and len(first.feasible) == 100
    second = schedule_one(ctx, s.add_pod(pod("b")))
    assert second.node == "n101"
    # What-if questions do not move the offset.
    assert schedule_pod(s, pod("c"), prof).node == "n001"
    assert schedule_pod(s, pod("c"), prof).node == "n001"


def test_nominated_node_is_tried_first_and_alone():
    s = cluster(node("n1"), node("n2"))
    ps = s.add_pod(pod("p", 1000))
    ps.nominated = "n2"
    r = schedule_one(ScheduleContext(s, Profile.default()), ps)
    assert r.node == "n2" and r.feasible == ("n2",)


def test_nominated_pods_of_higher_or_equal_priority_take_room():
    s = cluster(node("n1", cpu=2000))
    hi = s.add_pod(pod("hi", 1500, priority=100))
    hi.nominated = "n1"
    low = pod("low", 1000, priority=10)
    r = schedule_pod(s, low)
    assert r.node is None and r.message == "0/1 nodes are available: 1 Insufficient cpu."
    # A pod of higher priority than the nominee ignores it.
    assert schedule_pod(s, pod("top", 1000, priority=1000)).node == "n1"
    # Equal priority counts.
    assert schedule_pod(s, pod("eq", 1000, priority=100)).node is None


def test_node_must_fit_without_the_nominated_pods_too():
    # The nominated pod would satisfy the incoming pod's affinity; without it the
    # node fails, so the node is not feasible (both passes must succeed).
    s = cluster(node("n1"), node("n2"))
    bind(s, pod("other", labels={"app": "x"}), "n2")
    nom = s.add_pod(pod("db", labels={"app": "db"}, priority=100))
    nom.nominated = "n1"
    p = pod("p", pod_affinity=(term(HOST, sel(app="db")),))
    assert schedule_pod(s, p).node is None


def test_run_filters_removed_pods_free_resources_and_ports():
    s = cluster(node("n1", cpu=2000, memory=4 * GI))
    bind(s, pod("a", 1500, host_ports=((80, "TCP"),)), "n1")
    bind(s, pod("b", 500), "n1")
    ctx = ScheduleContext(s, Profile.default())
    p = pod("p", 1500, host_ports=((80, "TCP"),))
    n1 = s.nodes["n1"]
    f = nsel.run_filters(ctx, p, n1)
    assert f is not None and f.rule == "scheduler.filter.NodePorts"
    assert nsel.run_filters(ctx, p, n1, removed={"default/a"}) is None
    assert nsel.run_filters(ctx, p, n1, removed={"default/b"}) is not None
    # Adding a pod takes room.
    extra = s.add_pod(pod("x", 1450))
    q = pod("q", 100)
    assert nsel.run_filters(ctx, q, n1, removed={"default/a"}) is None
    f2 = nsel.run_filters(ctx, q, n1, removed={"default/a"}, added=(extra,))
    assert f2 is not None and f2.reason == "Insufficient cpu"
    # The overlay is gone afterwards and the cluster is unchanged.
    assert nsel.OVERLAY not in ctx.extra
    assert n1.requested.cpu == 2000 and set(n1.pods) == {"default/a", "default/b"}


def test_run_filters_spread_counts_follow_the_overlay():
    s = cluster(node("n1", labels={"zone": "a"}), node("n2", labels={"zone": "b"}))
    bind(s, pod("w1", labels={"app": "w"}), "n1")
    bind(s, pod("w2", labels={"app": "w"}), "n1")
    ctx = ScheduleContext(s, Profile.default())
    p = pod("p", labels={"app": "w"}, spread=(spread(1, "zone", sel(app="w")),))
    n1 = s.nodes["n1"]
    assert nsel.run_filters(ctx, p, n1) is not None
    assert nsel.run_filters(ctx, p, n1, removed={"default/w1"}) is not None  # 1 + 1 - 0 > 1
    assert nsel.run_filters(ctx, p, n1, removed={"default/w1", "default/w2"}) is None


def test_run_filters_anti_affinity_follows_the_overlay():
    s = cluster(node("n1"))
    bind(s, pod("web", labels={"app": "web"}), "n1")
    guard = bind(s, pod("guard", pod_anti_affinity=(term(HOST, sel(app="p")),)), "n1")
    ctx = ScheduleContext(s, Profile.default())
    p = pod("p", labels={"app": "p"}, pod_anti_affinity=(term(HOST, sel(app="web")),))
    n1 = s.nodes["n1"]
    f = nsel.run_filters(ctx, p, n1)
    assert f is not None
    f2 = nsel.run_filters(ctx, p, n1, removed={"default/guard"})
    assert f2 is not None and f2.reason == "node(s) didn't match pod anti-affinity rules"
    assert nsel.run_filters(ctx, p, n1, removed={"default/guard", "default/web"}) is None
    # An added pod's anti-affinity counts too for a pod with no terms of its own, when
    # InterPodAffinity's PreFilter kept the plugin (a bound pod's anti-affinity matches it).
    plain = pod("plain", labels={"app": "p"})
    s2 = cluster(node("m1"), node("m2"))
    bind(s2, pod("far", pod_anti_affinity=(term(HOST, sel(app="p")),)), "m2")
    ctx2 = ScheduleContext(s2, Profile.default())
    assert nsel.run_filters(ctx2, plain, s2.nodes["m1"]) is None
    f3 = nsel.run_filters(ctx2, plain, s2.nodes["m1"], added=(guard,))
    assert f3 is not None
    assert f3.reason == "node(s) didn't satisfy existing pods anti-affinity rules"
    # Skipped by its PreFilter (no terms, no bound pod's anti-affinity matching), the
    # plugin stays skipped with pods added: upstream's RunFilterPlugins and the
    # AddPod extensions pass over the cycle state's SkipFilterPlugins.
    s3 = cluster(node("m1"))
    ctx3 = ScheduleContext(s3, Profile.default())
    assert nsel.run_filters(ctx3, plain, s3.nodes["m1"], added=(guard,)) is None


def test_run_filters_with_nominated_two_passes():
    s = cluster(node("n1", cpu=2000))
    nom = s.add_pod(pod("n", 1500, priority=50))
    nom.nominated = "n1"
    bind(s, pod("victim", 1500, priority=0), "n1")
    ctx = ScheduleContext(s, Profile.default())
    p = pod("p", 1000, priority=50)
    n1 = s.nodes["n1"]
    assert nsel.run_filters(ctx, p, n1, removed={"default/victim"}) is None
    f = nsel.run_filters_with_nominated(ctx, p, n1, removed={"default/victim"})
    assert f is not None and f.reason == "Insufficient cpu"
