"""DynamicResources' QueueingHints, from upstream's unit test tables.

Upstream ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go``
(``Test_isSchedulableAfterClaimChange``, ``Test_isSchedulableAfterPodChange``)
transcribed case by case (the cases feeding a wrong object type check Go's
type assertions and have no counterpart here), plus the registrations of
``EventsToRegister`` with queueing hints on, and the verdicts each hint
writes into the trace.
"""

from __future__ import annotations

import pytest

from kruleset.model.dra import ClaimSpec, DeviceRef, PodClaim
from kruleset.model.objects import Pod
from kruleset.rules.dra.allocator import Allocation
from kruleset.rules.dra.queue_hints import (
    CLAIM_HINT_RULE,
    POD_HINT_RULE,
    REGISTRATIONS,
    ClaimsPodView,
    ClaimView,
    claim_change,
    claim_view,
    pod_change,
)
from kruleset.rules.dra.state import ClaimState, DraState
from kruleset.rules.engine import Trace
from kruleset.rules.scheduler.queue.events import (
    ADD,
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    DELETE,
    DEVICE_CLASS,
    NODE,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    UNSCHEDULED_POD,
    UPDATE,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_NODE_LABEL,
    UPDATE_NODE_TAINT,
    UPDATE_POD_GENERATED_RESOURCE_CLAIM,
    ClusterEvent,
)
from kruleset.rules.scheduler.queue.hints import registrations_of

NS = "default"
POD = "my-pod"
CLAIM = "my-pod-my-resource"   # upstream's claimName (generated for the pod's claim)
ALLOCATION = Allocation((DeviceRef("req-0", "some-driver", "worker", "instance-1"),), "worker")


def _pod(*claims: PodClaim, name: str = POD) -> Pod:
    return Pod(name=name, namespace=NS, resource_claims=claims)


POD_WITH_CLAIM_NAME = _pod(PodClaim("my-resource", claim_name=CLAIM))
POD_WITH_CLAIM_TEMPLATE = _pod(PodClaim("my-resource", template_name="my-template"))
POD_WITH_TWO_TEMPLATES = _pod(PodClaim("my-resource", template_name="my-template"),
                              PodClaim("my-resource-2", template_name="my-template"))


def _claim(name: str = CLAIM, *, allocated: bool = False, owner: str = "") -> ClaimState:
    cs = ClaimState(NS, name, ClaimSpec(), owner=owner)
    if allocated:
        cs.allocation = ALLOCATION
    return cs


def _dra(*claims: ClaimState, recorded: dict[str, str] | None = None) -> DraState:
    dra = DraState()
    for cs in claims:
        dra.claims[cs.key] = cs
    if recorded:  # status.resourceClaimStatuses of the pod
        dra.pod_claims[f"{NS}/{POD}"] = dict(recorded)
    return dra


def _view(cs: ClaimState, dra: DraState, trace: Trace | None = None, **status: object
          ) -> ClaimView:
    base = claim_view(cs, dra, trace)
    return ClaimView(cs, status.get("allocation", base.allocation),  # type: ignore[arg-type]
                     tuple(status.get("reserved_for", base.reserved_for)),  # type: ignore[arg-type]
                     base.deleting, dra, trace)


# --- Test_isSchedulableAfterClaimChange ---------------------------------------------------

def test_skip_deletes() -> None:
    # "skip-deletes": a deletion (no new object) never queues (and is no registered event).
    cs = _claim(allocated=True, owner=f"{NS}/{POD}")
    dra = _dra()
    assert claim_change(POD_WITH_CLAIM_TEMPLATE, _view(cs, dra), None) is False


def test_skip_wrong_claim() -> None:
    # "skip-wrong-claim": the pod's template claim is not recorded in its status (the
    # claim is another pod's): foreachPodResourceClaim fails.
    cs = _claim(allocated=True, owner=f"{NS}/someone-else")
    dra = _dra(cs)
    assert claim_change(POD_WITH_CLAIM_TEMPLATE, None, claim_view(cs, dra)) is False


