"""The filter search a chunk of nodes at a time: the fast form of the node-by-node search.

:func:`~kruleset.rules.scheduler.node_selection.find_feasible` visits nodes
one by one, running every filter on each: that loop is the reference.
:func:`search` (the fast path of the ``batch_search`` option of
:class:`~kruleset.rules.scheduler.framework.FastPaths`) finds the same nodes
with each filter's batch form (``Rule.batch``, declared beside the rule)
run once per chunk, records the same trace as one deferred group
(:mod:`.search_trace`), and keeps searches where no node fits in the cycle
cache (``ctx.memo``), answering the next such search from it.  The same
feasible nodes, failures, start offset and trace as the reference, checked by
``tests/test_find_feasible_batched.py`` and ``test_topology_filters_batched.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState, PodState

from ...engine import ActiveRuleSet, Failure
from ..framework import FILTERS, ScheduleContext
from ..node_selection import NOMINATED_KEY, OVERLAY, run_filters_with_nominated, run_rules
from .lazy import Lazy, names_from
from .search_trace import (
    FilterRules,
    nominated_recorded,
    order_names,
    rule_places,
    trace_kept,
    trace_search,
)
from .vector_search import Feasible

if TYPE_CHECKING:
    from .cycle_cache import TraceInfo

__all__ = ["batch_forms", "find_batched", "judge_traced", "search"]

# Nodes filtered together per batch when many must still be found: large
# enough to amortise each rule's call, small enough not to filter many nodes
# past the point where the search stops.
MIN_CHUNK = 32


def search(ctx: ScheduleContext, rules: FilterRules, pod: Pod, order: Sequence[NodeState],
           start: int,
           to_find: int, failures: dict[str, Failure]
           ) -> tuple[Sequence[NodeState], dict[str, Failure], int | None] | None:
    """The search of ``order`` from ``start`` for ``to_find`` nodes, or None if it cannot take it.

    Returns the feasible nodes, the failures (``failures`` filled in, or the
    cycle cache's when it answered) and the number of nodes given a status,
    which is None when the cache answered that every node fails (the start
    offset then stays where it is).  None: an overlay is in force or the
    trace cannot defer (a caller's own recorder); the node-by-node search
    runs instead.
    """
    trace = ctx.trace
    if OVERLAY in ctx.extra or (trace is not None and not hasattr(trace, "defer")):
        return None
    noms: Mapping[str, list[PodState]] = ctx.extra[NOMINATED_KEY]
    memo = ctx.memo if isinstance(ctx, ScheduleContext) else None
    key = None
    if memo is not None:
        key = memo.filters_key(ctx, pod)
        if key is not None:
            def judge(node: NodeState) -> Failure | None:
                if noms and node.name in noms:
                    return run_filters_with_nominated(ctx, pod, node)
                return run_rules(ctx, rules, pod, node)

            if trace is None:
                hit = memo.all_failed(key, order, start, judge)
                if hit is not None:
                    return [], hit, None
            else:
                kept = memo.all_failed_traced(
                    key, order, start, rule_places(rules)[0],
                    lambda node: judge_traced(ctx, rules, pod, node))
                if kept is not None:
                    failed, base, since, odd, count = kept
                    trace_kept(trace, pod, rules, base, odd, since, count)
                    return [], failed, None
    fail_at: dict[str, int] | None = {} if trace is not None else None
    nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None = (
        {} if trace is not None else None)
    vectors = ctx.paths.vector_search
    found = vectors(ctx, rules, pod, order, start, to_find, failures, fail_at,
                    nom_entries) if vectors is not None else None
    if found is None:
        found = find_batched(ctx, rules, pod, order, start, to_find, failures, fail_at,
                             nom_entries)
    feasible, processed, extra = found
    if trace is not None and fail_at is not None and nom_entries is not None:
        vector = feasible if isinstance(feasible, Feasible) else None  # its node names
        node_names = (vector.vectors.names if vector is not None
                      else order_names(memo, order))
        trace_search(trace, pod, rules, order, start, processed + extra, failures,
                     fail_at, nom_entries, node_names)
        if vector is not None and node_names is not None and not failures:
            # Every node visited fits: the feasible nodes' names are the first ones
            # visited, kept for the scores' trace (one tuple less per traced pod).
            vector.names = Lazy(names_from, node_names, start, len(vector))
    if key is not None and memo is not None and not feasible and processed == len(order):
        if fail_at is None or nom_entries is None:
            memo.keep_all_failed(key, failures, start)
        else:
            subject = f"{pod.key} on {{}}"
            info: dict[str, TraceInfo] = {
                name: ((nom_entries[name], subject.format(name)) if name in nom_entries
                       else (fail_at[name], f.reason))
                for name, f in failures.items()}
            memo.keep_all_failed_traced(key, failures, start, rule_places(rules)[0], info)
    return feasible, failures, processed


BatchForms = dict[Callable[..., Any], Callable[..., Any]]
# The last active filter set asked about (a profile keeps its own) and its batch forms.
_LAST: list[tuple[ActiveRuleSet, BatchForms]] = []


def batch_forms(ctx: ScheduleContext) -> BatchForms:
    """The enabled filters' batch forms (``Rule.batch``), by rule function."""
    active = ctx.profile.active(FILTERS.name)
    if not _LAST or _LAST[0][0] is not active:
        _LAST[:] = [(active, {a.rule.fn: a.rule.batch for a in active.rules
                              if a.rule.batch is not None})]
    return _LAST[0][1]


def find_batched(ctx: ScheduleContext, rules: FilterRules, pod: Pod, order: Sequence[NodeState],
                 start: int, to_find: int,
                 failures: dict[str, Failure], fail_at: dict[str, int] | None = None,
                 nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None = None
                 ) -> tuple[list[NodeState], int, int]:
    """The node-by-node search, a chunk of nodes at a time.

    Each rule runs once per chunk on the nodes that passed the rules before it
    (the first failure per node wins, as node by node); then the chunk is
    walked in order and the search stops exactly where the node-by-node loop
    would, so feasible nodes, recorded failures and the number of nodes
    processed are identical.  Rules are pure functions of the cluster, so
    evaluating a few nodes past the stopping point changes nothing.
    Returns the feasible nodes, the number of nodes processed (given a
    status) and 1 if the search stopped on one more feasible node (filtered
    but not kept, as the node-by-node search), else 0; with
    ``fail_at``, also which rule (its position) failed each failed node, and
    with ``nom_entries`` the trace entries of each node with nominated pods
    (checked one by one, recorded apart so they can be replayed in order).
    """
    n = len(order)
    noms: Mapping[str, list[PodState]] = ctx.extra[NOMINATED_KEY]
    feasible: list[NodeState] = []
    processed = 0
    pos = 0
    forms = batch_forms(ctx)
    batches = [(k, forms.get(fn), fn, args, name) for k, (fn, args, name) in enumerate(rules)]
    failed_at: dict[int, int] = {}
    while pos < n:
        # Once enough fit, the search goes on to the next node that fits: one
        # node more than still needed, so that where every node fits a single
        # chunk ends the search.
        need = to_find - len(feasible)
        size = min(n - pos, max(need + 1, MIN_CHUNK))
        a = (start + pos) % n
        b = a + size
        chunk = order[a:b] if b <= n else [*order[a:], *order[:b - n]]
        alive: Sequence[NodeState] = chunk
        failed: dict[int, Failure] = {}
        if noms:
            alive = _check_nominated(ctx, pod, chunk, noms, failed, nom_entries)
        for k, batch, fn, args, name in batches:
            if not alive:
                break
            res = batch(ctx, args, pod, alive) if batch is not None else [
                fn(ctx, args, pod, node) for node in alive]
            if res is None:
                continue
            survivors = []
            # A batch may return one Failure object for many nodes; name it once
            # (``res`` keeps every original alive, so the ids stay distinct).
            named: dict[int, Failure] = {}
            for node, f in zip(alive, res, strict=True):
                if f is None:
                    survivors.append(node)
                else:
                    if not f.rule:
                        g = named.get(id(f))
                        if g is None:
                            g = named[id(f)] = Failure(f.reason, f.code, name, f.detail)
                        f = g
                    failed[id(node)] = f
                    if fail_at is not None:
                        failed_at[id(node)] = k
            alive = survivors
        for node in chunk:
            f = failed.get(id(node)) if failed else None
            if f is None:
                if len(feasible) >= to_find:
                    return feasible, processed, 1
                feasible.append(node)
            else:
                failures[node.name] = f
                if fail_at is not None and id(node) in failed_at:
                    fail_at[node.name] = failed_at[id(node)]
            processed += 1
        pos += size
    return feasible, processed, 0


def _check_nominated(ctx: ScheduleContext, pod: Pod, chunk: Sequence[NodeState],
                     noms: Mapping[str, list[PodState]], failed: dict[int, Failure],
                     nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None
                     ) -> list[NodeState]:
    """Upstream's two-pass check, one by one, on the chunk's nodes with nominated pods.

    Their failures go into ``failed`` (by node id), what each recorded into
    ``nom_entries`` when the search is traced; the other nodes are returned
    for the batch forms.
    """
    alive = []
    for node in chunk:
        if node.name not in noms:
            alive.append(node)
            continue
        if nom_entries is not None:
            f, nom_entries[node.name] = nominated_recorded(ctx, pod, node)
        else:
            f = run_filters_with_nominated(ctx, pod, node)
        if f is not None:
            failed[id(node)] = f
    return alive


def judge_traced(ctx: ScheduleContext, rules: FilterRules, pod: Pod, node: NodeState
                 ) -> tuple[Failure | None, TraceInfo | None]:
    """One node judged as the traced search judges it: its failure and what it records."""
    failures: dict[str, Failure] = {}
    fail_at: dict[str, int] = {}
    nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] = {}
    if find_batched(ctx, rules, pod, [node], 0, 1, failures, fail_at, nom_entries)[0]:
        return None, None
    f = failures[node.name]
    recorded = nom_entries.get(node.name)
    if recorded is not None:
        return f, (recorded, f"{pod.key} on {node.name}")
    return f, (fail_at[node.name], f.reason)
