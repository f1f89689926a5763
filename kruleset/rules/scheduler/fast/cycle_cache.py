"""Results that outlive one scheduling cycle, for pods of the same shape.

A burst of pods from one template (a Deployment scaled up, a pods range) is
judged node by node against a cluster that, between two attempts, changed on
one or two nodes.  Upstream re-runs every filter and every preemption dry run
each cycle; kruleset gets the same answers by keeping, per pod *shape* (what
the node-local filters read: requests, host ports, priority, node name,
selector, node affinity, tolerations, labels, namespace), each node's result
and re-judging only the nodes the cluster state's ``touched`` log names.

Only what depends on nothing but the node is kept: a pod is cached only when
preemption's fast plan exists for it (no inter-pod affinity, no topology
spread, only the filters whose answer is a function of the node), it is not
nominated anywhere (pods nominated to a node count there for every other
pod).  With tracing on, what a node's judgement recorded is kept with it
(:class:`~kruleset.rules.scheduler.fast.recorder.Recorder`) and replayed for
the next pod of the shape, the pod's own subject (``"<pod> on <node>"``)
substituted; traced and untraced results are kept apart (a traced dry run
builds every failure exactly).  Anything
the log does not describe (an event, a controller other than the scheduler,
the clock moving) starts a new epoch and every entry is dropped.  The
scheduler controller owns one cache per simulation; embedding calls
(``schedule_pod``, ``preempt_for``) have none and compute everything, as
before.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, NodeState
from kruleset.rules.engine import UNSCHEDULABLE, ActiveRuleSet, Failure

from ..framework import FILTERS, ScheduleContext, failure_reasons
from ..paths import pod_shape
from .plan import fast_plan

__all__ = ["CycleCache", "shape_of"]


def shape_of(ctx: ScheduleContext, pod: Pod) -> Hashable | None:
    """What the enabled filters and victim selection read of ``pod``, or None.

    Each filter declares what it reads of a pod (``Reads.pod_key`` on its
    rule); the shape is :func:`~kruleset.rules.scheduler.paths.pod_shape`
    (what victim selection and the built-in filters read) with every other
    key a filter declares.  None (no caching) when one of them is None for
    the pod, or an enabled filter declares nothing.
    """
    keys = _pod_keys(ctx.profile.active(FILTERS.name))
    if keys is None:
        return None
    if len(keys) == 1:
        return pod_shape(pod)
    parts = []
    for key in keys:
        part = key(pod)
        if part is None:
            return None
        parts.append(part)
    return tuple(parts)


PodKey = Callable[[Pod], Hashable | None]
# The last active filter set asked about (a profile keeps its own) and its pod keys.
_LAST: list[tuple[ActiveRuleSet, tuple[PodKey, ...] | None]] = []


def _pod_keys(active: ActiveRuleSet) -> tuple[PodKey, ...] | None:
    """:func:`pod_shape` and the other pod keys ``active``'s filters declare, or None."""
    if _LAST and _LAST[0][0] is active:
        return _LAST[0][1]
    keys: list[PodKey] = [pod_shape]
    got: tuple[PodKey, ...] | None = None
    for a in active.rules:
        reads = a.rule.reads
        if reads is None or reads.pod_key is None:
            break
        if reads.pod_key not in keys:
            keys.append(reads.pod_key)
    else:
        got = tuple(keys)
    _LAST[:] = [(active, got)]
    return got


class _Entry:
    """One shape's per-node results, valid for ``epoch`` up to ``pos`` in the log."""

    __slots__ = ("epoch", "pos", "results", "extra")

    def __init__(self, epoch: int, pos: int, results: dict[str, Any]) -> None:
        self.epoch = epoch
        self.pos = pos
        self.results = results
        self.extra: dict[str, Any] = {}


