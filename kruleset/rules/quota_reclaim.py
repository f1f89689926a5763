"""Elastic quota reclaim: the CapacityScheduling PostFilter (seed 004 §2-§4).

Upstream: ``capacity_scheduling.go`` (``PostFilter``, ``PodEligibleToPreemptOthers``,
``SelectVictimsOnNode``) run by the scheduler's preemption ``Evaluator``.
``scheduler.postfilter.CapacityScheduling`` replaces DefaultPreemption when
the plugin is on:

1. **eligibility** (rule set ``scheduler.quota.eligibility``): preemptionPolicy
   Never never preempts; a pod nominated to a node with a terminating pod it
   could have made room with (same namespace and lower priority; or, while
   its quota stays within min, a pod of another quota above its min) waits;
2. **every** node whose filter status is Unschedulable is dry-run (no
   sampling), each with its own view of the quota usage;
3. on each node the pods are walked least important first (rule set
   ``scheduler.preemption.victims``) and the **victim rules**
   (``scheduler.quota.victims``) decide who may go, each potential victim
   leaving its quota's used at once:

   * the preemptor's quota stays within its min with the pod
     (``used + request + nominated <= min``): pods of *other* quotas that are
     above their min at that moment, **whatever their priority** — so a
     borrower stops being a victim once it is back at its min;
   * the preemptor's quota goes above its min: only strictly lower-priority
     pods of its own namespace;
   * the preemptor has no quota: strictly lower-priority pods of namespaces
     without a quota.  Pods of namespaces without a quota are never victims
     of a quota pod;

4. none: ``No victims found on node N for preemptor pod P``
   (UnschedulableAndUnresolvable); with all of them gone the pod must pass
   the filters (nominated pods included) and the quota checks (``global quota
   max exceeded`` otherwise);
5. reprieve, most important first, PDB-violating pods before the others: a
   pod is put back, and goes again if the pod no longer fits *or* the quota
   checks (with nominated pods) fail;
6. the node is picked as DefaultPreemption picks (``scheduler.preemption.pick``).

Victims are on one node only (no cross-node preemption).  Unlike
DefaultPreemption the message carries no ``preemption:`` prefix (upstream's
CapacityScheduling returns the Evaluator's status as it is).

Embedding: :func:`reclaim_victims`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from ..model.objects import NEVER, Pod
from ..model.resources import CPU, EPHEMERAL, MEMORY, PODS, Resources
from ..model.state import ClusterState, NodeState, PodState
from . import cycle_cache
from .engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Trace
from .node_selection import run_filters_with_nominated
from .postfilter import (
    POSTFILTER,
    POSTFILTER_MESSAGE,
    Candidate,
    PostFilterRequest,
    PostFilterResult,
)
from .preemption import NOT_HELPFUL, lower_nominated, potential_nodes
from .preemption_pick import (
    DEFAULT_PICK,
    PICK,
    PRIORITY_SHIFT,
    decide,
    decide_by_keys,
    default_pick_key,
    pick_candidate,
    trace_not_chosen,
)
from .preemption_victims import (
    _DEFAULT_ORDER,
    _FIT,
    _PORTS,
    PORTS_MESSAGE,
    VICTIMS,
    FastPlan,
    NodeFit,
    PdbBudget,
    fast_importance_order,
    fast_plan,
    pdb_budgets,
    split_by_pdb,
)
from .profile import Profile
from .quota import (
    MAX_RULE,
    RESERVE_RULE,
    TOTAL_MIN_RULE,
    Bound,
    PreFilterState,
    QuotaUsage,
    QuotaView,
    prefilter_state,
    quota_usage,
)
from .registry import define_ruleset, rule
from .scheduler_profile import profile_for, register_plugin
from .scheduling import FitError, ScheduleContext, fit_message, schedule_one

__all__ = [
    "ELIGIBILITY",
    "GLOBAL_QUOTA",
    "PLUGIN",
    "VICTIM_RULES",
    "NodeReclaim",
    "VictimContext",
    "reclaim",
    "reclaim_victims",
    "select_victims_on_node",
]

PLUGIN = "scheduler.postfilter.CapacityScheduling"
GLOBAL_QUOTA = "global quota max exceeded"
_TERMINATING = "not eligible due to a terminating pod on the nominated node."

ELIGIBILITY = define_ruleset(
    "scheduler.quota.eligibility", "predicate",
    "Whether a quota pod that fits nowhere may preempt now (CapacityScheduling's "
    "PodEligibleToPreemptOthers).",
)
VICTIM_RULES = define_ruleset(
    "scheduler.quota.victims", "predicate",
    "Which pods of a node may be victims of a CapacityScheduling preemptor; every rule must "
    "pass, and each applies in one mode (preemptor within its min, above it, without quota).",
)


# --- the dry run's view -----------------------------------------------------------------------

@attrs.define(slots=True)
class VictimContext:
    """What the victim rules see while one node is walked.

    ``over_min`` is the preemptor's mode, decided once (its quota's used +
    the PreFilter's ``req_in_eq`` above its min); ``view`` changes as
    potential victims are taken out.
    """

    preemptor: Pod
    pre: PreFilterState
    view: QuotaView
    over_min: tuple[str, int, int] | None


def _has_quota(usage: QuotaUsage, ns: str) -> bool:
    return ns in usage.infos


# --- eligibility ------------------------------------------------------------------------------

@rule(ELIGIBILITY, "scheduler.quota.eligibility.preemption-policy",
      doc="A pod with preemptionPolicy Never never preempts, whatever its quota.",
      source="seed 004 §2; capacity_scheduling.go PodEligibleToPreemptOthers")
def _policy(ctx: Any, args: Mapping[str, Any], ps: PodState, fit: FitError) -> Failure | None:
    if ps.pod.effective_preemption_policy == NEVER:
        return Failure("not eligible due to preemptionPolicy=Never.", UNSCHEDULABLE)
    return None


@rule(ELIGIBILITY, "scheduler.quota.eligibility.nominated-node-terminating",
      doc="A pod nominated to a node where a pod it may preempt is terminating (any deletion) "
          "waits instead of preempting again, unless that node is now "
          "UnschedulableAndUnresolvable.",
      source="capacity_scheduling.go PodEligibleToPreemptOthers")
def _nominated(ctx: Any, args: Mapping[str, Any], ps: PodState, fit: FitError) -> Failure | None:
    name = ps.nominated
    if not name:
        return None
    status = fit.failures.get(name)
    # Upstream's NodeToStatus gives a node without a status the absent status,
    # UnschedulableAndUnresolvable.
    if status is None or status.code == UNRESOLVABLE:
        return None
    node = ctx.state.nodes.get(name)
    if node is None:
        return None
    pod = ps.pod
    prio = pod.effective_priority
    usage = quota_usage(ctx.state)
    ns = pod.namespace
    if _has_quota(usage, ns):
        pre = prefilter_state(ctx, pod)
        view = QuotaView(usage)
        within_min = view.over_min_with(ns, pre.req_in_eq) is None
        for other in node.pods.values():
            if not other.terminating or not _has_quota(usage, other.pod.namespace):
                continue
            ons = other.pod.namespace
            if ons == ns and other.pod.effective_priority < prio:
                return Failure(_TERMINATING, UNSCHEDULABLE, detail={"terminating": other.key})
            if ons != ns and within_min and view.over_min(ons) is not None:
                return Failure(_TERMINATING, UNSCHEDULABLE, detail={"terminating": other.key})
        return None
    for other in node.pods.values():
        if _has_quota(usage, other.pod.namespace):
            continue
        if other.terminating and other.pod.effective_priority < prio:
            return Failure(_TERMINATING, UNSCHEDULABLE, detail={"terminating": other.key})
    return None


# --- victim rules -----------------------------------------------------------------------------

NO_QUOTA_SPARED = "scheduler.quota.victims.no-quota-pods-spared"
RECLAIM = "scheduler.quota.victims.reclaim-from-borrowers"
OWN_NAMESPACE = "scheduler.quota.victims.own-namespace-lower-priority"
NO_QUOTA_PREEMPTOR = "scheduler.quota.victims.no-quota-preemptor"


@rule(VICTIM_RULES, NO_QUOTA_SPARED,
      doc="A preemptor with a quota never takes pods of namespaces without a quota.",
      source="seed 004 §3; capacity_scheduling.go SelectVictimsOnNode")
def _no_quota_spared(ctx: Any, args: Mapping[str, Any], vc: VictimContext,
                     ps: PodState) -> Failure | None:
    usage = vc.view.usage
    if _has_quota(usage, vc.preemptor.namespace) and not _has_quota(usage, ps.pod.namespace):
        return Failure(f"namespace {ps.pod.namespace} has no ElasticQuota")
    return None


@rule(VICTIM_RULES, RECLAIM,
      doc="While the preemptor's quota stays within its min, the victims are pods of other "
          "quotas above their min at that moment, whatever their priority; its own "
          "namespace is untouched.",
      source="seed 004 §3; capacity_scheduling.go SelectVictimsOnNode "
             "(moreThanMinWithPreemptor false)")
def _reclaim(ctx: Any, args: Mapping[str, Any], vc: VictimContext, ps: PodState) -> Failure | None:
    usage = vc.view.usage
    ns = vc.preemptor.namespace
    if vc.over_min is not None or not _has_quota(usage, ns):
        return None
    ons = ps.pod.namespace
    if not _has_quota(usage, ons):
        return None  # the rule above refuses it
    if ons == ns:
        return Failure(f"{ns} is within its min: it reclaims from other quotas, not its own pods")
    if vc.view.over_min(ons) is None:
        used = vc.view.used(ons).freeze().describe() or "nothing"
        return Failure(f"{ons} is not above its min (used {used}): it has nothing borrowed")
    return None


@rule(VICTIM_RULES, OWN_NAMESPACE,
      doc="When the preemptor's quota goes above its min, the victims are only pods of its own "
          "namespace with strictly lower priority.",
      source="seed 004 §3; capacity_scheduling.go SelectVictimsOnNode "
             "(moreThanMinWithPreemptor true)")
def _own_namespace(ctx: Any, args: Mapping[str, Any], vc: VictimContext,
                   ps: PodState) -> Failure | None:
    if vc.over_min is None:
        return None
    ns = vc.preemptor.namespace
    if ps.pod.namespace != ns:
        return Failure(f"{ns} is above its min: only its own lower-priority pods may go")
    if ps.pod.effective_priority >= vc.preemptor.effective_priority:
        return Failure(f"priority {ps.pod.effective_priority} is not lower than "
                       f"{vc.preemptor.effective_priority}")
    return None


@rule(VICTIM_RULES, NO_QUOTA_PREEMPTOR,
      doc="A preemptor without a quota takes only lower-priority pods of namespaces without one.",
      source="seed 004 §3; capacity_scheduling.go SelectVictimsOnNode (preemptor without quota)")
def _no_quota_preemptor(ctx: Any, args: Mapping[str, Any], vc: VictimContext,
                        ps: PodState) -> Failure | None:
    usage = vc.view.usage
    if _has_quota(usage, vc.preemptor.namespace):
        return None
    if _has_quota(usage, ps.pod.namespace):
        return Failure(f"namespace {ps.pod.namespace} has an ElasticQuota and the preemptor "
                       f"has none")
    if ps.pod.effective_priority >= vc.preemptor.effective_priority:
        return Failure(f"priority {ps.pod.effective_priority} is not lower than "
                       f"{vc.preemptor.effective_priority}")
    return None


# --- one node ---------------------------------------------------------------------------------

@attrs.frozen(slots=True)
class NodeReclaim:
    """The victims CapacityScheduling found on one node (most important first)."""

    node: str
    victims: tuple[PodState, ...]
    num_pdb_violations: int
    reprieved: tuple[PodState, ...]
    violating: frozenset[str]
    why: Mapping[str, str]


def _mode_text(pod: Pod, pre: PreFilterState, view: QuotaView,
               hit: tuple[str, int, int] | None) -> str:
    ns = pod.namespace
    used = view.used(ns).freeze().describe() or "nothing"
    if hit is None:
        return (f"{ns} used {used} + {pre.req_in_eq.describe() or 'nothing'} stays within its "
                f"min: victims are pods of other quotas above their min, whatever their priority")
    from .quota import _show

    return (f"{ns} used {used} + {pre.req_in_eq.describe() or 'nothing'} is above its min "
            f"({_show(hit[0], hit[1])} > {_show(hit[0], hit[2])}): only pods of {ns} with "
            f"priority lower than {pod.effective_priority} may be victims")


def select_victims_on_node(ctx: Any, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget],
                           pre: PreFilterState | None = None,
                           plan: FastPlan | None | bool = True) -> NodeReclaim | Failure:
    """Upstream CapacityScheduling ``SelectVictimsOnNode`` for ``pod`` on ``node``.

    Returns the victims, or the node's failure: ``No victims found on node N
    for preemptor pod P`` (UnschedulableAndUnresolvable), the filter failure
    with every potential victim gone, ``global quota max exceeded``, or an
    ``Error`` where upstream's reprieve removes a pod twice (a pod that failed
    the fit check when the nominated-inclusive quota check fails too).
    ``plan``: the pod's :func:`~kruleset.rules.preemption_victims.fast_plan`
    (``True``: computed here); with one, the fit checks are arithmetic
    (:class:`~kruleset.rules.preemption_victims.NodeFit`) where it allows.
    """
    pre = pre if pre is not None else prefilter_state(ctx, pod)
    usage = quota_usage(ctx.state)
    view = QuotaView(usage)
    ns = pod.namespace
    with_quota = pre.has_quota
    hit = view.over_min_with(ns, pre.req_in_eq) if with_quota else None
    vc = VictimContext(pod, pre, view, hit)
    trace: Trace | None = ctx.trace
    rules = [(a.rule.fn, a.args, a.rule.name) for a in ctx.profile.active(VICTIM_RULES.name).rules]
    order = ctx.profile.active(VICTIMS.name)
    potential: list[PodState] = []
    for ps in order.sort(ctx, node.pods.values()):   # least important first
        refusal = None
        for fn, args, name in rules:
            f = fn(ctx, args, vc, ps)
            if f is not None:
                refusal = (name, f.reason)
                break
        if refusal is None:
            potential.append(ps)
            view.remove(ps)
            if trace is not None:
                trace.add(PLUGIN, ps.key, f"potential victim on {node.name}",
                          f"for {pod.key}: {_victim_text(vc, ps)}")
        elif trace is not None:
            trace.add(refusal[0], ps.key, f"not a victim on {node.name}",
                      f"for {pod.key}: {refusal[1]}")
    if not potential:
        return Failure(f"No victims found on node {node.name} for preemptor pod {pod.name}",
                       UNRESOLVABLE, PLUGIN)
    removed = {ps.key for ps in potential}
    if plan is True:
        plan = fast_plan(ctx, pod)
    fit = NodeFit.start(ctx, pod, node, plan, potential) if plan else None

    def fits() -> Failure | None:
        return run_filters_with_nominated(ctx, pod, node, removed=frozenset(removed))

    # With the arithmetic the filters run only for a node that is no candidate
    # (its exact failure is the answer).
    f = fits() if fit is None or fit.reason() is not None else None
    if f is not None:
        return f
    if with_quota and (view.over_max_with(ns, pre.pod_req) is not None
                       or view.total_over_min_with(pre.pod_req) is not None):
        return Failure(GLOBAL_QUOTA, UNSCHEDULABLE, PLUGIN)
    ordered = fast_importance_order(ctx, potential, order)
    violating, fine = split_by_pdb(ordered, budgets)
    victims: list[PodState] = []
    reprieved: list[PodState] = []
    why: dict[str, str] = {}
    num_violations = 0
    for group, counts in ((violating, True), (fine, False)):
        for ps in group:
            removed.discard(ps.key)
            view.add(ps)
            if fit is not None:
                fit.put_back(ps)
                why_not = fit.reason()
            else:
                f = fits()
                why_not = f.reason if f is not None else None
            if why_not is not None:
                removed.add(ps.key)
                view.remove(ps)
                if fit is not None:
                    fit.take_away(ps)
                victims.append(ps)
                why[ps.key] = why_not
                if counts:
                    num_violations += 1
            if with_quota:
                quota_hit = view.over_max_with(ns, pre.req_in_eq) or \
                    view.total_over_min_with(pre.req_all)
                if quota_hit is not None:
                    if why_not is not None:
                        # Upstream removes the pod a second time and the node
                        # reports the error instead of being a candidate.
                        return Failure(f"no corresponding pod {ps.pod.name} in pods of node "
                                       f"{node.name}", "Error", PLUGIN)
                    removed.add(ps.key)
                    view.remove(ps)
                    if fit is not None:
                        fit.take_away(ps)
                    victims.append(ps)
                    why[ps.key] = (f"the quota checks fail with it back: "
                                   f"{quota_hit[0]} {quota_hit[1]} > {quota_hit[2]}")
                    continue
            if why_not is None:
                reprieved.append(ps)
    # Upstream's CapacityScheduling keeps the victims in reprieve order (PDB-violating
    # first, each group most important first); it does not re-sort them.
    return NodeReclaim(node.name, tuple(victims), num_violations, tuple(reprieved),
                       frozenset(ps.key for ps in violating), why)


def _victim_text(vc: VictimContext, ps: PodState) -> str:
    ons = ps.pod.namespace
    usage = vc.view.usage
    if vc.pre.has_quota and vc.over_min is None:
        used = vc.view.used(ons).freeze().describe() or "nothing"
        return (f"{ons} is above its min (used {used} before this pod goes), priority "
                f"{ps.pod.effective_priority} does not matter when reclaiming")
    if _has_quota(usage, ons):
        return (f"priority {ps.pod.effective_priority} < {vc.preemptor.effective_priority} in "
                f"the preemptor's own namespace")
    return (f"priority {ps.pod.effective_priority} < {vc.preemptor.effective_priority}, no "
            f"ElasticQuota")


# --- the arithmetic dry run -------------------------------------------------------------------

# Off: every node goes through select_victims_on_node (the differential tests compare both).
FAST_RECLAIM = True
_DEFAULT_RULES = (NO_QUOTA_SPARED, RECLAIM, OWN_NAMESPACE, NO_QUOTA_PREEMPTOR)
_RECLAIMING, _OWN, _NO_QUOTA = 0, 1, 2
# Refusal kinds, formatted only when the trace is read (see _walk_text).
_NS_NO_QUOTA, _OWN_WITHIN_MIN, _NOT_ABOVE_MIN, _OTHER_NS, _NOT_LOWER, _HAS_QUOTA = range(6)
# What the cycle's trace log holds (one deferred group per flush): records laid out flat,
# each a tag and its fields (walk 6, run 5, add 5, candidate 6), so recording allocates
# nothing the collector must keep tracking.
_WALK, _RUN, _ADD, _CANDIDATE, _SKIP, _REFUSED, _NOT_CANDIDATE = range(7)
_WALK_FIELDS = 6

Core = tuple[int, int, int, int]


def _over(cpu: int, memory: int, eph: int, pods: int, y: Bound) -> tuple[str, int, int] | None:
    """:func:`~kruleset.rules.quota.over` for amounts without extended resources."""
    if cpu > y.cpu:
        return CPU, cpu, y.cpu
    if memory > y.memory:
        return MEMORY, memory, y.memory
    if eph > y.ephemeral_storage:
        return EPHEMERAL, eph, y.ephemeral_storage
    if pods > y.pods:
        return PODS, pods, y.pods
    return None


def _walk_key(ps: PodState) -> tuple[int, int]:
    # The default victim order's composite key (lower priority, then later start, first).
    return ps.pod.effective_priority, -ps.effective_start


def _describe(c: Core) -> str:
    return Resources(c[0], c[1], c[2], c[3]).describe() or "nothing"


class _Cycle:
    """:func:`select_victims_on_node` for one preemptor, by arithmetic on core resources.

    The general path copies the quota usage per node (:class:`QuotaView`),
    runs every victim rule per pod through the rule engine and, with tracing
    on, formats every explanation and runs the filters.  Here, for the
    default victim rules and victim order, a preemptor the
    :class:`~kruleset.rules.preemption_victims.FastPlan` covers and quotas
    without extended resources, the same walk, checks and reprieve are done
    on four integers per namespace: what a node's dry run took out is a delta
    against the cycle's usage, so nothing is copied.  A node whose pods all
    lie outside the namespaces that could give victims (decided once per
    cycle: used only decreases during a walk) is refused without sorting.
    Trace entries are recorded as deferred groups with the values they need
    captured, and formatted only when read.  :meth:`select` answers ``None``
    where the general path must judge (a node the plan's arithmetic does not
    cover); ``tests/test_quota_reclaim_fastpath.py`` compares both.
    """

    __slots__ = ("ctx", "pod", "ns", "prio", "pre", "mode", "infos", "used", "total", "total_min",
                 "possible", "plan", "order", "budgets", "trace", "no_victims_reason", "log",
                 "logged", "walks", "quota_names")

    def __init__(self, ctx: Any, pod: Pod, pre: PreFilterState, mode: int,
                 usage: QuotaUsage, used: dict[str, Core], plan: FastPlan,
                 order: Any, budgets: Sequence[PdbBudget]) -> None:
        self.ctx = ctx
        self.pod = pod
        self.ns = pod.namespace
        self.prio = pod.effective_priority
        self.pre = pre
        self.mode = mode
        self.infos = usage.infos
        self.quota_names = frozenset(usage.infos)
        self.used = used
        t = usage.total
        self.total: Core = (t.cpu, t.memory, t.ephemeral_storage, t.pods)
        self.total_min = usage.total_min
        # Reclaiming: the quota namespaces (not the preemptor's) above their min now.
        self.possible = frozenset(
            n for n, c in used.items()
            if n != self.ns and _over(*c, usage.infos[n].min) is not None)
        self.plan = plan
        self.order = order
        self.budgets = budgets
        self.trace: Trace | None = ctx.trace
        self.no_victims_reason = f"for preemptor pod {pod.name}"
        self.log: list[Any] = []
        self.logged = 0
        # Traced: per node, its pods in walk order (kept until the node is touched).
        memo = getattr(ctx, "memo", None)
        self.walks: dict[str, Any] = (
            cycle_cache.victims_entry(memo, ("reclaim-walk",))
            if self.trace is not None and memo is not None else {})

    @classmethod
    def start(cls, ctx: Any, pod: Pod, pre: PreFilterState,
              budgets: Sequence[PdbBudget]) -> _Cycle | None:
        """The cycle's arithmetic dry run, or ``None`` where only the general path applies."""
        if not FAST_RECLAIM:
            return None
        rules = ctx.profile.active(VICTIM_RULES.name).rules
        if tuple(a.rule.name for a in rules) != _DEFAULT_RULES:
            return None
        order = ctx.profile.active(VICTIMS.name)
        if tuple(a.rule.name for a in order.rules) != _DEFAULT_ORDER:
            return None
        if pre.pod_req.scalars or pre.req_in_eq.scalars or pre.req_all.scalars:
            return None
        usage = quota_usage(ctx.state)
        if usage.total.scalars or usage.total_min.scalars:
            return None
        used: dict[str, Core] = {}
        for n, info in usage.infos.items():
            u = info.used
            if u.scalars:
                return None
            used[n] = (u.cpu, u.memory, u.ephemeral_storage, u.pods)
        plan = fast_plan(ctx, pod, traced=True)
        if plan is None:
            return None
        if not pre.has_quota:
            mode = _NO_QUOTA
        elif QuotaView(usage).over_min_with(pod.namespace, pre.req_in_eq) is None:
            mode = _RECLAIMING
        else:
            mode = _OWN
        return cls(ctx, pod, pre, mode, usage, used, plan, order, budgets)

    def _may_go(self, ps: PodState) -> bool:
        """Could ``ps`` be a victim at all in this cycle (ignoring the walk's changes)?"""
        p = ps.pod
        if self.mode == _RECLAIMING:
            return p.namespace in self.possible
        if self.mode == _OWN:
            return p.namespace == self.ns and p.effective_priority < self.prio
        return p.namespace not in self.infos and p.effective_priority < self.prio

    def select(self, node: NodeState) -> NodeReclaim | Failure | None:
        """The general path's answer for ``node``; ``None``: the general path must judge."""
        pod = self.pod
        trace = self.trace
        pods = node.pods.values()
        if not any(self._may_go(ps) for ps in pods):
            if trace is not None:
                # Every pod's entry follows from its namespace and priority and the
                # cycle's usage: logged as the node's walk order, formatted when read.
                walk = self.walks.get(node.name)
                if walk is None:
                    walk = self.walks[node.name] = tuple(
                        (ps.key, ps.pod.namespace, ps.pod.effective_priority)
                        for ps in sorted(pods, key=_walk_key))
                self.log.extend((_REFUSED, node.name, walk))
                self.logged += len(walk)
            return Failure(f"No victims found on node {node.name} {self.no_victims_reason}",
                           UNRESOLVABLE, PLUGIN)
        ns, prio, mode, infos, used = self.ns, self.prio, self.mode, self.infos, self.used
        # What the walk took out (counted pods only), per namespace and in total.
        delta: dict[str, list[int]] = {}
        tot = [0, 0, 0, 0]
        reqs: dict[str, tuple[str, Resources]] = {}
        gone: set[str] = set()
        potential: list[PodState] = []
        # With tracing: the walk's entries go straight into the cycle's log (dropped again
        # if the general path has to judge the node).
        notes = self.log if trace is not None else None
        mark = len(self.log)

        def now(n: str) -> Core:
            c = used[n]
            d = delta.get(n)
            if d is None:
                return c
            return c[0] - d[0], c[1] - d[1], c[2] - d[2], c[3] - d[3]

        def change(key: str, sign: int) -> None:
            n, r = reqs[key]
            d = delta.get(n)
            if d is None:
                d = delta[n] = [0, 0, 0, 0]
            d[0] -= sign * r.cpu
            d[1] -= sign * r.memory
            d[2] -= sign * r.ephemeral_storage
            d[3] -= sign * r.pods
            tot[0] -= sign * r.cpu
            tot[1] -= sign * r.memory
            tot[2] -= sign * r.ephemeral_storage
            tot[3] -= sign * r.pods

        for ps in sorted(pods, key=_walk_key):   # least important first
            p = ps.pod
            ons = p.namespace
            kind = -1
            arg: Any = None
            if mode == _RECLAIMING:
                if ons not in infos:
                    kind = _NS_NO_QUOTA
                elif ons == ns:
                    kind = _OWN_WITHIN_MIN
                else:
                    c = now(ons)
                    if _over(*c, infos[ons].min) is None:
                        kind, arg = _NOT_ABOVE_MIN, c
            elif mode == _OWN:
                if ons not in infos:
                    kind = _NS_NO_QUOTA
                elif ons != ns:
                    kind = _OTHER_NS
                elif p.effective_priority >= prio:
                    kind = _NOT_LOWER
            elif ons in infos:
                kind = _HAS_QUOTA
            elif p.effective_priority >= prio:
                kind = _NOT_LOWER
            if kind >= 0:
                if notes is not None:
                    notes.extend((_WALK, node.name, ps.key, p.effective_priority, kind, arg))
                continue
            potential.append(ps)
            info = infos.get(ons)
            if info is not None:
                r = info.pods.get(ps.key)
                if r is not None:
                    reqs[ps.key] = (ons, r)
                    gone.add(ps.key)
                    change(ps.key, -1)
            if notes is not None:
                notes.extend((_WALK, node.name, ps.key, p.effective_priority, -1,
                              now(ons) if mode == _RECLAIMING else None))
        if not potential:
            self.logged += (len(self.log) - mark) // _WALK_FIELDS
            return Failure(f"No victims found on node {node.name} {self.no_victims_reason}",
                           UNRESOLVABLE, PLUGIN)
        ctx, plan = self.ctx, self.plan
        fit = NodeFit.start(ctx, pod, node, plan, potential)
        if fit is None:
            del self.log[mark:]
            return None  # nothing recorded: the general path starts afresh
        self.logged += (len(self.log) - mark) // _WALK_FIELDS
        away = len(potential)
        runs: list[tuple[int, str | None, str | None]] | None = None
        if fit.reason() is not None:
            # Not a candidate: the filters give the exact failure (and trace their run).
            self.flush()
            f = run_filters_with_nominated(ctx, pod, node,
                                           removed=frozenset(ps.key for ps in potential))
            if f is not None:
                return f
            runs = [] if trace is not None else None
        elif trace is not None:
            runs = [(away, None, None)]
        pre = self.pre
        with_quota = pre.has_quota
        total, total_min = self.total, self.total_min
        if with_quota:
            mine = infos[ns].max
            c = now(ns)
            r = pre.pod_req
            if (_over(r.cpu + c[0], r.memory + c[1], r.ephemeral_storage + c[2], r.pods + c[3],
                      mine) is not None
                    or _over(r.cpu + total[0] - tot[0], r.memory + total[1] - tot[1],
                             r.ephemeral_storage + total[2] - tot[2], r.pods + total[3] - tot[3],
                             total_min) is not None):
                self._trace_runs(node, fit, runs)
                return Failure(GLOBAL_QUOTA, UNSCHEDULABLE, PLUGIN)
        ordered = fast_importance_order(ctx, potential, self.order)
        violating, fine = split_by_pdb(ordered, self.budgets)
        victims: list[PodState] = []
        reprieved: list[PodState] = []
        why: dict[str, str] = {}
        num_violations = 0
        in_eq, req_all = pre.req_in_eq, pre.req_all
        for group, counts in ((violating, True), (fine, False)):
            for ps in group:
                key = ps.key
                away -= 1
                if key in gone:
                    gone.discard(key)
                    change(key, 1)
                fit.put_back(ps)
                why_not = fit.reason()
                if runs is not None:
                    runs.append((away, None if why_not is None else
                                 _PORTS if why_not == PORTS_MESSAGE else _FIT, why_not))
                if why_not is not None:
                    away += 1
                    if key in reqs and key not in gone:
                        gone.add(key)
                        change(key, -1)
                    fit.take_away(ps)
                    victims.append(ps)
                    why[key] = why_not
                    if counts:
                        num_violations += 1
                if with_quota:
                    c = now(ns)
                    quota_hit = _over(in_eq.cpu + c[0], in_eq.memory + c[1],
                                      in_eq.ephemeral_storage + c[2], in_eq.pods + c[3],
                                      infos[ns].max) or \
                        _over(req_all.cpu + total[0] - tot[0], req_all.memory + total[1] - tot[1],
                              req_all.ephemeral_storage + total[2] - tot[2],
                              req_all.pods + total[3] - tot[3], total_min)
                    if quota_hit is not None:
                        if why_not is not None:
                            self._trace_runs(node, fit, runs)
                            return Failure(f"no corresponding pod {key.split('/', 1)[1]} in "
                                           f"pods of node {node.name}", "Error", PLUGIN)
                        away += 1
                        if key in reqs and key not in gone:
                            gone.add(key)
                            change(key, -1)
                        fit.take_away(ps)
                        victims.append(ps)
                        why[key] = (f"the quota checks fail with it back: "
                                    f"{quota_hit[0]} {quota_hit[1]} > {quota_hit[2]}")
                        continue
                if why_not is None:
                    reprieved.append(ps)
        self._trace_runs(node, fit, runs)
        return NodeReclaim(node.name, tuple(victims), num_violations, tuple(reprieved),
                           frozenset(ps.key for ps in violating), why)

    def _trace_runs(self, node: NodeState, fit: NodeFit,
                    runs: list[tuple[int, str | None, str | None]] | None) -> None:
        """Log the filter runs the general path makes (as ``_trace_runs`` of DefaultPreemption).

        Per check, upstream's two passes: with pods nominated to the node, a
        run of every enabled filter with them added (its failure stands),
        then, when it passed, one without them; a run with pods away uses
        every enabled filter, one with none away only those PreFilter kept.
        Each run records ``pass`` per filter up to the one that fails.
        """
        if not runs:
            return
        every, kept = self.plan.all_names, self.plan.prepared_names
        subject = f"{self.pod.key} on {node.name}"
        log = self.log
        count = 0
        for away, failed, why in runs:
            names = every if away else kept
            if fit.nominated:
                log.extend((_RUN, subject, every, failed, why))
                count += len(every) if failed is None else every.index(failed) + 1
                if failed is None:
                    log.extend((_RUN, subject, names, None, None))
                    count += len(names)
            else:
                log.extend((_RUN, subject, names, failed, why))
                count += len(names) if failed is None else names.index(failed) + 1
        self.logged += count

    def add(self, rule_name: str, subject: str, result: str, why: str) -> None:
        """Log one entry (in order with the deferred ones)."""
        self.log.extend((_ADD, rule_name, subject, result, why))
        self.logged += 1

    def add_candidate(self, subject: str, c: Candidate) -> None:
        """Log the ``candidate`` entry of ``c``, formatted when read (from its keys only)."""
        self.log.extend((_CANDIDATE, subject, c.node, tuple(v.key for v in c.victims),
                         c.num_pdb_violations, tuple(r.key for r in c.reprieved)))
        self.logged += 1

    def skip(self, node: str, least: tuple[int, ...] | None,
             runner_up: tuple[tuple[int, ...], str]) -> None:
        """Log that ``node`` was not dry-run (see :func:`_skip_entry`)."""
        self.log.extend((_SKIP, node, least, runner_up))
        self.logged += 1

    def not_candidate(self, node: str, reason: str) -> None:
        """Log ``node``'s ``not a candidate`` entry (formatted when read: hundreds a cycle)."""
        self.log.extend((_NOT_CANDIDATE, node, reason))
        self.logged += 1

    def flush(self) -> None:
        """Record what was logged as one deferred group, before anything recorded at once."""
        trace = self.trace
        if trace is None or not self.log:
            return
        # A tuple of plain values: once the collector has seen it, it is untracked, so the
        # trace's thousands of entries per preemptor are not traversed by every collection.
        log = tuple(self.log)
        self.log = []
        count, self.logged = self.logged, 0
        # A partial of plain values, not a closure (the trace keeps one per flush).
        context = (self.ns, self.prio, self.mode, self.pod.key, self.quota_names, self.used)
        trace.defer(count, functools.partial(_cycle_entries, log, context))


