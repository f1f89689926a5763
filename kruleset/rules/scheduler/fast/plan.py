"""Victim selection as arithmetic: can "does the pod fit without these pods?" be sums?

Victim selection asks whether the preemptor fits once some pods are gone,
once with every potential victim removed and once per reprieve.  When the
only enabled filters whose answer depends on the node's pods are
NodeResourcesFit and NodePorts (the pod has no pod (anti-)affinity or
required spreading, no pod of the cluster has anti-affinity against it, and
no pod nominated to the node has required anti-affinity), that answer is
integer arithmetic on the node's requested totals and a count of host-port
conflicts; every other filter looks at the node only and runs once per node.
Each filter says which it is on its rule (``Rule.reads``: ``"fit"``,
``"ports"``, ``"node"``, or ``"pods"`` when only its PreFilter's skip makes it
pass every node); a filter that says nothing leaves no plan.
:func:`fast_plan` says whether that holds for a pod in this cycle and what
the arithmetic needs; :class:`NodeFit` is the arithmetic on one node and
:func:`victims_by_arithmetic` DefaultPreemption's victim selection with it.
:func:`select_or_defer` is the reference victim selection
(:mod:`kruleset.rules.scheduler.preemption.victims`) with them, run by the
dry run's judge that the ``victims`` option of ``FastPaths`` chooses
(:class:`~kruleset.rules.scheduler.fast.dry_run.ArithmeticJudge`, at the
composition root :mod:`.compose`); quota reclaim's fit checks take them
through :func:`node_fit_for`, and the cycle cache and the quota arithmetic
use them directly.  With
``FastPaths.victims`` off the filters decide, the same (tests compare the two).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.resources import Resources
from kruleset.model.state import NodeState, PodState
from kruleset.rules.engine import ActiveRuleSet, Failure

from ..framework import FILTERS, ScheduleContext
from ..node_selection import OVERLAY, nominated_pods, prepare_cycle
from ..paths import GENERAL, FitFor
from ..preemption.evaluator import reprieve
from ..preemption.victims import (
    NO_VICTIMS_FAILURE,
    VICTIMS,
    NodeVictims,
    PdbBudget,
    VictimPredicate,
    importance_order,
    node_victims,
    potential_victims,
    split_by_pdb,
    victims_by_filters,
)

__all__ = [
    "DEFAULT_ORDER",
    "PORTS_MESSAGE",
    "FastPlan",
    "NodeFit",
    "fast_importance_order",
    "fast_plan",
    "node_fit_for",
    "select_or_defer",
    "victims_by_arithmetic",
]


@attrs.frozen(slots=True)
class FastPlan:
    """What the fast path needs to know about the preemptor, computed once per dry run.

    ``node_only`` are the filters that read the node alone (run once per
    node); ``checks`` the pod-dependent ones in filter order (``"ports"`` or
    ``"fit"``), ``check_names`` their rules' names; ``ignored``
    NodeResourcesFit's ignored resources (and ``group/*`` patterns); ``ports``
    the pod's host ports.
    """

    node_only: tuple[tuple[Callable[..., Any], Mapping[str, Any]], ...]
    checks: tuple[str, ...]
    ignored: frozenset[str]
    ports: frozenset[Any]
    prepared_names: tuple[str, ...] = ()  # the filters PreFilter kept: every run's
    check_names: tuple[str, ...] = ()

    def failing(self, why: str) -> str:
        """The name of the check's rule that gives the reason ``why`` (:meth:`NodeFit.reason`)."""
        kind = "ports" if why == PORTS_MESSAGE else "fit"
        return self.check_names[self.checks.index(kind)]


def fast_plan(ctx: ScheduleContext, pod: Pod, *, traced: bool = False) -> FastPlan | None:
    """The fast-path plan for ``pod``, or None when the general path must run.

    What each enabled filter reads is declared on its rule (``Rule.reads``); a
    filter that declares nothing is one the arithmetic knows nothing about, so
    there is no plan and the filters decide.  With tracing on there is a plan
    only for a caller that records the filter runs the general path would
    (``traced``: DefaultPreemption's victim selection does) and a trace that
    takes deferred groups.
    """
    trace = ctx.trace
    if not ctx.fast.victims or OVERLAY in ctx.extra or (
            trace is not None and not (traced and hasattr(trace, "defer"))):
        return None
    prepared = prepare_cycle(ctx, pod)
    kept = {name for _, _, name in prepared}
    node_only: list[tuple[Callable[..., Any], Mapping[str, Any]]] = []
    checks: list[str] = []
    names: list[str] = []
    ignored: frozenset[str] = frozenset()
    for a in ctx.profile.active(FILTERS.name).rules:
        reads = a.rule.reads
        if reads is None:
            return None
        what, name, args = reads.what, a.rule.name, a.args
        if what == "node":
            # A rule whose PreFilter skipped it passes every node.
            if name in kept:
                node_only.append((a.rule.fn, args))
        elif what == "ports":
            if pod.host_ports:
                checks.append("ports")
                names.append(name)
        elif what == "fit":
            checks.append("fit")
            names.append(name)
            ignored = frozenset(args.get("ignoredResources") or ()) | frozenset(
                f"{g}/*" for g in (args.get("ignoredResourceGroups") or ()))
        elif name in kept:
            # Reads other pods: only skipped by its PreFilter does it pass every node.
            return None
    return FastPlan(tuple(node_only), tuple(checks), ignored, frozenset(pod.host_ports),
                    tuple(name for _, _, name in prepared), tuple(names))


# --- victim selection as arithmetic ---------------------------------------------------------
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

