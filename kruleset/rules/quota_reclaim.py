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

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..model.objects import NEVER, Pod
from ..model.state import ClusterState, NodeState, PodState
from .engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Trace
from .node_selection import run_filters_with_nominated
from .postfilter import (
    POSTFILTER,
    POSTFILTER_MESSAGE,
    Candidate,
    PostFilterRequest,
    PostFilterResult,
)
from .preemption import NOT_HELPFUL, potential_nodes
from .preemption_pick import PICK, decide, pick_candidate
from .preemption_victims import (
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
                        return Failure(f"pod {ps.key} is not found on node {node.name} "
                                       f"(removed twice while reprieving)", "Error", PLUGIN)
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


# --- the PostFilter plugin --------------------------------------------------------------------

def reclaim(ctx: ScheduleContext, ps: PodState, fit: FitError) -> PostFilterResult | None:
    """Upstream ``Evaluator.Preempt`` with CapacityScheduling's preemptor, for ``ps``.

    ``None``: not eligible (the reason is left in ``ctx.extra[POSTFILTER_MESSAGE]``;
    any nomination stays).  Otherwise the chosen node and victims, or
    ``nominated_node == ""`` with the ``0/N nodes are available: …`` message.
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
    for node in nodes:
        found = select_victims_on_node(ctx, pod, node, budgets, pre, plan)
        if isinstance(found, Failure):
            statuses[node.name] = found
            if trace is not None:
                trace.add(PLUGIN, ps.key, f"{node.name}: not a candidate", found.reason)
            continue
        if not found.victims:
            statuses[node.name] = Failure(f"expected at least one victim pod on node {node.name}",
                                          "Error", PLUGIN)
            continue
        c = Candidate(found.node, found.victims, found.num_pdb_violations, found.reprieved,
                      {"violating": found.violating, "why": found.why})
        (non_violating if c.num_pdb_violations == 0 else violating).append(c)
        if trace is not None:
            trace.add(PLUGIN, ps.key, f"{node.name}: candidate",
                      f"victims [{', '.join(v.key for v in c.victims)}], "
                      f"{c.num_pdb_violations} PDB violation(s), reprieved "
                      f"[{', '.join(r.key for r in c.reprieved)}]")
    candidates = tuple(non_violating + violating)
    if not candidates:
        all_statuses = {name: statuses.get(name) or Failure(NOT_HELPFUL, UNRESOLVABLE, PLUGIN)
                        for name in state.nodes}
        message = fit_message(len(state.nodes), all_statuses)
        if trace is not None:
            trace.add(PLUGIN, ps.key, "no candidate", message)
        return PostFilterResult("", message=message, plugin=PLUGIN)
    best, decided = pick_candidate(ctx, candidates)
    assert best is not None
    prio = pod.effective_priority
    clear = tuple(o for o in state.pods.values()
                  if o.nominated == best.node and o is not ps and o.node is None and not o.gone
                  and o.pod.effective_priority < prio)
    if trace is not None:
        pick = ctx.profile.active(PICK.name)
        trace.add(PICK.name, ps.key, f"chose {best.node}", decided or "the only candidate")
        for c in candidates:
            if c is not best:
                trace.add(PICK.name, ps.key, f"{c.node} not chosen",
                          decide(ctx, pick, best, c) or "tied")
        why: Mapping[str, str] = best.details.get("why", {})
        for v in best.victims:
            trace.add(PLUGIN, v.key, f"victim of {ps.key} on {best.node}", why.get(v.key, ""))
        for r in best.reprieved:
            trace.add(PLUGIN, r.key, f"reprieved on {best.node}",
                      f"{ps.key} still fits and the quotas still hold with it back")
    return PostFilterResult(best.node, best.victims, "", candidates, decided, PLUGIN, clear)


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