def _cycle_entries(log: tuple[Any, ...], context: tuple[str, int, int, str, frozenset[str],
                                                       dict[str, Core]]
                   ) -> Iterator[tuple[str, str, str, str]]:
    """The entries a :class:`_Cycle` logged, formatted (see :meth:`_Cycle.flush`)."""
    ns, prio, mode, pod_key, infos, used = context
    i, end = 0, len(log)
    while i < end:
        tag = log[i]
        if tag == _WALK:
            yield _walk_entry(log[i:i + _WALK_FIELDS], pod_key, ns, prio, mode)
            i += _WALK_FIELDS
        elif tag == _RUN:
            _, subject, names, failed, why = log[i:i + 5]
            i += 5
            for name in names:
                if name == failed:
                    yield name, subject, "fail", why or ""
                    break
                yield name, subject, "pass", ""
        elif tag == _ADD:
            yield log[i + 1], log[i + 2], log[i + 3], log[i + 4]
            i += 5
        elif tag == _SKIP:
            yield _skip_entry(pod_key, *log[i + 1:i + 4])
            i += 4
        elif tag == _NOT_CANDIDATE:
            yield PLUGIN, pod_key, f"{log[i + 1]}: not a candidate", log[i + 2]
            i += 3
        elif tag == _REFUSED:
            name = log[i + 1]
            for key, ons, p in log[i + 2]:
                kind = _refused_kind(mode, ns, prio, infos, ons, p)
                arg = used[ons] if kind == _NOT_ABOVE_MIN else None
                yield _walk_entry((_WALK, name, key, p, kind, arg), pod_key, ns, prio,
                                  mode)
            i += 3
        else:
            _, subject, node, victims, violations, reprieved = log[i:i + 6]
            i += 6
            yield (PLUGIN, subject, f"{node}: candidate",
                   f"victims [{', '.join(victims)}], "
                   f"{violations} PDB violation(s), reprieved "
                   f"[{', '.join(reprieved)}]")