def test_skip_unrelated_claim() -> None:
    # "skip-unrelated-claim": another claim (other name and UID) created.
    mine = _claim(allocated=True, owner=f"{NS}/{POD}")
    other = _claim(CLAIM + "-foo", allocated=True)
    dra = _dra(mine, other, recorded={"my-resource": CLAIM})
    assert claim_change(POD_WITH_CLAIM_TEMPLATE, None, claim_view(other, dra)) is False


def test_queue_on_add() -> None:
    # "queue-on-add": the pod's named claim created.
    cs = _claim()
    dra = _dra(cs)
    assert claim_change(POD_WITH_CLAIM_NAME, None, claim_view(cs, dra)) is True


def test_skip_adding_finalizer() -> None:
    # "skip-adding-finalizer": the pod's claim updated, its status unchanged.
    cs = _claim()
    dra = _dra(cs)
    assert claim_change(POD_WITH_CLAIM_NAME, claim_view(cs, dra), claim_view(cs, dra)) is False


def test_queue_on_status_change() -> None:
    # "queue-on-status-change": the pod's claim got an allocation.
    cs = _claim()
    dra = _dra(cs)
    before = claim_view(cs, dra)
    cs.allocation = ALLOCATION
    assert claim_change(POD_WITH_CLAIM_NAME, before, claim_view(cs, dra)) is True


def test_queue_on_reserved_for_change() -> None:
    # reservedFor is status too (kruleset's PreBind writes it with the allocation).
    cs = _claim(allocated=True)
    dra = _dra(cs)
    before = claim_view(cs, dra)
    cs.reserved_for.append(f"{NS}/first")
    assert claim_change(POD_WITH_CLAIM_NAME, before, claim_view(cs, dra)) is True


def test_claim_deallocate() -> None:
    # "claim-deallocate": another claim deallocated queues a pod whose claims all exist.
    mine = _claim()
    other = _claim("other-claim", allocated=True)
    dra = _dra(mine, other)
    before = claim_view(other, dra)
    other.allocation = None
    assert claim_change(POD_WITH_CLAIM_NAME, before, claim_view(other, dra)) is True


def test_deallocation_does_not_help_a_pod_missing_its_claim() -> None:
    # foreachPodResourceClaim comes first: a pod whose claim does not exist is skipped.
    other = _claim("other-claim", allocated=True)
    dra = _dra(other)
    assert claim_change(POD_WITH_CLAIM_NAME, _view(other, dra),
                        _view(other, dra, allocation=None)) is False


def test_claim_being_deleted_skips_its_pod() -> None:
    cs = _claim(allocated=True)
    cs.reserved_for.append(f"{NS}/first")
    dra = _dra(cs)
    before = claim_view(cs, dra)
    cs.deleting = True
    assert claim_change(POD_WITH_CLAIM_NAME, before, claim_view(cs, dra)) is False


def test_a_claim_of_the_same_name_created_again_is_the_pods() -> None:
    # The UID comparison: the claim the pod resolves to now is the new object.
    old = _claim()
    new = _claim()
    dra = _dra(new)
    assert claim_change(POD_WITH_CLAIM_NAME, None, claim_view(new, dra)) is True
    assert claim_change(POD_WITH_CLAIM_NAME, None, claim_view(old, dra)) is False


# --- Test_isSchedulableAfterPodChange -----------------------------------------------------

def test_pod_change_complete() -> None:
    # "complete": the pod's status names its generated claim, which exists.
    dra = _dra(_claim(owner=f"{NS}/{POD}"), recorded={"my-resource": CLAIM})
    view = ClaimsPodView(POD_WITH_CLAIM_TEMPLATE, None, dra)
    assert pod_change(POD_WITH_CLAIM_TEMPLATE, None, view) is True


def test_pod_change_wrong_pod() -> None:
    # "wrong-pod": another pod's update.
    dra = _dra(_claim(owner=f"{NS}/{POD}"), recorded={"my-resource": CLAIM})
    view = ClaimsPodView(POD_WITH_CLAIM_TEMPLATE, None, dra)
    waiting = _pod(PodClaim("my-resource", template_name="my-template"), name=POD + "2")
    assert pod_change(waiting, None, view) is False


