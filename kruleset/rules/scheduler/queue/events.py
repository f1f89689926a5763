"""Cluster events the scheduling queue hears, as upstream's ``ClusterEvent`` names them.

Upstream ``pkg/scheduler/framework/types.go`` (``ClusterEvent``, ``ActionType``)
and ``pkg/scheduler/framework/events.go`` (``NodeSchedulingPropertiesChange``,
``PodSchedulingPropertiesChange``): an event is a resource (a node, an
assigned pod, an unscheduled pod, or the wildcard) and an action; a plugin
registers for resource/action pairs, each with a QueueingHint function
(:mod:`.hints`).  An :class:`Occurrence` is one event that happened, with the
objects before and after and the words ``--explain`` uses for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kruleset.model.objects import Pod, Resources, Taint

__all__ = [
    "ADD", "ALL", "ASSIGNED_POD", "ASSIGNED_POD_ADD", "ASSIGNED_POD_DELETE", "DELETE", "NODE",
    "POD", "UNSCHEDULED_POD", "UPDATE_NODE_ALLOCATABLE", "UPDATE_NODE_LABEL",
    "UPDATE_NODE_TAINT", "UPDATE_POD_GATES_ELIMINATED", "UPDATE_POD_LABEL", "UPDATE_POD_OTHER",
    "UPDATE_POD_TOLERATION", "UNSCHEDULED_POD_DELETE", "WILDCARD", "ClusterEvent", "NodeView",
    "DEVICE_CLASS", "RESOURCE_CLAIM", "RESOURCE_SLICE", "UPDATE",
    "UPDATE_POD_GENERATED_RESOURCE_CLAIM",
    "Occurrence", "PodView", "node_update_events", "node_view", "pod_view",
]

# Resources.  ``POD`` in a registration matches both kinds of pod event.
NODE = "Node"
ASSIGNED_POD = "AssignedPod"
UNSCHEDULED_POD = "UnschedulablePod"
POD = "Pod"
WILDCARD = "*"
RESOURCE_CLAIM = "ResourceClaim"
RESOURCE_SLICE = "ResourceSlice"
DEVICE_CLASS = "DeviceClass"

# Action types (bit flags, as upstream's ActionType).
ADD = 1
DELETE = 2
UPDATE_NODE_ALLOCATABLE = 4
UPDATE_NODE_LABEL = 8
UPDATE_NODE_TAINT = 16
UPDATE_POD_LABEL = 32
UPDATE_POD_SCALE_DOWN = 64
UPDATE_POD_TOLERATION = 128
UPDATE_POD_GATES_ELIMINATED = 256
UPDATE_POD_OTHER = 512
UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1024
ALL = (1 << 12) - 1
# Any update (upstream ``Update``): what a change of an object without finer
# update kinds (ResourceClaim, ResourceSlice, DeviceClass) is.
UPDATE = ALL & ~(ADD | DELETE)

_ACTION_LABELS = {
    ADD: "Add", DELETE: "Delete", UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    UPDATE_NODE_LABEL: "UpdateNodeLabel", UPDATE_NODE_TAINT: "UpdateNodeTaint",
    UPDATE_POD_LABEL: "UpdatePodLabel", UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    UPDATE_POD_TOLERATION: "UpdatePodToleration",
    UPDATE_POD_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    UPDATE_POD_OTHER: "UpdatePodOther",
    UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim", UPDATE: "Update",
    ALL: "All",
}


@attrs.frozen(slots=True, cache_hash=True)
class ClusterEvent:
    """A resource and an action: what a plugin registers for."""

    resource: str
    action: int

    @property
    def label(self) -> str:
        """Upstream's label: ``NodeAdd``, ``AssignedPodDelete``, ``UnschedulablePodUpdate…``."""
        return self.resource + _ACTION_LABELS.get(self.action, str(self.action))

    def matches(self, registered: ClusterEvent) -> bool:
        """Whether a registration for ``registered`` hears this event (upstream ``Match``)."""
        if registered.resource == WILDCARD:
            return True
        if registered.resource == POD:
            if self.resource not in (ASSIGNED_POD, UNSCHEDULED_POD, POD):
                return False
        elif registered.resource != self.resource:
            return False
        return bool(registered.action & self.action)

    @property
    def wildcard(self) -> bool:
        """Upstream ``IsWildCard``: every plugin's pods are worth retrying."""
        return self.resource == WILDCARD


@attrs.frozen(slots=True)
class NodeView:
    """What the hints read of a node at one moment (a snapshot: the node changes after)."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    allocatable: Resources


@attrs.frozen(slots=True)
class PodView:
    """What the hints read of another pod at one moment."""

    pod: Pod
    node: str | None
    nominated: str | None

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.pod.key


# The events the simulation sends most, made once.
ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, ADD)
ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, DELETE)
UNSCHEDULED_POD_DELETE = ClusterEvent(UNSCHEDULED_POD, DELETE)


def node_view(node: Any) -> NodeView:
    """A snapshot of a :class:`~kruleset.model.state.NodeState`."""
    return NodeView(node.name, dict(node.labels), tuple(node.taints), node.unschedulable,
                    node.allocatable)


def pod_view(ps: Any, node: str | None = None) -> PodView:
    """A snapshot of a :class:`~kruleset.model.state.PodState` (``node``: its node before
    an unbind)."""
    return PodView(ps.pod, node if node is not None else ps.node, ps.nominated)


@attrs.frozen(slots=True)
class Occurrence:
    """One event that happened: its kind, the objects before/after, and how to say it."""

    event: ClusterEvent
    old: Any
    new: Any
    what: str


def node_update_events(old: NodeView, new: NodeView) -> list[ClusterEvent]:
    """Upstream ``NodeSchedulingPropertiesChange``: one event per kind of change, in
    upstream's extractor order.  Cordoning is no event; uncordoning is
    ``UpdateNodeTaint`` (``extractNodeSpecUnschedulableChange``)."""
    out: list[ClusterEvent] = []
    if old.unschedulable and not new.unschedulable:
        out.append(ClusterEvent(NODE, UPDATE_NODE_TAINT))
    if old.allocatable != new.allocatable:
        out.append(ClusterEvent(NODE, UPDATE_NODE_ALLOCATABLE))
    if dict(old.labels) != dict(new.labels):
        out.append(ClusterEvent(NODE, UPDATE_NODE_LABEL))
    if old.taints != new.taints:
        out.append(ClusterEvent(NODE, UPDATE_NODE_TAINT))
    return out
