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
   before the other: a pod is added back and kept if the preemptor still fits;
5. the violating pods that could not be reprieved are the node's PDB
   violations.

The node is never copied: :func:`~kruleset.rules.node_selection.run_filters`
judges it as if the removed pods were gone.  Victims are a greedy result, not
a minimum set (scheduler-NOTES item 4).

Reuse (CapacityScheduling): :func:`select_victims_on_node` takes a
``may_be_victim(ctx, preemptor, victim_ps, node) -> bool`` predicate that
narrows the lower-priority pods further; everything else is shared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..model.objects import Pod, PodDisruptionBudget
from ..model.quantity import format_duration
from ..model.state import ClusterState, NodeState, PodState
from .engine import UNRESOLVABLE, ActiveRuleSet, Failure
from .node_selection import run_filters_with_nominated
from .registry import define_ruleset, rule

__all__ = [
    "NO_VICTIMS",
    "VICTIMS",
    "NodeVictims",
    "PdbBudget",
    "VictimPredicate",
    "importance_order",
    "pdb_budgets",
    "select_victims_on_node",
    "split_by_pdb",
]

NO_VICTIMS = "No preemption victims found for incoming pod"

# Whether victim selection may take its arithmetic fast path (see
# ``_fast_victims``); False forces the general path, which the fast path must
# match decision for decision (tests compare the two).
FAST_PATH = True

VictimPredicate = Callable[[Any, Pod, PodState, NodeState], bool]

VICTIMS = define_ruleset(
    "scheduler.preemption.victims", "ordering",
    "The order in which a node's lower-priority pods become victims: least important first. "
    "Reprieve walks it backwards (most important first), as upstream's MoreImportantPod sorts.",
)


@rule(VICTIMS, "scheduler.preemption.victims.lower-priority-first",
      doc="A lower-priority pod is less important: it is a victim first and reprieved last.",
      source="seed 002 §4; seed 004; pkg/scheduler/util MoreImportantPod",
      describe=lambda k: f"priority {k}")
def _by_priority(ctx: Any, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.pod.effective_priority


@rule(VICTIMS, "scheduler.preemption.victims.later-start-first",
      doc="At equal priority, the pod that started later is less important (older pods are kept).",
      source="seed 004; pkg/scheduler/util MoreImportantPod, GetPodStartTime",
      describe=lambda k: f"started at {format_duration(-k)}")
def _by_start(ctx: Any, args: Mapping[str, Any], ps: PodState) -> int:
    # Negated: a later start sorts first.  Bound pods always have a start time;
    # a pending one would use "now" upstream, which effective_start approximates
    # with its creation time.
    return -ps.effective_start


def importance_order(ctx: Any, pods: Iterable[PodState],
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


def pdb_budgets(state: ClusterState, now: int) -> list[PdbBudget]:
    """Every PDB of the cluster with its current status (upstream lists all PDBs once per attempt).

    The status is the disruption controller's (:func:`kruleset.rules.pdb.pdb_status`).
    """
    if not state.pdbs:
        return []
    from .pdb import pdb_status

    out = []
    for pdb in state.pdbs.values():
        st = pdb_status(state, pdb, now)
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

@attrs.frozen(slots=True)
class NodeVictims:
    """What :func:`select_victims_on_node` found on a node that can take the pod.

    ``victims`` most important first; ``reprieved`` the potential victims that
    stay; ``why`` maps each victim's key to the filter failure seen when it
    was tried back on the node.
    """

    node: str
    victims: tuple[PodState, ...]
    num_pdb_violations: int
    reprieved: tuple[PodState, ...]
    violating: frozenset[str]
    why: Mapping[str, str]


def select_victims_on_node(
    ctx: Any, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget], *,
    may_be_victim: VictimPredicate | None = None, status: Failure | None = None,
    order: ActiveRuleSet | None = None,
) -> NodeVictims | Failure:
    """Upstream ``SelectVictimsOnNode`` for ``pod`` on ``node``: the victims, or why none.

    ``status`` is the node's filter failure in the cycle that failed (it lets
    kruleset skip re-running filters that cannot change, with the same result).
    ``may_be_victim`` narrows the lower-priority pods (default: all of them).
    A returned :class:`Failure` has upstream's code and reason: U&U
    ``No preemption victims found for incoming pod``, or the filter failure seen
    with every potential victim removed.
    """
    prio = pod.effective_priority
    potential = [ps for ps in node.pods.values()
                 if ps.pod.effective_priority < prio
                 and (may_be_victim is None or may_be_victim(ctx, pod, ps, node))]
    if not potential:
        return Failure(NO_VICTIMS, UNRESOLVABLE, "scheduler.postfilter.DefaultPreemption")
    removed = {ps.key for ps in potential}

    def check() -> Failure | None:
        return run_filters_with_nominated(ctx, pod, node, removed=frozenset(removed))

    f = check()
    if f is not None:
        return f
    ordered = importance_order(ctx, potential, order)
    violating, fine = split_by_pdb(ordered, budgets)
    victims: list[PodState] = []
    reprieved: list[PodState] = []
    why: dict[str, str] = {}
    num_violations = 0
    for group, counts in ((violating, True), (fine, False)):
        for ps in group:
            removed.discard(ps.key)
            f = check()
            if f is None:
                reprieved.append(ps)
                continue
            removed.add(ps.key)
            victims.append(ps)
            why[ps.key] = f.reason
            if counts:
                num_violations += 1
    if violating and fine:
        victims = importance_order(ctx, victims, order)
    return NodeVictims(node.name, tuple(victims), num_violations, tuple(reprieved),
                       frozenset(ps.key for ps in violating), why)
