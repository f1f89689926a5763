"""The mutable cluster: objects plus the indexes rules need, kept incrementally.

Objects (:class:`Pod`, :class:`Node`, …) are frozen; what changes over time
(phase, node, nomination, usage, conditions) lives in the small mutable
:class:`PodState` / :class:`NodeState` records.  Per-node requested totals and
per-namespace bound totals are updated on every bind and unbind, never
recomputed.  Mechanisms that need more indexes subscribe to bind/unbind.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import attrs

from .node_tree import NodeTree
from .objects import (
    BUILTIN_PRIORITY_CLASSES,
    Deployment,
    ElasticQuota,
    LimitRange,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ResourceQuota,
    RuntimeClass,
    Workload,
)
from .resources import Resources
from .selectors import Taint

__all__ = [
    "ClusterState",
    "Listener",
    "NodeState",
    "PodState",
    "PENDING",
    "RUNNING",
    "SUCCEEDED",
    "FAILED",
]

PENDING, RUNNING, SUCCEEDED, FAILED = "Pending", "Running", "Succeeded", "Failed"


class Tally:
    """A mutable resource total (the hot path adds and subtracts in place)."""

    __slots__ = ("cpu", "memory", "ephemeral_storage", "pods", "scalars")

    def __init__(self) -> None:
        self.cpu = 0
        self.memory = 0
        self.ephemeral_storage = 0
        self.pods = 0
        self.scalars: dict[str, int] = {}

    def add(self, r: Resources, sign: int = 1) -> None:
        """Add (or with ``sign=-1`` subtract) a resource vector."""
        self.cpu += sign * r.cpu
        self.memory += sign * r.memory
        self.ephemeral_storage += sign * r.ephemeral_storage
        self.pods += sign * r.pods
        if r.scalars:
            scalars = self.scalars
            for k, v in r.scalars:
                scalars[k] = scalars.get(k, 0) + sign * v

    def get(self, name: str) -> int:
        """The total for ``name``."""
        if name == "cpu":
            return self.cpu
        if name == "memory":
            return self.memory
        if name == "ephemeral-storage":
            return self.ephemeral_storage
        if name == "pods":
            return self.pods
        return self.scalars.get(name, 0)

    def freeze(self) -> Resources:
        """A frozen copy."""
        return Resources(self.cpu, self.memory, self.ephemeral_storage, self.pods,
                         tuple(sorted((k, v) for k, v in self.scalars.items() if v)))


class PodState:
    """What is true of one pod now.

    ``outcome`` records how the pod ended or is ending: ``preempted``,
    ``evicted``, ``deleted``, ``rejected`` (with ``by``, ``reason`` and
    ``message``); ``deletion_time`` is set while it terminates (the instant its
    grace period ends).
    """

    __slots__ = (
        "pod", "seq", "created", "phase", "node", "_nominated", "start_time",
        "deletion_time", "outcome", "by", "reason", "message", "ready", "ready_since", "usage",
        "conditions", "schedule_message", "gone", "extra", "owner", "queue_time", "bind_seq",
    )

    def __init__(self, pod: Pod, seq: int, created: int) -> None:
        self.pod = pod
        self.seq = seq                      # creation order, the final tie-break
        self.created = created
        self.phase = PENDING
        self.node: str | None = None        # bound node (spec.nodeName once bound)
        self._nominated: str | None = None  # status.nominatedNodeName
        # The ClusterState that indexes this pod's nomination (None: a what-if pod).
        self.owner: ClusterState | None = None
        self.start_time: int | None = None
        # Order of binding among pods the scheduler bound (0: bound from the
        # start): start times of one instant differ by the time between the
        # bindings upstream, and preemption's importance order reads them.
        self.bind_seq = 0
        self.deletion_time: int | None = None
        self.outcome: str | None = None
        self.by: str = ""
        self.reason: str = ""
        self.message: str = ""
        self.ready = True
        # The simulated time (ms) at which the pod became Ready (its Ready
        # condition's lastTransitionTime); None while it is not Ready.
        self.ready_since: int | None = None
        self.usage: dict[str, int] = {}
        self.conditions: dict[str, str] = {}  # type -> reason, e.g. DisruptionTarget
        self.schedule_message: str = ""     # the latest scheduling attempt's message
        self.gone = False                   # removed from the API (deleted or finished)
        self.extra: dict[str, object] = {}  # per-mechanism bookkeeping
        # The scheduling queue's timestamp (ms, tick) while its sort key is
        # computed (scheduler.queue.QueueTime); None otherwise.
        self.queue_time: tuple[int, int] | None = None

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.pod.key

    @property
    def nominated(self) -> str | None:
        """``status.nominatedNodeName``: the node preemption made room on, or None."""
        return self._nominated

    @nominated.setter
    def nominated(self, node: str | None) -> None:
        old = self._nominated
        if old == node:
            return
        self._nominated = node
        if self.owner is not None:
            self.owner.renominate(self, old, node)

    @property
    def terminating(self) -> bool:
        """Deleted (preempted, evicted, deleted) but its grace period is not over."""
        return self.deletion_time is not None and not self.gone

    @property
    def bound(self) -> bool:
        """Holding its node's resources (running or terminating)."""
        return self.node is not None and self.phase in (PENDING, RUNNING) and not self.gone

    @property
    def effective_start(self) -> int:
        """The start time rules order by: ``started=`` if given, else when it started."""
        if self.pod.started is not None:
            return self.pod.started
        return self.start_time if self.start_time is not None else self.created

    def __repr__(self) -> str:
        return f"PodState({self.key}, {self.phase}, node={self.node})"


