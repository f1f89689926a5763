"""DefaultPreemption's dry run with the cycle cache: judgements kept across cycles.

The reference dry run (:func:`kruleset.rules.scheduler.preemption.defaultpreemption.dry_run`)
judges each potential node in turn.  This one (the ``dry_run`` fast path of
the ``cycle_cache`` option of :class:`~kruleset.rules.scheduler.framework.FastPaths`)
decides the same, faster:

* a node's judgement is kept in the cycle cache (``ctx.memo``) for the next
  preemptor of the same shape until the node changes, and the leading run of
  nodes that were no candidate is copied at once;
* a node with no lower-priority pod is told apart by the least priority
  there, without looking at its pods;
* with the victim arithmetic, a node that is no candidate gets its exact
  failure only when the statuses are read (:class:`_Statuses`);
* traced, what each judgement recorded is kept with it and replayed.

The same candidates, statuses and trace as the reference, checked by
``tests/test_cycle_cache.py`` and ``tests/test_preemption_fastpath.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState

from ...engine import Failure
from ..dispatch import fast_path
from ..framework import ScheduleContext
from ..preemption.defaultpreemption import judge
from ..preemption.evaluator import DryRun
from ..preemption.pick import PRIORITY_SHIFT
from ..preemption.postfilter import Candidate
from ..preemption.victims import (
    NO_VICTIMS_FAILURE,
    VICTIMS,
    PdbBudget,
    VictimPredicate,
    select_victims_on_node,
)
from . import cycle_cache
from .plan import fast_plan

__all__ = ["dry_run"]


@fast_path("cycle_cache", "dry_run")
def dry_run(ctx: Any, pod: Pod, nodes: Sequence[NodeState], budgets: Sequence[PdbBudget],
            offset: int, wanted: int, *, may_be_victim: VictimPredicate | None = None,
            statuses: Mapping[str, Failure] | None = None) -> DryRun:
    """The reference :func:`~kruleset.rules.scheduler.preemption.defaultpreemption.dry_run`,
    answered from the cycle cache where it can (see the module)."""
    n = len(nodes)
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    failed: dict[str, Failure | None] = {}
    order = ctx.profile.active(VICTIMS.name)
    plan = fast_plan(ctx, pod, traced=True)  # once for every node of the dry run
    kept: dict[str, Any] | None = None
    keys: dict[str, tuple[int, ...]] | None = None
    if plan is not None and may_be_victim is None and isinstance(ctx, ScheduleContext):
        key = cycle_cache.victims_key(ctx, pod, budgets)
        if key is not None:
            kept, keys = cycle_cache.victims_and_keys(ctx.memo, key)
    # Otherwise, in a simulation, a node without a lower-priority pod is told
    # apart by the least priority there (kept per node until it is touched).
    bounds: dict[str, Any] | None = None
    if (kept is None and may_be_victim is None and isinstance(ctx, ScheduleContext)
            and ctx.memo is not None):
        bounds = cycle_cache.pick_bounds(ctx.memo)
    prio = pod.effective_priority
    visited = 0
    trace = ctx.trace
    # Traced from the cache: judgements are kept in a log and nodes hold their
    # place in it; the trace keeps plain numbers (which the collector does not
    # track) for each preemptor's visits, not thousands of references.
    replays: list[int] | None = None
    lead: list[int] = []  # the places of the prefix's nodes (see below)
    lead_size = 0
    log: list[tuple[Any, ...]] = []
    chosen: tuple[list[int], list[int]] = ([], [])
    if trace is not None and kept is not None:
        replays = []
        log = cycle_cache.judgement_log(ctx.memo, key)
    replayed = 0
    # From the cache, walking from the first node: the leading nodes that were no
    # candidate last time and did not change are copied, not looked up one by one.
    prefix: cycle_cache.Prefix | None = None
    pending = False
    first = 0
    if kept is not None and offset == 0:
        prefix = cycle_cache.prefix_for(ctx.memo, key, nodes)
        first = visited = len(prefix.failed)
        failed = dict(prefix.failed)
        pending = prefix.pending
        if replays is not None:
            # The prefix's places are read from its list (only ever appended to).
            lead, lead_size = prefix.replays, len(prefix.replays)
            replayed = prefix.replayed
    leading = prefix is not None  # still in the run of failing nodes from the first
    for i in range(first, n):
        node = nodes[(offset + i) % n]
        visited += 1
        if replays is not None:
            assert kept is not None
            at = kept.get(node.name)
            if at is None:
                at = kept[node.name] = len(log)
                log.append(_judge_traced(ctx, pod, node, budgets, order, plan))
            else:
                ctx.memo.hits += 1
            seen = log[at]
            replays.append(at)
            replayed += seen[2]
            got = seen[0]
        elif kept is not None:
            got = kept.get(node.name, _MISSING)
            if got is _MISSING:
                got = kept[node.name] = judge(ctx, pod, node, budgets, may_be_victim, order,
                                               plan)
            else:
                ctx.memo.hits += 1
        else:
            if bounds is not None:
                least = cycle_cache.pick_bound(bounds, node, PRIORITY_SHIFT)
                if least is None or least[1] >= prio:
                    failed[node.name] = NO_VICTIMS_FAILURE
                    continue
            got = judge(ctx, pod, node, budgets, may_be_victim, order, plan)
        if got is None or isinstance(got, Failure):
            failed[node.name] = got
            if got is None:
                pending = True
            if leading:
                assert prefix is not None
                prefix.failed[node.name] = got
                prefix.pending = pending
                if replays is not None:
                    prefix.replays.append(replays[-1])
                    prefix.replayed = replayed
            continue
        leading = False
        c = got
        if c.num_pdb_violations == 0:
            if len(non_violating) < wanted:
                non_violating.append(c)
                if replays is not None:
                    chosen[0].append(len(replays) - 1)
        elif len(violating) < wanted:
            violating.append(c)
            if replays is not None:
                chosen[1].append(len(replays) - 1)
        if non_violating and len(non_violating) + len(violating) >= wanted:
            break
    visits = None
    if replays is not None:
        # One record for both what the nodes recorded and the dry run's trace entries.
        visits = (log, lead, lead_size, tuple(replays), tuple(chosen[0] + chosen[1]))
        cycle_cache.replay_all(trace, pod.key, log, (lead, lead_size, visits[3]), replayed)
    statuses = _Statuses(ctx, pod, budgets, may_be_victim, order, failed, pending)
    if ctx.trace is not None or not (non_violating or violating):
        statuses.resolve()  # read at once by the caller: build them now
    return DryRun(tuple(non_violating + violating), statuses, visited, wanted, keys, visits)


class _Statuses(Mapping[str, Failure]):
    """The dry run's failed nodes, in visiting order, with their failures.

    A node the fast path found to be no candidate has its exact failure (the
    general path's) built only when the statuses are first read; read them
    before the cluster changes.
    """

    def __init__(self, ctx: Any, pod: Pod, budgets: Sequence[PdbBudget],
                 may_be_victim: VictimPredicate | None, order: Any,
                 failed: dict[str, Failure | None], pending: bool) -> None:
        self._args = (ctx, pod, budgets, may_be_victim, order)
        self._failed = failed
        self._pending = pending  # some failure is None (built on first read)

    def resolve(self) -> dict[str, Failure | None]:
        """Build every deferred failure; the complete mapping."""
        if self._pending:
            ctx, pod, budgets, may_be_victim, order = self._args
            state = ctx.state
            for name, f in self._failed.items():
                if f is None:
                    got = select_victims_on_node(ctx, pod, state.nodes[name], budgets,
                                                 may_be_victim=may_be_victim, order=order,
                                                 plan=None)
                    assert isinstance(got, Failure), "a deferred node must stay no candidate"
                    self._failed[name] = got
            self._pending = False
        return self._failed

    def __getitem__(self, name: str) -> Failure:
        f = self.resolve()[name]
        assert f is not None
        return f

    def __iter__(self) -> Iterator[str]:
        return iter(self._failed)

    def __len__(self) -> int:
        return len(self._failed)


_MISSING: Any = object()


def _judge_traced(ctx: Any, pod: Pod, node: NodeState, budgets: Sequence[PdbBudget],
                  order: Any, plan: Any) -> tuple[Any, ...]:
    """:func:`judge` with tracing, kept with what it recorded for the next pod of the
    shape: (result, entries, their number, the subject they name the pod by, node)."""
    recorder = cycle_cache.Recorder(ctx.trace.now)
    saved, ctx.trace = ctx.trace, recorder
    try:
        result = judge(ctx, pod, node, budgets, None, order, plan)
    finally:
        ctx.trace = saved
    return result, recorder.items, recorder.count, f"{pod.key} on {node.name}", node.name
