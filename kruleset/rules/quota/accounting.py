"""Elastic quota: ElasticQuota accounting and the CapacityScheduling PreFilter (seed 004 §1).

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

**PreFilter** (two rules on ``scheduler.prefilter``, enabled with
CapacityScheduling):

* ``scheduler.prefilter.CapacityScheduling.max``: own used + request + the
  requests of pods of the same namespace nominated to a node with priority >=
  the pod's, above ``max`` → ``Pod NS/NAME is rejected in PreFilter because
  ElasticQuota NS is more than Max``;
* ``scheduler.prefilter.CapacityScheduling.total-min``: the used of every
  quota + request + those nominated pods + nominated pods of *other* quota
  namespaces that are not above their min, above the sum of every quota's
  min → ``Pod NS/NAME is rejected in PreFilter because total ElasticQuota used
  is more than min``.  So all quota namespaces together never use more than
  the sum of the mins: a quota goes above its min only into others' unused min.

Both are Unschedulable (never Unresolvable), so preemption is tried on every
node.  PreFilter does not change ``used``.

Embedding: :func:`check_quota` and :func:`quota_used`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from kruleset.model.objects import ElasticQuota, Pod
from kruleset.model.resources import CPU, EPHEMERAL, MEMORY, PODS, ZERO, Resources
from kruleset.model.state import ClusterState, PodState, Tally

from ..engine import UNSCHEDULABLE, Failure, Trace
from ..registry import define_ruleset, rule
from ..scheduler.framework import PREFILTER

__all__ = [
    "MAX_RULE",
    "MAX_INT64",
    "PREFILTER_STATE",
    "RESERVE",
    "RESERVE_RULE",
    "TOTAL_MIN_RULE",
    "Bound",
    "PreFilterState",
    "QuotaUsage",
    "QuotaView",
    "check_quota",
    "max_bound",
    "min_bound",
    "over",
    "prefilter_state",
    "quota_request",
    "quota_usage",
    "quota_used",
]

MAX_INT64 = (1 << 63) - 1
_CORE = (CPU, MEMORY, EPHEMERAL, PODS)

MAX_RULE = "scheduler.prefilter.CapacityScheduling.max"
TOTAL_MIN_RULE = "scheduler.prefilter.CapacityScheduling.total-min"
RESERVE_RULE = "scheduler.reserve.CapacityScheduling"
# ctx.extra key: the PreFilter state of the cycle (read by the PostFilter).
PREFILTER_STATE = "quota.prefilter"

RESERVE = define_ruleset(
    "scheduler.reserve", "pipeline",
    "Reserve plugins: bookkeeping done when the scheduler assumes a pod on its node.",
)


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


# --- PreFilter --------------------------------------------------------------------------------

@attrs.frozen(slots=True)
class PreFilterState:
    """Upstream ``PreFilterState``: the request, and the sums with nominated pods.

    ``req_in_eq``: the request + pods of the same namespace nominated with
    priority >= the pod's.  ``req_all``: that + nominated pods of other quota
    namespaces that are not above their min.  ``has_quota`` is False for a pod
    whose namespace has no quota (then only ``pod_req`` is meaningful).
    """

    pod: Pod
    pod_req: Resources
    req_in_eq: Resources
    req_all: Resources
    has_quota: bool
    nominated_in_eq: tuple[str, ...] = ()
    nominated_other: tuple[str, ...] = ()


def prefilter_state(ctx: Any, pod: Pod) -> PreFilterState:
    """The cycle's :class:`PreFilterState` for ``pod`` (computed once, kept in ``ctx.extra``)."""
    st: PreFilterState | None = ctx.extra.get(PREFILTER_STATE)
    if st is not None and st.pod is pod:
        return st
    state: ClusterState = ctx.state
    usage = quota_usage(state)
    req = quota_request(pod)
    ns = pod.namespace
    if ns not in usage.infos:
        st = PreFilterState(pod, req, req, req, False)
    elif getattr(ctx, "memo", None) is not None:
        st = _summed(ctx, pod, req, usage, keys=ctx.trace is not None)
    else:
        in_eq = req
        all_ = req
        mine: list[str] = []
        others: list[str] = []
        prio = pod.effective_priority
        nodes = state.nodes
        # Nominated pods from the nomination index, in creation order (as a walk
        # over every pod would find them).
        nominated = [ps for name, at in state.nominations.items() if name in nodes
                     for ps in at.values() if ps.node is None and not ps.gone]
        nominated.sort(key=_seq)
        for ps in nominated:
            p = ps.pod
            if p.key == pod.key:
                continue
            info = usage.infos.get(p.namespace)
            if info is None:
                continue
            if p.namespace == ns:
                if p.effective_priority >= prio:
                    r = quota_request(p)
                    in_eq = in_eq + r
                    all_ = all_ + r
                    mine.append(p.key)
            elif over(info.used, None, info.min) is None:
                # Upstream reads the live cache here, not the cycle's snapshot.
                all_ = all_ + quota_request(p)
                others.append(p.key)
        st = PreFilterState(pod, req, in_eq, all_, True, tuple(mine), tuple(others))
    ctx.extra[PREFILTER_STATE] = st
    return st


