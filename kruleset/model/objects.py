"""The Kubernetes objects kruleset reasons about, as frozen attrs classes.

Derived facts (QoS class, effective requests, critical-ness) are computed once
when an object is built and kept in slots; ``attrs.evolve`` recomputes them.
Times are integers of milliseconds on the simulation clock.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import NO_SPAN, Span
from .resources import ZERO, Resources
from .selectors import LabelSelector, NodeSelectorTerm, Requirement, Taint, Toleration

__all__ = [
    "BEST_EFFORT",
    "BURSTABLE",
    "GUARANTEED",
    "SYSTEM_CLUSTER_CRITICAL",
    "SYSTEM_CRITICAL_PRIORITY",
    "SYSTEM_NODE_CRITICAL",
    "HIGHEST_USER_PRIORITY",
    "MAX_REPLICAS",
    "TEMPLATE_HASH",
    "Container",
    "Deployment",
    "RECREATE",
    "ROLLING_UPDATE",
    "ElasticQuota",
    "LimitRange",
    "ResourceQuota",
    "Workload",
    "EmptyDir",
    "Namespace",
    "Node",
    "NodeAffinity",
    "Pod",
    "PodAffinityTerm",
    "PodDisruptionBudget",
    "PriorityClass",
    "RuntimeClass",
    "TopologySpreadConstraint",
    "WeightedNodeTerm",
    "WeightedPodAffinityTerm",
    "BUILTIN_PRIORITY_CLASSES",
    "EXTRA_FIELDS",
    "NO_EXTRAS",
    "NamedAfterPod",
    "PodExtras",
    "extras_with",
    "pod_extras",
    "frozen_labels",
    "template_hash",
]

GUARANTEED, BURSTABLE, BEST_EFFORT = "Guaranteed", "Burstable", "BestEffort"
HIGHEST_USER_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_PRIORITY
SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
SYSTEM_NODE_CRITICAL = "system-node-critical"
PREEMPT_LOWER = "PreemptLowerPriority"
NEVER = "Never"

Labels = Mapping[str, str]
_EMPTY: Mapping[str, str] = MappingProxyType({})


def frozen_labels(labels: Mapping[str, str] | None) -> Mapping[str, str]:
    """A read-only copy of ``labels`` (keys sorted, so output is deterministic)."""
    if not labels:
        return _EMPTY
    return MappingProxyType(dict(sorted(labels.items())))


def _labels_field() -> Any:
    return attrs.field(factory=lambda: _EMPTY, converter=frozen_labels, eq=True)


@attrs.frozen(slots=True)
class PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER
    description: str = ""
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)


BUILTIN_PRIORITY_CLASSES: tuple[PriorityClass, ...] = (
    PriorityClass(SYSTEM_NODE_CRITICAL, SYSTEM_CRITICAL_PRIORITY + 1000,
                  description="Used for system critical pods that must not be moved from their "
                              "current node."),
    PriorityClass(SYSTEM_CLUSTER_CRITICAL, SYSTEM_CRITICAL_PRIORITY,
                  description="Used for system critical pods that must run in the cluster, but "
                              "can be moved to another node if necessary."),
)


@attrs.frozen(slots=True)
class RuntimeClass:
    """node.k8s.io/v1 RuntimeClass: only its pod overhead matters here."""

    name: str
    overhead: Resources = ZERO
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)


@attrs.frozen(slots=True)
class Namespace:
    """A namespace and its labels (for namespaceSelector)."""

    name: str
    labels: Labels = _labels_field()
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)


@attrs.frozen(slots=True)
class Node:
    """A node as declared: capacity, reserved, labels, taints, filesystems."""

    name: str
    capacity: Resources
    reserved: Resources = ZERO
    labels: Labels = _labels_field()
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    imagefs: int | None = None        # bytes; None: no separate imagefs
    containerfs: int | None = None    # bytes; None: no separate containerfs
    inodes: Mapping[str, int] = attrs.field(factory=dict)  # nodefs/imagefs/containerfs -> inodes
    pid_max: int | None = None
    images_unused: int = 0            # bytes image GC can free
    containers_dead: int = 0          # bytes dead-container GC can free
    # status.images: each image's names (tags, digests) and its size in bytes
    # (ImageLocality scores nodes that already have a pod's images).
    images: tuple[tuple[tuple[str, ...], int], ...] = ()
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)
    allocatable: Resources = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        labels = self.labels
        if "kubernetes.io/hostname" not in labels:
            labels = frozen_labels({**labels, "kubernetes.io/hostname": self.name})
            object.__setattr__(self, "labels", labels)
        alloc = self.capacity - self.reserved
        object.__setattr__(self, "allocatable", alloc)


@attrs.frozen(slots=True, weakref_slot=False)
class Container:
    """A container or init container: requests, limits, and sidecar-ness."""

    name: str
    requests: Resources = ZERO
    limits: Resources = ZERO
    restart_always: bool = False  # an init container with restartPolicy Always: a sidecar
    image: str = ""               # the image reference, as written in the pod spec
    claims: tuple[str, ...] = ()  # resources.claims: the pod claims it may use (DRA)


@attrs.frozen(slots=True)
class EmptyDir:
    """An emptyDir volume, for local-storage eviction."""

    name: str
    size_limit: int | None = None
    medium_memory: bool = False
    usage: int = 0


@attrs.frozen(slots=True)
class WeightedNodeTerm:
    """A preferred node-affinity term with its weight."""

    weight: int
    term: NodeSelectorTerm


@attrs.frozen(slots=True)
class NodeAffinity:
    """spec.affinity.nodeAffinity: required terms (ORed) and preferred terms."""

    required: tuple[NodeSelectorTerm, ...] | None = None  # None: no required affinity
    preferred: tuple[WeightedNodeTerm, ...] = ()


@attrs.frozen(slots=True)
class PodAffinityTerm:
    """A pod (anti-)affinity term."""

    selector: LabelSelector
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class WeightedPodAffinityTerm:
    """A preferred pod (anti-)affinity term with its weight."""

    weight: int
    term: PodAffinityTerm


@attrs.frozen(slots=True)
class TopologySpreadConstraint:
    """spec.topologySpreadConstraints[i]."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str = "DoNotSchedule"
    selector: LabelSelector = LabelSelector()
    min_domains: int | None = None
    match_label_keys: tuple[str, ...] = ()
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"


