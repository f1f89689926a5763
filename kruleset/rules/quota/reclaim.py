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
6. the victims are sorted most important first when both the PDB-violating and
   the other group have some (so ``Pods[0]`` is the highest-priority victim);
7. the node is picked as DefaultPreemption picks (``scheduler.preemption.pick``).

Victims are on one node only (no cross-node preemption).  Unlike
DefaultPreemption the message carries no ``preemption:`` prefix (upstream's
CapacityScheduling returns the Evaluator's status as it is).

This module holds the reference rules (eligibility, the victim rules, one
node's victims); :mod:`~kruleset.rules.quota.capacity_scheduling` runs the
PostFilter over the nodes, and :mod:`~kruleset.rules.quota.fast_reclaim` is its
arithmetic dry run.  Embedding: :func:`~kruleset.rules.quota.capacity_scheduling.reclaim_victims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState, PodState

from ..engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, TraceSink
from ..registry import define_ruleset, rule
from ..scheduler.cycle import FitError, ScheduleContext
from ..scheduler.node_selection import run_filters_with_nominated
from ..scheduler.paths import FitFor
from ..scheduler.preemption.evaluator import (
    NodeVictims,
    Reprieve,
    never_preempts,
    nominated_node_to_check,
    reprieve,
)
from ..scheduler.preemption.victims import (
    VICTIMS,
    PdbBudget,
    importance_order,
    split_by_pdb,
)
from .accounting import (
    QuotaUsage,
    QuotaView,
    quota_usage,
    show_quantity,
)
from .prefilter import (
    PreFilterState,
    prefilter_state,
)

__all__ = [
    "ELIGIBILITY",
    "GLOBAL_QUOTA",
    "PLUGIN",
    "VICTIM_RULES",
    "NodeVictims",
    "VictimContext",
    "mode_text",
    "reclaim_node_victims",
    "select_victims_on_node",
    "select_victims_with",
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

rule(ELIGIBILITY, "scheduler.quota.eligibility.preemption-policy",
     doc="A pod with preemptionPolicy Never never preempts, whatever its quota.",
     source="seed 004 §2; capacity_scheduling.go PodEligibleToPreemptOthers")(never_preempts)


@rule(ELIGIBILITY, "scheduler.quota.eligibility.nominated-node-terminating",
      doc="A pod nominated to a node where a pod it may preempt is terminating (any deletion) "
          "waits instead of preempting again, unless that node is now "
          "UnschedulableAndUnresolvable.",
      source="capacity_scheduling.go PodEligibleToPreemptOthers")
def _nominated(ctx: ScheduleContext, args: Mapping[str, Any], ps: PodState, fit: FitError
               ) -> Failure | None:
    node = nominated_node_to_check(ctx, ps, fit)
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
def _no_quota_spared(ctx: ScheduleContext, args: Mapping[str, Any], vc: VictimContext,
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
def _reclaim(ctx: ScheduleContext, args: Mapping[str, Any], vc: VictimContext, ps: PodState
             ) -> Failure | None:
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
def _own_namespace(ctx: ScheduleContext, args: Mapping[str, Any], vc: VictimContext,
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
def _no_quota_preemptor(ctx: ScheduleContext, args: Mapping[str, Any], vc: VictimContext,
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

def mode_text(pod: Pod, pre: PreFilterState, view: QuotaView,
              hit: tuple[str, int, int] | None) -> str:
    """Which victims the preemptor's quota mode allows (``hit``: its quota's resource
    above min, or None), as the trace says it before any node is judged."""
    ns = pod.namespace
    used = view.used(ns).freeze().describe() or "nothing"
    if hit is None:
        return (f"{ns} used {used} + {pre.req_in_eq.describe() or 'nothing'} stays within its "
                f"min: victims are pods of other quotas above their min, whatever their priority")
    return (f"{ns} used {used} + {pre.req_in_eq.describe() or 'nothing'} is above its min "
            f"({show_quantity(hit[0], hit[1])} > {show_quantity(hit[0], hit[2])}): "
            f"only pods of {ns} with "
            f"priority lower than {pod.effective_priority} may be victims")


def select_victims_on_node(ctx: ScheduleContext, pod: Pod, node: NodeState,
                           budgets: Sequence[PdbBudget], pre: PreFilterState | None = None
                           ) -> NodeVictims | Failure:
    """Upstream CapacityScheduling ``SelectVictimsOnNode`` for ``pod`` on ``node``.

    Returns the victims, or the node's failure: ``No victims found on node N
    for preemptor pod P`` (UnschedulableAndUnresolvable), the filter failure
    with every potential victim gone, ``global quota max exceeded``, or an
    ``Error`` where upstream's reprieve removes a pod twice (a pod that failed
    the fit check when the nominated-inclusive quota check fails too).
    """
    return select_victims_with(ctx, pod, node, budgets, pre)


def select_victims_with(ctx: ScheduleContext, pod: Pod, node: NodeState,
                        budgets: Sequence[PdbBudget], pre: PreFilterState | None = None,
                        fit_for: FitFor | None = None) -> NodeVictims | Failure:
    """:func:`select_victims_on_node` with the fit checks of ``fit_for`` where it has
    them (the victim arithmetic that ``FastPaths.victims`` chooses, for the attempt;
    None: the filters run)."""
    pre = pre if pre is not None else prefilter_state(ctx, pod)
    usage = quota_usage(ctx.state)
    view = QuotaView(usage)
    ns = pod.namespace
    with_quota = pre.has_quota
    hit = view.over_min_with(ns, pre.req_in_eq) if with_quota else None
    vc = VictimContext(pod, pre, view, hit)
    order = ctx.profile.active(VICTIMS.name)
    potential = _potential_victims(ctx, vc, node, order)
    if not potential:
        return Failure(f"No victims found on node {node.name} for preemptor pod {pod.name}",
                       UNRESOLVABLE, PLUGIN)
    removed = {ps.key for ps in potential}
    fit = fit_for(node, potential) if fit_for is not None else None

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
    def back(ps: PodState) -> str | None:
        removed.discard(ps.key)
        view.add(ps)
        if fit is not None:
            fit.put_back(ps)
            return fit.reason()
        f = fits()
        return f.reason if f is not None else None

    def away(ps: PodState) -> None:
        removed.add(ps.key)
        view.remove(ps)
        if fit is not None:
            fit.take_away(ps)

    def quota_checks(ps: PodState, why_not: str | None) -> str | Failure | None:
        quota_hit = view.over_max_with(ns, pre.req_in_eq) or \
            view.total_over_min_with(pre.req_all)
        if quota_hit is None:
            return None
        if why_not is not None:
            # Upstream removes the pod a second time and the node
            # reports the error instead of being a candidate.
            return Failure(f"no corresponding pod {ps.pod.name} in pods of node "
                           f"{node.name}", "Error", PLUGIN)
        return (f"the quota checks fail with it back: "
                f"{quota_hit[0]} {quota_hit[1]} > {quota_hit[2]}")

    ordered = importance_order(ctx, potential, order)
    violating, fine = split_by_pdb(ordered, budgets)
    kept = reprieve(violating, fine, back, away, quota_checks if with_quota else None)
    if isinstance(kept, Failure):
        return kept
    return reclaim_node_victims(ctx, node, order, violating, fine, kept)


def reclaim_node_victims(ctx: ScheduleContext, node: NodeState, order: Any,
                         violating: Sequence[PodState],
                         fine: Sequence[PodState], kept: Reprieve) -> NodeVictims:
    """The reprieve's victims as the candidate's ``Victims.Pods``: most important first.

    The reprieve appends victims group by group (PDB-violating first), so a
    PDB-protected pod of low priority can precede a more important pod of the
    other group.  Upstream sorts the victims by importance once the reprieve is
    done when both groups are non-empty (CapacityScheduling ``SelectVictimsOnNode``
    on the v1.35 line, as DefaultPreemption's ``SelectVictimsOnNode``); this
    matters because ``pickOneNodeForPreemption`` takes ``Pods[0]`` as the
    node's highest-priority victim.  Shown by the one-cycle oracle: a node whose
    victims are a PDB-protected priority-0 pod and a priority-1000 pod loses to
    one whose only victim has priority 100 (tests/differential/cases/
    quota-victims-sorted.json).
    """
    victims = list(kept.victims)
    if violating and fine:
        victims = importance_order(ctx, victims, order)
    return NodeVictims(node.name, tuple(victims), kept.num_pdb_violations,
                       tuple(kept.reprieved), frozenset(ps.key for ps in violating), kept.why)


def _potential_victims(ctx: ScheduleContext, vc: VictimContext, node: NodeState, order: Any
                       ) -> list[PodState]:
    """The node's pods the victim rules let go, walked least important first.

    Each one taken leaves its quota's used in ``vc.view`` at once, so the
    rules judge the next pod with it gone (a borrower stops being a victim
    once its quota is back at its min).
    """
    trace: TraceSink | None = ctx.trace
    pod = vc.preemptor
    rules = [(a.rule.fn, a.args, a.rule.name) for a in ctx.profile.active(VICTIM_RULES.name).rules]
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
            vc.view.remove(ps)
            if trace is not None:
                trace.add(PLUGIN, ps.key, f"potential victim on {node.name}",
                          f"for {pod.key}: {_victim_text(vc, ps)}")
        elif trace is not None:
            trace.add(refusal[0], ps.key, f"not a victim on {node.name}",
                      f"for {pod.key}: {refusal[1]}")
    return potential


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
