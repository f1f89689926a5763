"""CapacityScheduling rules against upstream's unit-test vectors (scheduler-plugins).

Vectors from ``pkg/capacityscheduling/elasticquota_test.go`` (TestUsedOverMinWith,
TestUsedOverMaxWith, TestUsedOverMin, TestNewElasticQuotaInfo, TestReserveResource,
TestUnReserveResource) and ``capacity_scheduling_test.go`` (TestPreFilter, TestReserve,
TestUnreserve, TestPodEligibleToPreemptOthers, TestDryRunPreemption), restated on
kruleset's model.
"""

from __future__ import annotations

import pytest

from kruleset.model.objects import Container, ElasticQuota, Node, Pod
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState
from kruleset.rules.quota.accounting import (
    MAX_INT64,
    Bound,
    QuotaView,
    max_bound,
    min_bound,
    over,
    quota_request,
    quota_usage,
    quota_used,
)
from kruleset.rules.quota.prefilter import (
    MAX_RULE,
    TOTAL_MIN_RULE,
    check_quota,
    prefilter_state,
)
from kruleset.rules.scheduler.config import profile_for
from kruleset.rules.scheduler.cycle import ScheduleContext

GPU = "nvidia.com/gpu"


def res(cpu: int = 0, mem: int = 0, eph: int = 0, gpu: int | None = None) -> Resources:
    return Resources.of({"cpu": cpu, "memory": mem, "ephemeral-storage": eph,
                         **({GPU: gpu} if gpu is not None else {})})


def bound(cpu: int = 0, mem: int = 0, eph: int = 0, gpu: int | None = None,
          missing: int = 0) -> Bound:
    return Bound(cpu, mem, eph, 0, {GPU: gpu} if gpu is not None else {}, missing)


# --- comparisons (elasticquota_test.go) ----------------------------------------------------------

@pytest.mark.parametrize("used, req, minimum, expected", [
    # Sum Of PodRequest And Used Is Bigger Than Min
    (res(4000, 200, gpu=5), res(1500, 100), bound(3000, 100, gpu=5), True),
    # Sum Of PodRequest And Used Is Not Bigger Than Min
    (res(300, 100, gpu=5), res(100, 50), bound(4000, 200, gpu=5), False),
    # Used And Min Don't Have GPU Value: the request's GPU counts against 0
    (res(10, 10), res(10, 10, gpu=5), bound(3000, 100), True),
    # EphemeralStorage
    (res(10, 10, 10), res(10, 10, 10), bound(3000, 100, 100), False),
])
def test_used_over_min_with(used: Resources, req: Resources, minimum: Bound,
                            expected: bool) -> None:
    assert (over(req, used, minimum) is not None) is expected


@pytest.mark.parametrize("used, req, maximum, expected", [
    # Sum Of PodRequest And Used Is Bigger Than Max
    (res(4000, 200, gpu=5), res(100, 100), bound(4000, 200, gpu=5, missing=MAX_INT64), True),
    # Sum Of PodRequest And Used Is Not Bigger Than Max
    (res(3900, 100, gpu=5), res(100, 100), bound(4000, 200, gpu=5, missing=MAX_INT64), False),
    # Used And Max Don't Have GPU Value: a GPU left out of max is unlimited
    (res(10, 10), res(10, 10, gpu=5), bound(3000, 100, missing=MAX_INT64), False),
    # EphemeralStorage
    (res(10, 10, 10), res(10, 10, 100), bound(3000, 100, 100, missing=MAX_INT64), True),
])
def test_used_over_max_with(used: Resources, req: Resources, maximum: Bound,
                            expected: bool) -> None:
    assert (over(req, used, maximum) is not None) is expected


def test_used_over_max_without_max_is_never_over() -> None:
    # "ElasticQuotaInfo Doesn't Have Max": 3900m + 100m is not over an absent max.
    assert over(res(100, 100), res(3900, 100, gpu=5), max_bound(ElasticQuota("ns1"))) is None


@pytest.mark.parametrize("used, minimum, expected", [
    (res(4000, 200, gpu=5), bound(3000, 300, gpu=5), True),     # Used Is Bigger Than Min
    (res(300, 100, gpu=5), bound(4000, 200, gpu=5), False),     # Used Is Not Bigger Than Min
    (res(300, 100, gpu=5), bound(4000, 200), True),             # Used Has GPU, Min Doesn't
    (res(300, 100, 100), bound(4000, 200, 10), True),           # EphemeralStorage
])
def test_used_over_min(used: Resources, minimum: Bound, expected: bool) -> None:
    assert (over(used, None, minimum) is not None) is expected


def test_used_over_min_without_min() -> None:
    # "ElasticQuotaInfo Doesn't Have Min": any usage is over.
    assert over(res(3900, 100, gpu=5), None, min_bound(ElasticQuota("ns1"))) is not None


def test_equal_is_not_over() -> None:
    assert over(res(2000), res(4000), bound(6000)) is None
    assert over(res(2001), res(4000), bound(6000)) == ("cpu", 6001, 6000)


# --- defaults (TestNewElasticQuotaInfo) ---------------------------------------------------------