def _refused_kind(mode: int, ns: str, prio: int, infos: frozenset[str], ons: str, p: int
                  ) -> int:
    """Why a pod of a node with no possible victim is no victim: what the walk
    finds for it when nothing was taken out yet."""
    if mode == _RECLAIMING:
        if ons not in infos:
            return _NS_NO_QUOTA
        return _OWN_WITHIN_MIN if ons == ns else _NOT_ABOVE_MIN
    if mode == _OWN:
        if ons not in infos:
            return _NS_NO_QUOTA
        return _OTHER_NS if ons != ns else _NOT_LOWER
    return _HAS_QUOTA if ons in infos else _NOT_LOWER


def _skip_entry(subject: str, node: str, least: tuple[int, ...] | None,
                runner_up: tuple[tuple[int, ...], str]) -> tuple[str, str, str, str]:
    """The entry of a node left out of the dry run: no candidate there could be
    chosen, nor be the runner-up that the criterion is read against."""
    if least is None:
        why = "no pod runs there, so there is no victim"
    else:
        why = (f"no candidate there can come before the runner-up so far, {runner_up[1]}: "
               f"even its best possible keys lose "
               f"({decide_by_keys(runner_up[0], least) or 'tied'})")
    return PLUGIN, subject, f"{node}: not dry-run", why


