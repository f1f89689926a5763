"""Elastic quota: ElasticQuota bounds and accounting (seed 004 §1).

Upstream: ``pkg/capacityscheduling/{capacity_scheduling.go, elasticquota.go}`` in
kubernetes-sigs/scheduler-plugins.  One ElasticQuota per namespace gives a
``min`` (guaranteed) and a ``max`` (ceiling); ``used`` is the scheduler's own
count of the pods it has seen assigned.

**Bounds** (``newElasticQuotaInfo`` and ``framework.NewResource``):

* a whole ``min`` left out is ``{cpu: 0, memory: 0, ephemeral-storage: 0}``;
  a whole ``max`` left out is ``MaxInt64`` for those three (unlimited);
* a *core* resource (cpu, memory, ephemeral-storage, pods) left out of a list
  that is present counts as **0**, so ``max(cpu=10)`` refuses every pod that
  requests memory.  kruleset says so in the trace (``--explain``), because
  nobody expects it;
* an extended resource (``nvidia.com/gpu``) left out of ``max`` is unlimited,
  left out of ``min`` is 0.

**Comparisons** (``cmp2``): "over" means *any* dimension strictly above its
bound (equality is not over).  cpu, memory, ephemeral-storage and pods are
always compared; extended resources only when the left-hand side (the request,
or the usage for ``usedOverMin``) has them.

**Accounting** (:class:`QuotaUsage`, kept incrementally by a
``ClusterState.subscribe`` listener, never by rescanning): a pod is added when
it is bound (Reserve, or the pod informer's add event for assigned pods) and
removed when it leaves its node (Succeeded, Failed, or its object gone after
the grace period), so terminating pods still count.  A pod's quota request is
upstream's ``computePodResourceRequest``: the sum of the containers, the
per-resource max with each init container (sidecars get no special treatment),
plus overhead; the pod count is not part of it.  Only pods bound while their
namespace has a quota are counted, as upstream's informer handlers do: a quota
created later starts from 0 and ignores pods already running.  Deleting a
quota forgets its usage.  A namespace without a quota is neither checked nor
counted.

The PreFilter and Reserve rules that read it are
:mod:`~kruleset.rules.quota.prefilter`.

Embedding: :func:`quota_used`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping

import attrs

from kruleset.model.objects import ElasticQuota, Pod
from kruleset.model.resources import CPU, EPHEMERAL, MEMORY, PODS, ZERO, Resources
from kruleset.model.state import ClusterState, PodState, Tally

__all__ = [
    "CORE_RESOURCES",
    "MAX_INT64",
    "Bound",
    "QuotaUsage",
    "QuotaView",
    "max_bound",
    "min_bound",
    "over",
    "quota_request",
    "quota_usage",
    "quota_used",
    "show_quantity",
]

MAX_INT64 = (1 << 63) - 1
#: The resources every quota tracks apart from extended ones.
CORE_RESOURCES = (CPU, MEMORY, EPHEMERAL, PODS)



# --- bounds and comparisons -------------------------------------------------------------------

@attrs.frozen(slots=True)
class Bound:
    """A quota's min or max as upstream's ``framework.Resource`` holds it.

    ``missing`` is the bound of an extended resource the list does not name
    (0 for min, MaxInt64 for max); core resources not named are 0.
    """

    cpu: int
    memory: int
    ephemeral_storage: int
    pods: int
    scalars: Mapping[str, int]
    missing: int

    def get(self, name: str) -> int:
        """The bound for ``name``."""
        if name == CPU:
            return self.cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL:
            return self.ephemeral_storage
        if name == PODS:
            return self.pods
        return self.scalars.get(name, self.missing)


def _bound(r: Resources, missing: int) -> Bound:
    return Bound(r.cpu, r.memory, r.ephemeral_storage, r.pods, dict(r.scalars), missing)


def min_bound(q: ElasticQuota) -> Bound:
    """``q.min`` as upstream reads it (absent: 0 for cpu, memory, ephemeral-storage).

    >>> min_bound(ElasticQuota("a")).cpu, min_bound(ElasticQuota("a")).get("nvidia.com/gpu")
    (0, 0)
    """
    return _bound(q.min if q.min is not None else ZERO, 0)


def max_bound(q: ElasticQuota) -> Bound:
    """``q.max`` as upstream reads it (absent: MaxInt64 for cpu, memory, ephemeral-storage).

    A core resource left out of a present max is 0; an extended one is unlimited::

        >>> b = max_bound(ElasticQuota("a", max=Resources(cpu=10_000)))
        >>> b.memory, b.get("nvidia.com/gpu") == MAX_INT64
        (0, True)
    """
    if q.max is None:
        return Bound(MAX_INT64, MAX_INT64, MAX_INT64, 0, {}, MAX_INT64)
    return _bound(q.max, MAX_INT64)


Amount = Resources | Tally


def _scalars(x: Amount) -> Iterable[tuple[str, int]]:
    s = x.scalars
    return s.items() if isinstance(s, dict) else s


def over(x1: Amount, x2: Amount | None, y: Bound) -> tuple[str, int, int] | None:
    """Upstream ``cmp2``: the first dimension where ``x1 + x2 > y``, as ``(name, lhs, bound)``.

    ``None`` when no dimension is over.  Core resources are always compared;
    extended resources only those ``x1`` has (a bound not naming one uses
    ``y.missing``).

    >>> six = min_bound(ElasticQuota("a", Resources(cpu=6000)))
    >>> over(Resources(cpu=2000), Resources(cpu=4000), six)
    >>> over(Resources(cpu=3000), Resources(cpu=4000), six)
    ('cpu', 7000, 6000)
    """
    a = x1.cpu + (x2.cpu if x2 is not None else 0)
    if a > y.cpu:
        return CPU, a, y.cpu
    a = x1.memory + (x2.memory if x2 is not None else 0)
    if a > y.memory:
        return MEMORY, a, y.memory
    a = x1.ephemeral_storage + (x2.ephemeral_storage if x2 is not None else 0)
    if a > y.ephemeral_storage:
        return EPHEMERAL, a, y.ephemeral_storage
    a = x1.pods + (x2.pods if x2 is not None else 0)
    if a > y.pods:
        return PODS, a, y.pods
    if x1.scalars:
        for name, q in _scalars(x1):
            a = q + (x2.get(name) if x2 is not None else 0)
            b = y.get(name)
            if a > b:
                return name, a, b
    return None


# id(requests) -> (requests, the same with pods=0); the object is kept so its id stays unique.
_NO_PODS: dict[int, tuple[Resources, Resources]] = {}


def quota_request(pod: Pod) -> Resources:
    """Upstream ``computePodResourceRequest``: containers summed, max with each init, + overhead.

    Restartable (sidecar) init containers are treated like any init container,
    and the pod count is 0 (upstream adds only what containers request).

    >>> from kruleset.model.objects import Container
    >>> p = Pod("a", "p", (Container("c1", Resources(cpu=2000, memory=1 << 30)),
    ...                    Container("c2", Resources(cpu=1000, memory=1 << 30))),
    ...         (Container("i1", Resources(cpu=2000, memory=1 << 30)),
    ...          Container("i2", Resources(cpu=2000, memory=3 << 30))))
    >>> r = quota_request(p); (r.cpu, r.memory >> 30, r.pods)
    (3000, 3, 0)
    """
    if not any(c.restart_always for c in pod.init_containers):
        # Without sidecars the pod's effective request is the same sum/max + overhead.
        # Pods of one template share their requests object: build the copy once.
        r = pod.requests
        hit = _NO_PODS.get(id(r))
        if hit is not None and hit[0] is r:
            return hit[1]
        out: Resources = attrs.evolve(r, pods=0)
        if len(_NO_PODS) >= 4096:
            _NO_PODS.clear()
        _NO_PODS[id(r)] = (r, out)
        return out
    total = ZERO
    for c in pod.containers:
        total = total + c.requests
    for c in pod.init_containers:
        total = total.max_with(c.requests)
    return attrs.evolve(total + pod.overhead, pods=0)


def show_quantity(name: str, value: int) -> str:
    """``name=value`` as quota messages write one resource (``unlimited`` for no max)."""
    from kruleset.model.quantity import format_quantity

    if value >= MAX_INT64:
        return f"{name}=unlimited"
    return f"{name}={format_quantity(name, value)}"


# --- accounting -------------------------------------------------------------------------------

def _copy(t: Tally) -> Tally:
    c = Tally()
    c.cpu, c.memory, c.ephemeral_storage, c.pods = t.cpu, t.memory, t.ephemeral_storage, t.pods
    c.scalars = dict(t.scalars)
    return c


class _Info:
    """One namespace's ElasticQuotaInfo: bounds, used and the pods counted in it."""

    __slots__ = ("quota", "min", "max", "used", "pods")

    def __init__(self, quota: ElasticQuota) -> None:
        self.quota = quota
        self.min = min_bound(quota)
        self.max = max_bound(quota)
        self.used = Tally()
        self.pods: dict[str, Resources] = {}


