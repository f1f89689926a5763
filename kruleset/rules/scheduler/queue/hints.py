"""Each plugin's ``EventsToRegister`` and QueueingHint functions, as v1.35 has them.

A pod a plugin rejected waits in unschedulablePods until an event that plugin
registered for happens and the plugin's hint for it says Queue
(``isPodWorthRequeuing``).  A plugin absent from :data:`REGISTRATIONS`
(a plugin without ``EnqueueExtensions``) is registered, as
upstream registers such plugins, for every event without a hint: any event
queues its pods.

Hints kruleset transcribes: NodeResourcesFit (``isSchedulableAfterPodEvent``,
``isSchedulableAfterNodeChange``), NodeUnschedulable, TaintToleration,
NodeAffinity, NodeName, NodePorts, SchedulingGates, PodTopologySpread and
InterPodAffinity (:mod:`.crosspod_hints`), DynamicResources
(:mod:`kruleset.rules.dra.queue_hints`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kruleset.model.objects import Pod

from ...dra.queue_hints import REGISTRATIONS as _DYNAMIC_RESOURCES
from ..filters.nodeaffinity import node_matches_pod_affinity
from ..filters.tainttoleration import find_untolerated_taint
from .crosspod_hints import (
    affinity_node_change,
    affinity_pod_change,
    spread_node_change,
    spread_pod_change,
)
from .events import (
    ADD,
    ALL,
    DELETE,
    NODE,
    POD,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_NODE_LABEL,
    UPDATE_NODE_TAINT,
    UPDATE_POD_GATES_ELIMINATED,
    UPDATE_POD_LABEL,
    UPDATE_POD_SCALE_DOWN,
    UPDATE_POD_TOLERATION,
    WILDCARD,
    ClusterEvent,
    NodeView,
    PodView,
)

__all__ = ["REGISTRATIONS", "Hint", "registrations_of"]

# (pod waiting, old object or None, new object or None) -> Queue?
Hint = Callable[[Pod, Any, Any], bool]


def _fit_pod_event(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    # NodeResourcesFit isSchedulableAfterPodEvent: a deleted pod frees resources
    # if it was assigned or nominated; an update only if it scaled down (kruleset
    # has no in-place resize, so no update frees anything).
    if new is None:
        assert old is not None
        return old.node is not None or old.nominated is not None
    return False


def _fits_empty(pod: Pod, node: NodeView) -> bool:
    # isFit: the pod's requests against the node's allocatable alone.
    req, alloc = pod.requests, node.allocatable
    if alloc.pods < 1:
        return False
    if req.cpu > alloc.cpu or req.memory > alloc.memory:
        return False
    if req.ephemeral_storage > alloc.ephemeral_storage:
        return False
    return all(q <= alloc.get(name) for name, q in req.scalars if q)


def _fit_node_change(pod: Pod, old: NodeView | None, new: NodeView) -> bool:
    # isSchedulableAfterNodeChange: Queue if the pod fits the (new) node's
    # allocatable and, for an update, some resource the pod requests grew.
    if not _fits_empty(pod, new):
        return False
    if old is None:
        return True
    req, a, b = pod.requests, old.allocatable, new.allocatable
    if req.cpu and b.cpu > a.cpu or req.memory and b.memory > a.memory:
        return True
    if req.ephemeral_storage and b.ephemeral_storage > a.ephemeral_storage:
        return True
    if b.pods > a.pods:
        return True
    return any(q and b.get(name) > a.get(name) for name, q in req.scalars)


def _unschedulable_node_change(pod: Pod, old: NodeView | None, new: NodeView) -> bool:
    # NodeUnschedulable: a node added schedulable, or uncordoned.
    if old is None:
        return not new.unschedulable
    return old.unschedulable and not new.unschedulable


def _taint_node_change(pod: Pod, old: NodeView | None, new: NodeView) -> bool:
    # TaintToleration: the node had an untolerated taint (or is new) and has none now.
    was = old is None or find_untolerated_taint(old.taints, pod.tolerations) is not None
    return was and find_untolerated_taint(new.taints, pod.tolerations) is None


def _taint_pod_change(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    # isSchedulableAfterPodTolerationChange: only the pod's own update.
    return new is not None and new.key == pod.key


def _affinity_node_change(pod: Pod, old: NodeView | None, new: NodeView) -> bool:
    # NodeAffinity: the node matches the pod's required affinity now and did not.
    if not node_matches_pod_affinity(pod, new):  # type: ignore[arg-type]
        return False
    return old is None or not node_matches_pod_affinity(pod, old)  # type: ignore[arg-type]


def _nodename_node_add(pod: Pod, old: NodeView | None, new: NodeView) -> bool:
    return not pod.node_name or pod.node_name == new.name


def _ports_pod_deleted(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    # NodePorts isSchedulableAfterPodDeleted: an assigned pod using a port this pod wants.
    if old is None or new is not None or old.node is None:
        return False
    wanted = set(pod.host_ports)
    return any(p in wanted for p in old.pod.host_ports)


def _gates_eliminated(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    # SchedulingGates: only the pod's own last gate going.
    return new is not None and new.key == pod.key


_POD = POD
REGISTRATIONS: dict[str, tuple[tuple[ClusterEvent, Hint | None], ...]] = {
    # NodeResourcesFit and NodeAffinity also requeue their pods for every taint change
    # (uncordon included) without asking their hint: measured on the v1.35.4 scheduler
    # (a PreferNoSchedule taint added to a node requeues a pod either rejected).
    "NodeResourcesFit": (
        (ClusterEvent(_POD, DELETE | UPDATE_POD_SCALE_DOWN), _fit_pod_event),
        (ClusterEvent(NODE, ADD | UPDATE_NODE_ALLOCATABLE), _fit_node_change),
        (ClusterEvent(NODE, UPDATE_NODE_TAINT), None),
    ),
    "NodeUnschedulable": (
        (ClusterEvent(NODE, ADD | UPDATE_NODE_TAINT), _unschedulable_node_change),
    ),
    "TaintToleration": (
        (ClusterEvent(NODE, ADD | UPDATE_NODE_TAINT), _taint_node_change),
        (ClusterEvent(_POD, UPDATE_POD_TOLERATION), _taint_pod_change),
    ),
    "NodeAffinity": (
        (ClusterEvent(NODE, ADD | UPDATE_NODE_LABEL), _affinity_node_change),
        (ClusterEvent(NODE, UPDATE_NODE_TAINT), None),
    ),
    "NodeName": ((ClusterEvent(NODE, ADD), _nodename_node_add),),
    "NodePorts": (
        (ClusterEvent(_POD, DELETE), _ports_pod_deleted),
        (ClusterEvent(NODE, ADD), None),
    ),
    "SchedulingGates": (
        (ClusterEvent(_POD, UPDATE_POD_GATES_ELIMINATED), _gates_eliminated),
    ),
    "PodTopologySpread": (
        (ClusterEvent(_POD, ADD | UPDATE_POD_LABEL | UPDATE_POD_TOLERATION | DELETE),
         spread_pod_change),
        (ClusterEvent(NODE, ADD | DELETE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT),
         spread_node_change),
    ),
    # scheduler-plugins' CapacityScheduling: pod deletions and ElasticQuota
    # changes (kruleset sends those as events for every plugin), without hints.
    "CapacityScheduling": ((ClusterEvent(_POD, DELETE), None),),
    # Only as a gating plugin (its PreEnqueue during an asynchronous
    # preemption): a pod it gates hears pod deletions only.
    "DefaultPreemption": ((ClusterEvent(_POD, DELETE), None),),
    "InterPodAffinity": (
        (ClusterEvent(_POD, ADD | UPDATE_POD_LABEL | DELETE), affinity_pod_change),
        (ClusterEvent(NODE, ADD | UPDATE_NODE_LABEL), affinity_node_change),
        # Registered for the preCheck workaround without a hint: every taint
        # change queues (measured on v1.35.4: a PreferNoSchedule taint added
        # to a node requeues a pod InterPodAffinity rejected).
        (ClusterEvent(NODE, UPDATE_NODE_TAINT), None),
    ),
    "DynamicResources": _DYNAMIC_RESOURCES,  # kruleset.rules.dra.queue_hints
}

_EVERYTHING: tuple[tuple[ClusterEvent, Hint | None], ...] = ((ClusterEvent(WILDCARD, ALL), None),)


def registrations_of(plugin: str) -> tuple[tuple[ClusterEvent, Hint | None], ...]:
    """What ``plugin`` registered for; every event, without a hint, if unknown."""
    return REGISTRATIONS.get(plugin, _EVERYTHING)
