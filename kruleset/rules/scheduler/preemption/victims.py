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
narrows the lower-priority pods further; everything else is shared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod, PodDisruptionBudget
from kruleset.model.quantity import format_duration
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState, NodeState, PodState
from kruleset.rules.engine import UNRESOLVABLE, ActiveRuleSet, Failure
from kruleset.rules.registry import define_ruleset, rule

from ..defaults import FILTER_NODE_PORTS, FILTER_NODE_RESOURCES_FIT
from ..fast.plan import FastPlan, fast_plan
from ..node_selection import (
    nominated_pods,
    run_filters_with_nominated,
)
from .evaluator import Reprieve, reprieve

__all__ = [
    "NO_VICTIMS",
    "NO_VICTIMS_FAILURE",
    "VICTIMS",
    "FastPlan",
    "NodeFit",
    "NodeVictims",
    "PdbBudget",
    "VictimPredicate",
    "fast_importance_order",
    "fast_plan",
    "importance_order",
    "pdb_budgets",
    "select_or_defer",
    "select_victims_on_node",
    "split_by_pdb",
]

NO_VICTIMS = "No preemption victims found for incoming pod"
# One object for every node without a lower-priority pod (failures are immutable;
# the "0/N nodes" message counts shared objects at once).
NO_VICTIMS_FAILURE = Failure(NO_VICTIMS, UNRESOLVABLE, "scheduler.postfilter.DefaultPreemption")
PORTS_MESSAGE = "node(s) didn't have free ports for the requested pod ports"


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

    The status is the disruption controller's (:func:`kruleset.rules.disruption.pdb.pdb_status`).
    """
    if not state.pdbs:
        return []
    from kruleset.rules.disruption.pdb import pdb_status

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
    order: ActiveRuleSet | None = None, plan: FastPlan | None | bool = True,
) -> NodeVictims | Failure:
    """Upstream ``SelectVictimsOnNode`` for ``pod`` on ``node``: the victims, or why none.

    ``status`` is the node's filter failure in the cycle that failed (it lets
    kruleset skip re-running filters that cannot change, with the same result).
    ``may_be_victim`` narrows the lower-priority pods (default: all of them).
    A returned :class:`Failure` has upstream's code and reason: U&U
    ``No preemption victims found for incoming pod``, or the filter failure seen
    with every potential victim removed.  ``plan`` is the pod's
    :func:`fast_plan` when the caller computed it once for many nodes
    (``True``: compute it here; ``None``: the general path only).
    """
    found = select_or_defer(ctx, pod, node, budgets, may_be_victim=may_be_victim, order=order,
                            plan=plan)
    if found is not None:
        return found
    return _general(ctx, pod, node, budgets, may_be_victim, order)


def select_or_defer(
    ctx: Any, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget], *,
    may_be_victim: VictimPredicate | None = None, order: ActiveRuleSet | None = None,
    plan: FastPlan | None | bool = True,
) -> NodeVictims | Failure | None:
    """:func:`select_victims_on_node`, except that a node the fast path knows is no
    candidate (the pod does not fit even with every potential victim gone) gives
    ``None``: its exact failure is left to the general path, for a caller that
    needs it (a dry run that found candidates and traces nothing never does).
    """
    prio = pod.effective_priority
    potential = [ps for ps in node.pods.values()
                 if ps.pod.effective_priority < prio
                 and (may_be_victim is None or may_be_victim(ctx, pod, ps, node))]
    if not potential:
        return NO_VICTIMS_FAILURE
    if plan is True:
        plan = fast_plan(ctx, pod)
    if isinstance(plan, FastPlan):
        fast = _fast_victims(ctx, pod, node, potential, budgets, order, plan)
        if fast is not _GENERAL:
            return fast  # type: ignore[return-value]
    return _general(ctx, pod, node, budgets, may_be_victim, order, potential)


def _general(ctx: Any, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget],
             may_be_victim: VictimPredicate | None, order: ActiveRuleSet | None,
             potential: list[PodState] | None = None) -> NodeVictims | Failure:
    """The general path: the filters run with an overlay for every step."""
    if potential is None:
        prio = pod.effective_priority
        potential = [ps for ps in node.pods.values()
                     if ps.pod.effective_priority < prio
                     and (may_be_victim is None or may_be_victim(ctx, pod, ps, node))]
        if not potential:
            return NO_VICTIMS_FAILURE
    removed = {ps.key for ps in potential}

    def check() -> Failure | None:
        return run_filters_with_nominated(ctx, pod, node, removed=frozenset(removed))

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
    return _node_victims(ctx, node, order, violating, fine, reprieve(violating, fine, back, away))


def _node_victims(ctx: Any, node: NodeState, order: ActiveRuleSet | None,
                  violating: list[PodState], fine: list[PodState],
                  kept: Reprieve | Failure) -> NodeVictims:
    """The reprieve loop's outcome as the node's victims, most important first."""
    assert not isinstance(kept, Failure)  # no veto: the loop never stops a node
    victims = kept.victims
    if violating and fine:
        victims = importance_order(ctx, victims, order)
    return NodeVictims(node.name, tuple(victims), kept.num_pdb_violations, tuple(kept.reprieved),
                       frozenset(ps.key for ps in violating), kept.why)


# --- the arithmetic fast path ----------------------------------------------------------------
#
# Victim selection asks "does the pod fit once these pods are gone?" once with
# every potential victim removed and once per reprieve.  When the only enabled
# filters whose answer depends on the node's pods are NodeResourcesFit and
# NodePorts (the pod has no pod (anti-)affinity or required spreading, no pod
# of the cluster has anti-affinity against it, and no pod nominated to the
# node has required anti-affinity), that answer is integer arithmetic on the
# node's requested totals and a count of host-port conflicts: no overlay, no
# filter run.  Every other
# filter looks at the node only, so it is evaluated once per node.  Anything
# else (tracing, an overlay already in force, another filter, a failure
# that needs its full Failure object) takes the general path.

_PORTS = FILTER_NODE_PORTS
_FIT = FILTER_NODE_RESOURCES_FIT
_GENERAL = object()  # _fast_victims: "the general path decides"
_DEFAULT_ORDER = ("scheduler.preemption.victims.lower-priority-first",
                  "scheduler.preemption.victims.later-start-first")


def _fit_reason(req: Resources, alloc: Resources, used: list[int], scalars: Mapping[str, int],
                ignored: frozenset[str]) -> str | None:
    """NodeResourcesFit's first reason for ``used`` = [cpu, memory, ephemeral, pods], or None.

    The checks and their order are ``filters_basic.insufficient_resources``'.
    """
    if used[3] + 1 > alloc.pods:
        return "Too many pods"
    if not (req.cpu or req.memory or req.ephemeral_storage or req.scalars):
        return None
    if req.cpu and req.cpu > alloc.cpu - used[0]:
        return "Insufficient cpu"
    if req.memory and req.memory > alloc.memory - used[1]:
        return "Insufficient memory"
    if req.ephemeral_storage and req.ephemeral_storage > alloc.ephemeral_storage - used[2]:
        return "Insufficient ephemeral-storage"
    for name, q in req.scalars:
        if q == 0 or name in ignored or (
                "/" in name and ignored and name.split("/", 1)[0] + "/*" in ignored):
            continue
        if q > alloc.get(name) - scalars.get(name, 0):
            return f"Insufficient {name}"
    return None


class NodeFit:
    """``run_filters_with_nominated(ctx, pod, node, removed=…)`` as arithmetic.

    Holds the node's requested totals and host-port conflicts with some pods
    taken away; :meth:`reason` is the first failure's reason the filters
    would give (None: the pod fits).  Built by :meth:`start` only where the
    :class:`FastPlan` says the filters' answer depends on nothing else.
    """

    __slots__ = ("used", "scalars", "copied", "conflicts", "wanted", "req", "alloc", "ignored",
                 "checks", "nominated")

    def __init__(self, pod: Pod, node: NodeState, plan: FastPlan) -> None:
        tally = node.requested
        self.used = [tally.cpu, tally.memory, tally.ephemeral_storage, tally.pods]
        # Extended resources: the node's totals, copied on first change.
        self.scalars: dict[str, int] = tally.scalars  # type: ignore[assignment]
        self.copied = False
        self.conflicts = 0
        self.wanted = plan.ports
        self.req = pod.requests
        self.alloc = node.allocatable
        self.ignored = plan.ignored
        self.checks = plan.checks
        self.nominated = False  # pods nominated to the node are counted

    @classmethod
    def start(cls, ctx: Any, pod: Pod, node: NodeState, plan: FastPlan,
              removed: Sequence[PodState]) -> NodeFit | None:
        """The node with ``removed`` gone, or None where the general path must judge."""
        for fn, args in plan.node_only:
            if fn(ctx, args, pod, node) is not None:
                return None
        # Pods nominated here with priority >= the pod's count as bound (upstream's
        # first pass; the second, without them, cannot fail where the first passed:
        # fewer pods never use more).  One with required anti-affinity could make
        # InterPodAffinity fail: the general path decides then.
        noms = nominated_pods(ctx, pod, node)
        for nom in noms:
            if nom.pod.pod_anti_affinity:
                return None
        fit = cls(pod, node, plan)
        fit.nominated = bool(noms)
        for ps in removed:
            fit._change(ps.pod.requests, -1)
        for nom in noms:
            fit._change(nom.pod.requests, 1)
        wanted = fit.wanted
        if wanted:
            # Host-port conflicts of the pods that stay (nominated ones included).
            gone = {ps.key for ps in removed}
            for ps in node.pods.values():
                if ps.key not in gone and any(hp in wanted for hp in ps.pod.host_ports):
                    fit.conflicts += 1
            for nom in noms:
                if any(hp in wanted for hp in nom.pod.host_ports):
                    fit.conflicts += 1
        return fit

    def _change(self, r: Resources, sign: int) -> None:
        used = self.used
        used[0] += sign * r.cpu
        used[1] += sign * r.memory
        used[2] += sign * r.ephemeral_storage
        used[3] += sign * r.pods
        if r.scalars:
            if not self.copied:
                self.scalars, self.copied = dict(self.scalars), True
            scalars = self.scalars
            for k, v in r.scalars:
                scalars[k] = scalars.get(k, 0) + sign * v

    def _clash(self, ps: PodState) -> bool:
        wanted = self.wanted
        return bool(wanted) and any(hp in wanted for hp in ps.pod.host_ports)

    def put_back(self, ps: PodState) -> None:
        """``ps`` (taken away before) is on the node again."""
        self._change(ps.pod.requests, 1)
        self.conflicts += self._clash(ps)

    def take_away(self, ps: PodState) -> None:
        """``ps`` is gone from the node."""
        self._change(ps.pod.requests, -1)
        self.conflicts -= self._clash(ps)

    def reason(self) -> str | None:
        """The reason of the first filter that fails, or None."""
        for c in self.checks:
            if c == "fit":
                r = _fit_reason(self.req, self.alloc, self.used, self.scalars, self.ignored)
                if r is not None:
                    return r
            elif self.conflicts:
                return PORTS_MESSAGE
        return None


def fast_importance_order(ctx: Any, pods: Iterable[PodState],
                          order: ActiveRuleSet | None = None) -> list[PodState]:
    """:func:`importance_order`, with the default rules' key computed inline."""
    if order is None:
        order = ctx.profile.active(VICTIMS.name)
    if tuple(a.rule.name for a in order.rules) == _DEFAULT_ORDER:
        return sorted(pods, key=lambda ps: (ps.pod.effective_priority, -ps.effective_start),
                      reverse=True)
    return importance_order(ctx, pods, order)