def _summed(ctx: Any, pod: Pod, req: Resources, usage: QuotaUsage, *,
            keys: bool = False) -> PreFilterState:
    """:func:`prefilter_state` by namespace sums; the nominated pods' keys (which
    only feed the trace) with ``keys``, in creation order as the walk lists them.

    Each other namespace's sum of nominated pods (and their keys) is kept in
    the scheduler's cycle cache until a nomination of that namespace changes
    (``ns_nomination_version``) or the epoch moves.
    """
    state: ClusterState = ctx.state
    ns = pod.namespace
    prio = pod.effective_priority
    nodes = state.nodes
    in_eq = req
    mine: list[PodState] = []
    for ps in state.ns_nominations.get(ns, {}).values():
        if (ps.node is None and not ps.gone and ps.nominated in nodes
                and ps.pod.key != pod.key and ps.pod.effective_priority >= prio):
            in_eq = in_eq + quota_request(ps.pod)
            if keys:
                mine.append(ps)
    all_ = in_eq
    others: list[tuple[int, str]] = []
    sums: dict[str, tuple[int, int, Resources, tuple[tuple[int, str], ...]]] = (
        ctx.memo.extra.setdefault("quota.nominated-sums", {}))
    versions = state.ns_nomination_version
    for other, members in state.ns_nominations.items():
        if other == ns or not members:
            continue
        info = usage.infos.get(other)
        if info is None or over(info.used, None, info.min) is not None:
            continue
        mark = (versions.get(other, 0), state.epoch)
        got = sums.get(other)
        if got is None or got[:2] != mark:
            total = ZERO
            listed = []
            for ps in members.values():
                if ps.node is None and not ps.gone and ps.nominated in nodes:
                    total = total + quota_request(ps.pod)
                    listed.append((ps.seq, ps.key))
            got = sums[other] = (*mark, total, tuple(listed))
        all_ = all_ + got[2]
        if keys:
            others.extend(got[3])
    if not keys:
        return PreFilterState(pod, req, in_eq, all_, True)
    mine.sort(key=_seq)
    others.sort()
    return PreFilterState(pod, req, in_eq, all_, True, tuple(ps.key for ps in mine),
                          tuple(key for _, key in others))


def _seq(ps: PodState) -> int:
    return ps.seq


def _show(name: str, value: int) -> str:
    from kruleset.model.quantity import format_quantity

    if value >= MAX_INT64:
        return f"{name}=unlimited"
    return f"{name}={format_quantity(name, value)}"


def _note_left_out(trace: Trace, rule_name: str, subject: str, q: ElasticQuota, which: str,
                   names: Iterable[str]) -> None:
    """Say loudly that a core resource left out of a present min/max list counts as 0."""
    listed: Resources | None = q.min if which == "min" else q.max
    if listed is None:
        return
    for name in names:
        if name in _CORE and listed.get(name) == 0:
            trace.add(rule_name, subject, "note",
                      f"ElasticQuota {q.namespace} {which} does not list {name}: a resource left "
                      f"out of a {which} that is present counts as 0 (upstream's data layout), "
                      f"not as unlimited")


def _used_names(*xs: Amount) -> list[str]:
    out: list[str] = []
    for x in xs:
        for name in _CORE:
            if x.get(name) and name not in out:
                out.append(name)
    return out


@rule(PREFILTER, MAX_RULE,
      doc="A pod whose quota's used + request (+ same-namespace nominated pods of equal or "
          "higher priority) is above the quota's max in any resource is refused.",
      source="seed 004 §1; capacity_scheduling.go PreFilter, elasticquota.go usedOverMaxWith",
      enabled=False)
