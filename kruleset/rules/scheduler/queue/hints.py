"""Each plugin's ``EventsToRegister`` and QueueingHint functions, as v1.35 has them.

A pod a plugin rejected waits in unschedulablePods until an event that plugin
registered for happens and the plugin's hint for it says Queue
(``isPodWorthRequeuing``).  A plugin absent from :data:`REGISTRATIONS`
(a plugin without ``EnqueueExtensions``, or one kruleset does not know the
registrations of: DynamicResources) is registered, as
upstream registers such plugins, for every event without a hint: any event
queues its pods.

Hints kruleset transcribes: NodeResourcesFit (``isSchedulableAfterPodEvent``,
``isSchedulableAfterNodeChange``), NodeUnschedulable, TaintToleration,
NodeAffinity, NodeName, NodePorts, SchedulingGates, PodTopologySpread and
InterPodAffinity (``isSchedulableAfterPodChange``,
``isSchedulableAfterNodeChange``).  One simplification: a pod that
PodTopologySpread rejected by the profile's default constraints (it has none
of its own) is queued by every event that plugin registered for, since a hint
here does not see the profile's ``defaultConstraints``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kruleset.model.objects import Pod

from ..filters.interpodaffinity import required_terms
from ..filters.nodeaffinity import node_matches_pod_affinity
from ..filters.podtopologyspread import constraints_for
from ..filters.tainttoleration import find_untolerated_taint
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


def _hard_spread(pod: Pod) -> list[Any] | None:
    # getConstraints: the pod's own DoNotSchedule constraints (matchLabelKeys
    # merged); None when it has none of its own (the profile's defaults apply,
    # which a hint here does not know: see the module doc).
    if not pod.spread:
        return None
    return constraints_for(pod, {}, "DoNotSchedule")[0]


def _spread_pod_change(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    # PodTopologySpread isSchedulableAfterPodChange: only the pod itself or an
    # assigned pod of its namespace (involvedInTopologySpreading), then Queue
    # when the other pod's labels match (or, updated, start or stop matching)
    # a constraint's selector.
    for v in (old, new):
        if v is not None and v.key != pod.key and (v.node is None
                                                   or v.pod.namespace != pod.namespace):
            return False
    constraints = _hard_spread(pod)
    if constraints is None:
        return True
    if old is not None and new is not None:
        if new.key == pod.key and old.pod.tolerations != new.pod.tolerations \
                and any(c.honor_taints for c in constraints):
            return True
        if old.pod.labels == new.pod.labels:
            return False
        return any(c.selector.matches(old.pod.labels) != c.selector.matches(new.pod.labels)
                   for c in constraints)
    view = new if new is not None else old
    assert view is not None
    return any(c.selector.matches(view.pod.labels) for c in constraints)


def _spread_node_change(pod: Pod, old: NodeView | None, new: NodeView | None) -> bool:
    # PodTopologySpread isSchedulableAfterNodeChange: a node carrying every
    # constraint's topology key added or deleted, starting or stopping to
    # carry them, or changing one of their values or its taints.
    constraints = _hard_spread(pod)
    if constraints is None:
        return True

    def carries(n: NodeView | None) -> bool:
        return n is not None and all(c.key in n.labels for c in constraints)

    if old is not None and new is not None:
        if carries(old) != carries(new):
            return True
        return carries(new) and (
            any(old.labels.get(c.key) != new.labels.get(c.key) for c in constraints)
            or old.taints != new.taints)
    return carries(new if new is not None else old)


def _all_terms_match(terms: list[Any], other: Pod) -> bool:
    # podMatchesAllAffinityTerms, read without namespace labels (upstream passes
    # nil): a namespaceSelector admits the pod only if it matches empty labels.
    if not terms:
        return False
    for t in terms:
        admitted = other.namespace in t.namespaces or (
            t.ns_selector is not None and t.ns_selector.matches({}))
        if not admitted or not t.selector.matches(other.labels):
            return False
    return True


def _interpod_pod_change(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    # InterPodAffinity isSchedulableAfterPodChange: only assigned pods; an added
    # pod matching every affinity term, a deleted pod matching every
    # anti-affinity term, an updated one starting to match the first or
    # stopping to match the second.
    if any(v is not None and v.node is None for v in (old, new)):
        return False
    terms, anti = required_terms(pod)
    if old is not None and new is not None:
        return (not _all_terms_match(terms, old.pod) and _all_terms_match(terms, new.pod)) \
            or (_all_terms_match(anti, old.pod) and not _all_terms_match(anti, new.pod))
    if new is not None:
        return _all_terms_match(terms, new.pod)
    assert old is not None
    return _all_terms_match(anti, old.pod)


def _interpod_node_change(pod: Pod, old: NodeView | None, new: NodeView | None) -> bool:
    # InterPodAffinity isSchedulableAfterNodeChange: the added or updated node
    # carries some (anti-)affinity term's topology key.
    assert new is not None
    terms, anti = required_terms(pod)
    return any(t.key in new.labels for t in (*terms, *anti))


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
         _spread_pod_change),
        (ClusterEvent(NODE, ADD | DELETE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT),
         _spread_node_change),
    ),
    # scheduler-plugins' CapacityScheduling: pod deletions and ElasticQuota
    # changes (kruleset sends those as events for every plugin), without hints.
    "CapacityScheduling": ((ClusterEvent(_POD, DELETE), None),),
    # Only as a gating plugin (its PreEnqueue during an asynchronous
    # preemption): a pod it gates hears pod deletions only.
    "DefaultPreemption": ((ClusterEvent(_POD, DELETE), None),),
    "InterPodAffinity": (
        (ClusterEvent(_POD, ADD | UPDATE_POD_LABEL | DELETE), _interpod_pod_change),
        (ClusterEvent(NODE, ADD | UPDATE_NODE_LABEL), _interpod_node_change),
    ),
}

_EVERYTHING: tuple[tuple[ClusterEvent, Hint | None], ...] = ((ClusterEvent(WILDCARD, ALL), None),)


def registrations_of(plugin: str) -> tuple[tuple[ClusterEvent, Hint | None], ...]:
    """What ``plugin`` registered for; every event, without a hint, if unknown."""
    return REGISTRATIONS.get(plugin, _EVERYTHING)