class NodeState:
    """What is true of one node now: its object, dynamic spec, totals and pods."""

    __slots__ = (
        "node", "index", "rank", "zone", "labels", "taints", "unschedulable", "ready",
        "conditions", "requested", "nonzero", "pods", "usage", "extra", "image_names",
        "cache_order",
    )

    def __init__(self, node: Node, index: int) -> None:
        self.node = node
        self.index = index                  # declaration (add) order
        # Place in the scheduler's node order (ClusterState.node_order), the
        # tie-break; valid once the order was read after the last node added.
        self.rank = index
        self.zone = ""                      # the node tree's zone key it is filed under
        # Every name of every image the node has (status.images).
        self.image_names: frozenset[str] = frozenset(
            name for names, _ in node.images for name in names)
        self.labels: dict[str, str] = dict(node.labels)
        self.taints: list[Taint] = list(node.taints)
        self.unschedulable = node.unschedulable
        self.ready = True
        self.conditions: dict[str, int] = {}  # condition type -> time it was last observed
        self.requested = Tally()            # sum of bound pods' requests (pods counts 1 each)
        self.nonzero = Tally()              # the same with the scheduler's scoring defaults
        self.pods: dict[str, PodState] = {}  # bound pods, in bind order
        # The same pods in the order of the scheduler cache's NodeInfo.Pods
        # (see ClusterState.pod_updated): preemption lists victims in it.
        self.cache_order: list[PodState] = []
        self.usage: dict[str, int] = {}     # non-pod consumption per signal
        self.extra: dict[str, object] = {}

    @property
    def name(self) -> str:
        """The node's name."""
        return self.node.name

    @property
    def allocatable(self) -> Resources:
        """Capacity minus reserved."""
        return self.node.allocatable

    def __repr__(self) -> str:
        return f"NodeState({self.name})"


class Listener(Protocol):
    """Something that keeps its own index in step with binds and unbinds."""

    def on_bind(self, state: ClusterState, ps: PodState) -> None: ...  # noqa: D102
    def on_unbind(self, state: ClusterState, ps: PodState) -> None: ...  # noqa: D102