def test_pod_change_missing_claim() -> None:
    # "missing-claim": the status names a claim the cache does not have.
    dra = _dra(recorded={"my-resource": CLAIM})
    view = ClaimsPodView(POD_WITH_CLAIM_TEMPLATE, None, dra)
    assert pod_change(POD_WITH_CLAIM_TEMPLATE, None, view) is False


def test_pod_change_incomplete() -> None:
    # "incomplete": one of two template claims created and recorded.
    dra = _dra(_claim(owner=f"{NS}/{POD}"), recorded={"my-resource": CLAIM})
    view = ClaimsPodView(POD_WITH_TWO_TEMPLATES, None, dra)
    assert pod_change(POD_WITH_TWO_TEMPLATES, None, view) is False


# --- EventsToRegister (queueing hints on) -------------------------------------------------

@pytest.mark.parametrize(("event", "hinted"), [
    (ClusterEvent(NODE, ADD), None),
    (ClusterEvent(NODE, UPDATE_NODE_LABEL), None),
    (ClusterEvent(NODE, UPDATE_NODE_ALLOCATABLE), None),
    (ClusterEvent(RESOURCE_CLAIM, ADD), claim_change),
    (ClusterEvent(RESOURCE_CLAIM, UPDATE), claim_change),
    (ClusterEvent(UNSCHEDULED_POD, UPDATE_POD_GENERATED_RESOURCE_CLAIM), pod_change),
    (ClusterEvent(DEVICE_CLASS, ADD), None),
    (ClusterEvent(DEVICE_CLASS, UPDATE), None),
    (ClusterEvent(RESOURCE_SLICE, ADD), None),
    (ClusterEvent(RESOURCE_SLICE, UPDATE), None),
])
def test_registered_events(event: ClusterEvent, hinted: object) -> None:
    got = [h for reg, h in registrations_of("DynamicResources") if event.matches(reg)]
    assert got == [hinted]


@pytest.mark.parametrize("event", [
    ClusterEvent(NODE, UPDATE_NODE_TAINT),   # dropped when queueing hints are on
    ClusterEvent(NODE, DELETE),
    ClusterEvent(RESOURCE_CLAIM, DELETE),
    ClusterEvent(DEVICE_CLASS, DELETE),
    ClusterEvent(RESOURCE_SLICE, DELETE),
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    ClusterEvent(UNSCHEDULED_POD, ADD),
])
def test_events_not_registered(event: ClusterEvent) -> None:
    assert not any(event.matches(reg) for reg, _h in REGISTRATIONS)


def test_hints_say_their_verdict_in_the_trace() -> None:
    trace = Trace()
    mine = _claim(owner=f"{NS}/{POD}")
    other = _claim("other-claim", allocated=True)
    dra = _dra(mine, other)
    claim_change(POD_WITH_CLAIM_NAME, None, claim_view(other, dra, trace))
    before = claim_view(other, dra, trace)
    other.allocation = None
    claim_change(POD_WITH_CLAIM_NAME, before, claim_view(other, dra, trace))
    dra.pod_claims[f"{NS}/{POD}"] = {"my-resource": CLAIM}
    pod_change(POD_WITH_CLAIM_TEMPLATE, None, ClaimsPodView(POD_WITH_CLAIM_TEMPLATE, None,
                                                             dra, trace))
    assert [(e.rule, e.subject, e.result) for e in trace.entries] == [
        (CLAIM_HINT_RULE, f"{NS}/{POD}", "QueueSkip"),
        (CLAIM_HINT_RULE, f"{NS}/{POD}", "Queue"),
        (POD_HINT_RULE, f"{NS}/{POD}", "Queue"),
    ]
    assert trace.entries[0].why == "claim default/other-claim is not one of the pod's claims"
    assert trace.entries[1].why == ("claim default/other-claim was deallocated: its devices "
                                    "may serve this pod")