def test_new_elastic_quota_info_defaults() -> None:
    full = ElasticQuota("ns1", min=Resources(cpu=10, memory=100),
                        max=Resources(cpu=100, memory=1000))
    assert (max_bound(full).cpu, max_bound(full).memory) == (100, 1000)
    assert (min_bound(full).cpu, min_bound(full).memory) == (10, 100)
    no_max = ElasticQuota("ns1", min=Resources(cpu=10, memory=100))
    b = max_bound(no_max)
    assert (b.cpu, b.memory, b.ephemeral_storage) == (MAX_INT64,) * 3
    no_min = ElasticQuota("ns1", max=Resources(cpu=100, memory=1000))
    b = min_bound(no_min)
    assert (b.cpu, b.memory, b.ephemeral_storage) == (0, 0, 0)


def test_core_resource_left_out_of_present_max_is_zero() -> None:
    b = max_bound(ElasticQuota("ns1", max=Resources(cpu=10_000)))
    assert over(Resources(memory=1), None, b) == ("memory", 1, 0)
    assert b.get(GPU) == MAX_INT64


# --- pod request (computePodResourceRequest) ------------------------------------------------------

def test_pod_request_upstream_example() -> None:
    g = 1 << 30
    pod = Pod("ns", "p", (Container("c1", Resources(cpu=2000, memory=g)),
                          Container("c2", Resources(cpu=1000, memory=g))),
              init_containers=(Container("i1", Resources(cpu=2000, memory=g)),
                               Container("i2", Resources(cpu=2000, memory=3 * g))))
    r = quota_request(pod)
    assert (r.cpu, r.memory, r.pods) == (3000, 3 * g, 0)


def test_pod_request_treats_sidecars_as_plain_init_containers() -> None:
    pod = Pod("ns", "p", (Container("c", Resources(cpu=1000)),),
              init_containers=(Container("side", Resources(cpu=500), restart_always=True),),
              overhead=Resources(cpu=100))
    assert quota_request(pod).cpu == 1100        # max(1000, 500) + 100, not 1000 + 500 + 100
    assert pod.requests.cpu == 1600               # what the node sees


# --- accounting (TestReserve, TestUnreserve, EQ events) ------------------------------------------

def cluster(*quotas: ElasticQuota, cpu: int = 16_000) -> ClusterState:
    st = ClusterState()
    st.add_node(Node("n1", Resources(cpu=cpu, memory=64 << 30, pods=110)))
    for q in quotas:
        st.quotas[q.namespace] = q
    return st


def pod(ns: str, name: str, cpu: int, prio: int = 0, mem: int = 0, gpu: int = 0) -> Pod:
    r = Resources.of({"cpu": cpu, "memory": mem, **({GPU: gpu} if gpu else {})})
    return Pod(ns, name, (Container("c", r),), priority=prio)


def test_reserve_and_unreserve_count_once() -> None:
    # TestReserveResource / TestUnReserveResource: 1000m/200/2 GPU + pods of ns1.
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=1)), ElasticQuota("ns2"))
    u = quota_usage(st)
    p1 = st.add_pod(pod("ns1", "t1-p1", 3000, mem=150, gpu=3))
    st.bind(p1, "n1")
    assert quota_used(st, "ns1") == Resources.of({"cpu": 3000, "memory": 150, GPU: 3})
    assert not u.reserve(p1)                      # already present: not added twice
    st.unbind(p1, "Succeeded")
    assert quota_used(st, "ns1").is_zero()
    assert not u.unreserve(p1)


def test_namespace_without_quota_is_not_counted() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=1)))
    st.bind(st.add_pod(pod("free", "p", 2000)), "n1")
    assert quota_used(st, "free").is_zero()
    assert quota_usage(st).total.cpu == 0


def test_terminating_pod_counts_until_unbound() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=1)))
    ps = st.add_pod(pod("ns1", "p", 2000))
    st.bind(ps, "n1")
    ps.deletion_time = 30_000
    assert ps.terminating and quota_used(st, "ns1").cpu == 2000
    st.unbind(ps, "Failed")
    assert quota_used(st, "ns1").cpu == 0


def test_quota_update_keeps_used_delete_forgets_it() -> None:
    # TestUpdateElasticQuota / TestDeleteElasticQuota / TestAddElasticQuota.
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=1000)))
    st.bind(st.add_pod(pod("ns1", "p", 2000)), "n1")
    assert quota_used(st, "ns1").cpu == 2000
    st.quotas["ns1"] = ElasticQuota("ns1", min=Resources(cpu=5000))
    assert quota_used(st, "ns1").cpu == 2000
    assert quota_usage(st).total_min.cpu == 5000
    del st.quotas["ns1"]
    assert quota_used(st, "ns1").is_zero()
    assert quota_usage(st).total.cpu == 0
    st.quotas["ns1"] = ElasticQuota("ns1", min=Resources(cpu=5000))
    assert quota_used(st, "ns1").cpu == 0          # a new quota starts from 0


# --- PreFilter (TestPreFilter) -------------------------------------------------------------------