def _walk_entry(item: tuple[Any, ...], pod_key: str, ns: str, prio: int, mode: int
                ) -> tuple[str, str, str, str]:
    """The trace entry of one pod of a node's walk (what the victim rules said)."""
    _, name, key, p, kind, arg = item
    if kind < 0:
        if mode == _RECLAIMING:
            text = (f"{key.split('/', 1)[0]} is above its min (used "
                    f"{_describe(arg)} before this pod goes), priority {p} does not "
                    f"matter when reclaiming")
        elif mode == _OWN:
            text = f"priority {p} < {prio} in the preemptor's own namespace"
        else:
            text = f"priority {p} < {prio}, no ElasticQuota"
        return PLUGIN, key, f"potential victim on {name}", f"for {pod_key}: {text}"
    ons = key.split("/", 1)[0]
    if kind == _NS_NO_QUOTA:
        rule_name, text = NO_QUOTA_SPARED, f"namespace {ons} has no ElasticQuota"
    elif kind == _OWN_WITHIN_MIN:
        rule_name, text = RECLAIM, (f"{ns} is within its min: it reclaims from other "
                                    f"quotas, not its own pods")
    elif kind == _NOT_ABOVE_MIN:
        rule_name, text = RECLAIM, (f"{ons} is not above its min (used "
                                    f"{_describe(arg)}): it has nothing borrowed")
    elif kind == _OTHER_NS:
        rule_name, text = OWN_NAMESPACE, (f"{ns} is above its min: only its own "
                                          f"lower-priority pods may go")
    elif kind == _NOT_LOWER:
        rule_name = OWN_NAMESPACE if mode == _OWN else NO_QUOTA_PREEMPTOR
        text = f"priority {p} is not lower than {prio}"
    else:
        rule_name, text = NO_QUOTA_PREEMPTOR, (f"namespace {ons} has an ElasticQuota "
                                               f"and the preemptor has none")
    return rule_name, key, f"not a victim on {name}", f"for {pod_key}: {text}"


