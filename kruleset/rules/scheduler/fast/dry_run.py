"""DefaultPreemption's dry run with the cycle cache: judgements kept across cycles.

The reference dry run (the evaluator's
:func:`~kruleset.rules.scheduler.preemption.evaluator.dry_run_preemption` with
:class:`~kruleset.rules.scheduler.preemption.defaultpreemption.DefaultJudge`)
judges each potential node in turn and the pick compares every candidate.
This one (the ``dry_run`` fast path of the ``cycle_cache`` option of
:class:`~kruleset.rules.scheduler.framework.FastPaths`) decides the same, faster:

* a node's judgement is kept in the cycle cache (``ctx.memo``) for the next
  preemptor of the same shape until the node changes;
* the judged nodes are indexed by their place among the potential nodes
  (:class:`~kruleset.rules.scheduler.fast.candidates.CandidateIndex`), which
  gives where the walk stops, the candidates it holds and, with the default
  pick criteria, the two best of them without a walk;
* without a cache entry, a node with no lower-priority pod is told apart by the
  least priority there, without looking at its pods;
* with the victim arithmetic, a node that is no candidate gets its exact
  failure only when the statuses are read (:class:`_Statuses`);
* traced, what each judgement recorded is kept with it and replayed.

The same candidates, pick, statuses and trace as the reference, checked by
``tests/test_cycle_cache.py``, ``tests/test_candidate_index.py`` and
``tests/test_preemption_fastpath.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState, PodState

from ...engine import Failure
from ..framework import ScheduleContext
from ..preemption.defaultpreemption import PLUGIN, DefaultJudge
from ..preemption.evaluator import DryRun, NodeVictims, Pick, outcome
from ..preemption.pick import PICK, PRIORITY_SHIFT, decide_by_keys, default_pick_key, is_default
from ..preemption.postfilter import Candidate
from ..preemption.victims import (
    NO_VICTIMS_FAILURE,
    PdbBudget,
    VictimPredicate,
    select_or_defer,
    select_victims_on_node,
)
from . import cycle_cache
from .candidates import CandidateIndex, Visits, Window
from .plan import fast_plan
from .recorder import Recorder, producer

__all__ = ["CachedJudge"]


class CachedJudge(DefaultJudge):
    """DefaultPreemption's dry run answered from the cycle cache where it can (see the
    module): the whole dry run from the candidate index, or the walk with each node's
    least pod priority kept and the victim arithmetic's failures deferred."""

    def __init__(self, ctx: ScheduleContext, ps: PodState, nodes: Sequence[NodeState],
                 budgets: Sequence[PdbBudget], may_be_victim: VictimPredicate | None) -> None:
        super().__init__(ctx, ps, nodes, budgets, may_be_victim)
        self.bounds: dict[str, Any] | None = None
        if may_be_victim is None and isinstance(ctx, ScheduleContext) and ctx.memo is not None:
            self.bounds = cycle_cache.pick_bounds(ctx.memo)
        self.prio = ps.pod.effective_priority
        self.from_index = False

    def victim_plan(self, ctx: ScheduleContext, pod: Pod) -> Any:
        """The arithmetic's plan, which keys the kept judgements even with the victim
        arithmetic off."""
        return fast_plan(ctx, pod, traced=True)

    def whole(self, nodes: Sequence[NodeState], offset: int, wanted: int) -> DryRun | None:
        """The dry run from the kept judgements' index, when the pod's shape has one."""
        ctx, pod, plan = self.ctx, self.ps.pod, self.plan
        if (plan is None or self.may_be_victim is not None or offset != 0 or wanted <= 0
                or not isinstance(ctx, ScheduleContext)):
            return None
        key = cycle_cache.victims_key(ctx, pod, self.budgets)
        if key is None:
            return None
        self.from_index = True
        return _from_index(ctx, pod, nodes, self.budgets, wanted, key, self.order, plan)

    def select_victims_on_node(self, node: NodeState) -> NodeVictims | Failure | None:
        """No victim where the node's least pod priority says so; a failure the arithmetic
        finds is left to be built when read (None)."""
        bounds = self.bounds
        if bounds is not None:
            least = cycle_cache.pick_bound(bounds, node, PRIORITY_SHIFT)
            if least is None or least[1] >= self.prio:
                return NO_VICTIMS_FAILURE
        return select_or_defer(self.ctx, self.ps.pod, node, self.budgets,
                               may_be_victim=self.may_be_victim, order=self.order,
                               plan=self.plan)

    def finish(self, run: DryRun) -> DryRun:
        """The walk's failures built when read (at once when traced or no candidate)."""
        if not self.from_index:
            failed: dict[str, Failure | None] = dict(run.statuses)
            statuses = _Statuses(self.ctx, self.ps.pod, self.budgets, self.may_be_victim,
                                 self.order, len(failed), functools.partial(dict.copy, failed))
            if self.ctx.trace is not None or not run.candidates:
                statuses.resolve()  # read at once by the caller: build them now
            run = attrs.evolve(run, statuses=statuses)
        return super().finish(run)


