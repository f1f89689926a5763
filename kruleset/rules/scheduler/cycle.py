"""One scheduling cycle: PreFilter, filters, scores, and the FitError message.

This module holds the cycle's driver; the extension points' rule sets and
the cycle's vocabulary are in :mod:`~kruleset.rules.scheduler.framework`
(re-exported here), and each plugin lives in a module named after it, in
the package of its extension point (``queue/``, ``preenqueue/``,
``filters/``, ``scores/``).
Upstream: ``pkg/scheduler/schedule_one.go``.

Embedding one decision, without a timeline (:func:`schedule_pod`)::

    from kruleset.model.objects import Container, Node, Pod
    from kruleset.model.resources import Resources
    from kruleset.model.selectors import Taint
    from kruleset.model.state import ClusterState
    from kruleset.rules.scheduler.cycle import schedule_pod

    GI = 2**30
    state = ClusterState()
    state.add_node(Node("n1", Resources(cpu=4000, memory=8 * GI, pods=110),
                        taints=(Taint("dedicated", "db", "NoSchedule"),)))
    state.add_node(Node("n2", Resources(cpu=4000, memory=8 * GI, pods=110)))
    busy = state.add_pod(Pod("default", "busy",
                             containers=(Container("c", Resources(cpu=2000)),)))
    state.bind(busy, "n2")
    web = Pod("default", "web", containers=(Container("c", Resources(cpu=3000)),))

    result = schedule_pod(state, web)
    result.node        # None: n1 is tainted, n2 has 2 of its 4 CPUs left
    result.message     # '0/2 nodes are available: 1 Insufficient cpu,
                       #  1 node(s) had untolerated taint(s).'
    {n: f.code for n, f in result.fit_error.failures.items()}
                       # {'n1': 'UnschedulableAndUnresolvable', 'n2': 'Unschedulable'}
                       # (preemption may only try n2)

    small = Pod("default", "small", containers=(Container("c", Resources(cpu=500)),))
    schedule_pod(state, small).node   # 'n2'


``schedule_pod`` changes nothing in the state; pass a
:class:`~kruleset.rules.profile.Profile` (e.g. from
:func:`kruleset.rules.scheduler.config.profile_for`) to use a
KubeSchedulerConfiguration, and a :class:`~kruleset.rules.engine.Trace` to
see every rule that ran.  With several feasible nodes, ``result.scores``
holds each node's weighted total and ``result.per_rule`` each score rule's
normalised 0-100 score per node.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from operator import attrgetter
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, NodeState, PodState

from ..engine import UNRESOLVABLE, Failure, Trace, TraceSink
from ..profile import Profile
from .framework import (
    FEASIBLE,
    FILTERS,
    PREENQUEUE,
    PREFILTER,
    PREFILTER_NODES,
    QUEUE,
    SCORES,
    FitError,
    PerNode,
    PerRule,
    ScheduleContext,
    ScheduleResult,
    failure_reasons,
    fit_message,
)

__all__ = [
    "FEASIBLE",
    "FILTERS",
    "PREFILTER_NODES",
    "PREENQUEUE",
    "QUEUE",
    "SCORES",
    "FitError",
    "PREFILTER",
    "ScheduleContext",
    "ScheduleResult",
    "failure_reasons",
    "fit_message",
    "schedule_one",
    "schedule_pod",
    "score_nodes",
    "score_entries",
]

# --- scoring ---------------------------------------------------------------------

def score_nodes(ctx: ScheduleContext, pod: Pod, nodes: Sequence[NodeState],
                raws: dict[str, tuple[int, list[int]]] | None = None
                ) -> tuple[list[int], dict[str, list[int]]]:
    """Every enabled score rule on ``nodes``: weighted totals and each rule's normalised scores.

    The same result as ``ActiveRuleSet.scores``, using batch forms where rules have them.
    With ``raws``, each rule's weight and scores before normalisation are put there.
    """
    totals = [0] * len(nodes)
    per_rule: dict[str, list[int]] = {}
    for a in ctx.profile.active(SCORES.name).rules:
        batch = a.rule.batch
        if batch is not None:
            raw = batch(ctx, a.args, pod, nodes)
        else:
            fn, args = a.rule.fn, a.args
            raw = [fn(ctx, args, pod, n) for n in nodes]
        if raws is not None:
            raws[a.rule.name] = (a.weight, raw)
        if a.rule.normalize is not None:
            raw = a.rule.normalize(ctx, a.args, pod, nodes, raw)
        per_rule[a.rule.name] = raw
        w = a.weight
        if not w or not raw:
            continue
        first = raw[0]
        if raw.count(first) == len(raw):
            # The same score everywhere (often 0 or 100): one constant to add.
            if first:
                k = w * first
                totals = [t + k for t in totals]
        else:
            totals = [t + w * v for t, v in zip(totals, raw, strict=True)]
    return totals, per_rule


# --- the cycle -----------------------------------------------------------------

def run_prefilter(ctx: ScheduleContext, pod: Pod) -> Failure | None:
    """The PreFilter plugins, as upstream's ``RunPreFilterPlugins`` runs them.

    An UnschedulableAndUnresolvable failure stops at once; an Unschedulable one
    is kept and the others still run (preemption may follow, and it needs
    their state).  The first Unschedulable failure is the cycle's: a plugin's
    rules are checked in its own order and it reports its first failure
    (upstream keeps the last failing plugin's; only CapacityScheduling fails
    that way).  A plugin may narrow the nodes by leaving
    ``ctx.extra[PREFILTER_NODES]``.
    """
    trace = ctx.trace
    kept: Failure | None = None
    failed_plugin = ""
    for a in ctx.profile.active(PREFILTER.name).rules:
        if failed_plugin and a.rule.name.startswith(failed_plugin):
            continue  # the rest of a plugin that already failed
        f = a.rule.fn(ctx, a.args, pod)
        if f is None:
            if trace is not None:
                trace.add(a.rule.name, pod.key, "pass")
            continue
        if not f.rule:
            f = attrs.evolve(f, rule=a.rule.name)
        if trace is not None:
            trace.add(a.rule.name, pod.key, "fail", f.reason)
        if f.code == UNRESOLVABLE:
            return f
        if kept is None:
            kept = f
        # Rules are named scheduler.prefilter.<Plugin>[.<check>].
        failed_plugin = ".".join(a.rule.name.split(".")[:3]) + "."
    return kept


def schedule_one(ctx: ScheduleContext, ps: PodState, *, advance: bool = True) -> ScheduleResult:
    """One scheduling cycle for ``ps``: PreFilter, filters, scores, the best node.

    Ties between top-scoring nodes go to the first node in the scheduler's
    node order (``ClusterState.node_order``; upstream picks one at random).
    ``advance=False`` keeps the node-search start offset unchanged (what-if
    questions).
    """
    from . import node_selection

    pod = ps.pod
    ctx.pod, ctx.ps = pod, ps
    ctx.extra.clear()
    state = ctx.state
    num_nodes = len(state.nodes)
    trace = ctx.trace
    pre = run_prefilter(ctx, pod)
    if pre is not None:
        failures = {name: pre for name in state.nodes}
        fit = FitError(pod.key, num_nodes, failures, pre)
        if trace is not None:
            _record_attempt(trace, pod.key, None, ())
        return ScheduleResult(pod.key, None, fit)
    feasible, failures = node_selection.find_feasible(ctx, pod, ps, advance=advance)
    if not feasible:
        tally = None
        if ctx.memo is not None:
            tally = ctx.memo.tally_for(failures)
        fit = FitError(pod.key, num_nodes, failures, None, tally)
        if trace is not None:
            _record_attempt(trace, pod.key, None, ())
        return ScheduleResult(pod.key, None, fit)
    if len(feasible) == 1:
        only = feasible[0]
        if trace is not None:
            trace.add("scheduler.score", f"{pod.key} on {only.name}", "only feasible node")
            _record_attempt(trace, pod.key, only.name, feasible)
        return ScheduleResult(pod.key, only.name, feasible=(only.name,))
    ctx.extra[FEASIBLE] = feasible
    pick = ctx.paths.vector_pick
    if pick is not None:
        # The same scores and choice as below, as array operations, when the
        # search found the nodes in the node vectors (None: score here).
        picked: ScheduleResult | None = pick(ctx, pod, feasible)
        if picked is not None:
            return picked
    raws: dict[str, tuple[int, list[int]]] | None = {} if trace is not None else None
    totals, per_rule = score_nodes(ctx, pod, feasible, raws)
    # Highest total; ties go to the first node in the scheduler's node order
    # (upstream: random).
    best = 0
    top = totals[0]
    for i in range(1, len(feasible)):
        t = totals[i]
        if t > top or (t == top and feasible[i].rank < feasible[best].rank):
            best, top = i, t
    names = tuple([n.node.name for n in feasible])
    if trace is not None:
        assert raws is not None
        _trace_scored(trace, pod.key, feasible[best].name, feasible, names, totals, per_rule,
                      raws)
    return ScheduleResult(
        pod.key, feasible[best].name, None, PerNode(names, totals),
        PerRule(names, per_rule), names,
    )


def _record_attempt(trace: TraceSink, pod: str, node: str | None, feasible: Sequence[NodeState],
                    scores: Any = None) -> None:
    """Keep one scheduling attempt for the JSON report, if the trace keeps attempts.

    Plain values only (formatted when the report is written): the time, the
    pod, the node chosen, the feasible nodes in the scheduler's node order,
    and ``(names, totals, ((rule, weight, raw, normalised), …))`` when nodes
    were scored.  Nothing per failed node is kept (the decisions carry the
    FailedScheduling message).
    """
    attempts = getattr(trace, "attempts", None)
    if attempts is None:
        return
    ordered = _rank_order(feasible, tuple([n.node.name for n in feasible])
                          if scores is None else scores[0])
    attempts.append((trace.now, pod, node, ordered, scores))


_RANK = attrgetter("rank")


def _rank_order(feasible: Sequence[NodeState], names: Sequence[str]) -> tuple[str, ...]:
    """``names`` (those of ``feasible``) in the scheduler's node order, by rank."""
    ranks = list(map(_RANK, feasible))
    return tuple(map(names.__getitem__, sorted(range(len(ranks)), key=ranks.__getitem__)))


