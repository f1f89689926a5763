"""The Eviction API against upstream's own tables (pkg/registry/core/pod/storage/eviction_test.go).

Upstream's tests give each PodDisruptionBudget a status by hand; kruleset's
is the controller's, so these tests hand the ``api.eviction`` pipeline the
same status (``status_is``) and check the answer.  Rows about the store's
own failures (delete conflicts, a bad name in the URL, resourceVersion
preconditions) have no counterpart: kruleset's API never conflicts.  Each
row runs under every unhealthyPodEvictionPolicy its upstream row covers
(None stands for the field left out).
"""

from __future__ import annotations

from typing import Any

import pytest

from kruleset.model.objects import Node, Pod, PodDisruptionBudget
from kruleset.model.resources import Resources
from kruleset.model.selectors import LabelSelector, Requirement
from kruleset.model.state import FAILED, PENDING, RUNNING, SUCCEEDED, ClusterState
from kruleset.rules.disruption import eviction_api
from kruleset.rules.disruption.eviction_api import VIOLATION_MESSAGE, evict
from kruleset.rules.disruption.pdb import PdbStatus

A_TRUE = LabelSelector((Requirement("a", "In", ("true",)),))
B_TRUE = LabelSelector((Requirement("b", "In", ("true",)),))
ALL = (None, "IfHealthyBudget", "AlwaysAllow")
GUARDED = (None, "IfHealthyBudget")  # AlwaysAllow deletes an unready pod without the budget


def needs(desired: int, current: int) -> str:
    return f"The disruption budget foo needs {desired} healthy pods and has {current} currently"


def status_is(monkeypatch: pytest.MonkeyPatch, allowed: int, current: int = 0,
              desired: int = 0) -> None:
    st = PdbStatus(0, current, desired, allowed)
    monkeypatch.setattr(eviction_api, "pdb_status", lambda *a, **k: st)


def setup(policy: str | None, *, phase: str = RUNNING, ready: bool = False,
          terminating: bool = False, selector: LabelSelector = A_TRUE,
          owner: tuple[str, str] = ("", "")) -> tuple[ClusterState, Any]:
    cs = ClusterState()
    cs.add_node(Node("foo", Resources(cpu=4000, memory=8 << 30, pods=110)))
    ps = cs.add_pod(Pod("default", "t1", labels={"a": "true"}, owner_kind=owner[0],
                        owner_name=owner[1]))
    if phase != PENDING:
        cs.bind(ps, "foo")
        if phase in (SUCCEEDED, FAILED):
            cs.unbind(ps, phase)
    ps.ready = ready
    if terminating:
        ps.deletion_time = 300_000
    pdb = PodDisruptionBudget("default", "foo", selector, min_available=1,
                              unhealthy_pod_eviction_policy=policy or "IfHealthyBudget")
    cs.pdbs[pdb.key] = pdb
    return cs, ps


# TestEviction
@pytest.mark.parametrize(("name", "phase", "allowed", "selector", "policies", "cause"), [
    ("matching pdbs with no disruptions allowed, pod running", RUNNING, 0, A_TRUE, GUARDED,
     needs(0, 0)),
    ("matching pdbs with no disruptions allowed, pod pending", PENDING, 0, A_TRUE, ALL, ""),
    ("matching pdbs with no disruptions allowed, pod succeeded", SUCCEEDED, 0, A_TRUE, ALL, ""),
    ("matching pdbs with no disruptions allowed, pod failed", FAILED, 0, A_TRUE, ALL, ""),
    ("matching pdbs with disruptions allowed", RUNNING, 1, A_TRUE, ALL, ""),
    ("non-matching pdbs", RUNNING, 0, B_TRUE, ALL, ""),
    ("matching pdbs with no disruptions allowed, pod running, empty selector", RUNNING, 0,
     LabelSelector(), GUARDED, needs(0, 0)),
])
def test_eviction(monkeypatch: pytest.MonkeyPatch, name: str, phase: str, allowed: int,
                  selector: LabelSelector, policies: tuple[str | None, ...], cause: str) -> None:
    status_is(monkeypatch, allowed)
    for policy in policies:
        cs, ps = setup(policy, phase=phase, selector=selector)
        resp = evict(cs, ps, 0)
        if cause:
            assert (resp.status, resp.message, resp.cause) == (429, VIOLATION_MESSAGE, cause), \
                (name, policy)
        else:
            assert resp.status == 200, (name, policy)
            assert resp.message == ""