def _sum(rs: tuple[Resources, ...]) -> Resources:
    total = ZERO
    for r in rs:
        total = total + r
    return total


class NamedAfterPod(tuple):  # type: ignore[type-arg]
    """A pod's ``containers`` given as one container named after the pod, whatever
    this one container's own name.

    The single container a ``pod`` line describes is named after its pod: one
    of these, shared by the pods of a range or of lines with the same
    attributes, stands for each pod's own (a Container and a tuple, about
    130 bytes a pod, for a file of a million one-line pods).
    """

    __slots__ = ()


@attrs.frozen(slots=True, weakref_slot=False)
class PodExtras:
    """A pod's fields that most pods leave at their defaults.

    A Pod reads them (``pod.grace_period``) from one of these, shared by
    every pod that has the same values (:func:`pod_extras`): a slot each on
    every pod cost a file of a million one-line pods about 100 bytes a pod.
    None is read for each node a scheduling cycle tries.
    """

    init_containers: tuple[Container, ...] = ()
    overhead: Resources = ZERO
    runtime_class: str = ""
    pod_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    pod_anti_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    grace_period: int = 30_000           # ms
    static: bool = False
    emptydirs: tuple[EmptyDir, ...] = ()
    usage: Mapping[str, int] = attrs.field(factory=dict, eq=False)  # initial usage(…)
    # The readiness probe's initialDelaySeconds in ms (None: no readiness
    # probe, Ready once Running); the first probe is taken to succeed.
    readiness_delay: int | None = None
    # What the ReplicaSet controller ranks a pod by when it scales down
    # (controller.ActivePodsWithRanks): the most restarts of a container (and
    # of a sidecar), the controller.kubernetes.io/pod-deletion-cost
    # annotation, and, for pods already in the cluster at time 0, when they
    # were created and became Ready (ms on the simulation clock, may be
    # negative; None: when the simulation created them or saw them Ready).
    restarts: int = 0
    sidecar_restarts: int = 0
    deletion_cost: int = 0
    created_at: int | None = None
    ready_at: int | None = None
    # spec.resourceClaims (DRA): kruleset.model.dra.PodClaim entries, in order
    resource_claims: tuple[Any, ...] = ()