class QuotaUsage:
    """The scheduler's ElasticQuota bookkeeping for one cluster, kept on bind and unbind.

    Subscribed to the :class:`ClusterState` (:func:`quota_usage` creates it);
    quota objects are read from ``state.quotas`` and re-synchronised before
    every decision: a new quota starts at 0, a changed one keeps its used, a
    deleted one is forgotten.
    """

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.infos: dict[str, _Info] = {}
        self.total = Tally()            # sum of used over every quota
        self.total_min = Bound(0, 0, 0, 0, {}, 0)
        self._seen: dict[str, ElasticQuota] = {}

    # --- quota objects -------------------------------------------------------
    def sync(self) -> None:
        """Bring the quota infos in line with ``state.quotas`` (cheap when nothing changed)."""
        quotas = self.state.quotas
        seen = self._seen
        if len(quotas) == len(seen) and all(seen.get(ns) is q for ns, q in quotas.items()):
            return
        for ns in [ns for ns in self.infos if ns not in quotas]:
            self._drop(ns)
        for ns, q in quotas.items():
            info = self.infos.get(ns)
            if info is None:
                self.infos[ns] = _Info(q)           # addElasticQuota: used starts at 0
            elif info.quota is not q:
                info.quota, info.min, info.max = q, min_bound(q), max_bound(q)  # update keeps used
        self._seen = dict(quotas)
        self._total_min()

    def _drop(self, ns: str) -> None:
        info = self.infos.pop(ns)
        self.total.add(info.used.freeze(), -1)

    def _total_min(self) -> None:
        t = Tally()
        for info in self.infos.values():
            m = info.min
            t.cpu += m.cpu
            t.memory += m.memory
            t.ephemeral_storage += m.ephemeral_storage
            t.pods += m.pods
            for k, v in m.scalars.items():
                t.scalars[k] = t.scalars.get(k, 0) + v
        self.total_min = Bound(t.cpu, t.memory, t.ephemeral_storage, t.pods, t.scalars, 0)

    def info(self, ns: str) -> _Info | None:
        """The namespace's quota info (``None``: no quota)."""
        return self.infos.get(ns)

    # --- pods ------------------------------------------------------------------
    def reserve(self, ps: PodState) -> bool:
        """Upstream ``addPodIfNotPresent`` for the pod's quota; False if not counted."""
        self.sync()
        info = self.infos.get(ps.pod.namespace)
        if info is None or ps.key in info.pods:
            return False
        req = quota_request(ps.pod)
        info.pods[ps.key] = req
        info.used.add(req)
        self.total.add(req)
        return True

    def unreserve(self, ps: PodState) -> bool:
        """Upstream ``deletePodIfPresent``; False if the pod was not counted."""
        self.sync()
        info = self.infos.get(ps.pod.namespace)
        if info is None:
            return False
        req = info.pods.pop(ps.key, None)
        if req is None:
            return False
        info.used.add(req, -1)
        self.total.add(req, -1)
        return True

    def on_bind(self, state: ClusterState, ps: PodState) -> None:
        """Listener: a pod was assigned (Reserve / the informer's add event)."""
        self.reserve(ps)

    def on_unbind(self, state: ClusterState, ps: PodState) -> None:
        """Listener: a pod left its node (finished, or its object is gone)."""
        self.unreserve(ps)