def test_eviction_running_unready_pod_under_always_allow(monkeypatch: pytest.MonkeyPatch) -> None:
    # TestEviction's first row's comment: AlwaysAllow deletes the (unready) running pod.
    status_is(monkeypatch, 0)
    cs, ps = setup("AlwaysAllow")
    resp = evict(cs, ps, 0)
    assert (resp.status, resp.rule, resp.used_budget) == (200, "api.eviction.unhealthy-pod", False)


# TestEvictionIgnorePDB (the rows kruleset's API can reach)
@pytest.mark.parametrize(("name", "kw", "st", "policies", "cause"), [
    ("pdbs No disruptions allowed, pod pending, pod deleted successfully",
     {"phase": PENDING}, (0, 0, 0), ALL, ""),
    ("matching pdbs with no disruptions allowed, pod terminating",
     {"terminating": True, "ready": True}, (0, 0, 0), ALL, ""),
    ("matching pdbs with no disruptions allowed, pod running, pod healthy, unhealthy pod not ours",
     {"ready": True}, (0, 2, 2), ALL, needs(2, 2)),
    ("matching pdbs with disruptions allowed, pod running, pod healthy, healthy pod ours",
     {"ready": True}, (1, 3, 3), ALL, ""),
    ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours",
     {}, (0, 2, 2), ALL, ""),
    ("... pod unhealthy, unhealthy pod ours, skips the PDB check and deletes",
     {}, (0, 0, 0), ("AlwaysAllow",), ""),
    ("matching pdbs with no disruptions allowed, pod running, pod healthy, empty selector",
     {"ready": True, "selector": LabelSelector()}, (0, 3, 3), ALL, needs(3, 3)),
])
def test_eviction_ignore_pdb(monkeypatch: pytest.MonkeyPatch, name: str, kw: dict[str, Any],
                             st: tuple[int, int, int], policies: tuple[str | None, ...],
                             cause: str) -> None:
    status_is(monkeypatch, *st)
    for policy in policies:
        cs, ps = setup(policy, **kw)
        resp = evict(cs, ps, 0)
        if cause:
            assert (resp.status, resp.cause) == (429, cause), (name, policy)
        else:
            assert resp.status == 200, (name, policy)


@pytest.mark.parametrize(("allowed", "after", "reason"), [
    (1, 0, "InsufficientPods"),  # pdb status is updated after eviction
    (3, 2, "SufficientPods"),    # condition reason is only updated if AllowedDisruptions becomes 0
])
def test_eviction_pdb_status(monkeypatch: pytest.MonkeyPatch, allowed: int, after: int,
                             reason: str) -> None:
    # TestEvictionPDBStatus: the budget is decremented and the pod recorded in disruptedPods.
    status_is(monkeypatch, allowed)
    cs, ps = setup(None, ready=True)
    resp = evict(cs, ps, 5_000)
    assert (resp.status, resp.allowed_after, resp.used_budget) == (200, after, True)
    assert PdbStatus(0, 0, 0, after).condition_reason == reason
    assert cs.pdb_disrupted == {"default/foo": {"t1": 5_000}}


def test_eviction_dry_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # TestEvictionDryRun "with pdbs": 200, and nothing is written.
    status_is(monkeypatch, 1)
    cs, ps = setup(None, ready=True)
    resp = evict(cs, ps, 0, dry_run=True)
    assert resp.status == 200
    assert cs.pdb_disrupted == {} and "DisruptionTarget" not in ps.conditions


def test_never_synced_budget_is_still_being_processed() -> None:
    # checkAndDecrement: observedGeneration < generation -> 429 "still being processed".
    # A budget whose sync failed from the start (its pods' DaemonSet has no scale)
    # was never written by the controller.
    cs, ps = setup(None, ready=True, owner=("DaemonSet", "agent"))
    cs.pdbs["default/foo"] = PodDisruptionBudget("default", "foo", A_TRUE, max_unavailable=1)
    resp = evict(cs, ps, 0)
    assert (resp.status, resp.cause) == (
        429, "The disruption budget foo is still being processed by the server.")
    # AlwaysAllow still deletes a pod that is not Ready without the budget
    ps.ready = False
    cs.pdbs["default/foo"] = PodDisruptionBudget("default", "foo", A_TRUE, max_unavailable=1,
                                                 unhealthy_pod_eviction_policy="AlwaysAllow")
    assert evict(cs, ps, 0).status == 200