NO_EXTRAS = PodExtras()
EXTRA_FIELDS = frozenset(a.name for a in attrs.fields(PodExtras))
_SHARED_EXTRAS: dict[PodExtras, PodExtras] = {}


_EXTRAS_GET = operator.attrgetter(*(a.name for a in attrs.fields(PodExtras)))
_EXTRAS_PUT = tuple(getattr(PodExtras, a.name).__set__ for a in attrs.fields(PodExtras))
_EXTRAS_SETTERS = {a.name: getattr(PodExtras, a.name).__set__ for a in attrs.fields(PodExtras)}


def extras_with(base: PodExtras, changes: Mapping[str, Any]) -> PodExtras:
    """``attrs.evolve(base, **changes)`` (no converters or validators to run), a
    slot copy: a dump sets each pod's own creation and ready times."""
    new = object.__new__(PodExtras)
    for put, value in zip(_EXTRAS_PUT, _EXTRAS_GET(base), strict=True):
        put(new, value)
    setters = _EXTRAS_SETTERS
    for name, value in changes.items():
        setters[name](new, value)
    return new


def pod_extras(base: PodExtras, changes: dict[str, Any]) -> PodExtras:
    """``attrs.evolve(base, **changes)``, one object for equal values.

    Shared only with no ``usage`` (compared by identity, not value, since
    ``eq`` leaves it out) and while the table is small.
    """
    made = attrs.evolve(base, **changes)
    if made.usage:
        return made
    if made == NO_EXTRAS:
        return NO_EXTRAS
    try:
        found = _SHARED_EXTRAS.get(made)
    except TypeError:  # a value that cannot be hashed: not shared
        return made
    if found is None:
        if len(_SHARED_EXTRAS) >= 8192:  # bounded, as _DERIVED
            _SHARED_EXTRAS.clear()
        _SHARED_EXTRAS[made] = found = made
    return found


