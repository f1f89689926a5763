"""Per-node filters: taints, node affinity, ports, resources, inter-pod affinity, messages."""

from __future__ import annotations

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
    required,
    sel,
    term,
)

from kruleset.model.objects import Container, Pod
from kruleset.model.resources import Resources
from kruleset.model.selectors import LabelSelector
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE
from kruleset.rules.scheduler.cycle import fit_message, schedule_pod


def failure(state, p, node_name):
    r = schedule_pod(state, p)
    assert r.node is None, r
    return r.fit_error.failures[node_name]


# --- TaintToleration --------------------------------------------------------------------

def test_untolerated_taint_message_and_code():
    s = cluster(node("n1", taints=(Taint("key1", "value1", "NoSchedule"),)))
    f = failure(s, pod("p"), "n1")
    assert f.reason == "node(s) had untolerated taint(s)"
    assert f.code == UNRESOLVABLE
    assert f.rule == "scheduler.filter.TaintToleration"


def test_nodes_failing_for_different_taints_are_one_count():
    # v1.35 names no taint, so two nodes with different taints make one reason.
    s = cluster(node("n1", taints=(Taint("a", "x", "NoSchedule"),)),
                node("n2", taints=(Taint("b", "y", "NoExecute"),)))
    assert schedule_pod(s, pod("p")).message == (
        "0/2 nodes are available: 2 node(s) had untolerated taint(s).")


def test_prefer_no_schedule_does_not_filter():
    s = cluster(node("n1", taints=(Taint("k", "v", "PreferNoSchedule"),)))
    assert schedule_pod(s, pod("p")).node == "n1"


def test_no_execute_filters_and_the_first_untolerated_taint_is_kept_in_the_detail():
    taints = (Taint("key1", "value1", "NoSchedule"), Taint("key1", "value1", "NoExecute"),
              Taint("key2", "value2", "NoSchedule"))
    s = cluster(node("node1", taints=taints))
    tol = (Toleration("key1", "Equal", "value1", "NoSchedule"),
           Toleration("key1", "Equal", "value1", "NoExecute"))
    f = failure(s, pod("p", tolerations=tol), "node1")
    assert f.reason == "node(s) had untolerated taint(s)"
    assert f.detail == {"taint": str(taints[2])}
    s2 = cluster(node("node1", taints=(Taint("k", "v", "NoExecute"),)))
    assert failure(s2, pod("p", tolerations=(Toleration("k", "Equal", "v", "NoSchedule"),)),
                   "node1").reason == "node(s) had untolerated taint(s)"


def test_empty_key_exists_and_empty_effect_tolerate_everything():
    s = cluster(node("n1", taints=(Taint("a", "1", "NoSchedule"), Taint("b", "", "NoExecute"))))
    assert schedule_pod(s, pod("p", tolerations=(Toleration("", "Exists"),))).node == "n1"
    both = (Toleration("a", "Equal", "1", ""), Toleration("b", "Exists", "", ""))
    assert schedule_pod(s, pod("p", tolerations=both)).node == "n1"
    wrong_value = (Toleration("a", "Equal", "2", ""), Toleration("b", "Exists", "", ""))
    assert schedule_pod(s, pod("p", tolerations=wrong_value)).node is None


def test_cordoned_node_needs_the_unschedulable_toleration():
    s = cluster(node("n1", unschedulable=True))
    assert failure(s, pod("p"), "n1").reason == "node(s) were unschedulable"
    tol = (Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),)
    assert schedule_pod(s, pod("p", tolerations=tol)).node == "n1"


# --- NodeAffinity ---------------------------------------------------------------------------

def test_node_selector_and_required_affinity_must_both_hold():
    s = cluster(node("n1", labels={"a": "1"}), node("n2", labels={"a": "1", "b": "2"}))
    p = pod("p", node_selector={"a": "1"},
            node_affinity=required(node_term(Requirement("b", "Exists"))))
    assert schedule_pod(s, p).feasible == ("n2",)
    f = schedule_pod(s, pod("q", node_selector={"a": "2"})).fit_error.failures["n1"]
    assert f.reason == "node(s) didn't match Pod's node affinity/selector"
    assert f.code == UNRESOLVABLE