def _prefilter_max(ctx: Any, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    st = prefilter_state(ctx, pod)
    if not st.has_quota:
        if ctx.trace is not None:
            ctx.trace.add(MAX_RULE, pod.key, "no quota",
                          f"namespace {pod.namespace} has no ElasticQuota: not checked, "
                          f"not counted")
        return None
    usage = quota_usage(ctx.state)
    info = usage.infos[pod.namespace]
    hit = over(st.req_in_eq, info.used, info.max)
    trace = ctx.trace
    if trace is not None:
        _note_left_out(trace, MAX_RULE, pod.key, info.quota, "max",
                       _used_names(st.req_in_eq, info.used))
        noms = f" + nominated {', '.join(st.nominated_in_eq)}" if st.nominated_in_eq else ""
        trace.add(MAX_RULE, pod.key, "over max" if hit else "within max",
                  f"{pod.namespace} used {info.used.freeze().describe() or 'nothing'} + request "
                  f"{st.pod_req.describe() or 'nothing'}{noms}"
                  + (f": {_show(hit[0], hit[1])} > max {_show(hit[0], hit[2])}" if hit else ""))
    if hit is None:
        return None
    return Failure(f"Pod {pod.key} is rejected in PreFilter because ElasticQuota "
                   f"{pod.namespace} is more than Max", UNSCHEDULABLE, MAX_RULE,
                   detail={"resource": hit[0], "used": hit[1], "bound": hit[2]})


@rule(PREFILTER, TOTAL_MIN_RULE,
      doc="A pod is refused when the used of every quota + its request (+ nominated pods) is "
          "above the sum of every quota's min: borrowing only takes others' unused min.",
      source="seed 004 §1; capacity_scheduling.go PreFilter, elasticquota.go "
             "aggregatedUsedOverMinWith",
      enabled=False)
def _prefilter_total_min(ctx: Any, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    st = prefilter_state(ctx, pod)
    if not st.has_quota:
        return None
    usage = quota_usage(ctx.state)
    view = QuotaView(usage)
    hit = view.total_over_min_with(st.req_all)
    trace = ctx.trace
    if trace is not None:
        names = _used_names(st.req_all, usage.total)
        for info in usage.infos.values():
            _note_left_out(trace, TOTAL_MIN_RULE, pod.key, info.quota, "min", names)
        noms = [*st.nominated_in_eq, *st.nominated_other]
        trace.add(TOTAL_MIN_RULE, pod.key, "over total min" if hit else "within total min",
                  f"all quotas used {usage.total.freeze().describe() or 'nothing'} + request "
                  f"{st.pod_req.describe() or 'nothing'}"
                  + (f" + nominated {', '.join(noms)}" if noms else "")
                  + (f": {_show(hit[0], hit[1])} > sum of min {_show(hit[0], hit[2])}"
                     if hit else ""))
    if hit is None:
        return None
    return Failure(f"Pod {pod.key} is rejected in PreFilter because total ElasticQuota used is "
                   f"more than min", UNSCHEDULABLE, TOTAL_MIN_RULE,
                   detail={"resource": hit[0], "used": hit[1], "bound": hit[2]})


# --- Reserve ----------------------------------------------------------------------------------

@rule(RESERVE, RESERVE_RULE,
      doc="A pod assumed on a node is added to its namespace's quota used (once; namespaces "
          "without a quota are not counted).",
      source="capacity_scheduling.go Reserve/Unreserve, addPod/updatePod/deletePod",
      enabled=False)
def _reserve(ctx: Any, args: Mapping[str, Any], ps: PodState) -> None:
    # The simulation counts bound pods through the QuotaUsage listener (the
    # informer path); this rule is the same idempotent add for callers that run
    # the reserve point themselves.
    if quota_usage(ctx.state).reserve(ps) and ctx.trace is not None:
        ctx.trace.add(RESERVE_RULE, ps.key, "reserved",
                      f"{ps.pod.namespace} used now "
                      f"{quota_used(ctx.state, ps.pod.namespace).describe()}")


# --- embedding --------------------------------------------------------------------------------

def check_quota(state: ClusterState, pod: Pod | PodState, *,
                trace: Trace | None = None) -> Failure | None:
    """Would CapacityScheduling's PreFilter admit ``pod`` now?  ``None``, or the refusal.

    The refusal's ``rule`` names the check (:data:`MAX_RULE` or
    :data:`TOTAL_MIN_RULE`); its ``detail`` the resource, the left-hand sum and
    the bound.  Nothing in ``state`` changes.

    Example (seed 004's tenants)::

        >>> from kruleset.model.objects import Container, Node
        >>> st = ClusterState()
        >>> _ = st.add_node(Node("n1", Resources(cpu=16_000, memory=64 << 30, pods=110)))
        >>> st.quotas["ns-a"] = ElasticQuota("ns-a", Resources(cpu=6000), Resources(cpu=10_000))
        >>> st.quotas["ns-b"] = ElasticQuota("ns-b", Resources(cpu=12_000), Resources(cpu=14_000))
        >>> def pod(ns, name, cpu):
        ...     return Pod(ns, name, (Container("c", Resources(cpu=cpu)),), priority=0)
        >>> for i in range(4):
        ...     st.bind(st.add_pod(pod("ns-a", f"p{i}", 2000)), "n1")
        >>> check_quota(st, pod("ns-a", "p5", 2000)) is None      # 8 + 2 <= max 10
        True
        >>> check_quota(st, pod("ns-a", "p6", 3000)).reason
        'Pod ns-a/p6 is rejected in PreFilter because ElasticQuota ns-a is more than Max'
    """
    from ..profile import Profile
    from ..scheduler.framework import ScheduleContext

    ps = pod if isinstance(pod, PodState) else PodState(pod, 1 << 62, state.now)
    ctx = ScheduleContext(state, Profile.default(), trace, state.now)
    for fn in (_prefilter_max, _prefilter_total_min):
        f = fn(ctx, {}, ps.pod)
        if f is not None:
            return f
    return None