@attrs.frozen(slots=True, weakref_slot=False)
class Pod:
    """A pod spec with its derived facts.

    ``priority`` is ``None`` until priority admission resolved it (see
    ``kruleset.rules.priority``); ``priority_class`` keeps the class name the
    user wrote (or the global default's name once admitted).
    """

    namespace: str
    name: str
    # The containers as given (``Pod(..., containers=…)``): a tuple of them,
    # or a NamedAfterPod shared by many pods; ``containers`` reads them.
    container_spec: tuple[Container, ...] = attrs.field(default=(), alias="containers",
                                                        eq=False, repr=False)
    labels: Labels = _labels_field()
    priority_class: str = ""
    priority: int | None = None
    preemption_policy: str | None = None
    node_name: str = ""                 # spec.nodeName (`on NODE` / nodeName)
    node_selector: Labels = _labels_field()
    node_affinity: NodeAffinity | None = None
    pod_affinity: tuple[PodAffinityTerm, ...] = ()
    pod_anti_affinity: tuple[PodAffinityTerm, ...] = ()
    spread: tuple[TopologySpreadConstraint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    gates: tuple[str, ...] = ()
    host_ports: tuple[tuple[int, str], ...] = ()  # (port, protocol)
    started: int | None = None           # ms on the simulation clock, may be negative
    owner_kind: str = ""                 # "ReplicaSet", "DaemonSet", … ("" for a naked pod)
    owner_name: str = ""
    ready: bool = True                   # False: `not-ready` (running but not Ready)
    # The fields rarely set, in one object shared by the pods that have the
    # same (most often none set): see PodExtras.  Given to ``Pod(...)`` and
    # read (``pod.restarts``) by their own names.
    extras: PodExtras = attrs.field(default=NO_EXTRAS, repr=False)
    if TYPE_CHECKING:  # what Pod(...) takes and a pod reads, by PodExtras' names
        init_containers: tuple[Container, ...] = ()
        pod_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
        pod_anti_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
        overhead: Resources = ZERO
        runtime_class: str = ""
        grace_period: int = 30_000
        static: bool = False
        emptydirs: tuple[EmptyDir, ...] = ()
        usage: Mapping[str, int] = attrs.field(factory=dict, eq=False)
        readiness_delay: int | None = None
        restarts: int = 0
        sidecar_restarts: int = 0
        deletion_cost: int = 0
        created_at: int | None = None
        ready_at: int | None = None
        resource_claims: tuple[Any, ...] = ()
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)
    # The first pod of the ``pods`` range this one was declared in, when this
    # one differs from it in its names only (namespace, name, key and the
    # default container's name); None otherwise.  Not an init argument, so
    # ``attrs.evolve`` and :meth:`replace` (which change more) drop it.
    range_head: Pod | None = attrs.field(init=False, default=None, eq=False, repr=False)
    # --- derived once ---
    key: str = attrs.field(init=False, eq=False)
    requests: Resources = attrs.field(init=False, eq=False, repr=False)
    nonzero_requests: Resources = attrs.field(init=False, eq=False, repr=False)
    limits: Resources = attrs.field(init=False, eq=False, repr=False)
    qos: str = attrs.field(init=False, eq=False)
    critical: bool = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        s = object.__setattr__
        s(self, "key", f"{self.namespace}/{self.name}")
        requests, nonzero, limits, qos = _derived(self.containers, self.init_containers,
                                                  self.overhead)
        s(self, "requests", requests)
        s(self, "nonzero_requests", nonzero)
        s(self, "limits", limits)
        s(self, "qos", qos)
        s(self, "critical", self.static or (
            self.priority is not None and self.priority >= SYSTEM_CRITICAL_PRIORITY))

    def replace(self, **changes: Any) -> Pod:
        """``attrs.evolve(self, **changes)``, several times faster for plain fields.

        API admission rewrites every pod (priority, default tolerations); for
        150,000 pods the generic ``evolve`` (every field read and passed to
        ``__init__``, derived facts recomputed) is seconds.  Fields with a
        converter, and anything the derived facts depend on, take the
        generic path, so the result is always what ``evolve`` gives.
        """
        if not _FAST_FIELDS.issuperset(changes):
            return attrs.evolve(self, **changes)
        new = object.__new__(Pod)
        _pod_copy(self, new)
        s = object.__setattr__
        s(new, "range_head", None)
        for name, value in changes.items():
            s(new, name, value)
        if "name" in changes or "namespace" in changes:
            s(new, "key", f"{new.namespace}/{new.name}")
        if "priority" in changes:
            s(new, "critical", new.static or (
                new.priority is not None and new.priority >= SYSTEM_CRITICAL_PRIORITY))
        return new

    def renamed(self, namespace: str, name: str, containers: tuple[Container, ...]) -> Pod:
        """A pod of this one's range: this pod but for its names, its containers
        (only the default container's name may differ) and ``range_head``
        (this pod).  The derived facts, which read no names, are this pod's.
        """
        new = object.__new__(Pod)
        _copy_unnamed(self, new)
        put_ns, put_name, put_key, put_containers, put_head = _SET_NAMES
        put_ns(new, namespace)
        put_name(new, name)
        put_key(new, f"{namespace}/{name}")
        put_containers(new, containers)
        put_head(new, self)
        return new

    def declared_as(self, namespace: str, name: str, containers: tuple[Container, ...],
                    node_name: str, span: Span) -> Pod:
        """The pod another declaration with this one's attributes makes: this pod but
        for its names, containers (only names may differ), node and span.  The
        derived facts, which read none of these, are this pod's."""
        new = object.__new__(Pod)
        _copy_undeclared(self, new)
        put_ns, put_name, put_key, put_containers, put_head, put_node, put_span = _SET_DECLARED
        put_ns(new, namespace)
        put_name(new, name)
        put_key(new, f"{namespace}/{name}")
        put_containers(new, containers)
        put_head(new, None)
        put_node(new, node_name)
        put_span(new, span)
        return new

    @property
    def containers(self) -> tuple[Container, ...]:
        """spec.containers (a NamedAfterPod's one container, named after this pod)."""
        spec = self.container_spec
        if spec.__class__ is not NamedAfterPod:
            return spec
        c = spec[0]
        return (Container(self.name, c.requests, c.limits, c.restart_always, c.image, c.claims),)

    @property
    def effective_priority(self) -> int:
        """spec.priority, 0 when not set (as the scheduler reads it)."""
        return self.priority if self.priority is not None else 0

    @property
    def effective_preemption_policy(self) -> str:
        """spec.preemptionPolicy, PreemptLowerPriority when not set."""
        return self.preemption_policy or PREEMPT_LOWER

    @property
    def node_critical(self) -> bool:
        """Node-critical is decided by the class name (upstream IsNodeCriticalPod)."""
        return self.critical and self.priority_class == SYSTEM_NODE_CRITICAL

    @property
    def besteffort(self) -> bool:
        """QoS class BestEffort."""
        return self.qos == BEST_EFFORT


