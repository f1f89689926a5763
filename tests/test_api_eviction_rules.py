"""The Eviction API (eviction.go EvictionREST.Create) as the api.eviction rule set."""

from __future__ import annotations

import pytest

from kruleset.model.objects import Node, Pod, PodDisruptionBudget
from kruleset.model.resources import Resources
from kruleset.model.selectors import LabelSelector, Requirement
from kruleset.model.state import ClusterState, PodState
from kruleset.rules.disruption.eviction_api import (
    MULTIPLE_PDBS_MESSAGE,
    VIOLATION_MESSAGE,
    evict,
)
from kruleset.rules.disruption.pdb import pdb_status
from kruleset.rules.engine import Trace
from kruleset.rules.profile import Override, Profile

SEL = LabelSelector((Requirement("app", "In", ("web",)),))


def cluster(n: int = 3, *, ready: int | None = None) -> ClusterState:
    """``n`` running pods web-1..n (the first ``ready`` of them Ready; all by default)."""
    st = ClusterState()
    st.add_node(Node("n1", Resources(cpu=64_000, memory=64 << 30, pods=110)))
    for i in range(1, n + 1):
        ps = st.add_pod(Pod("default", f"web-{i}", labels={"app": "web"}))
        st.bind(ps, "n1")
        ps.ready = ready is None or i <= ready
    return st


def add_pdb(st: ClusterState, name: str = "web-pdb", selector: LabelSelector = SEL,
            **spec: object) -> PodDisruptionBudget:
    pdb = PodDisruptionBudget("default", name, selector, **spec)  # type: ignore[arg-type]
    st.pdbs[pdb.key] = pdb
    return pdb


def pod(st: ClusterState, name: str) -> PodState:
    return st.pods[f"default/{name}"]


def test_no_budget_gives_200() -> None:
    # evict-running-no-pdb: a pod no budget selects is deleted.
    st = cluster()
    r = evict(st, pod(st, "web-1"), 0)
    assert (r.status, r.pdb, r.rule) == (200, "", "api.eviction.pdb-lookup")
    assert pod(st, "web-1").conditions["DisruptionTarget"] == "EvictionByEvictionAPI"


def test_allowed_eviction_decrements_the_budget_and_records_the_pod() -> None:
    st = cluster(3)
    pdb = add_pdb(st, min_available=1)
    assert pdb_status(st, pdb, 0).disruptions_allowed == 2
    r = evict(st, pod(st, "web-1"), 5_000)
    assert (r.status, r.allowed_after, r.used_budget, r.rule) == \
        (200, 1, True, "api.eviction.pdb-budget")
    assert st.pdb_disrupted["default/web-pdb"] == {"web-1": 5_000}
    after = pdb_status(st, pdb, 5_000)
    assert (after.disruptions_allowed, after.current_healthy) == (1, 2)
    assert after.disrupted_pods == {"web-1": 5_000}


def test_exhausted_budget_gives_429_with_upstream_cause() -> None:
    st = cluster(2)
    add_pdb(st, min_available=2)
    r = evict(st, pod(st, "web-1"), 0)
    assert (r.status, r.message) == (429, VIOLATION_MESSAGE)
    assert r.cause == "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"
    assert r.pdb == "default/web-pdb" and r.rule == "api.eviction.pdb-budget"
    assert "DisruptionTarget" not in pod(st, "web-1").conditions
    assert st.pdb_disrupted == {}


def test_budget_allows_exactly_its_disruptions() -> None:
    st = cluster(4)
    add_pdb(st, max_unavailable=1, min_available=None)
    # naked pods: expectedPods 0 for maxUnavailable, nothing allowed
    assert evict(st, pod(st, "web-1"), 0).status == 429
    st2 = cluster(4)
    add_pdb(st2, min_available=2)
    got = [evict(st2, pod(st2, f"web-{i}"), 0).status for i in range(1, 5)]
    assert got == [200, 200, 429, 429]


def test_two_budgets_give_500() -> None:
    st = cluster()
    add_pdb(st, "a", min_available=0)
    add_pdb(st, "b", min_available=0)
    r = evict(st, pod(st, "web-1"), 0)
    assert (r.status, r.message) == (500, MULTIPLE_PDBS_MESSAGE)
    assert "DisruptionTarget" not in pod(st, "web-1").conditions


@pytest.mark.parametrize("how", ["pending", "succeeded", "failed", "terminating"])
def test_pods_that_are_not_running_bypass_budgets(how: str) -> None:
    st = cluster(2)
    add_pdb(st, min_available=5)
    ps = pod(st, "web-1")
    if how == "pending":
        ps = st.add_pod(Pod("default", "web-p", labels={"app": "web"}))
    elif how == "succeeded":
        st.unbind(ps, "Succeeded")
    elif how == "failed":
        st.unbind(ps, "Failed")
    else:
        ps.deletion_time = 30_000
    r = evict(st, ps, 0)
    assert (r.status, r.rule, r.used_budget) == (200, "api.eviction.ignore-pdb", False)


def test_unhealthy_pod_with_healthy_application_is_evicted_without_budget() -> None:
    # 3 pods, 2 Ready, minAvailable 2: currentHealthy 2 >= desiredHealthy 2 > 0.
    st = cluster(3, ready=2)
    add_pdb(st, min_available=2)
    r = evict(st, pod(st, "web-3"), 0)
    assert (r.status, r.rule, r.used_budget, r.allowed_after) == \
        (200, "api.eviction.unhealthy-pod", False, 0)
    assert st.pdb_disrupted == {}


