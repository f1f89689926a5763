"""DynamicResources' ``EventsToRegister`` and QueueingHints, as v1.35 has them.

Upstream ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go``
(v1.35.4, SchedulerQueueingHints on): a pod DynamicResources rejected (or
keeps out at PreEnqueue) waits for

* a node added, or its labels or allocatable changed (no hint: always Queue;
  with queueing hints on, the plugin drops the taint update it registers
  otherwise);
* a ResourceClaim added or updated: ``isSchedulableAfterClaimChange``;
* the pod's own update adding a generated claim's name to
  ``status.resourceClaimStatuses`` (``UpdatePodGeneratedResourceClaim``):
  ``isSchedulableAfterPodChange``;
* a DeviceClass added or updated (no hint);
* a ResourceSlice added or updated (no hint: v1.35.4 has no slice hint, any
  slice queues every pod the plugin rejected).

Deletions of claims, classes and slices are registered by nobody: they
retry no pod.  A claim the controller deallocates (its last consumer gone)
is an update whose allocation went away, which queues every pod whose claims
all exist.

The hints read the claims as the scheduler's claim cache has them when the
event is delivered (``foreachPodResourceClaim`` over the waiting pod), so the
events carry the simulation's :class:`~kruleset.rules.dra.state.DraState`;
they also carry the run's trace, and each hint says there why it queued or
skipped the pod (rules ``scheduler.queue.hint.DynamicResources.*``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ...model.objects import Pod
from ..registry import rule
from ..scheduler.framework import ScheduleContext
from ..scheduler.queue.backoff import QUEUEING
from ..scheduler.queue.events import (
    ADD,
    DEVICE_CLASS,
    NODE,
    POD,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    UPDATE,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_NODE_LABEL,
    UPDATE_POD_GENERATED_RESOURCE_CLAIM,
    ClusterEvent,
)
from .allocator import Allocation
from .state import ClaimState, DraState, pod_claim_states

__all__ = [
    "CLAIM_HINT_RULE", "EVENTS_RULE", "POD_HINT_RULE", "REGISTRATIONS", "ClaimView",
    "ClaimsPodView", "claim_change", "claim_view", "pod_change",
]

CLAIM_HINT_RULE = "scheduler.queue.hint.DynamicResources.claim"
POD_HINT_RULE = "scheduler.queue.hint.DynamicResources.pod"
EVENTS_RULE = "scheduler.queue.hint.DynamicResources.events"
_SOURCE = "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (v1.35) "


@attrs.frozen(slots=True)
class ClaimView:
    """A ResourceClaim at one moment, as the hint reads it (the claim changes after)."""

    claim: ClaimState           # its identity (upstream: the UID)
    allocation: Allocation | None
    reserved_for: tuple[str, ...]
    deleting: bool
    dra: DraState               # the claim cache when the event is delivered
    trace: Any = None

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.claim.key

    @property
    def status(self) -> tuple[Any, ...]:
        """What ``status`` holds: the allocation and ``reservedFor``."""
        return (self.allocation, self.reserved_for)


def claim_view(cs: ClaimState, dra: DraState, trace: Any = None) -> ClaimView:
    """A snapshot of ``cs``."""
    return ClaimView(cs, cs.allocation, tuple(cs.reserved_for), cs.deleting, dra, trace)


@attrs.frozen(slots=True)
class ClaimsPodView:
    """A pod whose ``status.resourceClaimStatuses`` changed, with the claim cache."""

    pod: Pod
    node: str | None
    dra: DraState
    trace: Any = None
    nominated: str | None = None

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.pod.key


def _say(trace: Any, name: str, pod: Pod, queue: bool, why: str) -> bool:
    if trace is not None:
        trace.add(name, pod.key, "Queue" if queue else "QueueSkip", why)
    return queue


def claim_change(pod: Pod, old: ClaimView | None, new: ClaimView | None) -> bool:
    """``isSchedulableAfterClaimChange``: Queue for the pod's own claim created or its
    status changed, or for any claim deallocated, once all the pod's claims exist."""
    if new is None:
        return False  # a deletion (registered by nobody: never delivered)
    trace = new.trace
    claims, err = pod_claim_states(new.dra, pod)
    if err:
        return _say(trace, CLAIM_HINT_RULE, pod, False,
                    f"claim {new.key} changed, but the pod is still not schedulable: {err}")
    if old is not None and old.allocation is not None and new.allocation is None:
        return _say(trace, CLAIM_HINT_RULE, pod, True,
                    f"claim {new.key} was deallocated: its devices may serve this pod")
    if not any(cs is new.claim for cs in claims):
        return _say(trace, CLAIM_HINT_RULE, pod, False,
                    f"claim {new.key} is not one of the pod's claims")
    if old is None:
        return _say(trace, CLAIM_HINT_RULE, pod, True, f"the pod's claim {new.key} was created")
    if old.status == new.status:
        return _say(trace, CLAIM_HINT_RULE, pod, False,
                    f"the pod's claim {new.key} changed, but not its status")
    return _say(trace, CLAIM_HINT_RULE, pod, True,
                f"the status of the pod's claim {new.key} changed")


def pod_change(pod: Pod, old: Any, new: ClaimsPodView) -> bool:
    """``isSchedulableAfterPodChange``: Queue when the pod's own update names its
    generated claims and all its claims exist now."""
    if new.key != pod.key:
        return False
    _claims, err = pod_claim_states(new.dra, new.pod)
    if err:
        return _say(new.trace, POD_HINT_RULE, pod, False,
                    f"the pod's claims were recorded, but it is still not schedulable: {err}")
    return _say(new.trace, POD_HINT_RULE, pod, True,
                "the pod's generated claims were recorded in its status and all exist")


def _doc_rule(name: str, doc: str, source: str) -> None:
    # The hints decide in the queue (they say their verdict in the trace under this
    # name); registered for `kruleset rules` and --explain.
    def decide(ctx: ScheduleContext, args: Mapping[str, Any], *subject: Any) -> str:
        return name

    rule(QUEUEING, name, doc=doc, source=source)(decide)


_doc_rule(CLAIM_HINT_RULE,
          "A ResourceClaim added or updated retries a pod DynamicResources rejected if all the "
          "pod's claims exist and the claim was deallocated, or is the pod's own and was "
          "created or changed its status.",
          _SOURCE + "isSchedulableAfterClaimChange, foreachPodResourceClaim")
_doc_rule(POD_HINT_RULE,
          "The pod's own update recording its generated claims (UpdatePodGeneratedResourceClaim) "
          "retries it if all its claims exist now.",
          _SOURCE + "isSchedulableAfterPodChange")
_doc_rule(EVENTS_RULE,
          "DynamicResources registers, without a hint, for nodes added or changing labels or "
          "allocatable, and DeviceClasses and ResourceSlices added or updated: each retries "
          "every pod it rejected; no deletion of a DRA object retries a pod.",
          _SOURCE + "EventsToRegister")

REGISTRATIONS: tuple[tuple[ClusterEvent, Any], ...] = (
    (ClusterEvent(NODE, ADD | UPDATE_NODE_LABEL | UPDATE_NODE_ALLOCATABLE), None),
    (ClusterEvent(RESOURCE_CLAIM, ADD | UPDATE), claim_change),
    (ClusterEvent(POD, UPDATE_POD_GENERATED_RESOURCE_CLAIM), pod_change),
    (ClusterEvent(DEVICE_CLASS, ADD | UPDATE), None),
    (ClusterEvent(RESOURCE_SLICE, ADD | UPDATE), None),
)
