"""Critical-pod admission preemption (seed 000; upstream preemption_test.go vectors)."""

from __future__ import annotations

import pytest
from kubelet_helpers import Mi, node, pod, res

from kruleset.model.objects import SYSTEM_CRITICAL_PRIORITY
from kruleset.model.state import ClusterState
from kruleset.rules.kubelet.admission import admit_pod
from kruleset.rules.kubelet.critical_preemption import (
    PreemptionError,
    Requirement,
    distance,
    pods_to_preempt,
    pods_to_preempt_by_distance,
    preemptable,
    subtract,
)

CRIT = pod("critical", priority=SYSTEM_CRITICAL_PRIORITY, ns="kube-system")
BE = pod("best-effort")
BU = pod("burstable", req=res(100, 100 * Mi), lim=res(200, 200 * Mi))
GU = pod("guaranteed", req=res(100, 100 * Mi), lim=res(100, 100 * Mi))
HBU = pod("high-burstable", req=res(300, 300 * Mi), lim=res(400, 400 * Mi))
HGU = pod("high-guaranteed", req=res(300, 300 * Mi), lim=res(300, 300 * Mi))


def names(pods: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(p.name for p in pods)


def reqs(cpu: int = 0, memory: int = 0, pods: int = 0) -> list[Requirement]:
    out = []
    if pods:
        out.append(Requirement("pods", pods))
    if cpu:
        out.append(Requirement("cpu", cpu))
    if memory:
        out.append(Requirement("memory", memory))
    return out


@pytest.mark.parametrize("pool, need, want", [
    ([], reqs(), []),
    ([BU], reqs(100, 100 * Mi), ["burstable"]),
    ([BU, BE], reqs(pods=1), ["best-effort"]),
    ([BU, GU], reqs(pods=1), ["burstable"]),
    ([BE, HBU, BU], reqs(100, 100 * Mi), ["burstable"]),
    ([BE, BU, HBU], reqs(300, 300 * Mi), ["high-burstable"]),
    ([BE, BU, HBU, GU, HGU], reqs(350, 350 * Mi), ["burstable", "high-burstable"]),
    ([BE, HBU, HGU], reqs(350, 350 * Mi), ["high-burstable", "high-guaranteed"]),
    ([BE, BU, HBU, GU, HGU], reqs(750, 750 * Mi),
     ["burstable", "guaranteed", "high-burstable", "high-guaranteed"]),
])
def test_upstream_vectors(pool: list, need: list, want: list[str]) -> None:  # type: ignore[type-arg]
    assert names(pods_to_preempt(CRIT, pool, need)) == want


@pytest.mark.parametrize("pool, need", [([], reqs(100)), ([BU], reqs(200))])
def test_no_set_of_pods(pool: list, need: list) -> None:  # type: ignore[type-arg]
    with pytest.raises(PreemptionError, match=r"no set of running pods found to reclaim "
                                              r"resources: \[\(res: cpu, q: \d+\), \]"):
        pods_to_preempt(CRIT, pool, need)


def test_victims_in_kill_order_best_effort_first() -> None:
    out = pods_to_preempt(CRIT, [HGU, BE, HBU], reqs(350, 350 * Mi, pods=3))
    assert [p.name for p in out] == ["best-effort", "high-burstable", "high-guaranteed"]


def test_seed_000_example_100m() -> None:
    # B-000-03-06: A needs 100M; Burstable total 50M, BestEffort 40M, Guaranteed B 90M.
    m = 1_000_000
    b = pod("b", req=res(100, 90 * m), lim=res(100, 90 * m))
    bu = [pod(f"bu{i}", req=res(0, 25 * m), lim=res(0, 50 * m)) for i in range(2)]
    be = [pod(f"be{i}") for i in range(2)]
    out = pods_to_preempt(CRIT, bu + be + [b], reqs(memory=100 * m))
    # BestEffort pods request no memory, so B must go and the last 10M comes from Burstable.
    assert [p.name for p in out] == ["bu1", "b"]


def test_best_effort_frees_only_pod_count() -> None:
    assert subtract(reqs(100, 100 * Mi, pods=1), [BE]) == reqs(100, 100 * Mi)
    with pytest.raises(PreemptionError):
        pods_to_preempt(CRIT, [BE, BE], reqs(memory=1))


def test_distance_squared_missing_fractions() -> None:
    need = reqs(200, 400 * Mi)
    assert distance(need, BU) == pytest.approx(0.25 + 0.5625)
    assert distance(need, HBU) == pytest.approx(0.25 * 0.25 + 0.0)
    assert distance(reqs(100), HBU) == 0.0


def test_full_tie_goes_to_later_pod_then_swap_remove() -> None:
    a, b, c = (pod(n, req=res(100, 100 * Mi), lim=res(100, 100 * Mi)) for n in "abc")
    # Each picks one pod; on a full tie the later scanned wins: c; then swap-remove
    # leaves [a, b] and b wins.
    assert [p.name for p in pods_to_preempt_by_distance([a, b, c], reqs(150))] == ["c", "b"]


def test_tie_break_smaller_memory_then_cpu() -> None:
    big = pod("big", req=res(500, 500 * Mi))
    small_mem = pod("small-mem", req=res(500, 200 * Mi))
    small_cpu = pod("small-cpu", req=res(300, 200 * Mi))
    got = pods_to_preempt_by_distance([small_cpu, big, small_mem], reqs(100))
    assert [p.name for p in got] == ["small-cpu"]
    got = pods_to_preempt_by_distance([big, small_mem], reqs(100))
    assert [p.name for p in got] == ["small-mem"]


def test_preemptable_rules() -> None:
    static_low = pod("static", static=True, priority=0)
    static_nil = pod("static-nil", static=True)
    high_user = pod("user", priority=1_000_000_000)
    assert preemptable(CRIT, high_user)
    assert not preemptable(CRIT, CRIT)
    assert not preemptable(static_nil, pod("other-static", static=True))
    assert preemptable(high_user, static_low)        # both set, strictly greater
    assert not preemptable(CRIT, pod("crit2", priority=SYSTEM_CRITICAL_PRIORITY))
    assert preemptable(pod("nc", priority=SYSTEM_CRITICAL_PRIORITY + 1000), CRIT)


def _state(*pods: object) -> ClusterState:
    s = ClusterState()
    s.add_node(node(cpu=1000, memory=1000 * Mi, pods=4))
    for p in pods:
        ps = s.add_pod(p)  # type: ignore[arg-type]
        s.bind(ps, "n1")
    return s


def test_admission_preempts_only_for_resources() -> None:
    s = _state(BU, GU)
    crit = pod("critical", priority=SYSTEM_CRITICAL_PRIORITY, req=res(900, 100 * Mi),
               ns="kube-system")
    r = admit_pod(s, "n1", crit)
    assert r.admitted and r.victim_keys == ("default/burstable",)
    assert [f.reason for f in r.failures] == ["OutOfcpu"]


def test_non_resource_failure_cancels_preemption() -> None:
    s = _state(pod("port", host_ports=((80, "TCP"),)))
    crit = pod("critical", priority=SYSTEM_CRITICAL_PRIORITY, req=res(2000),
               host_ports=((80, "TCP"),))
    r = admit_pod(s, "n1", crit)
    assert not r.admitted and not r.victims
    assert r.reason == "NodePorts"
    assert r.message == ("Predicate NodePorts failed: node(s) didn't have free ports for the "
                         "requested pod ports")


def test_non_critical_pod_rejected_with_first_reason() -> None:
    s = _state(GU)
    r = admit_pod(s, "n1", pod("big", req=res(2000, 2000 * Mi)))
    assert not r.admitted
    assert r.reason == "OutOfcpu"
    assert r.message == ("Node didn't have enough resource: cpu, requested: 2000, used: 100, "
                         "capacity: 1000")
    assert [f.reason for f in r.failures] == ["OutOfcpu", "OutOfmemory"]


def test_preemption_failure_is_unexpected_admission_error() -> None:
    s = _state(GU)
    crit = pod("critical", priority=SYSTEM_CRITICAL_PRIORITY, req=res(2000))
    r = admit_pod(s, "n1", crit)
    assert not r.admitted
    assert r.reason == "UnexpectedAdmissionError"
    assert r.message == ("Unexpected error while attempting to recover from admission failure: "
                         "preemption: error finding a set of pods to preempt: no set of running "
                         "pods found to reclaim resources: [(res: cpu, q: 1000), ]")