_Derived = tuple[Resources, Resources, Resources, str]
# Derived resource facts by what they depend on: each container's requests,
# limits and sidecar-ness (not its name), and the overhead.  Pods made from
# one template (ranges, deployments, a cluster dump's replicas) share them,
# and ``attrs.evolve`` (renaming, priority admission) rebuilds a pod several
# times: computing them once per distinct spec makes building 150,000 pods
# about 5x faster.  The last spec is also remembered by identity, which
# ``evolve`` keeps.  Bounded so a long-lived process cannot grow it forever.
_DerivedKey = tuple[tuple[tuple[Resources, Resources, bool], ...],
                    tuple[tuple[Resources, Resources, bool], ...], Resources]
_DERIVED: dict[_DerivedKey, _Derived] = {}
_DERIVED_MAX = 8192
_last: list[Any] = [None, None, None, None]  # containers, inits, overhead, result


def _derived(containers: tuple[Container, ...], inits: tuple[Container, ...],
             overhead: Resources) -> _Derived:
    """(requests, non-zero requests, limits, QoS class) of a pod spec, cached."""
    last = _last
    if containers is last[0] and inits is last[1] and overhead is last[2]:
        hit: _Derived = last[3]
        return hit
    key = (tuple((c.requests, c.limits, c.restart_always) for c in containers),
           tuple((c.requests, c.limits, c.restart_always) for c in inits), overhead)
    out = _DERIVED.get(key)
    if out is None:
        out = (
            _effective(containers, inits, overhead, "requests"),
            _effective(tuple(_nonzero(c) for c in containers),
                       tuple(_nonzero(c) for c in inits), overhead, "requests"),
            _effective(containers, inits, overhead, "limits"),
            _qos(containers + inits),
        )
        if len(_DERIVED) >= _DERIVED_MAX:
            _DERIVED.clear()
        _DERIVED[key] = out
    last[0], last[1], last[2], last[3] = containers, inits, overhead, out
    return out


def _with_extras(init: Callable[..., None]) -> Callable[..., None]:
    """Pod's ``__init__``, taking the fields of :class:`PodExtras` by their own names."""

    def __init__(self: Pod, *args: Any, **kwargs: Any) -> None:
        extras = kwargs.get("extras") or NO_EXTRAS
        if not EXTRA_FIELDS.isdisjoint(kwargs):
            extras = pod_extras(extras, {n: kwargs.pop(n) for n in EXTRA_FIELDS & kwargs.keys()})
        kwargs["extras"] = extras
        init(self, *args, **kwargs)

    __init__.__doc__ = init.__doc__
    return __init__


Pod.__init__ = _with_extras(Pod.__init__)  # type: ignore[method-assign]
# Equality as attrs gives it, with ``containers`` (not how they were given).
_POD_EQ = operator.attrgetter(*("containers" if a.name == "container_spec" else a.name
                                for a in attrs.fields(Pod)
                                if a.eq or a.name == "container_spec"))