# --- the PostFilter plugin --------------------------------------------------------------------

def reclaim(ctx: ScheduleContext, ps: PodState, fit: FitError) -> PostFilterResult | None:
    """Upstream ``Evaluator.Preempt`` with CapacityScheduling's preemptor, for ``ps``.

    ``None``: not eligible (the reason is left in ``ctx.extra[POSTFILTER_MESSAGE]``;
    any nomination stays).  Otherwise the chosen node and victims, or
    ``nominated_node == ""`` with the ``0/N nodes are available: …`` message.

    In a simulation with the default pick criteria, a node where even the best
    key a candidate could have loses to the runner-up so far is not dry-run
    (upstream dry-runs it; it could be neither chosen nor the runner-up, so
    the result is the same); the trace says ``<node>: not dry-run`` and which
    criterion the runner-up wins by.
    """
    pod = ps.pod
    state = ctx.state
    trace = ctx.trace
    refusal = ctx.profile.active(ELIGIBILITY.name).first_failure(ctx, ps, fit, subject=ps.key)
    if refusal is not None:
        ctx.extra[POSTFILTER_MESSAGE] = refusal.reason
        return None
    pre = prefilter_state(ctx, pod)
    if trace is not None and pre.has_quota:
        view = QuotaView(quota_usage(state))
        trace.add(PLUGIN, ps.key, "mode",
                  _mode_text(pod, pre, view, view.over_min_with(pod.namespace, pre.req_in_eq)))
    elif trace is not None:
        trace.add(PLUGIN, ps.key, "mode",
                  f"namespace {pod.namespace} has no ElasticQuota: victims are lower-priority "
                  f"pods of namespaces without one")
    nodes = potential_nodes(state, fit)
    budgets = pdb_budgets(state, ctx.now)
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    statuses: dict[str, Failure] = {}
    # GetOffsetAndNumCandidates is (0, n): every potential node is dry-run.
    plan = fast_plan(ctx, pod)  # once for every node
    cycle = _Cycle.start(ctx, pod, pre, budgets)
    # In a simulation, with the default pick: only the two best
    # candidates matter (the winner and the runner-up it is told apart from),
    # so a node whose least possible key is above the runner-up's is skipped.
    bounds: dict[str, Any] | None = None
    key_of: Any = None
    # With tracing on, a skipped node gets an entry saying why (the runner-up beats it).
    top: list[tuple[tuple[int, ...], str]] = []  # the best two (key, node) so far, ascending
    if (isinstance(ctx, ScheduleContext) and ctx.memo is not None
            and tuple(a.rule.name for a in ctx.profile.active(PICK.name).rules)
            == DEFAULT_PICK):
        bounds = cycle_cache.pick_bounds(ctx.memo)
        key_of = default_pick_key(ctx)
    for node in nodes:
        if bounds is not None and len(top) == 2:
            least = cycle_cache.pick_bound(bounds, node, PRIORITY_SHIFT)
            if least is None or least > top[1][0]:
                if cycle is not None and trace is not None:
                    cycle.skip(node.name, least, top[1])
                elif trace is not None:
                    trace.add(*_skip_entry(ps.key, node.name, least, top[1]))
                continue
        found = cycle.select(node) if cycle is not None else None
        if found is None:
            if cycle is not None:
                cycle.flush()  # the general path records at once
            found = select_victims_on_node(ctx, pod, node, budgets, pre, plan)
        if isinstance(found, Failure):
            statuses[node.name] = found
            if cycle is not None and trace is not None:
                cycle.not_candidate(node.name, found.reason)
            elif trace is not None:
                trace.add(PLUGIN, ps.key, f"{node.name}: not a candidate", found.reason)
            continue
        if not found.victims:
            statuses[node.name] = Failure(f"expected at least one victim pod on node {node.name}",
                                          "Error", PLUGIN)
            continue
        c = Candidate(found.node, found.victims, found.num_pdb_violations, found.reprieved,
                      {"violating": found.violating, "why": found.why})
        (non_violating if c.num_pdb_violations == 0 else violating).append(c)
        if bounds is not None:
            top.append((key_of(c), c.node))
            top.sort()
            del top[2:]
        if cycle is not None and trace is not None:
            cycle.add_candidate(ps.key, c)
        elif trace is not None:
            trace.add(PLUGIN, ps.key, f"{node.name}: candidate",
                      f"victims [{', '.join(v.key for v in c.victims)}], "
                      f"{c.num_pdb_violations} PDB violation(s), reprieved "
                      f"[{', '.join(r.key for r in c.reprieved)}]")
    if cycle is not None:
        cycle.flush()
    candidates = tuple(non_violating + violating)
    if not candidates:
        all_statuses = {name: statuses.get(name) or Failure(NOT_HELPFUL, UNRESOLVABLE, PLUGIN)
                        for name in state.nodes}
        # Upstream's dry run collects the nodes' errors; with no candidate the
        # preemption fails with them (an aggregate: one, or "[a, b]") instead
        # of the per-node statuses.
        errors = list(dict.fromkeys(f.reason for f in statuses.values() if f.code == "Error"))
        if errors:
            message = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        else:
            message = fit_message(len(state.nodes), all_statuses)
        if trace is not None:
            trace.add(PLUGIN, ps.key, "no candidate", message)
        return PostFilterResult("", message=message, plugin=PLUGIN)
    best, decided = pick_candidate(ctx, candidates)
    assert best is not None
    clear = lower_nominated(state, ps, best.node)
    if trace is not None:
        pick = ctx.profile.active(PICK.name)
        trace.add(PICK.name, ps.key, f"chose {best.node}", decided or "the only candidate")
        _trace_not_chosen(ctx, trace, pick, ps.key, best, candidates)
        why: Mapping[str, str] = best.details.get("why", {})
        for v in best.victims:
            trace.add(PLUGIN, v.key, f"victim of {ps.key} on {best.node}", why.get(v.key, ""))
        for r in best.reprieved:
            trace.add(PLUGIN, r.key, f"reprieved on {best.node}",
                      f"{ps.key} still fits and the quotas still hold with it back")
    return PostFilterResult(best.node, best.victims, "", candidates, decided, PLUGIN, clear)