_USAGE: weakref.WeakKeyDictionary[ClusterState, QuotaUsage] = weakref.WeakKeyDictionary()


def quota_usage(state: ClusterState) -> QuotaUsage:
    """The :class:`QuotaUsage` of ``state``, created and subscribed on first use."""
    u = _USAGE.get(state)
    if u is None:
        u = _USAGE[state] = QuotaUsage(state)
        u.sync()
        state.subscribe(u)
    else:
        u.sync()
    return u


def quota_used(state: ClusterState, namespace: str) -> Resources:
    """The scheduler's ``used`` of ``namespace``'s ElasticQuota (bound pods, terminating included).

    A namespace without a quota has nothing counted (zero).

    >>> from kruleset.model.objects import Container, Node
    >>> st = ClusterState()
    >>> _ = st.add_node(Node("n1", Resources(cpu=8000, memory=32 << 30, pods=110)))
    >>> st.quotas["ns-a"] = ElasticQuota("ns-a", Resources(cpu=6000), Resources(cpu=10_000))
    >>> st.bind(st.add_pod(Pod("ns-a", "job-1", (Container("c", Resources(cpu=2000)),))), "n1")
    >>> quota_used(st, "ns-a").cpu
    2000
    """
    info = quota_usage(state).info(namespace)
    return info.used.freeze() if info is not None else ZERO


