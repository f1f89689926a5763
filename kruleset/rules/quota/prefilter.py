"""CapacityScheduling's PreFilter and Reserve: the quota checks before any node is filtered.

Upstream: ``capacity_scheduling.go`` (``PreFilter``, ``Reserve``/``Unreserve``)
in kubernetes-sigs/scheduler-plugins, over the usage kept by
:mod:`~kruleset.rules.quota.accounting`.

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

Embedding: :func:`check_quota`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from kruleset.model.objects import ElasticQuota, Pod
from kruleset.model.resources import ZERO, Resources
from kruleset.model.state import ClusterState, PodState

from ..engine import UNSCHEDULABLE, Failure, Trace, TraceSink
from ..registry import define_ruleset, rule
from ..scheduler.framework import PREFILTER, ScheduleContext
from .accounting import (
    CORE_RESOURCES,
    Amount,
    QuotaUsage,
    QuotaView,
    over,
    quota_request,
    quota_usage,
    quota_used,
    show_quantity,
)

__all__ = [
    "MAX_RULE",
    "PREFILTER_STATE",
    "RESERVE",
    "RESERVE_RULE",
    "TOTAL_MIN_RULE",
    "PreFilterState",
    "check_quota",
    "prefilter_state",
]

MAX_RULE = "scheduler.prefilter.CapacityScheduling.max"
TOTAL_MIN_RULE = "scheduler.prefilter.CapacityScheduling.total-min"
RESERVE_RULE = "scheduler.reserve.CapacityScheduling"
# ctx.extra key: the PreFilter state of the cycle (read by the PostFilter).
PREFILTER_STATE = "quota.prefilter"

RESERVE = define_ruleset(
    "scheduler.reserve", "pipeline",
    "Reserve plugins: bookkeeping done when the scheduler assumes a pod on its node.",
)


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


def prefilter_state(ctx: ScheduleContext, pod: Pod) -> PreFilterState:
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


def _summed(ctx: ScheduleContext, pod: Pod, req: Resources, usage: QuotaUsage, *,
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


def _note_left_out(trace: TraceSink, rule_name: str, subject: str, q: ElasticQuota, which: str,
                   names: Iterable[str]) -> None:
    """Say loudly that a core resource left out of a present min/max list counts as 0."""
    listed: Resources | None = q.min if which == "min" else q.max
    if listed is None:
        return
    for name in names:
        if name in CORE_RESOURCES and listed.get(name) == 0:
            trace.add(rule_name, subject, "note",
                      f"ElasticQuota {q.namespace} {which} does not list {name}: a resource left "
                      f"out of a {which} that is present counts as 0 (upstream's data layout), "
                      f"not as unlimited")


def _used_names(*xs: Amount) -> list[str]:
    out: list[str] = []
    for x in xs:
        for name in CORE_RESOURCES:
            if x.get(name) and name not in out:
                out.append(name)
    return out


@rule(PREFILTER, MAX_RULE,
      doc="A pod whose quota's used + request (+ same-namespace nominated pods of equal or "
          "higher priority) is above the quota's max in any resource is refused.",
      source="seed 004 §1; capacity_scheduling.go PreFilter, elasticquota.go usedOverMaxWith",
      enabled=False)
def _prefilter_max(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> Failure | None:
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
                  + (f": {show_quantity(hit[0], hit[1])} > max {show_quantity(hit[0], hit[2])}"
                     if hit else ""))
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
def _prefilter_total_min(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> Failure | None:
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
                  + (f": {show_quantity(hit[0], hit[1])} > sum of min "
                     f"{show_quantity(hit[0], hit[2])}" if hit else ""))
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
def _reserve(ctx: ScheduleContext, args: Mapping[str, Any], ps: PodState) -> None:
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