def ctx_for(st: ClusterState) -> ScheduleContext:
    return ScheduleContext(st, profile_for(None, quotas_present=True), None, st.now)


def test_prefilter_without_quota_passes() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=0), max=Resources(cpu=0)))
    assert check_quota(st, pod("ns2", "p", 5000)) is None


def test_prefilter_refuses_over_max_and_does_not_change_used() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=1000, memory=1000),
                              max=Resources(cpu=1000, memory=1000)))
    st.bind(st.add_pod(pod("ns1", "a", 300, mem=300)), "n1")
    ok = pod("ns1", "t1", 200, mem=200)
    assert check_quota(st, ok) is None
    assert check_quota(st, ok) is None                # used stays 300 between checks
    f = check_quota(st, pod("ns1", "t2", 800, mem=100))
    assert f is not None and f.rule == MAX_RULE
    assert f.reason == ("Pod ns1/t2 is rejected in PreFilter because ElasticQuota ns1 is "
                        "more than Max")
    assert quota_used(st, "ns1").cpu == 300


def test_prefilter_refuses_when_the_sum_of_used_is_bigger_than_the_sum_of_min() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=300, memory=300),
                              max=Resources(cpu=2000, memory=2000)),
                 ElasticQuota("ns2", min=Resources(cpu=300, memory=300),
                              max=Resources(cpu=2000, memory=2000)))
    st.bind(st.add_pod(pod("ns2", "b", 300, mem=300)), "n1")
    st.bind(st.add_pod(pod("ns1", "a", 200, mem=200)), "n1")
    assert check_quota(st, pod("ns1", "ok", 100, mem=100)) is None
    f = check_quota(st, pod("ns1", "t", 200, mem=100))
    assert f is not None and f.rule == TOTAL_MIN_RULE
    assert f.reason == ("Pod ns1/t is rejected in PreFilter because total ElasticQuota used "
                        "is more than min")


def test_prefilter_counts_nominated_pods() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=2000), max=Resources(cpu=4000)),
                 ElasticQuota("ns2", min=Resources(cpu=4000), max=Resources(cpu=4000)),
                 ElasticQuota("ns3", min=Resources(cpu=1000), max=Resources(cpu=4000)))
    same_high = st.add_pod(pod("ns1", "same-high", 1000, prio=10))
    same_low = st.add_pod(pod("ns1", "same-low", 1000, prio=0))
    other_under = st.add_pod(pod("ns2", "other", 1000))
    st.bind(st.add_pod(pod("ns3", "busy", 2000)), "n1")       # ns3 is above its min
    other_over = st.add_pod(pod("ns3", "over", 1000))
    for ps in (same_high, same_low, other_under, other_over):
        ps.nominated = "n1"
    me = pod("ns1", "me", 1000, prio=5)
    pre = prefilter_state(ctx_for(st), me)
    assert pre.req_in_eq.cpu == 2000                     # me + same-high (>= priority)
    assert pre.req_all.cpu == 3000                       # + ns2's pod (ns2 under its min)
    assert pre.nominated_in_eq == ("ns1/same-high",)
    assert pre.nominated_other == ("ns2/other",)


def test_gpu_over_total_min_refuses_cpu_only_pods() -> None:
    # CS-PF-5: the aggregate compares every resource anyone uses.
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=4000)),
                 ElasticQuota("ns2", min=Resources(cpu=4000)))
    st.bind(st.add_pod(pod("ns2", "gpu", 100, gpu=1)), "n1")
    f = check_quota(st, pod("ns1", "cpu-only", 100))
    assert f is not None and f.rule == TOTAL_MIN_RULE and f.detail["resource"] == GPU


def test_quota_view_removes_and_adds_without_touching_the_usage() -> None:
    st = cluster(ElasticQuota("ns1", min=Resources(cpu=1000)))
    ps = st.add_pod(pod("ns1", "p", 2000))
    st.bind(ps, "n1")
    u = quota_usage(st)
    view = QuotaView(u)
    assert view.over_min("ns1") is not None
    view.remove(ps)
    view.remove(ps)                                   # removing twice changes nothing more
    assert view.over_min("ns1") is None and view.used("ns1").cpu == 0
    assert u.infos["ns1"].used.cpu == 2000
    view.add(ps)
    assert view.used("ns1").cpu == 2000


def test_explain_says_loudly_that_a_left_out_core_resource_is_zero() -> None:
    from kruleset.rules.engine import Trace

    st = cluster(ElasticQuota("ns1", min=Resources(cpu=4000, memory=8 << 30),
                              max=Resources(cpu=4000)))
    trace = Trace()
    f = check_quota(st, pod("ns1", "p", 1000, mem=1 << 30), trace=trace)
    assert f is not None and f.rule == MAX_RULE and f.detail["resource"] == "memory"
    notes = [e.why for e in trace.entries if e.result == "note"]
    assert any("max does not list memory" in n and "counts as 0" in n for n in notes)
    quiet = Trace()
    assert check_quota(st, pod("ns1", "q", 1000), trace=quiet) is None
    assert not [e for e in quiet.entries if e.result == "note"]