@attrs.define(slots=True, eq=False)
class ClusterState:
    """Every object of the simulated cluster with incremental indexes."""

    nodes: dict[str, NodeState] = attrs.field(factory=dict)
    pods: dict[str, PodState] = attrs.field(factory=dict)
    priority_classes: dict[str, PriorityClass] = attrs.field(
        factory=lambda: {pc.name: pc for pc in BUILTIN_PRIORITY_CLASSES})
    runtime_classes: dict[str, RuntimeClass] = attrs.field(factory=dict)
    namespaces: dict[str, Namespace] = attrs.field(
        factory=lambda: {"default": Namespace("default")})
    pdbs: dict[str, PodDisruptionBudget] = attrs.field(factory=dict)
    quotas: dict[str, ElasticQuota] = attrs.field(factory=dict)
    deployments: dict[str, Deployment] = attrs.field(factory=dict)
    # StatefulSets, DaemonSets and Jobs by "Kind/namespace/name"
    workloads: dict[str, Workload] = attrs.field(factory=dict)
    limit_ranges: dict[str, LimitRange] = attrs.field(factory=dict)
    resource_quotas: dict[str, ResourceQuota] = attrs.field(factory=dict)
    # status.disruptedPods of each PDB: PDB key -> {pod name: time (ms) the
    # Eviction API recorded it}.  Written by kruleset.rules.disruption.eviction_api, read
    # (with expiry) by kruleset.rules.disruption.pdb.pdb_status.
    pdb_disrupted: dict[str, dict[str, int]] = attrs.field(factory=dict)
    by_namespace: dict[str, dict[str, PodState]] = attrs.field(factory=dict)
    ns_bound: dict[str, Tally] = attrs.field(factory=dict)
    listeners: list[Listener] = attrs.field(factory=list)
    # node name -> pods nominated there (any phase; readers filter), in nomination order
    nominations: dict[str, dict[str, PodState]] = attrs.field(factory=dict)
    # namespace -> its nominated pods, and a counter that moves whenever that
    # set or one of its pods' binding or existence changes (for cached sums)
    ns_nominations: dict[str, dict[str, PodState]] = attrs.field(factory=dict)
    ns_nomination_version: dict[str, int] = attrs.field(factory=dict)
    # Change tracking for caches that span scheduling cycles: ``touched`` lists
    # the nodes whose pods, nominations or terminating pods changed, in order,
    # since ``epoch`` last moved; anything else (objects, labels, taints,
    # classes, budgets, the clock) moves ``epoch``, which empties ``touched``.
    epoch: int = 0
    touched: list[str] = attrs.field(factory=list)
    now: int = 0
    # The scheduler cache's node tree: the order the scheduler visits nodes in.
    node_tree: NodeTree[NodeState] = attrs.field(factory=NodeTree)
    # The scheduler cache's image states: image name -> [size, names of the
    # nodes that have it].  The size is the one the first node listing the name
    # reported (upstream keeps it); a name no node has any more is dropped.
    images: dict[str, list[object]] = attrs.field(factory=dict)
    _seq: int = 0
    # The pods that may still be pending, in the order of ``pods`` (see
    # pending()); not exact after a pod replaced another of its name.
    _waiting: dict[str, PodState] = attrs.field(factory=dict)
    _waiting_exact: bool = True
    # Called with (new PodState, the one it replaces or None) for every pod
    # added: indexes kept outside the model (PDB selections) follow additions.
    pod_added: list[Callable[[PodState, PodState | None], None]] = attrs.field(factory=list)
    # Called with each pod added unbound (add_pod), after pod_added: the
    # scheduling queue, which a pod created running (add_running) never enters.
    unbound_added: list[Callable[[PodState], None]] = attrs.field(factory=list)
    # Dynamic Resource Allocation: a kruleset.rules.dra.state.DraState once the
    # scenario declares any DRA object (None: no DRA, nothing to check).
    dra: Any = None
    # The kruleset.sim.core.Simulation whose cluster this is, when made by
    # kruleset.cluster(): the embedding functions act through its controllers.
    simulation: Any = attrs.field(default=None, repr=False)

    # --- change tracking ---------------------------------------------------------
    def pod_updated(self, ps: PodState) -> None:
        """A bound pod's object changed (a deletionTimestamp, a condition).

        The scheduler cache's ``UpdatePod`` removes the pod from its node's
        ``NodeInfo.Pods`` (the last pod takes its slot, ``RemovePod``) and
        appends it again (``AddPod``): :attr:`NodeState.cache_order` does the
        same, as preemption's victim listing reads that order.
        """
        node = self.nodes.get(ps.node) if ps.node is not None else None
        if node is not None and node.pods.get(ps.key) is ps:  # not a finished pod's node
            order = node.cache_order
            _swap_remove(order, ps)
            order.append(ps)

    def touch(self, node_name: str) -> None:
        """Note that what is bound or nominated on ``node_name`` changed."""
        self.touched.append(node_name)

    def new_epoch(self) -> None:
        """Note a change the ``touched`` log does not describe: every cache is stale."""
        self.epoch += 1
        self.touched.clear()

    def renominate(self, ps: PodState, old: str | None, new: str | None) -> None:
        """Keep :attr:`nominations` in step with ``ps.nominated`` (its setter calls this)."""
        if old is not None:
            at = self.nominations.get(old)
            if at is not None:
                at.pop(ps.key, None)
                if not at:
                    del self.nominations[old]
            self.touched.append(old)
        if new is not None:
            self.nominations.setdefault(new, {})[ps.key] = ps
            self.touched.append(new)
        ns = ps.pod.namespace
        if new is None:
            in_ns = self.ns_nominations.get(ns)
            if in_ns is not None:
                in_ns.pop(ps.key, None)
        else:
            self.ns_nominations.setdefault(ns, {})[ps.key] = ps
        self.ns_nomination_version[ns] = self.ns_nomination_version.get(ns, 0) + 1

    def nominee_gone(self, ps: PodState) -> None:
        """A nominated pending pod went away (its nomination no longer holds room)."""
        if ps.nominated is not None:
            self.touched.append(ps.nominated)
            ns = ps.pod.namespace
            self.ns_nomination_version[ns] = self.ns_nomination_version.get(ns, 0) + 1

    # --- nodes ---------------------------------------------------------------
    def add_node(self, node: Node) -> NodeState:
        """Add a node (or replace its object, keeping its pods and totals)."""
        existing = self.nodes.get(node.name)
        if existing is not None:
            existing.node = node
            existing.labels = dict(node.labels)
            existing.taints = list(node.taints)
            existing.unschedulable = node.unschedulable
            self._forget_images(existing)
            existing.image_names = frozenset(name for names, _ in node.images for name in names)
            self._add_images(node)
            self.node_tree.relabelled(existing)
            self.new_epoch()
            return existing
        ns = NodeState(node, len(self.nodes))
        self.nodes[node.name] = ns
        if node.images:
            self._add_images(node)
        self.node_tree.add(ns)
        self.new_epoch()
        return ns

    def remove_node(self, name: str) -> None:
        """Remove a node that has no bound pods (its nominations are cleared)."""
        ns = self.nodes[name]
        if any(ps.bound for ps in ns.pods.values()):
            raise ValueError(f"node {name} still has bound pods")
        self.drop_node(name)

    def drop_node(self, name: str) -> None:
        """Remove a node whatever it still holds (a Node object deleted under its pods,
        which PodGC then deletes); its nominations are cleared."""
        ns = self.nodes[name]
        for ps in list(self.nominations.get(name, {}).values()):
            ps.nominated = None
        del self.nodes[name]
        self._forget_images(ns)
        self.node_tree.remove(ns)
        self.new_epoch()

    def relabel_node(self, name: str, key: str, value: str) -> None:
        """Set one label of a node (a zone change moves it in the node tree)."""
        ns = self.nodes[name]
        ns.labels[key] = value
        self.node_tree.relabelled(ns)
        self.new_epoch()

    def _add_images(self, node: Node) -> None:
        images = self.images
        for names, size in node.images:
            for name in names:
                found = images.get(name)
                if found is None:
                    images[name] = [size, {node.name}]
                else:
                    found[1].add(node.name)  # type: ignore[attr-defined]

    def _forget_images(self, ns: NodeState) -> None:
        images = self.images
        for name in ns.image_names:
            found = images.get(name)
            if found is not None:
                holders = found[1]
                holders.discard(ns.name)  # type: ignore[attr-defined]
                if not holders:
                    del images[name]

    def node_list(self) -> list[NodeState]:
        """Nodes in declaration (add) order."""
        return list(self.nodes.values())

    def node_order(self) -> list[NodeState]:
        """Nodes in the scheduler's order (the node tree's list; do not modify it).

        Zones round-robin in the order their first node was added, add order
        within a zone (:mod:`kruleset.model.node_tree`).  Reading it numbers
        the nodes' ``rank``, which tie-breaks follow.
        """
        return self.node_tree.list()

    # --- pods ----------------------------------------------------------------
    def add_pod(self, pod: Pod, now: int | None = None) -> PodState:
        """Record a new pod (pending, unbound)."""
        self._seq += 1
        ps = PodState(pod, self._seq, self.now if now is None else now)
        ps.owner = self
        old = self.pods.get(pod.key)
        self.pods[pod.key] = ps
        if old is None:
            self._waiting[pod.key] = ps  # a new name goes last in ``pods`` too
        else:
            self._waiting_exact = False  # it takes the old one's place
        self.by_namespace.setdefault(pod.namespace, {})[pod.key] = ps
        if pod.namespace not in self.namespaces:
            self.namespaces[pod.namespace] = Namespace(pod.namespace)
        for watch in self.pod_added:
            watch(ps, old)
        for heard in self.unbound_added:
            heard(ps)
        return ps

    def bind(self, ps: PodState, node_name: str, now: int | None = None) -> None:
        """Put ``ps`` on ``node_name``: it starts running and holds the node's resources."""
        if ps.bound:
            raise RuntimeError(f"{ps.key} is already bound to {ps.node}")
        node = self.nodes[node_name]
        pod = ps.pod
        ps.node = node_name
        if ps._nominated is not None:
            ps.nominated = None
        ps.phase = RUNNING
        ps.start_time = self.now if now is None else now
        ps.bind_seq = next(_BINDS)
        node.pods[ps.key] = ps
        node.cache_order.append(ps)
        self.touched.append(node_name)
        requests = pod.requests
        node.requested.add(requests)
        node.nonzero.add(pod.nonzero_requests)
        tally = self.ns_bound.get(pod.namespace)
        if tally is None:
            tally = self.ns_bound[pod.namespace] = Tally()
        tally.add(requests)
        for listener in self.listeners:
            listener.on_bind(self, ps)

    def add_running(self, pods: list[Pod], node_name: str, now: int) -> list[PodState]:
        """:meth:`add_pod` then :meth:`bind` each of ``pods`` (all with these requests) on
        ``node_name``, in order: a ``pods … on NODE`` range of the time-0 cluster.

        The same states and indexes as one pod at a time, built as a block:
        the node's and the namespace's totals get the range's requests once,
        multiplied, before the listeners hear of the pods one by one (no
        listener reads those totals).  Each pod takes its ``usage`` and
        readiness from its object, as a created pod does.
        """
        node = self.nodes[node_name]
        head = pods[0]
        requests, n = head.requests, len(pods)
        node.requested.add(requests, n)
        node.nonzero.add(head.nonzero_requests, n)
        ns_name = head.namespace
        tally = self.ns_bound.get(ns_name)
        if tally is None:
            tally = self.ns_bound[ns_name] = Tally()
        tally.add(requests, n)
        if ns_name not in self.namespaces:
            self.namespaces[ns_name] = Namespace(ns_name)
        table, in_ns, on_node = self.pods, self.by_namespace.setdefault(ns_name, {}), node.pods
        watchers, listeners = self.pod_added, self.listeners
        seq = self._seq
        made = []
        for pod in pods:
            seq += 1
            ps = PodState(pod, seq, now)
            ps.owner = self
            key = pod.key
            old = table.get(key)
            if old is not None:
                self._waiting_exact = False
            table[key] = in_ns[key] = ps
            for watch in watchers:
                watch(ps, old)
            ps.usage = dict(pod.usage)
            ps.ready = pod.ready
            ps.node = node_name
            ps.phase = RUNNING
            ps.start_time = now
            on_node[key] = ps
            node.cache_order.append(ps)
            for listener in listeners:
                listener.on_bind(self, ps)
            made.append(ps)
        self._seq = seq
        self.touched.append(node_name)
        return made

    def unbind(self, ps: PodState, phase: str) -> None:
        """Take ``ps`` off its node (it ended with ``phase``), freeing what it held."""
        if not ps.bound:
            ps.phase = phase
            return
        assert ps.node is not None
        node = self.nodes[ps.node]
        del node.pods[ps.key]
        _swap_remove(node.cache_order, ps)
        self.touched.append(ps.node)
        node.requested.add(ps.pod.requests, -1)
        node.nonzero.add(ps.pod.nonzero_requests, -1)
        self.ns_bound[ps.pod.namespace].add(ps.pod.requests, -1)
        for listener in self.listeners:
            listener.on_unbind(self, ps)
        ps.phase = phase

    @property
    def created(self) -> int:
        """How many pods were ever added: pods become pending only by being added."""
        return self._seq

    def pending(self) -> Iterator[PodState]:
        """Pods waiting for a node (pending, unbound, not gone), in the order of ``pods``.

        A pod is pending from its creation until it is bound, fails or is
        removed, and never again after (a pod the kubelet refuses fails): so
        the pods that may be pending are kept from their creation and dropped
        here once they are not, instead of scanning every pod (a million
        running ones on a large cluster) at every scheduling step.
        """
        if not self._waiting_exact:
            self._waiting = {ps.key: ps for ps in self.pods.values()}
            self._waiting_exact = True
        waiting = self._waiting
        live = [ps for ps in waiting.values()
                if ps.phase == PENDING and ps.node is None and not ps.gone]
        if len(live) != len(waiting):
            self._waiting = {ps.key: ps for ps in live}
        return iter(live)

    def scan_pending(self) -> Iterator[PodState]:
        """:meth:`pending` by a walk over every pod (the reference it is tested against)."""
        for ps in self.pods.values():
            if ps.phase == PENDING and ps.node is None and not ps.gone:
                yield ps

    def nominated_to(self, node_name: str) -> list[PodState]:
        """Pending pods nominated to ``node_name`` (not bound, not gone), in nomination order."""
        at = self.nominations.get(node_name)
        if not at:
            return []
        return [ps for ps in at.values() if ps.node is None and not ps.gone]

    def live_pods(self) -> Iterator[PodState]:
        """Pods that exist in the API now (pending, running or terminating)."""
        for ps in self.pods.values():
            if not ps.gone and ps.phase in (PENDING, RUNNING):
                yield ps

    def priority_of(self, pod: Pod) -> int:
        """The pod's effective priority."""
        return pod.effective_priority

    def subscribe(self, listener: Listener) -> None:
        """Keep ``listener`` informed of binds and unbinds (existing bound pods replayed)."""
        self.listeners.append(listener)
        for node in self.nodes.values():
            for ps in node.pods.values():
                listener.on_bind(self, ps)


_BINDS = itertools.count(1)


def _swap_remove(order: list[PodState], ps: PodState) -> None:
    """Take ``ps`` out of ``order`` as upstream's ``NodeInfo.RemovePod``: the last takes
    its slot."""
    i = order.index(ps)
    last = order.pop()
    if last is not ps:
        order[i] = last


def find_pods(state: ClusterState, match: Callable[[PodState], bool]) -> list[PodState]:
    """Pods (in creation order) for which ``match`` holds."""
    return [ps for ps in state.pods.values() if match(ps)]
