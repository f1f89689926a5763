"""The trace of a filter search answered by the fast paths, built only when read.

The node-by-node search (:func:`~kruleset.rules.scheduler.node_selection.find_feasible`
without the batch search) records each rule's ``pass`` or ``fail`` as it
goes.  The batch search and the cycle cache find the same nodes without
running each rule on each node, so they record the same entries another
way: as one deferred group per search (:meth:`~kruleset.rules.engine.Trace.defer`),
made from what failed each node and where, in the node-by-node loop's order,
only when the trace is read.  A node with nominated pods is checked one by
one into a :class:`Recorder` and its entries replayed as recorded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState

from ...engine import Failure
from ..framework import ScheduleContext
from ..node_selection import run_filters_with_nominated
from .lazy import Lazy, names_from

if TYPE_CHECKING:
    from .cycle_cache import Changes, TraceInfo

__all__ = ["FilterRules", "Recorder", "order_names", "rule_places", "trace_kept", "trace_search",
           "up_to"]

# The filters a search runs: (rule function, its args, its name), in order.
FilterRules = Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]]


class Recorder:
    """Collects the entries one node's nominated-pods check records, for replay."""

    __slots__ = ("items", "now")

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str, str]] = []
        self.now = 0

    def add(self, rule: str, subject: str, result: str, why: str = "") -> None:
        self.items.append((rule, subject, result, why))

    def __bool__(self) -> bool:
        return True


def nominated_recorded(ctx: ScheduleContext, pod: Pod, node: NodeState
                       ) -> tuple[Failure | None, tuple[tuple[str, str, str, str], ...]]:
    """Upstream's two-pass check on a node with nominated pods, and what it recorded.

    A traced search keeps the entries apart, to replay them in visiting order:
    as a tuple of tuples of strings, which the collector stops tracking.
    """
    buffer = Recorder()
    # The recorder stands in for the trace (it takes the trace's add and defer).
    saved, ctx.trace = ctx.trace, buffer  # type: ignore[assignment]
    try:
        f = run_filters_with_nominated(ctx, pod, node)
    finally:
        ctx.trace = saved
    return f, tuple(buffer.items)


def trace_kept(trace: Any, pod: Pod,
                rules: FilterRules,
                base: Mapping[str, Failure], odd: Mapping[str, TraceInfo],
                since: tuple[Changes, int], count: int) -> None:
    """Record a search answered from the cache: the entries :func:`trace_search` makes,
    in visiting order (that of ``base``; nothing changes ``base`` and ``odd``
    afterwards; the first ``since[1]`` of the shared changes ``since[0]`` are the
    nodes changed after they were taken): from each failure (the rules before
    the failing one passed), or from the node's kept
    :data:`~kruleset.rules.scheduler.fast.TraceInfo` where there is one.

    The group is a :func:`functools.partial` of plain values, not a closure:
    a trace keeps one per search until read, and each closure cell is one more
    object every full collection walks.
    """
    names, at = rule_places(rules)
    trace.defer(count, functools.partial(_kept_entries, names, at, pod.key, base, odd,
                                         *since))


_NOTHING: Mapping[str, Any] = MappingProxyType({})


def rule_places(rules: FilterRules
                 ) -> tuple[tuple[str, ...], Mapping[str, int]]:
    """The names of the rules a search runs, and each name's place among them."""
    return _places(tuple([name for _, _, name in rules]))


@functools.lru_cache(maxsize=64)
def _places(names: tuple[str, ...]) -> tuple[tuple[str, ...], Mapping[str, int]]:
    return names, MappingProxyType({name: i for i, name in enumerate(names)})


def _kept_entries(names: Sequence[str], at: Mapping[str, int], key: str,
                  base: Mapping[str, Failure], odd: Mapping[str, TraceInfo],
                  changes: Changes, seen: int) -> Iterator[tuple[str, str, str, str]]:
    # Later changes of a node replace earlier ones; the list may have grown since.
    since = dict(changes[:seen]) if seen else None
    for node, f in base.items():
        changed = since.get(node) if since else None
        if changed is None:
            rule, reason, info = f.rule, f.reason, odd.get(node)
        else:
            rule, reason, info = changed
        subject = f"{key} on {node}"
        if info is None:
            yield from up_to(names, subject, at[rule], reason)
        elif isinstance(info[0], int):
            yield from up_to(names, subject, info[0], info[1])
        else:
            for rule, was, result, why in info[0]:
                yield rule, (subject if was == info[1] else was), result, why