def _trace_scored(trace: TraceSink, key: str, chosen: str, feasible: Sequence[NodeState],
                  names: tuple[str, ...], totals: Sequence[int],
                  per_rule: Mapping[str, Sequence[int]],
                  raws: Mapping[str, tuple[int, Sequence[int]]]) -> None:
    """A scored cycle's score entries and attempt, from one tuple per list of scores.

    A rule without NormalizeScore has one list for its raw and normalised
    scores: the trace keeps one tuple for both.
    """
    listed = {r: tuple(v) for r, v in per_rule.items()}
    summed = tuple(totals)
    _trace_scores(trace, key, names, summed, listed)
    _record_attempt(trace, key, chosen, feasible, (names, summed, tuple([
        (r, raws[r][0], v if raws[r][1] is per_rule[r] else tuple(raws[r][1]), v)
        for r, v in listed.items()])))


def _trace_scores(trace: TraceSink, key: str, names: Sequence[str], totals: Sequence[int],
                  per_rule: Mapping[str, Sequence[int]]) -> None:
    """One ``scheduler.score`` entry per scored node: the total and each rule's score.

    Recorded as a deferred group when the trace supports it, so the entries
    (the same, in the same order) are formatted only if the trace is read;
    formatting them eagerly cost more than scoring.
    """
    # Tuples of numbers and names: the collector stops tracking them, so the
    # trace keeping them until it is read costs full collections nothing; the
    # group is a partial of them, not a closure (whose cells stay tracked).
    rules = tuple([(r, v if type(v) is tuple else tuple(v)) for r, v in per_rule.items()])
    produce = functools.partial(score_entries, key, names if type(names) is tuple
                                else tuple(names), totals if type(totals) is tuple
                                else tuple(totals), rules)
    defer = getattr(trace, "defer", None)
    if defer is None:
        for entry in produce():
            trace.add(*entry)
    else:
        defer(len(names), produce)