PORTS_MESSAGE = "node(s) didn't have free ports for the requested pod ports"


def _fit_reason(req: Resources, alloc: Resources, used: list[int], scalars: Mapping[str, int],
                ignored: frozenset[str]) -> str | None:
    """NodeResourcesFit's first reason for ``used`` = [cpu, memory, ephemeral, pods], or None.

    The checks and their order are ``filters.noderesourcesfit.insufficient_resources``'.
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
    def start(cls, ctx: ScheduleContext, pod: Pod, node: NodeState, plan: FastPlan,
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


def select_or_defer(
    ctx: ScheduleContext, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget], *,
    may_be_victim: VictimPredicate | None = None, order: ActiveRuleSet | None = None,
    plan: FastPlan | None,
) -> NodeVictims | Failure | None:
    """The reference :func:`~kruleset.rules.scheduler.preemption.victims.select_victims_on_node`
    with the pod's ``plan`` (None: the filters decide), except that a node the arithmetic
    knows is no candidate (the pod does not fit even with every potential victim gone)
    gives ``None``: its exact failure is left to the reference, for a caller that needs
    it (a dry run that found candidates and traces nothing never does).
    """
    potential = potential_victims(ctx, pod, node, may_be_victim)
    if not potential:
        return NO_VICTIMS_FAILURE
    if plan is not None:
        fast = victims_by_arithmetic(ctx, pod, node, potential, budgets, order, plan)
        if fast is not GENERAL:
            return fast  # type: ignore[return-value]
    return victims_by_filters(ctx, pod, node, budgets, potential, order)


def node_fit_for(ctx: ScheduleContext, pod: Pod) -> FitFor | None:
    """``FastPaths.victims`` for quota reclaim: one node's fit checks by arithmetic, for
    ``pod`` in this attempt (None: the pod has no plan, the filters decide)."""
    plan = fast_plan(ctx, pod)
    if plan is None:
        return None

    def start(node: NodeState, potential: Sequence[PodState]) -> NodeFit | None:
        return NodeFit.start(ctx, pod, node, plan, potential)

    return start


#: The victim order's rules in the default profile, whose key the arithmetic computes inline.
DEFAULT_ORDER = ("scheduler.preemption.victims.lower-priority-first",
                 "scheduler.preemption.victims.later-start-first")


def fast_importance_order(ctx: ScheduleContext, pods: Iterable[PodState],
                          order: ActiveRuleSet | None = None) -> list[PodState]:
    """:func:`~kruleset.rules.scheduler.preemption.victims.importance_order`, with the
    default rules' key computed inline."""
    if order is None:
        order = ctx.profile.active(VICTIMS.name)
    if tuple(a.rule.name for a in order.rules) == DEFAULT_ORDER:
        return sorted(pods, key=lambda ps: (ps.pod.effective_priority, -ps.effective_start),
                      reverse=True)
    return importance_order(ctx, pods, order)


def victims_by_arithmetic(ctx: ScheduleContext, pod: Pod, node: NodeState,
                          potential: list[PodState], budgets: Sequence[PdbBudget],
                          order: ActiveRuleSet | None, plan: FastPlan
                          ) -> NodeVictims | object | None:
    """:func:`select_or_defer`'s answer by arithmetic; ``None`` when the node is no
    candidate (the pod does not fit with every potential victim gone); ``GENERAL``
    where the filters must decide."""
    fit = NodeFit.start(ctx, pod, node, plan, potential)
    if fit is None:
        return GENERAL
    trace = ctx.trace
    if fit.reason() is not None:
        # Not a candidate; the general path builds the exact failure if asked
        # (at once when tracing, so its filter runs are recorded in order).
        return GENERAL if trace is not None else None
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
            runs.append((away - 1, None if why_not is None else plan.failing(why_not),
                         why_not))
        if why_not is None:
            away -= 1
        return why_not

    ordered = fast_importance_order(ctx, potential, order)
    violating, fine = split_by_pdb(ordered, budgets)
    found = node_victims(ctx, node, order, violating, fine,
                         reprieve(violating, fine, back, fit.take_away))
    if runs is not None:
        _trace_runs(trace, f"{pod.key} on {node.name}", plan, fit.nominated, runs)
    return found


def _trace_runs(trace: Any, subject: str, plan: FastPlan, nominated: bool,
                runs: Sequence[tuple[int, str | None, str | None]]) -> None:
    """Record the filter runs the general path makes, as one deferred group.

    Per check, upstream's two passes: with pods nominated to the node, a run
    with them added (its failure stands), then, when it passed, one without
    them.  Every run, pods away or added, uses the filters PreFilter kept
    (a skipped plugin stays skipped for the cycle).  Each run records
    ``pass`` per filter up to the one that fails.
    """
    names = plan.prepared_names
    plan_of: list[tuple[tuple[str, ...], str | None, str | None]] = []
    for _away, failed, why in runs:
        plan_of.append((names, failed, why))
        if nominated and failed is None:
            plan_of.append((names, None, None))
    count = sum(len(names) if failed is None else names.index(failed) + 1
                for names, failed, _ in plan_of)
    # A partial of a tuple of strings, not a closure over the list: the trace keeps
    # one per node judged, and the collector stops tracking such a tuple.
    trace.defer(count, functools.partial(_run_entries, subject, tuple(plan_of)))


def _run_entries(subject: str, plan_of: Sequence[tuple[tuple[str, ...], str | None, str | None]]
                 ) -> Iterator[tuple[str, str, str, str]]:
    for names, failed, why in plan_of:
        for name in names:
            if name == failed:
                yield name, subject, "fail", why or ""
                break
            yield name, subject, "pass", ""