def _trace_not_chosen(ctx: Any, trace: Trace, pick: Any, subject: str, best: Candidate,
                      candidates: Sequence[Candidate]) -> None:
    """One ``not chosen`` entry per other candidate, with the criterion that ruled it out.

    With the default pick rules (which read the candidates' victims and the
    nodes' declaration index only) each candidate's keys are taken now and
    the entries formatted when read; otherwise they are formatted at once.
    """
    others = [c for c in candidates if c is not best]
    if not others:
        return
    if (not FAST_RECLAIM or tuple(a.rule.name for a in pick.rules) != DEFAULT_PICK
            or not hasattr(trace, "defer")):
        for c in others:
            trace.add(PICK.name, subject, f"{c.node} not chosen",
                      decide(ctx, pick, best, c) or "tied")
        return
    key_of = default_pick_key(ctx)
    trace_not_chosen(trace, subject, key_of(best), [c.node for c in others],
                     [key_of(c) for c in others])


@rule(POSTFILTER, PLUGIN,
      doc="Preempt for a quota pod on one node: within its min it reclaims from quotas above "
          "their min whatever their priority; above its min only its own lower-priority pods.",
      source="seed 004 §3; capacity_scheduling.go PostFilter, SelectVictimsOnNode; "
             "pkg/scheduler/framework/preemption Evaluator.Preempt",
      enabled=False)