class CycleCache:
    """Per-node results by pod shape, kept in step with the cluster's touched log."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self._entries: dict[Hashable, _Entry] = {}
        # The failures mapping last handed out by the filter search, and its entry.
        self.handed: tuple[Mapping[str, Failure], _Entry] | None = None
        self.hits = 0  # searches and dry-run nodes answered from the cache
        # Other mechanisms' memos that follow their own change counters, by name.
        self.extra: dict[str, Any] = {}

    def fresh(self, key: Hashable) -> tuple[_Entry, list[str]] | None:
        """The entry for ``key`` and the nodes changed since it was brought up to date.

        None when there is no entry or its epoch is over (it is dropped).  The
        caller re-judges the changed nodes and then calls :meth:`caught_up`.
        """
        entry = self._entries.get(key)
        if entry is None:
            return None
        state = self.state
        if entry.epoch != state.epoch:
            del self._entries[key]
            return None
        log = state.touched
        if entry.pos == len(log):
            return entry, []
        changed = list(dict.fromkeys(log[entry.pos:]))
        return entry, changed

    # The questions the reference rules ask on ``ctx.memo`` (the filter
    # search's, preemption's potential nodes and pick bounds), so that they never
    # import this module: see the functions of the same names below.
    def filters_key(self, ctx: ScheduleContext, pod: Pod) -> Hashable | None:
        """:func:`filters_key`."""
        return filters_key(ctx, pod)

    def all_failed(self, key: Hashable, order: Sequence[NodeState], start: int,
                   judge: Callable[[NodeState], Failure | None]) -> Mapping[str, Failure] | None:
        """:func:`all_failed` on this cache."""
        return all_failed(self, key, order, start, judge)

    def all_failed_traced(self, key: Hashable, order: Sequence[NodeState], start: int,
                          names: Sequence[str],
                          judge: Callable[[NodeState], tuple[Failure | None, Any]]) -> Any:
        """:func:`all_failed_traced` on this cache."""
        return all_failed_traced(self, key, order, start, names, judge)

    def keep_all_failed(self, key: Hashable, failures: Mapping[str, Failure],
                        start: int) -> None:
        """:func:`keep_all_failed` on this cache."""
        keep_all_failed(self, key, failures, start)

    def keep_all_failed_traced(self, key: Hashable, failures: Mapping[str, Failure],
                               start: int, names: Sequence[str],
                               info: dict[str, TraceInfo]) -> None:
        """:func:`keep_all_failed_traced` on this cache."""
        keep_all_failed_traced(self, key, failures, start, names, info)

    def tally_for(self, failures: Mapping[str, Failure]
                  ) -> tuple[dict[str, int], dict[str, int]] | None:
        """:func:`tally_for` on this cache."""
        return tally_for(self, failures)

    def potential_from(self, failures: Mapping[str, Failure]) -> Sequence[NodeState] | None:
        """:func:`potential_from` on this cache."""
        return potential_from(self, failures)

    def pick_bounds(self) -> dict[str, Any]:
        """:func:`pick_bounds` on this cache."""
        return pick_bounds(self)

    @staticmethod
    def pick_bound(bounds: dict[str, Any], node: NodeState, shift: int
                   ) -> tuple[int, ...] | None:
        """:func:`pick_bound`."""
        return pick_bound(bounds, node, shift)

    def caught_up(self, entry: _Entry) -> None:
        """The entry now reflects every change logged so far."""
        entry.pos = len(self.state.touched)

    def store(self, key: Hashable, results: dict[str, Any]) -> _Entry:
        """Keep ``results`` (node name -> result) for ``key`` as of now."""
        entry = _Entry(self.state.epoch, len(self.state.touched), results)
        self._entries[key] = entry
        return entry

    def drop(self, key: Hashable) -> None:
        """Forget ``key``'s entry."""
        self._entries.pop(key, None)


# --- preemption's dry run ----------------------------------------------------------

def victims_key(ctx: ScheduleContext, pod: Pod, budgets: Sequence[Any]) -> Hashable | None:
    """The cache key for DefaultPreemption's victims of ``pod`` per node, or None.

    A traced dry run keeps each node's result with what it recorded (a
    :class:`Recorder`'s items and count) under a key of its own.
    """
    if ctx.memo is None or (ctx.trace is not None and not hasattr(ctx.trace, "defer")):
        return None
    ps = ctx.ps
    if ps is None or ps.pod is not pod or ps.nominated is not None:
        return None
    shape = shape_of(ctx, pod)
    if shape is None:
        return None
    key = ("victims", shape, tuple(budgets), ctx.trace is not None)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def victims_entry(memo: CycleCache, key: Hashable) -> dict[str, Any]:
    """The per-node results for ``key``, without the nodes changed since (judge them again)."""
    return victims_state(memo, key)[0]