def _pod_eq(self: Pod, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(_POD_EQ(self) == _POD_EQ(other))


def _pod_ne(self: Pod, other: object) -> bool:
    eq = _pod_eq(self, other)
    return eq if eq is NotImplemented else not eq


# The repr attrs gave a Pod whose every field was a slot of its own, field
# for field: a workload's revision names are a hash of its template's repr.
_POD_REPR = ("namespace", "name", "containers", "init_containers", "overhead",
             "runtime_class", "labels", "priority_class", "priority", "preemption_policy",
             "node_name", "node_selector", "node_affinity", "pod_affinity",
             "pod_affinity_preferred", "pod_anti_affinity", "pod_anti_affinity_preferred",
             "spread", "tolerations", "gates", "host_ports", "grace_period", "started",
             "static", "owner_kind", "owner_name", "emptydirs", "usage", "ready",
             "readiness_delay", "restarts", "sidecar_restarts", "deletion_cost", "created_at",
             "ready_at", "resource_claims", "key", "qos", "critical")
_POD_REPR_GET = operator.attrgetter(*_POD_REPR)


def _pod_repr(self: Pod) -> str:
    values = _POD_REPR_GET(self)
    return "Pod(" + ", ".join(f"{n}={v!r}" for n, v in zip(_POD_REPR, values, strict=True)) + ")"


Pod.__eq__ = _pod_eq  # type: ignore[method-assign,assignment]
Pod.__ne__ = _pod_ne  # type: ignore[method-assign,assignment]
Pod.__repr__ = _pod_repr  # type: ignore[method-assign,assignment]
for _name in sorted(EXTRA_FIELDS):
    # A property reading the shared object: operator.attrgetter runs in C.
    setattr(Pod, _name, property(operator.attrgetter(f"extras.{_name}"),
                                 doc=f"PodExtras.{_name}"))


# Pod.replace: the fields it may set directly (no converter; of the derived
# facts only ``key`` and ``critical`` depend on them, and it recomputes those),
# and every slot it copies.
_FAST_FIELDS = frozenset({"name", "namespace", "priority", "priority_class",
                          "preemption_policy", "tolerations", "node_name", "gates"})
_POD_SLOTS = tuple(a.name for a in attrs.fields(Pod))
# One C-level read of every slot and each slot's own setter (bypassing the
# frozen __setattr__): the cheapest copy of a slotted object in pure Python.
_POD_GET = operator.attrgetter(*_POD_SLOTS)
_POD_PUT = tuple((getattr(Pod, name).__set__, i) for i, name in enumerate(_POD_SLOTS))


def _make_pod_copy(skip: frozenset[str] = frozenset()) -> Callable[[Pod, Pod], None]:
    """``copy(src, dst)``: every slot of ``src`` but ``skip`` set on ``dst``, as
    straight-line code.

    A loop over the setters costs a quarter more per copy; API admission
    copies every pod created.
    """
    kept = [(put, i) for put, i in _POD_PUT if _POD_SLOTS[i] not in skip]
    env: dict[str, Any] = {"get": operator.attrgetter(*(_POD_SLOTS[i] for _, i in kept))}
    lines = ["def copy(src, dst):", "    v = get(src)"]
    for j, (put, i) in enumerate(kept):
        env[f"put{i}"] = put
        lines.append(f"    put{i}(dst, v[{j}])")
    exec("\n".join(lines), env)  # noqa: S102 - generated from the class's own fields
    copy: Callable[[Pod, Pod], None] = env["copy"]
    return copy


_pod_copy = _make_pod_copy()
# Pod.renamed: the slots that differ between the pods of a range.
_RANGE_NAMES = ("namespace", "name", "key", "container_spec", "range_head")
_copy_unnamed = _make_pod_copy(frozenset(_RANGE_NAMES))
_SET_NAMES = tuple(getattr(Pod, name).__set__ for name in _RANGE_NAMES)
# Pod.declared_as: those, the node and the span.
_DECLARED = (*_RANGE_NAMES, "node_name", "span")
_copy_undeclared = _make_pod_copy(frozenset(_DECLARED))
_SET_DECLARED = tuple(getattr(Pod, name).__set__ for name in _DECLARED)


def _effective(containers: tuple[Container, ...], inits: tuple[Container, ...],
               overhead: Resources, which: str) -> Resources:
    """Upstream PodRequests: max(containers + sidecars, each init + earlier sidecars), + overhead.

    Overhead is added in full to requests, and to limits only where the
    limit so far is non-zero, as component-helpers does; the pod count is
    always 1 for requests.
    """
    total = _sum(tuple(getattr(c, which) for c in containers))
    sidecars = ZERO
    peak = ZERO
    for c in inits:
        res = getattr(c, which)
        if c.restart_always:
            sidecars = sidecars + res
            total = total + res
        else:
            peak = peak.max_with(res + sidecars)
    total = total.max_with(peak)
    if not overhead.is_zero():
        values = total.as_dict()
        for k, v in overhead.items():
            if which == "requests":
                values[k] = values.get(k, 0) + v
            elif values.get(k):
                values[k] += v
        total = Resources.of(values)
    if which == "requests":
        total = attrs.evolve(total, pods=1)
    return total


# The scheduler's scoring defaults for a container that requests no cpu/memory
# (pkg/scheduler/util: DefaultMilliCPURequest, DefaultMemoryRequest).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


def _nonzero(c: Container) -> Container:
    r = c.requests
    if r.cpu and r.memory:
        return c
    return attrs.evolve(c, requests=attrs.evolve(
        r, cpu=r.cpu or DEFAULT_MILLI_CPU_REQUEST, memory=r.memory or DEFAULT_MEMORY_REQUEST))


def _qos(containers: tuple[Container, ...]) -> str:
    """Upstream ComputePodQOS over cpu and memory, summing containers and init containers."""
    req: dict[str, int] = {}
    lim: dict[str, int] = {}
    complete = True
    for c in containers:
        for name in ("cpu", "memory"):
            r = c.requests.get(name)
            if r > 0:
                req[name] = req.get(name, 0) + r
            v = c.limits.get(name)
            if v > 0:
                lim[name] = lim.get(name, 0) + v
            else:
                complete = False
    if not req and not lim:
        return BEST_EFFORT
    if complete and len(req) == len(lim) and all(lim.get(k) == v for k, v in req.items()):
        return GUARANTEED
    return BURSTABLE


# The most pods one workload may ask for (replicas, parallelism, completions),
# as many as a ``.kr`` range may name: every pod is simulated one by one.
MAX_REPLICAS = 100_000


# The label a ReplicaSet adds to its pods (and its selector).
TEMPLATE_HASH = "pod-template-hash"


def template_hash(key: str) -> str:
    """A stable stand-in for the ReplicaSet's pod-template-hash of deployment ``key``.

    Upstream's ReplicaSet selects its pods by the deployment's selector plus
    this label, and the scheduler's default spreading selects a pod's siblings
    through that ReplicaSet: without it, pods of deployments declared without
    labels would not be spread as upstream spreads them.
    """
    return hashlib.sha256(key.encode()).hexdigest()[:10]


ROLLING_UPDATE, RECREATE = "RollingUpdate", "Recreate"


@attrs.frozen(slots=True)
class Deployment:
    """A deployment: keeps ``replicas`` pods made from ``template``.

    ``kind`` is the object it was read from: ``Deployment``, or a
    ``ReplicaSet`` no Deployment controls, or a ``ReplicationController``
    (all three keep their replicas the same way here; the disruption
    controller finds their scale through different finders).
    ``max_surge`` and ``max_unavailable`` are an int or a percentage string
    (``"25%"``) as in ``spec.strategy.rollingUpdate``; they are unused by
    the Recreate strategy.  ``min_ready_seconds`` counts toward a pod's
    availability; ``paused`` stops rollouts (scaling goes on).
    """

    namespace: str
    name: str
    replicas: int
    template: Pod
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)
    kind: str = "Deployment"
    strategy: str = ROLLING_UPDATE
    max_surge: int | str = "25%"
    max_unavailable: int | str = "25%"
    min_ready_seconds: int = 0
    paused: bool = False
    revision_history_limit: int = 10

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class PodFailurePolicyRule:
    """One rule of a Job's ``podFailurePolicy``: an action and what it matches.

    ``on_exit_codes`` is ``(containerName or None, operator In|NotIn, values)``;
    ``on_conditions`` holds ``(type, status)`` pairs.  A rule has exactly one
    of them (upstream's validation refuses both or neither).
    """

    action: str
    on_exit_codes: tuple[str | None, str, tuple[int, ...]] | None = None
    on_conditions: tuple[tuple[str, str], ...] = ()