def test_terms_are_ored_and_an_empty_term_matches_nothing():
    s = cluster(node("n1", labels={"a": "1"}))
    assert schedule_pod(s, pod("p", node_affinity=required(node_term()))).node is None
    either = required(node_term(Requirement("x", "Exists")),
                      node_term(Requirement("a", "In", ("1",))))
    assert schedule_pod(s, pod("p", node_affinity=either)).node == "n1"
    assert schedule_pod(s, pod("p", node_affinity=required())).node is None


def test_gt_lt_compare_integers_and_not_in_matches_absent():
    s = cluster(node("n1", labels={"cores": "0206"}), node("n2", labels={"cores": "x"}), node("n3"))
    gt = pod("p", node_affinity=required(node_term(Requirement("cores", "Gt", ("204",)))))
    assert schedule_pod(s, gt).feasible == ("n1",)
    lt = pod("p", node_affinity=required(node_term(Requirement("cores", "Lt", ("300",)))))
    assert schedule_pod(s, lt).feasible == ("n1",)
    notin = pod("p", node_affinity=required(node_term(Requirement("cores", "NotIn", ("x",)))))
    assert set(schedule_pod(s, notin).feasible) == {"n1", "n3"}


# --- NodePorts ---------------------------------------------------------------------------------

def test_host_port_conflict_per_protocol():
    s = cluster(node("n1"))
    bind(s, pod("dns", host_ports=((53, "UDP"),)), "n1")
    assert schedule_pod(s, pod("p", host_ports=((53, "TCP"),))).node == "n1"
    f = failure(s, pod("q", host_ports=((53, "UDP"),)), "n1")
    assert f.reason == "node(s) didn't have free ports for the requested pod ports"
    assert f.code == UNSCHEDULABLE


# --- NodeResourcesFit --------------------------------------------------------------------------

def test_equality_fits_and_one_more_does_not():
    s = cluster(node("n1", cpu=2000, memory=GI))
    assert schedule_pod(s, pod("p", 2000, GI)).node == "n1"
    f = failure(s, pod("q", 2001, GI), "n1")
    assert f.code == UNRESOLVABLE  # more than the node's allocatable