def victims_state(memo: CycleCache, key: Hashable
                  ) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """:func:`victims_entry`, the entry's extras (what the dry run keeps beside the
    results: its candidate index, traced its judgement log) and the nodes changed
    since the last call, whose results were dropped."""
    got = memo.fresh(key)
    if got is None:
        entry = memo.store(key, {})
        changed: list[str] = []
    else:
        entry, changed = got
        results = entry.results
        for name in changed:
            results.pop(name, None)
        memo.caught_up(entry)
    return entry.results, entry.extra, changed


def judgement_log(extra: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The append-only log of traced judgements kept in a victims entry's ``extra``.

    Nodes map to their place in it; entries stay (a trace may still read
    them) until the key's entry is dropped.
    """
    log: list[tuple[Any, ...]] = extra.setdefault("log", [])
    return log


# --- lower bounds of preemption pick keys ---------------------------------------------

_NO_BOUND: Any = object()


def pick_bounds(memo: CycleCache) -> dict[str, Any]:
    """The per-node memo of :func:`pick_bound` (without the nodes changed since)."""
    return victims_entry(memo, ("pick-bound",))


def pick_bound(bounds: dict[str, Any], node: NodeState, shift: int) -> tuple[int, ...] | None:
    """The least default pick key any candidate on ``node`` can have, or None (no pods).

    Componentwise at most every real key (``preemption_pick.default_pick_key``):
    0 PDB violations, the lowest priority of any pod there as the highest
    victim's, that priority (shifted) as the sum, one victim, the latest start
    of any pod as the earliest, the node's own index.  Keys compare as tuples,
    so a node whose bound is above the runner-up's key cannot be among the two
    best candidates.  Depends on the node's pods only (kept until touched).
    """
    got = bounds.get(node.name, _NO_BOUND)
    if got is _NO_BOUND:
        got = None
        if node.pods:
            low = min(ps.pod.effective_priority for ps in node.pods.values())
            latest = max(ps.effective_start for ps in node.pods.values())
            got = (0, low, low + shift, 1, -latest, node.rank)
        bounds[node.name] = got
    return got  # type: ignore[no-any-return]


# --- the filter search --------------------------------------------------------------

def filters_key(ctx: ScheduleContext, pod: Pod) -> Hashable | None:
    """The cache key for the filter search of ``pod`` in this cycle, or None (no caching).

    A traced search is kept under a key of its own, with what it recorded
    per node (:func:`keep_all_failed_traced`).
    """
    trace = ctx.trace
    if trace is not None and not hasattr(trace, "defer"):
        return None
    ps = ctx.ps
    if ps is None or ps.pod is not pod or ps.nominated is not None:
        return None
    shape = shape_of(ctx, pod)
    if shape is None:
        return None
    if fast_plan(ctx, pod, traced=trace is not None) is None:
        return None
    return ("filters", shape, trace is not None)


class Failures(Mapping[str, Failure]):
    """A cached search's failures as handed out: a base mapping shared by the searches
    of many cycles and the failures changed since, neither ever changed again.

    Copying every node's failure for each cycle cost half a millisecond at
    65,000 nodes; the base is replaced (not changed) once more than
    :data:`_FOLD` nodes have changed.  Iterates in the base's (visiting) order.
    """

    __slots__ = ("_base", "_since")

    def __init__(self, base: dict[str, Failure], since: dict[str, Failure]) -> None:
        self._base = base
        self._since = since

    def __getitem__(self, name: str) -> Failure:
        got = self._since.get(name)
        return self._base[name] if got is None else got

    def get(self, name: str, default: Any = None) -> Any:
        got = self._since.get(name)
        return self._base.get(name, default) if got is None else got

    def __contains__(self, name: object) -> bool:
        return name in self._base

    def __iter__(self) -> Iterator[str]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)

    def items(self) -> Any:
        """The (name, failure) pairs in visiting order."""
        if not self._since:
            return self._base.items()
        return super().items()

    def values(self) -> Any:
        """The failures in visiting order."""
        if not self._since:
            return self._base.values()
        return super().values()


# A handed-out search's changes are folded into a new base beyond this many.
_FOLD = 64
_NO_CHANGES: dict[str, Failure] = {}


def all_failed(memo: CycleCache, key: Hashable, order: Sequence[NodeState], start: int,
               judge: Callable[[NodeState], Failure | None]) -> Mapping[str, Failure] | None:
    """Every node's failure when the cached search says none fits, in visiting order.

    Nodes changed since are re-judged with ``judge``; if one fits now the
    entry is dropped and None returned (the caller searches as usual).
    """
    def judged(node: NodeState) -> tuple[Failure | None, Any]:
        return judge(node), None

    got = _caught_up(memo, key, order, start, judged)
    return None if got is None else got[0]


# A traced search's base mapping of failures is taken again after this many changes
# (None: as many as there are nodes).  Until then every traced search keeps the
# same base and a place in one append-only list of the changes since: a base per
# few dozen searches was a 65,000-entry dict every full collection walked.
_REBASE: int | None = None

# What a traced search recorded on one node: (rule position, reason) where the
# rules ran one by one, or (entries, subject) for a node with nominated pods.
TraceInfo = tuple[Any, str]

# The nodes changed since a traced search's base was taken, oldest first, each with
# its failing rule, reason and TraceInfo or None (a later change of a node wins).
Changes = list[tuple[str, tuple[str, str, "TraceInfo | None"]]]


def all_failed_traced(memo: CycleCache, key: Hashable, order: Sequence[NodeState], start: int,
                      names: Sequence[str],
                      judge: Callable[[NodeState], tuple[Failure | None, TraceInfo | None]]
                      ) -> tuple[Mapping[str, Failure], Mapping[str, Failure],
                                 tuple[Changes, int], Mapping[str, TraceInfo], int] | None:
    """:func:`all_failed` for a traced search, and what its trace entries are made of.

    After the failures: the same in visiting order as a base mapping shared by
    the searches of many cycles; the :data:`TraceInfo`, as of the base, of
    the nodes whose entries do not follow from their failure (see
    :func:`plain_info`); the :data:`Changes` since the base was taken, shared
    and only ever appended to, with how many of them this search sees; the
    number of entries.  The trace keeps these until it is read: a copy of
    every node's failure per search would keep millions of references alive.

    ``names`` are the rules the search runs; an entry kept for other rules is dropped.
    """
    got = memo.fresh(key)
    if got is not None and got[0].extra["names"] != tuple(names):
        memo.drop(key)
        return None
    found = _caught_up(memo, key, order, start, judge)
    if found is None:
        return None
    out, entry = found
    extra = entry.extra
    base = extra.get("base")
    changes: Changes = extra["changes"]
    limit = len(out) if _REBASE is None else _REBASE
    if base is None or base[0] != start or len(changes) > limit:
        base = extra["base"] = (start, out, dict(extra["odd"]))
        changes = extra["changes"] = []
    return out, base[1], (changes, len(changes)), base[2], extra["count"]


def plain_info(names: Sequence[str], f: Failure) -> TraceInfo:
    """The :data:`TraceInfo` of a node where the rules ran one by one and ``f.rule`` failed
    (the rules before it passed): what the trace of a search derives from the failure."""
    return names.index(f.rule), f.reason


def _is_plain(names: Sequence[str], f: Failure, info: TraceInfo) -> bool:
    k = info[0]
    return isinstance(k, int) and names[k] == f.rule and info[1] == f.reason


def _caught_up(memo: CycleCache, key: Hashable, order: Sequence[NodeState], start: int,
               judge: Callable[[NodeState], tuple[Failure | None, TraceInfo | None]]
               ) -> tuple[Mapping[str, Failure], _Entry] | None:
    got = memo.fresh(key)
    if got is None:
        return None
    entry, changed = got
    results: dict[str, Failure] = entry.results
    nodes = memo.state.nodes
    rotated = entry.extra.get("rotated")
    reasons, rules = entry.extra["tally"]
    odd: dict[str, TraceInfo] | None = entry.extra.get("odd")
    changes: Changes | None = entry.extra.get("changes")
    names: tuple[str, ...] = entry.extra.get("names", ())
    for name in changed:
        node = nodes.get(name)
        if node is None or name not in results:
            memo.drop(key)
            return None
        f, seen = judge(node)
        if f is None:
            memo.drop(key)
            return None
        old = results[name]
        if (f.code == UNSCHEDULABLE) != (old.code == UNSCHEDULABLE):
            entry.extra.pop("potential", None)
        _count(reasons, rules, old, -1)
        _count(reasons, rules, f, 1)
        results[name] = f
        if odd is not None:
            assert seen is not None
            was = odd.get(name)
            entry.extra["count"] += _entries(seen) - _entries(
                was if was is not None else plain_info(names, old))
            if _is_plain(names, f, seen):
                odd.pop(name, None)
            else:
                odd[name] = seen
            if changes is not None:
                # The failing rule and reason, not the Failure: traced searches keep
                # these until the trace is read, and plain strings let the
                # collector stop tracking them (and the Failure go).
                changes.append((name, (f.rule, f.reason, odd.get(name))))
        if rotated is not None:
            rotated[2][name] = f  # the key exists in the base: its place is kept
    memo.caught_up(entry)
    if rotated is None or rotated[0] != start:
        items = list(results.items())
        first = _position(entry, order, start)
        rotated = (start, dict(items[first:] + items[:first]), {})
        entry.extra["rotated"] = rotated
    elif len(rotated[2]) > _FOLD:
        base = dict(rotated[1])
        base.update(rotated[2])
        rotated = entry.extra["rotated"] = (start, base, {})
    out = Failures(rotated[1], dict(rotated[2]) if rotated[2] else _NO_CHANGES)
    memo.handed = (out, entry)
    memo.hits += 1
    return out, entry


def _entries(info: TraceInfo) -> int:
    """How many trace entries a node's :data:`TraceInfo` stands for."""
    first = info[0]
    return first + 1 if isinstance(first, int) else len(first)


def _count(reasons: dict[str, int], rules: dict[str, int], f: Failure, sign: int) -> None:
    for r in failure_reasons(f):
        n = reasons.get(r, 0) + sign
        if n:
            reasons[r] = n
        else:
            del reasons[r]
    n = rules.get(f.rule, 0) + sign
    if n:
        rules[f.rule] = n
    else:
        del rules[f.rule]


def _position(entry: _Entry, order: Sequence[NodeState], start: int) -> int:
    """Where ``order[start]`` is among the entry's results (kept in visiting order)."""
    name = order[start].name
    index = entry.extra.get("index")
    if index is None:
        index = entry.extra["index"] = {n: i for i, n in enumerate(entry.results)}
    return int(index[name])


def keep_all_failed(memo: CycleCache, key: Hashable, failures: Mapping[str, Failure],
                    start: int) -> None:
    """Remember a search that judged every node and found none fitting."""
    entry = memo.store(key, dict(failures))
    entry.extra["rotated"] = (start, dict(failures), {})
    reasons: dict[str, int] = {}
    rules: dict[str, int] = {}
    for f in failures.values():
        _count(reasons, rules, f, 1)
    entry.extra["tally"] = (reasons, rules)
    memo.handed = (failures, entry)


def keep_all_failed_traced(memo: CycleCache, key: Hashable, failures: Mapping[str, Failure],
                           start: int, names: Sequence[str], info: dict[str, TraceInfo]) -> None:
    """:func:`keep_all_failed` for a traced search, with each node's :data:`TraceInfo`."""
    keep_all_failed(memo, key, failures, start)
    entry = memo.handed[1]  # type: ignore[index]
    entry.extra["names"] = tuple(names)
    # Only the nodes whose entries do not follow from their failure are kept apart.
    entry.extra["odd"] = {name: i for name, i in info.items()
                          if not _is_plain(names, failures[name], i)}
    entry.extra["count"] = sum(_entries(i) for i in info.values())
    entry.extra["changes"] = []


def tally_for(memo: CycleCache, failures: Mapping[str, Failure]
              ) -> tuple[dict[str, int], dict[str, int]] | None:
    """Reason and rule counts of ``failures`` when the cache handed them out (copies)."""
    handed = memo.handed
    if handed is None or handed[0] is not failures:
        return None
    entry = handed[1]
    state = memo.state
    if entry.epoch != state.epoch or entry.pos != len(state.touched):
        return None
    reasons, rules = entry.extra["tally"]
    return dict(reasons), dict(rules)


def potential_from(memo: CycleCache | None, failures: Mapping[str, Failure]
                   ) -> Sequence[NodeState] | None:
    """Preemption's potential nodes for ``failures`` when they came from the cache."""
    if memo is None or memo.handed is None or memo.handed[0] is not failures:
        return None
    entry = memo.handed[1]
    state = memo.state
    if entry.epoch != state.epoch or entry.pos != len(state.touched):
        return None
    potential = entry.extra.get("potential")
    if potential is None:
        results = entry.results
        potential = entry.extra["potential"] = tuple([
            n for n in state.node_order()
            if (f := results.get(n.name)) is not None and f.code == UNSCHEDULABLE])
    # Shared (a trace keeps it for each preemptor): replaced, never changed, when
    # a node's failure changes.
    return potential  # type: ignore[no-any-return]