def _fast_victims(ctx: Any, pod: Pod, node: NodeState, potential: list[PodState],
                  budgets: Sequence[PdbBudget], order: ActiveRuleSet | None,
                  plan: FastPlan) -> NodeVictims | object | None:
    """The general path's answer by arithmetic; ``None`` when the node is no candidate
    (the pod does not fit with every potential victim gone); ``_GENERAL`` where the
    general path must decide."""
    fit = NodeFit.start(ctx, pod, node, plan, potential)
    if fit is None:
        return _GENERAL
    trace = ctx.trace
    if fit.reason() is not None:
        # Not a candidate; the general path builds the exact failure if asked
        # (at once when tracing, so its filter runs are recorded in order).
        return _GENERAL if trace is not None else None
    # With tracing: per filter run, how many pods were away, the rule that failed, why.
    runs: list[tuple[int, str | None, str | None]] | None = None
    away = len(potential)
    if trace is not None:
        runs = [(away, None, None)]

    def back(ps: PodState) -> str | None:
        nonlocal away
        fit.put_back(ps)
        why_not = fit.reason()
        if runs is not None:
            runs.append((away - 1, None if why_not is None else
                         _PORTS if why_not == PORTS_MESSAGE else _FIT, why_not))
        if why_not is None:
            away -= 1
        return why_not

    ordered = fast_importance_order(ctx, potential, order)
    violating, fine = split_by_pdb(ordered, budgets)
    found = _node_victims(ctx, node, order, violating, fine,
                          reprieve(violating, fine, back, fit.take_away))
    if runs is not None:
        _trace_runs(trace, f"{pod.key} on {node.name}", plan, fit.nominated, runs)
    return found


def _trace_runs(trace: Any, subject: str, plan: FastPlan, nominated: bool,
                runs: Sequence[tuple[int, str | None, str | None]]) -> None:
    """Record the filter runs the general path makes, as one deferred group.

    Per check, upstream's two passes: with pods nominated to the node, a run
    of every enabled filter with them added (its failure stands), then,
    when it passed, one without them; a run with pods away uses every enabled
    filter, one with none away only those PreFilter kept.  Each run records
    ``pass`` per filter up to the one that fails.
    """
    every, kept = plan.all_names, plan.prepared_names
    plan_of: list[tuple[tuple[str, ...], str | None, str | None]] = []
    for away, failed, why in runs:
        names = every if away else kept
        if nominated:
            plan_of.append((every, failed, why))
            if failed is None:
                plan_of.append((names, None, None))
        else:
            plan_of.append((names, failed, why))
    count = sum(len(names) if failed is None else names.index(failed) + 1
                for names, failed, _ in plan_of)

    def produce() -> Iterator[tuple[str, str, str, str]]:
        for names, failed, why in plan_of:
            for name in names:
                if name == failed:
                    yield name, subject, "fail", why or ""
                    break
                yield name, subject, "pass", ""

    trace.defer(count, produce)
