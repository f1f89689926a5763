"""Declarations of §2: classes, nodes, kubelet blocks, namespaces, quotas, PDBs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kruleset.errors import ScenarioError
from kruleset.lang import parse_text
from kruleset.model import (
    ElasticQuota,
    LabelSelector,
    Namespace,
    Node,
    PodDisruptionBudget,
    PriorityClass,
    Requirement,
    Resources,
    RuntimeClass,
    Taint,
)

GI = 2**30
MI = 2**20


def objects(text: str) -> list:  # type: ignore[type-arg]
    return list(parse_text(text, "t.kr").objects)


def refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_text(text, "t.kr")
    return info.value


def test_priorityclass_all_attributes() -> None:
    [pc] = objects('priorityclass high value=1000 default preemption=Never description="d"\n')
    assert pc == PriorityClass("high", 1000, True, "Never", "d")
    [low] = objects("priorityclass low value=-5\n")
    assert (low.value, low.global_default, low.preemption_policy) == (-5, False,
                                                                      "PreemptLowerPriority")


def test_runtimeclass_overhead() -> None:
    [rc] = objects("runtimeclass kata overhead(cpu=250m, memory=120Mi)\n")
    assert rc == RuntimeClass("kata", Resources.of({"cpu": 250, "memory": 120 * MI}))


def test_node_capacity_and_attributes() -> None:
    [n] = objects(
        "node n1 cpu=4 memory=8Gi ephemeral-storage=100Gi nvidia.com/gpu=2 hugepages-2Mi=1Gi "
        "imagefs=50Gi containerfs=20Gi inodes(nodefs=1M, imagefs=2k, containerfs=3) "
        "pid-max=4096 labels(zone=a, kubernetes.io/hostname=custom) "
        "taints(dedicated=gpu:NoSchedule, spot:PreferNoSchedule) unschedulable "
        "reserved(cpu=500m, memory=1Gi) images(unused=2Gi) containers(dead=1Gi)\n")
    assert isinstance(n, Node)
    assert n.capacity == Resources.of({"cpu": 4000, "memory": 8 * GI,
                                       "ephemeral-storage": 100 * GI, "pods": 110,
                                       "nvidia.com/gpu": 2, "hugepages-2Mi": GI})
    assert n.reserved == Resources.of({"cpu": 500, "memory": GI})
    assert n.allocatable.cpu == 3500
    assert dict(n.labels) == {"zone": "a", "kubernetes.io/hostname": "custom"}
    assert n.taints == (Taint("dedicated", "gpu", "NoSchedule"),
                        Taint("spot", "", "PreferNoSchedule"))
    assert n.unschedulable
    assert (n.imagefs, n.containerfs, n.pid_max) == (50 * GI, 20 * GI, 4096)
    assert n.inodes == {"nodefs": 1_000_000, "imagefs": 2000, "containerfs": 3}
    assert (n.images_unused, n.containers_dead) == (2 * GI, GI)


def test_node_defaults_and_pods() -> None:
    [n] = objects("node n1 cpu=1\n")
    assert n.capacity == Resources.of({"cpu": 1000, "pods": 110})
    assert dict(n.labels) == {"kubernetes.io/hostname": "n1"}
    [m] = objects("node n1 cpu=0.5 memory=1e3 pods=20\n")
    assert (m.capacity.cpu, m.capacity.memory, m.capacity.pods) == (500, 1000, 20)


def test_nodes_range_expands_in_order() -> None:
    nodes = objects("nodes worker-[1..3] cpu=8 memory=32Gi\nnodes n[08..10] cpu=1\n")
    assert [n.name for n in nodes] == ["worker-1", "worker-2", "worker-3", "n08", "n09", "n10"]
    assert all(n.capacity.memory == 32 * GI for n in nodes[:3])


def test_namespace_labels() -> None:
    [ns] = objects("namespace team labels(env=prod, empty=\"\")\n")
    assert ns == Namespace("team", {"env": "prod", "empty": ""})


def test_quota_lists() -> None:
    q1, q2, q3 = objects("quota a min(cpu=6) max(cpu=10, pods=3)\nquota b min()\nquota c\n")
    assert q1 == ElasticQuota("a", Resources.of({"cpu": 6000}),
                              Resources.of({"cpu": 10000, "pods": 3}), name="a")
    assert (q2.min, q2.max) == (Resources(), None)
    assert (q3.min, q3.max) == (None, None)


def test_pdb_forms() -> None:
    p1, p2, p3 = objects(
        "pdb ns/web selector(app=web, tier in (a, b)) min-available=50%\n"
        "pdb web2 selector() max-unavailable=1 unhealthy-pod-eviction-policy=AlwaysAllow\n"
        "pdb web3 selector(!canary) min-available=2\n")
    assert isinstance(p1, PodDisruptionBudget)
    assert (p1.namespace, p1.name, p1.min_available, p1.max_unavailable) == ("ns", "web", "50%",
                                                                             None)
    assert p1.selector == LabelSelector((Requirement("app", "In", ("web",)),
                                         Requirement("tier", "In", ("a", "b"))))
    assert (p2.key, p2.max_unavailable, p2.unhealthy_pod_eviction_policy) == (
        "default/web2", 1, "AlwaysAllow")
    assert p2.selector.empty
    assert p3.min_available == 2
    assert p3.selector.requirements == (Requirement("canary", "DoesNotExist"),)


def test_declarations_in_any_order() -> None:
    s = parse_text("pod a on n1 priorityclass=high runtimeclass=kata\n"
                   "priorityclass high value=10\nruntimeclass kata overhead(cpu=1)\n"
                   "node n1 cpu=4\n")
    assert [type(o).__name__ for o in s.objects] == ["Pod", "PriorityClass", "RuntimeClass",
                                                     "Node"]
    assert s.objects[0].overhead.cpu == 1000


def test_kubelet_block_all_flags() -> None:
    s = parse_text(
        "node n1 cpu=1\n"
        "kubelet n1 {\n"
        "  eviction-hard memory.available<100Mi nodefs.available<10%\n"
        "  eviction-soft memory.available<1.5Gi\n"
        "  eviction-soft-grace-period memory.available=1m30s\n"
        "  eviction-max-pod-grace-period 30s\n"
        "  eviction-minimum-reclaim nodefs.available=500Mi\n"
        "  eviction-pressure-transition-period 1m\n"
        "  housekeeping-interval 5s\n"
        "  filesystems nodefs+imagefs+containerfs\n"
        "  enforce-node-allocatable none\n"
        "}\n"
        "kubelet * {\n"
        "  eviction-soft nodefs.available<0%\n"
        "}\n")
    k1, k2 = s.kubelets
    assert k1.node == "n1"
    c = k1.config
    assert [(t.signal, t.quantity, t.percentage) for t in c.hard] == [
        ("memory.available", 100 * MI, None), ("nodefs.available", None, Fraction(10))]
    assert c.hard[1].min_reclaim_quantity == 500 * MI
    assert [(t.signal, t.quantity, t.grace_period) for t in c.soft] == [
        ("memory.available", 1536 * MI, 90_000)]
    assert (c.max_pod_grace_period, c.pressure_transition_period, c.housekeeping_interval) == (
        30_000, 60_000, 5_000)
    assert c.filesystems == "nodefs+imagefs+containerfs"
    assert c.enforce_node_allocatable == ()
    assert k2.node == "*"
    assert k2.config.hard is None and k2.config.soft == ()


def test_kubelet_min_reclaim_without_hard_attaches_to_defaults() -> None:
    s = parse_text("kubelet * {\n  eviction-minimum-reclaim memory.available=0\n}\n")
    hard = s.kubelets[0].config.hard
    assert hard is not None and hard[0].signal == "memory.available"
    assert hard[0].min_reclaim_quantity == 0


@pytest.mark.parametrize(("flags", "message", "column"), [
    ("eviction-hard memory.avail<100Mi", "unsupported eviction signal 'memory.avail', did you "
     "mean 'memory.available'?", 17),
    ("eviction-hard memory.available<0", "must be positive", 34),
    ("eviction-soft memory.available<1Gi", "grace period must be specified for the soft "
     "eviction threshold memory.available", 17),
    ("eviction-minimum-reclaim memory.available=0%", "must be above 0%", 45),
    ("eviction-hard nodefs.available<101%", "over 100%", 34),
    ("eviction-hard memory.available=1Gi", "expected signal<value", 17),
    ("evction-hard memory.available<1Gi", "unknown kubelet flag 'evction-hard', did you mean "
     "'eviction-hard'?", 3),
    ("filesystems imagefs", "unknown filesystems 'imagefs'", 15),
    ("housekeeping-interval 10", "not a duration", 25),
])
def test_kubelet_refusals(flags: str, message: str, column: int) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_text(f"kubelet * {{\n  {flags}\n}}\n", "t.kr")
    assert message in info.value.message
    assert (info.value.line, info.value.column) == (2, column)


def test_kubelet_dropped_threshold_needs_no_grace() -> None:
    s = parse_text("kubelet * {\n  eviction-soft memory.available<100%\n"
                   "  eviction-soft-grace-period nodefs.available=1m\n}\n")
    assert s.kubelets[0].config.soft == ()


def test_kubelet_refuses_unknown_node_and_duplicates() -> None:
    err = refused("node worker-1 cpu=1\nkubelet worker-2 {\n}\n")
    assert err.message == "unknown node 'worker-2', did you mean 'worker-1'?"
    assert err.suggestion == "known: worker-1"
    err = refused("kubelet * {\n}\nkubelet * {\n}\n")
    assert "already configured (line 1)" in err.message and err.line == 3


@pytest.mark.parametrize(("text", "message", "line", "column"), [
    ("priorityclass system-node-critical value=5\n", "built-in priority class", 1, 15),
    ("priorityclass system-x value=5\n", "starting with 'system-' are reserved", 1, 15),
    ("priorityclass big value=1000000001\n", "at most 1000000000", 1, 25),
    ("priorityclass p\n", "priorityclass needs value=INT", 1, 16),
    ("priorityclass a value=1 default\npriorityclass b value=2 default\n",
     "'a' is already the default", 2, 25),
    ("priorityclass p value=1\npriorityclass p value=2\n",
     "priority class 'p' is already declared (line 1)", 2, 15),
    ("node n1 cpus=4\n", "unknown resource 'cpus', did you mean 'cpu'?", 1, 9),
    ("node n1 cpu=-4\n", "cpu may not be negative", 1, 13),
    ("node n1 cpu=4 lables(a=b)\n", "unknown node attribute 'lables', did you mean 'labels'?", 1,
     15),
    ("node n1 cpu=1 taints(a=b)\n", "taint 'a=b' needs an effect", 1, 22),
    ("node n1 cpu=1 taints(a:NoSchedul)\n", "did you mean 'NoSchedule'?", 1, 24),
    ("node n1 cpu=1 reserved(cpu=2)\n", "reserved cpu is more than the node's capacity", 1, 15),
    ("nodes n1 cpu=1\n", "'nodes' needs a range", 1, 7),
    ("node n[1..2] cpu=1\n", "use 'nodes' for a range", 1, 1),
    ("nodes n-[1..2] cpu=1\nnode n-2 cpu=1\n", "node 'n-2' is already declared (line 1)", 2, 6),
    ("node N1 cpu=1\n", "'N1' is not a valid node name", 1, 6),
    ("pdb p selector(a=b) min-available=1 max-unavailable=1\n", "not both", 1, 37),
    ("pdb p selector(a=b)\n", "needs min-available", 1, 20),
    ("pdb p min-available=1\n", "needs selector", 1, 22),
    ("pdb p selector(a=b) min-available=150%\n", "over 100%", 1, 35),
    ("pdb p selector(a=b) min-available=10.5%\n", "must be a whole number", 1, 35),
    ("pdb p selector(a > 3) min-available=1\n", "only allowed in node affinity", 1, 16),
    ("quota a min(cpu=1) min(cpu=2)\n", "'min' is given twice", 1, 20),
    ("quota a limit(cpu=1)\n", "unknown quota attribute 'limit'", 1, 9),
    ("quota a\nquota a\n", "quota 'a' is already declared", 2, 7),
    ("namespace a.b\n", "not a valid namespace name", 1, 11),
    ("include \"nope.yaml\"\n", "file not found: nope.yaml", 1, 9),
    ("include nope.yaml\n", "expected a file name in double quotes", 1, 9),
    ('scenario "a"\nscenario "b"\n', "'scenario' is given twice (first at line 1)", 2, 1),
    ("node n1 cpu=1 memory=1Gi memory=2Gi\n", "'memory' is given twice", 1, 26),
])
def test_declaration_refusals(text: str, message: str, line: int, column: int) -> None:
    err = refused(text)
    assert message in err.message, err.render()
    assert (err.line, err.column) == (line, column), err.render()