def up_to(names: Sequence[str], subject: str, failed: int | None, why: str = ""
           ) -> Iterator[tuple[str, str, str, str]]:
    """One node's entries of a search: ``pass`` per rule, up to ``names[failed]``'s
    ``fail`` (every rule passes when ``failed`` is None)."""
    if failed is None:
        for name in names:
            yield name, subject, "pass", ""
        return
    for name in names[:failed]:
        yield name, subject, "pass", ""
    yield names[failed], subject, "fail", why


# Where the cycle cache keeps the node names of the last node order a traced search read.
_ORDER_NAMES = "trace.order_names"


def order_names(memo: Any, order: Sequence[NodeState]) -> Sequence[str] | None:
    """The names of ``order``'s nodes, kept in the cycle cache ``memo`` for the next
    traced search of the same order (None without a cache).

    The node order is a new list whenever it changes, and a node's name never
    changes, so the names hold while ``order`` is the same object; a traced
    search then slices them instead of reading every node visited.
    """
    if memo is None:
        return None
    kept = memo.extra.get(_ORDER_NAMES)
    if kept is not None and kept[0] is order:
        return kept[1]  # type: ignore[no-any-return]
    names = [node.node.name for node in order]
    memo.extra[_ORDER_NAMES] = (order, names)
    return names


def trace_search(trace: Any, pod: Pod,
                  rules: FilterRules,
                  order: Sequence[NodeState], start: int, processed: int,
                  failures: Mapping[str, Failure], fail_at: Mapping[str, int],
                  nom_entries: Mapping[str, Sequence[tuple[str, str, str, str]]],
                  node_names: Sequence[str] | None = None) -> Sequence[str]:
    """Record the search's trace as one deferred group of the node-by-node entries.

    The entries (per node visited, each rule ``pass`` until the one that
    fails) are exactly those of the node-by-node loop, in its order;
    they are only built when the trace is read, so tracing a 5,000-node
    search costs a few microseconds per node instead of an object per rule.
    ``node_names``, the names of ``order``'s nodes when the caller keeps
    them (a list that is replaced, never changed), saves reading each node:
    the trace then keeps them and where the search started, and slices them
    only when read.  Returns the names of the nodes visited.
    """
    names = [name for _, _, name in rules]
    n = len(order)
    end = start + processed
    # Names only: a tuple of strings, which the collector stops tracking, is what
    # the trace keeps until it is read, or the caller's list and a place in it.
    visiting: Sequence[str]
    if node_names is not None:
        visiting = Lazy(names_from, node_names, start, processed)
    else:
        nodes = order[start:end] if end <= n else [*order[start:], *order[:end - n]]
        visiting = tuple([node.name for node in nodes])
    width = len(names)
    # Every node visited makes ``width`` entries, except a failed one (up to the
    # rule that failed it) and one with nominated pods (what it recorded).
    count = width * processed
    for k in fail_at.values():
        count -= width - k - 1
    if nom_entries:
        # Nominated nodes may have been checked past the node where the search stopped.
        visited = set(visiting)
        for name, recorded in nom_entries.items():
            if name in visited:
                count += len(recorded) - width
    # A partial of plain values, not a closure: see trace_kept.
    # Empty mappings (every node visited fits) are replaced by one shared: nothing
    # reads them, and each kept dict is one more object for full collections.
    trace.defer(count, functools.partial(_search_entries, tuple(names), pod.key, visiting,
                                         nom_entries or _NOTHING, fail_at or _NOTHING,
                                         failures or _NOTHING))
    return visiting


def _search_entries(names: Sequence[str], key: str, visiting: Sequence[str],
                    nom_entries: Mapping[str, Sequence[tuple[str, str, str, str]]],
                    fail_at: Mapping[str, int], failures: Mapping[str, Failure]
                    ) -> Iterator[tuple[str, str, str, str]]:
    for node in visiting:
        recorded = nom_entries.get(node)
        if recorded is not None:
            yield from recorded
            continue
        k = fail_at.get(node)
        yield from up_to(names, f"{key} on {node}", k,
                         "" if k is None else failures[node].reason)