def _capacity_scheduling(ctx: Any, args: Mapping[str, Any], request: PostFilterRequest
                         ) -> PostFilterResult | None:
    return reclaim(ctx, request.ps, request.fit_error)


register_plugin("CapacityScheduling", {
    "preFilter": (MAX_RULE, TOTAL_MIN_RULE),
    "postFilter": (PLUGIN,),
    "reserve": (RESERVE_RULE,),
})


# --- embedding --------------------------------------------------------------------------------

def reclaim_victims(state: ClusterState, pod: Pod | PodState, node: str | None = None, *,
                    profile: Profile | None = None, trace: Trace | None = None
                    ) -> tuple[PodState, ...]:
    """The pods CapacityScheduling would preempt for ``pod`` now (``()``: none, or it fits).

    With ``node``, only that node is dry-run (its victims, or ``()`` when it is
    no candidate); otherwise the node preemption would pick.  ``profile``
    defaults to upstream's with CapacityScheduling on.  Nothing changes.

    Example (seed 004 §6: tenant B reclaims what tenant A borrowed)::

        >>> from kruleset.model.objects import Container, ElasticQuota, Node
        >>> from kruleset.model.resources import Resources
        >>> st = ClusterState()
        >>> _ = st.add_node(Node("w1", Resources(cpu=8000, memory=32 << 30, pods=110)))
        >>> st.quotas["ns-a"] = ElasticQuota("ns-a", Resources(cpu=6000), Resources(cpu=10_000))
        >>> st.quotas["ns-b"] = ElasticQuota("ns-b", Resources(cpu=12_000), Resources(cpu=14_000))
        >>> def pod(ns, name, cpu, prio=0, started=0):
        ...     return Pod(ns, name, (Container("c", Resources(cpu=cpu)),), priority=prio,
        ...                started=started)
        >>> st.bind(st.add_pod(pod("ns-a", "notebook", 2000, 1_000_000)), "w1")
        >>> for i in range(3):   # job-2 started last: the least important at equal priority
        ...     st.bind(st.add_pod(pod("ns-a", f"job-{i}", 2000, started=i * 1000)), "w1")
        >>> [v.key for v in reclaim_victims(st, pod("ns-b", "job-2", 2000))]
        ['ns-a/job-2']
    """
    ps = pod if isinstance(pod, PodState) else PodState(pod, 1 << 62, state.now)
    prof = profile if profile is not None else profile_for(None, quotas_present=True)
    ctx = ScheduleContext(state, prof, trace, state.now)
    result = schedule_one(ctx, ps, advance=False)
    if result.node is not None or result.fit_error is None:
        return ()
    if node is not None:
        target = state.nodes.get(node)
        if target is None:
            raise KeyError(f"no node {node!r}")
        found = select_victims_on_node(ctx, ps.pod, target, pdb_budgets(state, ctx.now))
        return () if isinstance(found, Failure) else found.victims
    out = reclaim(ctx, ps, result.fit_error)
    return out.victims if out is not None else ()