def judge(ctx: ScheduleContext, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget], order: Any,
          plan: Any) -> Candidate | Failure | None:
    """One node of the dry run: a candidate or its failure; None for a node the
    arithmetic knows is no candidate (the exact failure left for later)."""
    found = select_or_defer(ctx, pod, node, budgets, order=order, plan=plan)
    return outcome(found, node.name, PLUGIN)


# --- from the cycle cache: the candidate index ------------------------------------------------

def _from_index(ctx: ScheduleContext, pod: Pod, nodes: Sequence[NodeState],
                budgets: Sequence[PdbBudget],
                wanted: int, key: Hashable, order: Any, plan: Any) -> DryRun:
    """The dry run from the kept judgements' index (brought up to date first)."""
    memo = ctx.memo
    kept, extra, changed = cycle_cache.victims_state(memo, key)
    log = cycle_cache.judgement_log(extra) if ctx.trace is not None else None
    keyed = is_default(ctx, ctx.profile.active(PICK.name))
    index: CandidateIndex | None = extra.get("index")
    if index is None or index.nodes is not nodes or index.keyed != keyed:
        # Another potential-nodes sequence: a new index (the judgements stay kept).
        index = extra["index"] = CandidateIndex(nodes, log, keyed)
    else:
        index.changed(changed)
    memo.hits += 1
    w = index.query(wanted, _keeper(ctx, pod, budgets, order, plan, kept, log),
                    default_pick_key(ctx) if keyed else None)
    candidates = index.candidates(w)
    pick = _pick(index, w, candidates) if keyed and candidates else None
    if log is None:
        statuses = _Statuses(ctx, pod, budgets, None, order, w.failed, functools.partial(
            _failures_of, nodes, index.results[:w.visited], None))
        if not candidates:
            statuses.resolve()  # read at once by the caller: build them now
        return DryRun(candidates, statuses, w.visited, wanted, pick=pick)
    # Traced: what the visited nodes kept, made only when read (the trace keeps it
    # for every preemptor).
    visits = index.visits(w)
    statuses = _Statuses(ctx, pod, budgets, None, order, w.failed, functools.partial(
        _failures_visited, nodes, visits))
    assert index.sums is not None
    _replay_all(ctx.trace, pod.key, visits, index.sums.prefix(w.visited))
    return DryRun(candidates, statuses, w.visited, wanted, pick=pick, visits=visits)


def _keeper(ctx: ScheduleContext, pod: Pod, budgets: Sequence[PdbBudget], order: Any, plan: Any,
            kept: dict[str, Any], log: list[tuple[Any, ...]] | None
            ) -> Callable[[NodeState], Any]:
    """What the index keeps for a node: its kept judgement, judged now if there is none
    (traced: its place in ``log``, the judgement appended with what it recorded)."""
    def keep(node: NodeState) -> Any:
        got = kept.get(node.name, _MISSING)
        if got is not _MISSING:
            ctx.memo.hits += 1
            return got
        if log is None:
            got = judge(ctx, pod, node, budgets, order, plan)
        else:
            got = len(log)
            log.append(_judge_traced(ctx, pod, node, budgets, order, plan))
        kept[node.name] = got
        return got

    return keep


def _pick(index: CandidateIndex, w: Window, candidates: tuple[Candidate, ...]) -> Pick:
    """The default criteria's pick among the window's candidates, from the index."""
    place, best, runner = index.best_two(w)
    decided = "" if runner is None else decide_by_keys(best, runner)
    return Pick(candidates[place], decided, place)