def score_entries(key: str, names: Sequence[str], totals: Sequence[int],
                  rules: Sequence[tuple[str, Sequence[int]]]
                  ) -> Iterator[tuple[str, str, str, str]]:
    """The trace entries of a pod's scores: each node's total and each rule's share."""
    for i, name in enumerate(names):
        parts = ", ".join(f"{r}={v[i]}" for r, v in rules)
        yield "scheduler.score", f"{key} on {name}", str(totals[i]), parts


def schedule_pod(state: ClusterState, pod: Pod | PodState, profile: Profile | None = None,
                 *, trace: Trace | None = None) -> ScheduleResult:
    """Embed one scheduling decision: where would ``pod`` go in ``state`` now?

    Nothing in ``state`` is changed (not even the scheduler's node-search
    offset).  ``pod`` may be a :class:`Pod` not yet in the state (it is
    considered as if just created) or one of its pending
    :class:`PodState`\\ s.  See the module docstring for an example.  It stops
    at the filters and scores: no PostFilter, so no preemption; the public
    :func:`kruleset.schedule_pod` runs preemption too (``preempt=True``).
    """
    ps = pod if isinstance(pod, PodState) else PodState(pod, 1 << 62, state.now)
    ctx = ScheduleContext(state, profile or Profile.default(), trace, state.now)
    return schedule_one(ctx, ps, advance=False)


def feasible_names(result: ScheduleResult) -> Sequence[str]:
    """Names of the nodes that passed every filter."""
    return result.feasible


def node_list(state: ClusterState) -> list[NodeState]:
    """Nodes in the scheduler's node order (the node tree's; the tie-break order)."""
    return list(state.node_order())