@attrs.frozen(slots=True)
class JobSpec:
    """What a Job's controller reads beyond parallelism and completions (v1 JobSpec).

    ``active_deadline`` is in simulated ms (None: no deadline).
    """

    backoff_limit: int = 6
    active_deadline: int | None = None
    indexed: bool = False
    backoff_limit_per_index: int | None = None
    max_failed_indexes: int | None = None
    pod_failure_policy: tuple[PodFailurePolicyRule, ...] | None = None
    pod_replacement_policy: str = "TerminatingOrFailed"
    suspended: bool = False


@attrs.frozen(slots=True)
class Workload:
    """A StatefulSet, DaemonSet or Job: a controller other than the deployment's.

    ``replicas`` is a StatefulSet's replicas or a Job's parallelism (unused
    for a DaemonSet); ``completions`` a Job's (``None``: parallelism pods
    each finishing the job); ``ordered`` a StatefulSet's OrderedReady pod
    management (False: Parallel).  The template's owner is the workload.

    ``strategy`` is the StatefulSet's or DaemonSet's ``updateStrategy.type``;
    ``partition``, ``max_unavailable`` and ``max_surge`` its rollingUpdate
    fields (an int or a ``"N%"`` string; None when not given);
    ``ordinals_start`` a StatefulSet's ``spec.ordinals.start``;
    ``min_ready_seconds`` the seconds a Ready pod waits to count as
    available; ``job`` a Job's other fields.
    """

    kind: str
    namespace: str
    name: str
    template: Pod
    replicas: int = 1
    completions: int | None = None
    ordered: bool = True
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)
    strategy: str = "RollingUpdate"
    partition: int = 0
    max_unavailable: int | str | None = None
    max_surge: int | str | None = None
    ordinals_start: int = 0
    min_ready_seconds: int = 0
    job: JobSpec | None = None

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class LimitRange:
    """v1 LimitRange items of type Container: the defaults the API server sets on new pods.

    Each field maps resource -> quantity (internal units); ``max``/``min``
    bound a container's limits and requests.
    """

    namespace: str
    name: str
    default: Resources = ZERO
    default_request: Resources = ZERO
    max: Resources = ZERO
    min: Resources = ZERO
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class ResourceQuota:
    """v1 ResourceQuota ``spec.hard``: what new pods of the namespace may add up to.

    Keys are as written (``requests.cpu``, ``cpu``, ``limits.memory``,
    ``pods``, ``count/pods``), values in internal units.
    """

    namespace: str
    name: str
    hard: Mapping[str, int] = attrs.field(factory=dict)
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget. At most one of min_available / max_unavailable is set.

    Values are ``int`` or a percentage string such as ``"50%"``.
    """

    namespace: str
    name: str
    selector: LabelSelector
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    unhealthy_pod_eviction_policy: str = "IfHealthyBudget"
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class ElasticQuota:
    """scheduling.x-k8s.io ElasticQuota for one namespace.

    ``min``/``max`` are ``None`` when the whole list is absent; a resource left
    out of a present list is 0 for cpu, memory, ephemeral-storage and pods
    (unlimited for extended resources in ``max``), as upstream's data layout makes it.
    """

    namespace: str
    min: Resources | None = None
    max: Resources | None = None
    name: str = ""
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)


# Re-exported for convenience of rule modules.
Requirement = Requirement
NodeSelectorTerm = NodeSelectorTerm