def test_short_because_of_others_is_unschedulable_with_every_reason():
    s = cluster(node("n1", cpu=2000, memory=GI))
    bind(s, pod("a", 1500, 900 * MI), "n1")
    f = failure(s, pod("q", 1000, 200 * MI), "n1")
    assert f.code == UNSCHEDULABLE
    assert f.detail["reasons"] == ["Insufficient cpu", "Insufficient memory"]
    assert fit_message(1, {"n1": f}) == (
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.")


def test_pod_count_is_checked_even_for_pods_requesting_nothing():
    s = cluster(node("n1", pods=1))
    bind(s, pod("a"), "n1")
    f = failure(s, pod("b"), "n1")
    assert f.reason == "Too many pods" and f.code == UNSCHEDULABLE


def test_zero_request_pods_consume_nothing():
    s = cluster(node("n1", cpu=1000))
    for i in range(5):
        bind(s, pod(f"be{i}"), "n1")
    assert schedule_pod(s, pod("p", 1000)).node == "n1"


def test_init_containers_take_the_max_and_sidecars_add():
    s = cluster(node("n1", cpu=3000, memory=8 * GI))
    init_max = Pod("default", "p", containers=(Container("c", Resources(cpu=1000)),),
                   init_containers=(Container("i1", Resources(cpu=3000)),
                                    Container("i2", Resources(cpu=2000))))
    assert init_max.requests.cpu == 3000
    assert schedule_pod(s, init_max).node == "n1"
    sidecar = Pod("default", "q", containers=(Container("c", Resources(cpu=1000)),),
                  init_containers=(Container("side", Resources(cpu=1000), restart_always=True),
                                   Container("init", Resources(cpu=2500))))
    # init runs with the sidecar: 2500 + 1000 = 3500 > 3000.
    assert sidecar.requests.cpu == 3500
    assert schedule_pod(s, sidecar).node is None


def test_overhead_counts_even_for_resources_the_containers_do_not_request():
    p = Pod("default", "p", containers=(Container("c", Resources(cpu=500)),),
            overhead=Resources(cpu=250, memory=120 * MI))
    assert (p.requests.cpu, p.requests.memory) == (750, 120 * MI)
    s = cluster(node("n1", cpu=750, memory=100 * MI))
    assert failure(s, p, "n1").detail["reasons"] == ["Insufficient memory"]


def test_extended_resource_missing_on_node_is_unresolvable():
    s = cluster(node("n1"), node("n2", extended={"example.com/gpu": 1}))
    p = pod("p", requests={"example.com/gpu": 1})
    r = schedule_pod(s, p)
    assert r.node == "n2"
    p2 = pod("q", requests={"example.com/gpu": 2})
    f = failure(s, p2, "n1")
    assert f.reason == "Insufficient example.com/gpu" and f.code == UNRESOLVABLE


def test_fit_message_sorts_count_reason_strings():
    from kruleset.rules.engine import Failure
    failures = {f"n{i}": Failure("Y") for i in range(2)}
    failures.update({f"m{i}": Failure("X") for i in range(10)})
    assert fit_message(12, failures) == "0/12 nodes are available: 10 X, 2 Y."


# --- InterPodAffinity ---------------------------------------------------------------------------

HOST = "kubernetes.io/hostname"


def test_required_affinity_unresolvable_and_first_pod_rule():
    s = cluster(node("n1"), node("n2"))
    lonely = pod("p", labels={"app": "a"}, pod_affinity=(term(HOST, sel(app="a")),))
    assert schedule_pod(s, lonely).node == "n1"  # first of a self-affine group
    stranger = pod("q", labels={"app": "b"}, pod_affinity=(term(HOST, sel(app="a")),))
    f = failure(s, stranger, "n1")
    assert f.reason == "node(s) didn't match pod affinity rules" and f.code == UNRESOLVABLE
    bind(s, pod("a1", labels={"app": "a"}), "n2")
    assert schedule_pod(s, stranger).feasible == ("n2",)
    # Once a matching pod exists, the first-pod exception no longer applies.
    assert schedule_pod(s, lonely).feasible == ("n2",)


def test_anti_affinity_of_the_pod_and_of_existing_pods():
    s = cluster(node("n1"), node("n2"))
    bind(s, pod("web", labels={"app": "web"}), "n1")
    p = pod("p", pod_anti_affinity=(term(HOST, sel(app="web")),))
    r = schedule_pod(s, p)
    assert r.feasible == ("n2",)
    bind(s, pod("guard", pod_anti_affinity=(term(HOST, sel(app="x")),)), "n2")
    f = failure(s, pod("x", labels={"app": "x"}, pod_anti_affinity=(term(HOST, sel(app="web")),)),
                "n2")
    assert f.reason == "node(s) didn't satisfy existing pods anti-affinity rules"
    assert f.code == UNSCHEDULABLE


def test_affinity_needs_the_topology_key_on_the_node():
    s = cluster(node("n1", labels={"zone": "a"}), node("n2"))
    bind(s, pod("db", labels={"app": "db"}), "n1")
    p = pod("p", pod_affinity=(term("zone", sel(app="db")),))
    r = schedule_pod(s, p)
    assert r.feasible == ("n1",)


def test_namespaces_and_namespace_selector():
    from kruleset.model.objects import Namespace
    s = cluster(node("n1"), node("n2"))
    s.namespaces["prod"] = Namespace("prod", {"env": "prod"})
    bind(s, pod("db", ns="prod", labels={"app": "db"}), "n2")
    own = pod("p", ns="team", pod_affinity=(term(HOST, sel(app="db")),))
    assert schedule_pod(s, own).node is None
    listed = pod("p", ns="team", pod_affinity=(term(HOST, sel(app="db"), namespaces=("prod",)),))
    assert schedule_pod(s, listed).node == "n2"
    by_label = pod("p", ns="team", pod_affinity=(
        term(HOST, sel(app="db"), namespace_selector=LabelSelector(
            (Requirement("env", "In", ("prod",)),))),))
    assert schedule_pod(s, by_label).node == "n2"
    every = pod("p", ns="team", pod_affinity=(term(HOST, sel(app="db"),
                                                   namespace_selector=LabelSelector()),))
    assert schedule_pod(s, every).node == "n2"
