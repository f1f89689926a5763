"""Victims on one node: who may go, in what order, and the PDB accounting (seed 002 §4-§5).

Upstream ``DefaultPreemption.SelectVictimsOnNode`` and
``filterPodsWithPDBViolation`` (pkg/scheduler/framework/plugins/defaultpreemption):

1. potential victims are the node's pods of strictly lower priority than the
   preemptor (a pod without priority counts as 0) that the *victim predicate*
   accepts (DefaultPreemption: every one; CapacityScheduling plugs in its own);
2. none: UnschedulableAndUnresolvable ``No preemption victims found for
   incoming pod``, decided before any filter runs;
3. all of them are removed at once and the filters run (with nominated pods);
   if the pod still does not fit, the node is not a candidate;
4. the potential victims are put in importance order (rule set
   ``scheduler.preemption.victims``), split into PDB-violating and
   non-violating pods, and reprieved most important first, the violating group
   before the other: a pod is added back and kept if the preemptor still fits
   (the evaluator's :func:`~kruleset.rules.scheduler.preemption.evaluator.reprieve`,
   which CapacityScheduling shares);
5. the violating pods that could not be reprieved are the node's PDB
   violations.

The node is never copied: :func:`~kruleset.rules.scheduler.node_selection.run_filters`
judges it as if the removed pods were gone.  Victims are a greedy result, not
a minimum set (scheduler-NOTES item 4).

Reuse (CapacityScheduling): :func:`select_victims_on_node` takes a
``may_be_victim(ctx, preemptor, victim_ps, node) -> bool`` predicate that
narrows the lower-priority pods further; everything else is shared.  This is
the reference alone: the victim arithmetic
(:mod:`~kruleset.rules.scheduler.fast.plan`, ``FastPaths.victims``) is another
implementation of the dry run's judge, chosen at the composition root, which
shares :func:`potential_victims`, :func:`victims_by_filters` and
:func:`node_victims`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod, PodDisruptionBudget
from kruleset.model.quantity import format_duration
from kruleset.model.state import ClusterState, NodeState, PodState
from kruleset.rules.engine import UNRESOLVABLE, ActiveRuleSet, Failure
from kruleset.rules.registry import define_ruleset, rule

from ..framework import FastPaths, PluginError, ScheduleContext
from ..node_selection import run_filters_with_nominated
from .evaluator import ERROR, NodeVictims, Reprieve, reprieve

__all__ = [
    "NO_VICTIMS",
    "NO_VICTIMS_FAILURE",
    "VICTIMS",
    "NodeVictims",
    "PdbBudget",
    "VictimPredicate",
    "importance_order",
    "node_victims",
    "pdb_budgets",
    "potential_victims",
    "select_victims_on_node",
    "split_by_pdb",
    "victims_by_filters",
]

NO_VICTIMS = "No preemption victims found for incoming pod"
# One object for every node without a lower-priority pod (failures are immutable;
# the "0/N nodes" message counts shared objects at once).
NO_VICTIMS_FAILURE = Failure(NO_VICTIMS, UNRESOLVABLE, "scheduler.postfilter.DefaultPreemption")


VictimPredicate = Callable[["ScheduleContext", Pod, PodState, NodeState], bool]

VICTIMS = define_ruleset(
    "scheduler.preemption.victims", "ordering",
    "The order in which a node's lower-priority pods become victims: least important first. "
    "Reprieve walks it backwards (most important first), as upstream's MoreImportantPod sorts.",
)


@rule(VICTIMS, "scheduler.preemption.victims.lower-priority-first",
      doc="A lower-priority pod is less important: it is a victim first and reprieved last.",
      source="seed 002 §4; seed 004; pkg/scheduler/util MoreImportantPod",
      describe=lambda k: f"priority {k}")
def _by_priority(ctx: ScheduleContext, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.pod.effective_priority


@rule(VICTIMS, "scheduler.preemption.victims.later-start-first",
      doc="At equal priority, the pod that started later is less important (older pods are kept).",
      source="seed 004; pkg/scheduler/util MoreImportantPod, GetPodStartTime",
      describe=lambda k: f"started at {format_duration(-k)}")
def _by_start(ctx: ScheduleContext, args: Mapping[str, Any], ps: PodState) -> int:
    # Negated: a later start sorts first.  Bound pods always have a start time;
    # a pending one would use "now" upstream, which effective_start approximates
    # with its creation time.
    return -ps.effective_start


def importance_order(ctx: ScheduleContext, pods: Iterable[PodState],
                     order: ActiveRuleSet | None = None) -> list[PodState]:
    """``pods`` most important first (upstream ``sort.Slice`` with MoreImportantPod).

    Pods the rules cannot tell apart keep their input order (upstream's sort is
    not stable; kruleset's is, which makes it deterministic).
    """
    act = order if order is not None else ctx.profile.active(VICTIMS.name)
    return sorted(pods, key=act.key(ctx), reverse=True)


# --- PDB accounting ----------------------------------------------------------------------

@attrs.frozen(slots=True)
class PdbBudget:
    """One PDB as preemption reads it: ``status.disruptionsAllowed`` and ``disruptedPods``."""

    pdb: PodDisruptionBudget
    allowed: int
    disrupted: frozenset[str] = frozenset()


def pdb_budgets(state: ClusterState, now: int, fast: FastPaths | None = None) -> list[PdbBudget]:
    """Every PDB of the cluster with its current status (upstream lists all PDBs once per attempt).

    The status is the disruption controller's (:func:`kruleset.rules.disruption.pdb.pdb_status`;
    ``fast``, the cycle's FastPaths, chooses how it finds the pods).
    """
    if not state.pdbs:
        return []
    from kruleset.rules.disruption.pdb import pdb_status

    out = []
    for pdb in state.pdbs.values():
        st = pdb_status(state, pdb, now, fast)
        out.append(PdbBudget(pdb, st.disruptions_allowed, frozenset(st.disrupted_pods)))
    return out


def split_by_pdb(pods: Sequence[PodState], budgets: Sequence[PdbBudget]
                 ) -> tuple[list[PodState], list[PodState]]:
    """Upstream ``filterPodsWithPDBViolation``: ``(violating, non_violating)``, order kept.

    A working copy of each PDB's disruptionsAllowed is decremented for every
    pod it matches, in the given order; the pod that drives it below zero, and
    every later one it matches, is violating.  Here (unlike the Eviction API)
    an empty selector matches nothing, a pod without labels matches no PDB, and
    a pod already in the PDB's disruptedPods is skipped for it.
    """
    if not budgets:
        return [], list(pods)
    allowed = [b.allowed for b in budgets]
    violating: list[PodState] = []
    fine: list[PodState] = []
    for ps in pods:
        pod = ps.pod
        bad = False
        if pod.labels:
            for i, b in enumerate(budgets):
                pdb = b.pdb
                if pdb.namespace != pod.namespace or pdb.selector.empty:
                    continue
                if not pdb.selector.matches(pod.labels) or pod.name in b.disrupted:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    bad = True
        (violating if bad else fine).append(ps)
    return violating, fine


# --- selecting victims ---------------------------------------------------------------------

def select_victims_on_node(
    ctx: ScheduleContext, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget], *,
    may_be_victim: VictimPredicate | None = None, order: ActiveRuleSet | None = None,
) -> NodeVictims | Failure:
    """Upstream ``SelectVictimsOnNode`` for ``pod`` on ``node``: the victims, or why none.

    ``may_be_victim`` narrows the lower-priority pods (default: all of them).
    A returned :class:`Failure` has upstream's code and reason: U&U
    ``No preemption victims found for incoming pod``, or the filter failure seen
    with every potential victim removed.
    """
    potential = potential_victims(ctx, pod, node, may_be_victim)
    if not potential:
        return NO_VICTIMS_FAILURE
    return victims_by_filters(ctx, pod, node, budgets, potential, order)


def potential_victims(ctx: ScheduleContext, pod: Pod, node: NodeState,
                      may_be_victim: VictimPredicate | None) -> list[PodState]:
    """Step 1: the node's pods of strictly lower priority that ``may_be_victim``
    accepts, in upstream's listing order.

    Upstream ``SelectVictimsOnNode`` walks ``nodeInfo.GetPods()``, the
    scheduler cache's order (:attr:`NodeState.cache_order`).  It removes each
    potential victim from that slice as it goes (the last pod takes the
    removed one's slot), but only in slots it has passed, so it still meets
    the pods in the cache's order.  Pods the importance order cannot tell
    apart stay in the order returned, so it decides which of them is
    reprieved: pods started at one instant by the scheduler in their binding
    order (upstream's start times differ by the time between the bindings),
    those bound from the start (one start time upstream too) in the cache's.
    """
    prio = pod.effective_priority
    out = [ps for ps in node.cache_order
           if ps.pod.effective_priority < prio
           and (may_be_victim is None or may_be_victim(ctx, pod, ps, node))]
    if len(out) > 1:
        out.sort(key=_bind_seq)
    return out


def _bind_seq(ps: PodState) -> int:
    return ps.bind_seq


def victims_by_filters(ctx: ScheduleContext, pod: Pod, node: NodeState,
                       budgets: Sequence[PdbBudget], potential: list[PodState],
                       order: ActiveRuleSet | None) -> NodeVictims | Failure:
    """Steps 3-5 for the (non-empty) ``potential`` victims: the filters run with an
    overlay for every step (the victim arithmetic,
    :mod:`~kruleset.rules.scheduler.fast.plan`, answers the same by sums)."""
    removed = {ps.key for ps in potential}

    def check() -> Failure | None:
        try:
            return run_filters_with_nominated(ctx, pod, node, removed=frozenset(removed))
        except PluginError as exc:
            # A filter's error (DynamicResources' allocator): upstream's dry run
            # records it as the node's status and goes on with the next node.
            return Failure(str(exc), ERROR)

    def back(ps: PodState) -> str | None:
        removed.discard(ps.key)
        f = check()
        return None if f is None else f.reason

    def away(ps: PodState) -> None:
        removed.add(ps.key)

    f = check()
    if f is not None:
        return f
    ordered = importance_order(ctx, potential, order)
    violating, fine = split_by_pdb(ordered, budgets)
    return node_victims(ctx, node, order, violating, fine, reprieve(violating, fine, back, away))


def node_victims(ctx: ScheduleContext, node: NodeState, order: ActiveRuleSet | None,
                 violating: list[PodState], fine: list[PodState],
                 kept: Reprieve | Failure) -> NodeVictims:
    """The reprieve loop's outcome as the node's victims, most important first (shared
    with the victim arithmetic, which reprieves by sums)."""
    assert not isinstance(kept, Failure)  # no veto: the loop never stops a node
    victims = kept.victims
    if violating and fine:
        victims = importance_order(ctx, victims, order)
    return NodeVictims(node.name, tuple(victims), kept.num_pdb_violations, tuple(kept.reprieved),
                       frozenset(ps.key for ps in violating), kept.why)