class QuotaView:
    """The quota usage as one preemption dry run sees it, without copying the cluster.

    Upstream deep-copies every quota per cycle and per node and lets the
    PreFilter extensions ``RemovePod``/``AddPod`` change the copy; here only
    the namespaces a dry run touches get a local copy of their used.
    """

    __slots__ = ("usage", "local", "total", "gone")

    def __init__(self, usage: QuotaUsage) -> None:
        self.usage = usage
        self.local: dict[str, Tally] = {}
        self.total: Tally | None = None
        self.gone: set[str] = set()

    def used(self, ns: str) -> Tally:
        """``ns``'s used in this view (the quota must exist)."""
        t = self.local.get(ns)
        if t is not None:
            return t
        info = self.usage.infos[ns]
        return info.used

    def total_used(self) -> Tally:
        """The sum of every quota's used in this view."""
        return self.total if self.total is not None else self.usage.total

    def _change(self, ps: PodState, sign: int) -> bool:
        info = self.usage.infos.get(ps.pod.namespace)
        if info is None:
            return False
        req = info.pods.get(ps.key)
        if req is None:
            return False
        ns = ps.pod.namespace
        t = self.local.get(ns)
        if t is None:
            t = self.local[ns] = _copy(info.used)
        if self.total is None:
            self.total = _copy(self.usage.total)
        t.add(req, sign)
        self.total.add(req, sign)
        return True

    def remove(self, ps: PodState) -> None:
        """Upstream ``RemovePod`` extension: take ``ps`` out of its quota's used."""
        if ps.key not in self.gone and self._change(ps, -1):
            self.gone.add(ps.key)

    def add(self, ps: PodState) -> None:
        """Upstream ``AddPod`` extension: put a removed ``ps`` back."""
        if ps.key in self.gone:
            self.gone.discard(ps.key)
            self._change(ps, 1)

    def over_min(self, ns: str) -> tuple[str, int, int] | None:
        """``usedOverMin``: where ``ns``'s used is above its min."""
        return over(self.used(ns), None, self.usage.infos[ns].min)

    def over_min_with(self, ns: str, req: Amount) -> tuple[str, int, int] | None:
        """``usedOverMinWith``: where ``ns``'s used + ``req`` is above its min."""
        return over(req, self.used(ns), self.usage.infos[ns].min)

    def over_max_with(self, ns: str, req: Amount) -> tuple[str, int, int] | None:
        """``usedOverMaxWith``: where ``ns``'s used + ``req`` is above its max."""
        return over(req, self.used(ns), self.usage.infos[ns].max)

    def total_over_min_with(self, req: Amount) -> tuple[str, int, int] | None:
        """``aggregatedUsedOverMinWith``: where Σ used + ``req`` is above Σ min."""
        total = self.total_used()
        if req.scalars or total.scalars:
            # Upstream adds the lists first, so both sides' extended resources count.
            both = _copy(total)
            both.add(req if isinstance(req, Resources) else req.freeze())
            return over(both, None, self.usage.total_min)
        return over(req, total, self.usage.total_min)