def _failures_visited(nodes: Sequence[NodeState], visits: Visits
                      ) -> dict[str, Failure | None]:
    """:func:`_failures_of` a traced dry run's visits."""
    return _failures_of(nodes, visits.own(), visits.log)


def _failures_of(nodes: Sequence[NodeState], kept: Sequence[Any],
                 log: Sequence[tuple[Any, ...]] | None) -> dict[str, Failure | None]:
    """The failed nodes among the first ``len(kept)`` of ``nodes``, in order."""
    out: dict[str, Failure | None] = {}
    for node, k in zip(nodes, kept, strict=False):
        got = log[k][0] if log is not None else k
        if not isinstance(got, Candidate):
            out[node.name] = got
    return out


# --- the statuses, built when read ------------------------------------------------------------

class _Statuses(Mapping[str, Failure]):
    """The dry run's failed nodes, in visiting order, with their failures.

    ``build`` gives them (a failure the fast path left to be built is None);
    they are built when first read, a deferred failure by the general path
    then: read them before the cluster changes.
    """

    def __init__(self, ctx: ScheduleContext, pod: Pod, budgets: Sequence[PdbBudget],
                 may_be_victim: VictimPredicate | None, order: Any, size: int,
                 build: Callable[[], dict[str, Failure | None]]) -> None:
        self._args = (ctx, pod, budgets, may_be_victim, order)
        self._size = size
        self._build: Callable[[], dict[str, Failure | None]] | None = build
        self._failed: dict[str, Failure | None] = {}

    def resolve(self) -> dict[str, Failure | None]:
        """Build every failure; the complete mapping."""
        if self._build is not None:
            failed = self._failed = self._build()
            self._build = None
            ctx, pod, budgets, may_be_victim, order = self._args
            state = ctx.state
            for name, f in failed.items():
                if f is None:
                    got = select_victims_on_node(ctx, pod, state.nodes[name], budgets,
                                                 may_be_victim=may_be_victim, order=order,
                                                 plan=None)
                    assert isinstance(got, Failure), "a deferred node must stay no candidate"
                    failed[name] = got
        return self._failed

    def __getitem__(self, name: str) -> Failure:
        f = self.resolve()[name]
        assert f is not None
        return f

    def __iter__(self) -> Iterator[str]:
        return iter(self.resolve())

    def __len__(self) -> int:
        return self._size


# --- traced: what the kept judgements recorded, replayed ----------------------------------

def _replay_all(trace: Any, key: str, visits: Visits, count: int) -> None:
    """Record, as one deferred group, what the judgements' recorders kept, for pod ``key``.

    The visited judgements are places in ``visits.log``, each (result, entries,
    count, subject recorded, node name): every entry whose subject is the one
    recorded (the recording pod's ``"<pod> on <node>"``) reads ``"<key> on
    <node name>"`` instead.  ``count`` is the sum of their counts.
    """
    if not count:
        return
    # A partial of plain values rather than a closure: one object fewer per cell
    # for every full collection to walk while the trace keeps it.
    trace.defer(count, functools.partial(_replayed, key, visits))


def _replayed(key: str, visits: Visits) -> Iterator[tuple[str, str, str, str]]:
    log = visits.log
    for at in visits.own():
        _, items, n, old, node = log[at]
        if not n:
            continue
        new = f"{key} on {node}"
        for item in items:
            group: Iterable[tuple[str, str, str, str]] = (
                (item,) if len(item) == 4 else producer(item[1])(*item[2]))
            for rule, subject, result, why in group:
                yield rule, (new if subject == old else subject), result, why


_MISSING: Any = object()


def _judge_traced(ctx: ScheduleContext, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget],
                  order: Any, plan: Any) -> tuple[Any, ...]:
    """:func:`judge` with tracing, kept with what it recorded for the next pod of the
    shape: (result, entries, their number, the subject they name the pod by, node)."""
    saved = ctx.trace
    assert saved is not None
    recorder = Recorder(saved.now)
    # The recorder stands in for the trace while the node is judged (it takes the
    # trace's add and defer).
    ctx.trace = recorder  # type: ignore[assignment]
    try:
        result = judge(ctx, pod, node, budgets, order, plan)
    finally:
        ctx.trace = saved
    # A tuple of what was recorded (tuples of plain values): the collector stops
    # tracking it, though the log keeps one per node judged.
    return (result, tuple(recorder.items), recorder.count, f"{pod.key} on {node.name}",
            node.name)
