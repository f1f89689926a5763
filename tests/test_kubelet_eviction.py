"""Node-pressure eviction: thresholds, signals, ranking and passes (seed 001; 003 §12)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from kubelet_helpers import Gi, Mi, node, pod, res

from kruleset.model.config import EvictionThreshold, KubeletConfig
from kruleset.model.kubelet_settings import make_kubelet_config
from kruleset.model.objects import SYSTEM_CRITICAL_PRIORITY, EmptyDir
from kruleset.model.state import ClusterState
from kruleset.rules.kubelet.eviction.manager import eviction_pass, format_binary, format_decimal
from kruleset.rules.kubelet.eviction.rank import rank_pods
from kruleset.rules.kubelet.eviction.signals import (
    layout,
    set_node_signal,
    set_pod_usage,
    usage_index,
)
from kruleset.rules.kubelet.eviction.thresholds import (
    effective_thresholds,
    percentage_quantity,
    thresholds_met,
)


def cluster(*pods: object, **node_kw: object) -> ClusterState:
    s = ClusterState()
    usage_index(s)  # the usage sums follow binds from the start
    s.add_node(node(**node_kw))  # type: ignore[arg-type]
    for p in pods:
        s.bind(s.add_pod(p), "n1")  # type: ignore[arg-type]
    return s


# --- thresholds ------------------------------------------------------------------------

def test_percentage_is_float32_truncated() -> None:
    # float32(0.1) = 0.10000000149…: 10% of 10Gi is 16 bytes above 1Gi, as upstream computes.
    assert percentage_quantity(Fraction(10), 10 * Gi) == 1073741840
    # float32(0.1) is slightly above 0.1: 10% of 1000 truncates to 100.
    assert percentage_quantity(Fraction(10), 1000) == 100
    assert percentage_quantity(Fraction(15), 999) == 149


def test_defaults_are_all_or_nothing() -> None:
    default = effective_thresholds(KubeletConfig())
    assert {t.signal for t in default} >= {"memory.available", "nodefs.available",
                                           "nodefs.inodesFree", "imagefs.available",
                                           "allocatableMemory.available"}
    mine = effective_thresholds(make_kubelet_config({"memory.available": "500Mi"}))
    assert [t.signal for t in mine if t.quantity or t.percentage] == [
        "memory.available", "allocatableMemory.available"]


def test_allocatable_copy_only_with_pods_enforced_and_hard() -> None:
    cfg = make_kubelet_config({"memory.available": "1Gi"}, {"memory.available": "2Gi"},
                              {"memory.available": "1m"}, enforce_node_allocatable=())
    assert not any(t.signal == "allocatableMemory.available" for t in effective_thresholds(cfg))
    cfg = make_kubelet_config({"memory.available": "1Gi"}, {"memory.available": "2Gi"},
                              {"memory.available": "1m"})
    alloc = [t for t in effective_thresholds(cfg) if t.signal == "allocatableMemory.available"]
    assert [t.quantity for t in alloc] == [Gi]


@pytest.mark.parametrize("fs, source", [("nodefs", "10%"), ("nodefs+imagefs", "15%"),
                                        ("nodefs+imagefs+containerfs", "10%")])
def test_containerfs_thresholds_are_derived(fs: str, source: str) -> None:
    cfg = make_kubelet_config({"nodefs.available": "10%", "imagefs.available": "15%",
                               "containerfs.available": "50%"}, filesystems=fs)
    cfs = [t for t in effective_thresholds(cfg)
           if t.signal == "containerfs.available" and t.percentage is not None]
    assert [t.percentage for t in cfs] == [Fraction(source[:-1])]


def test_met_is_strict_and_min_reclaim_adds() -> None:
    t = EvictionThreshold("memory.available", quantity=100, min_reclaim_quantity=50)
    assert thresholds_met([t], {"memory.available": (99, 1000)}, False) == [t]
    assert thresholds_met([t], {"memory.available": (100, 1000)}, False) == []
    assert thresholds_met([t], {"memory.available": (149, 1000)}, True) == [t]
    assert thresholds_met([t], {"memory.available": (150, 1000)}, True) == []
    assert thresholds_met([t], {}, False) == []  # no observation: never met


def test_quantity_strings() -> None:
    assert format_binary(100 * Mi) == "100Mi"
    assert format_binary(500) == "500"
    assert format_binary(1_000_000_000) == "1000000000"
    assert format_decimal(5000) == "5k"


# --- ranking ---------------------------------------------------------------------------

def test_memory_rank_usage_over_request_then_priority_then_excess() -> None:
    g_within = pod("g", req=res(100, 500 * Mi), lim=res(100, 500 * Mi), priority=0,
                   usage={"memory": 400 * Mi})
    be_over = pod("be", priority=100, usage={"memory": 10 * Mi})
    bu_over = pod("bu", req=res(100, 100 * Mi), priority=100, usage={"memory": 300 * Mi})
    low_within = pod("low", req=res(100, 500 * Mi), priority=-10, usage={"memory": 100 * Mi})
    s = cluster(g_within, be_over, bu_over, low_within)
    got = [p.pod.name for p in rank_pods(s, "n1", "memory.available")]
    assert got == ["bu", "be", "low", "g"]


def test_rank_is_stable_on_ties() -> None:
    s = cluster(*(pod(f"p{i}") for i in range(5)))
    assert [p.pod.name for p in rank_pods(s, "n1", "memory.available")] == [
        f"p{i}" for i in range(5)]


def test_pid_rank_priority_then_processes() -> None:
    s = cluster(pod("a", priority=5, usage={"pids": 900}), pod("b", priority=1,
                usage={"pids": 10}), pod("c", priority=1, usage={"pids": 50}))
    assert [p.pod.name for p in rank_pods(s, "n1", "pid.available")] == ["c", "b", "a"]


def test_inode_rank_subtracts_ephemeral_request() -> None:
    a = pod("a", req=res(storage=1000), usage={"inodes": 500})
    b = pod("b", usage={"inodes": 100})
    s = cluster(a, b)
    # Both "exceed" (no inode requests), equal priority; a: 500-1000 < b: 100-0.
    assert [p.pod.name for p in rank_pods(s, "n1", "nodefs.inodesFree")] == ["b", "a"]


def test_disk_rank_depends_on_layout() -> None:
    logs = pod("logs", usage={"ephemeral-storage": 5 * Gi})
    layer = pod("layer", usage={"writable-layer": 8 * Gi})
    s = cluster(logs, layer, storage=100 * Gi)
    assert rank_pods(s, "n1", "nodefs.available")[0].pod.name == "layer"
    nodefs = rank_pods(s, "n1", "nodefs.available", filesystems="nodefs+imagefs")
    assert nodefs[0].pod.name == "logs"
    imagefs = rank_pods(s, "n1", "imagefs.available", filesystems="nodefs+imagefs")
    assert imagefs[0].pod.name == "layer"


# --- passes ----------------------------------------------------------------------------

HARD = make_kubelet_config({"memory.available": "100Mi"})


def test_hard_eviction_one_pod_per_pass_with_message() -> None:
    a = pod("a", req=res(100, 100 * Mi), usage={"memory": 700 * Mi})
    b = pod("b", req=res(100, 100 * Mi), usage={"memory": 300 * Mi})
    s = cluster(a, b, memory=1 * Gi)
    r = eviction_pass(s, "n1", HARD, 0)
    assert r.conditions == ("MemoryPressure",)
    assert [(e.pod, e.grace, e.kind) for e in r.evictions] == [("default/a", 1000,
                                                                 "MemoryPressure")]
    assert r.evictions[0].message == (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 24Mi. "
        "Container a was using 700Mi, request is 100Mi, has larger consumption of memory. ")


def test_critical_and_static_pods_are_skipped() -> None:
    crit = pod("crit", priority=SYSTEM_CRITICAL_PRIORITY, usage={"memory": 800 * Mi})
    static = pod("static", static=True, usage={"memory": 100 * Mi})
    other = pod("other", req=res(0, 200 * Mi), usage={"memory": 100 * Mi})
    s = cluster(crit, static, other, memory=1 * Gi)
    r = eviction_pass(s, "n1", HARD, 0)
    assert [e.pod for e in r.evictions] == ["default/other"]
    s2 = cluster(crit, static, memory=1 * Gi)
    assert eviction_pass(s2, "n1", HARD, 0).evictions == ()


def test_soft_threshold_condition_first_eviction_after_grace() -> None:
    cfg = make_kubelet_config({"memory.available": "100Mi"}, {"memory.available": "500Mi"},
                              {"memory.available": "30s"}, max_pod_grace_period="20s")
    s = cluster(pod("a", usage={"memory": 600 * Mi}, grace=60_000), memory=1 * Gi)
    r0 = eviction_pass(s, "n1", cfg, 0)
    assert r0.conditions == ("MemoryPressure",) and not r0.evictions
    r1 = eviction_pass(s, "n1", cfg, 20_000)
    assert not r1.evictions
    r2 = eviction_pass(s, "n1", cfg, 30_000)
    assert [(e.pod, e.grace) for e in r2.evictions] == [("default/a", 20_000)]


def test_soft_grace_uses_smaller_pod_grace_and_default_zero() -> None:
    cfg = make_kubelet_config({}, {"memory.available": "500Mi"}, {"memory.available": "0s"})
    s = cluster(pod("a", usage={"memory": 600 * Mi}), memory=1 * Gi)
    # A soft threshold with a 0s grace period is hard in every respect.
    assert eviction_pass(s, "n1", cfg, 0).evictions[0].grace == 1000
    cfg = make_kubelet_config({}, {"memory.available": "500Mi"}, {"memory.available": "10s"},
                              max_pod_grace_period="60s")
    s = cluster(pod("a", usage={"memory": 600 * Mi}, grace=5_000), memory=1 * Gi)
    eviction_pass(s, "n1", cfg, 0)
    assert eviction_pass(s, "n1", cfg, 10_000).evictions[0].grace == 5_000


def test_transition_period_holds_condition() -> None:
    s = cluster(memory=1 * Gi)
    n = s.nodes["n1"]
    lay = layout(HARD, n)
    set_node_signal(n, lay, "memory.available", 50 * Mi)
    assert eviction_pass(s, "n1", HARD, 0).conditions == ("MemoryPressure",)
    set_node_signal(n, lay, "memory.available", 900 * Mi)
    assert eviction_pass(s, "n1", HARD, 10_000).conditions == ("MemoryPressure",)
    assert eviction_pass(s, "n1", HARD, 299_999).conditions == ("MemoryPressure",)
    assert eviction_pass(s, "n1", HARD, 300_000).conditions == ()


def test_stale_observation_not_acted_on() -> None:
    s = cluster(pod("a", usage={"memory": 950 * Mi}), memory=1 * Gi)
    assert eviction_pass(s, "n1", HARD, 0).evictions
    r = eviction_pass(s, "n1", HARD, 0)  # same instant: no newer stats
    assert r.conditions == ("MemoryPressure",) and not r.evictions


def test_min_reclaim_stickiness() -> None:
    cfg = make_kubelet_config({"memory.available": "100Mi"}, None, None,
                              {"memory.available": "200Mi"})
    s = cluster(pod("a", usage={"memory": 500 * Mi}), pod("b", usage={"memory": 10 * Mi}),
                memory=1 * Gi)
    n = s.nodes["n1"]
    set_node_signal(n, layout(cfg, n), "memory.available", 50 * Mi)
    assert [e.pod for e in eviction_pass(s, "n1", cfg, 0).evictions] == ["default/a"]
    # a is still there (not applied): set the signal to 250Mi, above 100Mi but below 300Mi.
    set_node_signal(n, layout(cfg, n), "memory.available", 250 * Mi)
    assert eviction_pass(s, "n1", cfg, 10_000).evictions
    set_node_signal(n, layout(cfg, n), "memory.available", 300 * Mi)
    assert not eviction_pass(s, "n1", cfg, 20_000).evictions


def test_node_reclaim_first_and_judged_with_min_reclaim() -> None:
    cfg = make_kubelet_config({"nodefs.available": "1Gi"}, None, None,
                              {"nodefs.available": "500Mi"})
    s = cluster(pod("a", usage={"ephemeral-storage": 5 * Gi}), storage=10 * Gi,
                images_unused=5 * Gi)
    n = s.nodes["n1"]
    set_node_signal(n, layout(cfg, n), "nodefs.available", 512 * Mi)
    r = eviction_pass(s, "n1", cfg, 0)
    assert r.reclaimed and not r.evictions
    s = cluster(pod("a", usage={"ephemeral-storage": 5 * Gi}), storage=10 * Gi,
                images_unused=700 * Mi)
    n = s.nodes["n1"]
    set_node_signal(n, layout(cfg, n), "nodefs.available", 512 * Mi)
    r = eviction_pass(s, "n1", cfg, 0)
    # 1212Mi available is past 1Gi but not past 1.5Gi: a pod is evicted as well.
    assert not r.reclaimed and [e.pod for e in r.evictions] == ["default/a"]
    assert r.evictions[0].kind == "DiskPressure"


def test_dedicated_imagefs_nodefs_has_no_node_reclaim() -> None:
    cfg = make_kubelet_config({"nodefs.available": "1Gi"}, filesystems="nodefs+imagefs")
    s = cluster(pod("a", usage={"ephemeral-storage": 9800 * Mi}), storage=10 * Gi,
                images_unused=5 * Gi, imagefs=20 * Gi)
    r = eviction_pass(s, "n1", cfg, 0)
    assert not r.reclaimed and r.evictions


def test_local_storage_eviction_several_pods_without_pressure() -> None:
    over_dir = pod("dir", emptydirs=(EmptyDir("cache", size_limit=Gi, usage=2 * Gi),))
    over_pod = pod("pod", lim=res(storage=Gi), usage={"ephemeral-storage": 2 * Gi})
    fine = pod("fine", lim=res(storage=4 * Gi), usage={"ephemeral-storage": 2 * Gi})
    s = cluster(over_dir, over_pod, fine, storage=100 * Gi)
    r = eviction_pass(s, "n1", KubeletConfig(), 0)
    assert [(e.pod, e.kind) for e in r.evictions] == [("default/dir", "EphemeralStorage"),
                                                      ("default/pod", "EphemeralStorage")]
    assert r.evictions[0].message == 'Usage of EmptyDir volume "cache" exceeds the limit "1Gi". '
    assert r.evictions[1].message == ("Pod ephemeral local storage usage exceeds the total limit"
                                      " of containers 1Gi. ")


def test_pid_pressure_and_usage_updates() -> None:
    cfg = make_kubelet_config({"pid.available": "100"})
    s = cluster(pod("a", usage={"pids": 10}), pod("b", usage={"pids": 20}), pid_max=1000)
    assert eviction_pass(s, "n1", cfg, 0).evictions == ()
    set_pod_usage(s, s.pods["default/a"], {"pids": 950})
    r = eviction_pass(s, "n1", cfg, 10_000)
    assert r.conditions == ("PIDPressure",)
    assert r.evictions[0].pod == "default/a" and r.evictions[0].kind == "PIDPressure"