def test_unhealthy_pod_of_disrupted_application_is_refused() -> None:
    # IfHealthyBudget: currentHealthy 1 < desiredHealthy 2 -> the budget decides: 429.
    st = cluster(3, ready=1)
    add_pdb(st, min_available=2)
    r = evict(st, pod(st, "web-3"), 0)
    assert (r.status, r.rule) == (429, "api.eviction.pdb-budget")
    assert r.cause == "The disruption budget web-pdb needs 2 healthy pods and has 1 currently"


def test_running_unready_pod_with_no_desired_healthy_is_refused() -> None:
    # evict-running-no-budget: desiredHealthy 0 does not count as "not disrupted".
    st = cluster(1, ready=0)
    add_pdb(st, min_available=0)
    r = evict(st, pod(st, "web-1"), 0)
    assert r.status == 429
    assert r.cause == "The disruption budget web-pdb needs 0 healthy pods and has 0 currently"


def test_always_allow_evicts_unhealthy_pods_whatever_the_budget() -> None:
    st = cluster(3, ready=1)
    add_pdb(st, min_available=3, unhealthy_pod_eviction_policy="AlwaysAllow")
    r = evict(st, pod(st, "web-3"), 0)
    assert (r.status, r.rule, r.used_budget) == (200, "api.eviction.unhealthy-pod", False)
    # ...but a Ready pod still needs the budget
    assert evict(st, pod(st, "web-1"), 0).status == 429


def test_dry_run_answers_without_changing_anything() -> None:
    st = cluster(3)
    pdb = add_pdb(st, min_available=2)
    r = evict(st, pod(st, "web-1"), 0, dry_run=True)
    assert (r.status, r.allowed_after) == (200, 0)
    assert st.pdb_disrupted == {} and pod(st, "web-1").conditions == {}
    assert pdb_status(st, pdb, 0).disruptions_allowed == 1
    st2 = cluster(2)
    add_pdb(st2, min_available=2)
    assert evict(st2, pod(st2, "web-1"), 0, dry_run=True).status == 429


def test_stale_budget_gives_429_still_being_processed() -> None:
    st = cluster(3)
    add_pdb(st, min_available=0)
    r = evict(st, pod(st, "web-1"), 0, stale_pdbs={"default/web-pdb"})
    assert (r.status, r.message) == (429, VIOLATION_MESSAGE)
    assert r.cause == "The disruption budget web-pdb is still being processed by the server."


def test_too_many_unconfirmed_evictions_gives_403() -> None:
    st = cluster(2002)
    add_pdb(st, min_available=0)
    st.pdb_disrupted["default/web-pdb"] = {f"web-{i}": 0 for i in range(2, 2003)}
    r = evict(st, pod(st, "web-1"), 0)
    assert r.status == 403
    assert "DisruptedPods map too big" in r.message
    st.pdb_disrupted["default/web-pdb"].pop("web-2002")  # 2000 entries: allowed
    assert evict(st, pod(st, "web-1"), 0).status == 200


def test_empty_selector_matches_every_pod_of_the_namespace() -> None:
    # evict-empty-selector-matches-all (policy/v1)
    st = cluster(2)
    add_pdb(st, selector=LabelSelector(), min_available=2)
    assert evict(st, pod(st, "web-1"), 0).status == 429
    other = st.add_pod(Pod("other", "x", labels={"app": "web"}))
    st.bind(other, "n1")
    assert evict(st, other, 0).status == 200


def test_selector_that_does_not_match_is_ignored() -> None:
    st = cluster(2)
    add_pdb(st, selector=LabelSelector((Requirement("app", "In", ("db",)),)), min_available=2)
    assert evict(st, pod(st, "web-1"), 0).status == 200


def test_trace_names_the_deciding_rule() -> None:
    st = cluster(2)
    add_pdb(st, min_available=2)
    trace = Trace()
    evict(st, pod(st, "web-1"), 0, trace=trace)
    # the budget's status is computed inside the lookup, each step traced
    assert [(e.rule, e.result) for e in trace.entries] == [
        ("api.eviction.ignore-pdb", "continue"),
        ("disruption.pdb.expected-pods", "continue"), ("disruption.pdb.disrupted-pods", "continue"),
        ("disruption.pdb.current-healthy", "continue"),
        ("disruption.pdb.disruptions-allowed", "stop"),
        ("api.eviction.pdb-lookup", "continue"),
        ("api.eviction.unhealthy-pod", "continue"), ("api.eviction.pdb-budget", "stop")]
    assert [e.why for e in trace.entries][1:5] == [
        "default/web-pdb: expectedPods 2, desiredHealthy 2",
        "default/web-pdb: disruptedPods none",
        "default/web-pdb: currentHealthy 2 of 2 selected pods",
        "default/web-pdb: disruptionsAllowed 0 (InsufficientPods)"]


def test_a_profile_can_disable_the_budget_check() -> None:
    st = cluster(2)
    add_pdb(st, min_available=2)
    prof = Profile(overrides={"api.eviction": Override(disable=("api.eviction.pdb-budget",))})
    r = evict(st, pod(st, "web-1"), 0, profile=prof)
    assert r.status == 200
