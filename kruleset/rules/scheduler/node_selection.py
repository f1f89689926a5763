"""Which nodes the filters run on, in what order, and how (findNodesThatFitPod).

Upstream (``pkg/scheduler/schedule_one.go``):

* A pod with a nominated node tries that node alone first; if it fits, it is
  the only feasible node and nothing else is filtered or scored.
* Otherwise nodes are visited in the scheduler's node order (the node
  tree's, :mod:`kruleset.model.node_tree`), starting where the previous
  cycle stopped, until ``numFeasibleNodesToFind`` nodes fit
  (percentageOfNodesToScore: every node below 100 nodes; else
  ``max(5, 50 - nodes/125)``% unless set, at least 100 nodes).  Upstream
  filters in parallel and cancels the search when one node more than that
  fits; kruleset visits the nodes one by one, which is what upstream's
  search does with one worker: nodes failing after the last one needed are
  still recorded, up to the next node that fits (filtered, not kept), and
  the start offset advances by the nodes given a status.
* A PreFilter result naming nodes (NodeAffinity ``matchFields``) narrows
  the search to them (:func:`_find_narrowed`).
* Each node's filters run with the nominated pods of priority >= the pod's
  added, and again without them; the node must fit both times
  (``RunFilterPluginsWithNominatedPods``, scheduler-SPEC §2).

Hypothetical nodes (preemption's ``selectVictimsOnNode``) are evaluated with
:func:`run_filters`: the cluster is never copied; an :class:`Overlay` in
``ctx.extra`` tells every filter which pods to pretend are gone from, or
added to, the node being checked, as upstream's PreFilter extensions
``RemovePod``/``AddPod`` adjust the cycle state.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from kruleset.model.node_tree import zone_key
from kruleset.model.objects import Pod
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState, NodeState, PodState

from ..engine import UNRESOLVABLE, Failure
from .defaults import PREFILTER_NODE_AFFINITY
from .framework import FILTERS, PREFILTER_NODES, ScheduleContext

if TYPE_CHECKING:
    from .fast.cycle_cache import TraceInfo

__all__ = [
    "OVERLAY",
    "Overlay",
    "find_feasible",
    "invalidate_node_order",
    "nominated_pods",
    "node_order",
    "num_feasible_nodes_to_find",
    "overlay_for",
    "prepare_cycle",
    "register_prepare",
    "run_filters",
    "run_filters_with_nominated",
    "zone_key",
]

OVERLAY = "filters.overlay"
_PREPARED = "filters.prepared"
_RULES = "filters.rules"
_ALL_RULES = "filters.all_rules"
_NOMINATED = "filters.nominated"

# Upstream constants (pkg/scheduler/schedule_one.go).
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5

PrepareFn = Callable[[Any, Mapping[str, Any], Pod], bool]
_PREPARE: dict[str, PrepareFn] = {}

# A filter's batch form: ``batch(ctx, args, pod, nodes)`` gives, for each node
# of ``nodes``, exactly what ``fn(ctx, args, pod, node)`` would (a Failure or
# None), or returns None when every node passes.  It exists only to avoid a
# Python call per node on the hot path; results must be identical.
BatchFilterFn = Callable[[Any, Mapping[str, Any], Pod, Sequence[NodeState]],
                         "Sequence[Failure | None] | None"]
_BATCH: dict[Callable[..., Any], BatchFilterFn] = {}
# Nodes filtered together per batch when many must still be found: large
# enough to amortise each rule's call, small enough not to filter many nodes
# past the point where the search stops.
_MIN_CHUNK = 32


def register_prepare(rule_name: str) -> Callable[[PrepareFn], PrepareFn]:
    """Decorator: the PreFilter step of the filter rule ``rule_name``.

    The function ``fn(ctx, args, pod) -> bool`` computes the rule's per-cycle
    state into ``ctx.extra`` and returns False when the rule has nothing to
    check for this pod (upstream PreFilter's Skip), so the per-node loop can
    leave it out.  It runs once per cycle, before any node is filtered.
    """

    def wrap(fn: PrepareFn) -> PrepareFn:
        _PREPARE[rule_name] = fn
        return fn

    return wrap


def register_batch_filter(fn: Callable[..., Any]) -> Callable[[BatchFilterFn], BatchFilterFn]:
    """Decorator: the batch form of the filter rule function ``fn`` (see ``_BATCH``).

    Used by :func:`find_feasible` when tracing is off and no nominated pods
    are involved; the results (feasible nodes, failures, the next start
    offset) are the same as filtering node by node.
    """

    def wrap(batch: BatchFilterFn) -> BatchFilterFn:
        _BATCH[fn] = batch
        return batch

    return wrap


@attrs.frozen(slots=True)
class Overlay:
    """Pods to treat as gone from (``removed``) or bound to (``added``) one node.

    ``delta`` is the change of the node's requested resources (the pod count
    included) the overlay makes.
    """

    node: str
    removed: tuple[PodState, ...]
    added: tuple[PodState, ...]
    removed_keys: frozenset[str]
    delta: Resources

    def pods(self, node: NodeState) -> Iterable[PodState]:
        """The node's pods as the overlay sees them."""
        keys = self.removed_keys
        for ps in node.pods.values():
            if ps.key not in keys:
                yield ps
        yield from self.added


def make_overlay(node: NodeState, removed: Iterable[str] = (),
                 added: Iterable[PodState] = ()) -> Overlay:
    """An :class:`Overlay` for ``node``; keys in ``removed`` not bound there are ignored."""
    keys = frozenset(removed)
    gone = tuple(ps for k, ps in node.pods.items() if k in keys)
    extra = tuple(added)
    delta = Resources()
    for ps in extra:
        delta = delta + ps.pod.requests
    for ps in gone:
        delta = delta - ps.pod.requests
    return Overlay(node.name, gone, extra, frozenset(ps.key for ps in gone), delta)


def overlay_for(ctx: Any, node: NodeState) -> Overlay | None:
    """The overlay in force for ``node``, if any (filters call this)."""
    ov: Overlay | None = ctx.extra.get(OVERLAY)
    if ov is not None and ov.node == node.name:
        return ov
    return None


# --- per-cycle preparation ------------------------------------------------------

def prepare_cycle(ctx: Any, pod: Pod) -> list[tuple[Callable[..., Any], Mapping[str, Any], str]]:
    """Run every filter's PreFilter step once for ``pod``; the rules to run per node.

    Cached in ``ctx.extra`` for the pod, so :func:`run_filters` can be called
    from PostFilter with the state of the cycle that just failed, or on a
    fresh context.
    """
    if ctx.extra.get(_PREPARED) is pod:
        rules: list[tuple[Callable[..., Any], Mapping[str, Any], str]] = ctx.extra[_RULES]
        return rules
    active = ctx.profile.active(FILTERS.name)
    rules = []
    every = []
    for a in active.rules:
        entry = (a.rule.fn, a.args, a.rule.name)
        every.append(entry)
        prep = _PREPARE.get(a.rule.name)
        if prep is None or prep(ctx, a.args, pod):
            rules.append(entry)
    ctx.extra[_RULES] = rules
    ctx.extra[_ALL_RULES] = every
    ctx.extra[_NOMINATED] = _nominated_by_node(ctx.state, pod)
    ctx.extra[_PREPARED] = pod
    return rules


def nominated_pods(ctx: Any, pod: Pod, node: NodeState) -> list[PodState]:
    """Pods nominated to ``node`` that ``pod`` must leave room for.

    Upstream ``addNominatedPods``: priority >= the pod's, not the pod itself.
    """
    prepare_cycle(ctx, pod)
    found: list[PodState] = ctx.extra[_NOMINATED].get(node.name, [])
    return found


def _nominated_by_node(state: ClusterState, pod: Pod) -> _NominatedByNode:
    return _NominatedByNode(state, pod)


class _NominatedByNode(Mapping[str, list[PodState]]):
    """Per node, the pods nominated there that ``pod`` must leave room for.

    Read from the cluster's nomination index node by node, on first use: a
    cycle looks only at the nodes it filters, whatever the number of pending
    nominated pods.  Lists are in pod creation order; nodes without such pods
    are absent.
    """

    __slots__ = ("_index", "_prio", "_key", "_memo")

    def __init__(self, state: ClusterState, pod: Pod) -> None:
        self._index = state.nominations
        self._prio = pod.effective_priority
        self._key = pod.key
        self._memo: dict[str, list[PodState]] = {}

    def _at(self, name: str) -> list[PodState]:
        found = self._memo.get(name)
        if found is None:
            at = self._index.get(name)
            found = [] if not at else [
                ps for ps in at.values()
                if ps.node is None and not ps.gone and ps.pod.key != self._key
                and ps.pod.effective_priority >= self._prio]
            if len(found) > 1:
                found.sort(key=_by_seq)
            self._memo[name] = found
        return found

    def __getitem__(self, name: str) -> list[PodState]:
        found = self._at(name)
        if not found:
            raise KeyError(name)
        return found

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        found = self._at(name)
        return found if found else default

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and bool(self._at(name))

    def __bool__(self) -> bool:
        # Cheap and conservative: callers use it only to skip per-node lookups.
        return bool(self._index)

    def __iter__(self) -> Iterator[str]:
        return (name for name in list(self._index) if self._at(name))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _by_seq(ps: PodState) -> int:
    return ps.seq


# --- evaluating one node ------------------------------------------------------------

def _run(ctx: Any, rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
         pod: Pod, node: NodeState) -> Failure | None:
    trace = ctx.trace
    for fn, args, name in rules:
        f = fn(ctx, args, pod, node)
        if f is not None:
            if not f.rule:
                f = Failure(f.reason, f.code, name, f.detail)
            if trace is not None:
                trace.add(name, f"{pod.key} on {node.name}", "fail", f.reason)
            return f
        if trace is not None:
            trace.add(name, f"{pod.key} on {node.name}", "pass")
    return None


def run_filters(ctx: Any, pod: Pod, node: NodeState, *,
                removed: frozenset[str] | Iterable[str] = frozenset(),
                added: Sequence[PodState] = ()) -> Failure | None:
    """Run the enabled filters on ``node`` for ``pod``: the first failure, or None.

    The node is judged as if the pods whose keys are in ``removed`` were gone
    from it and the :class:`PodState`\\ s in ``added`` were bound to it; the
    cluster is not copied or changed (an :class:`Overlay` in ``ctx.extra``
    tells each filter).  Nominated pods are *not* added here; use
    :func:`run_filters_with_nominated` for upstream's two-pass check.

    ``ctx`` is a :class:`~kruleset.rules.scheduler.cycle.ScheduleContext`; the
    per-cycle PreFilter state is computed on first use for ``pod`` and kept
    in ``ctx.extra`` (reused by PostFilter after a failed cycle).  If the
    cluster itself changes (pods really bound or removed), call
    ``ctx.extra.clear()`` before judging the pod again.

    Example (preemption's selectVictimsOnNode)::

        gone = frozenset(p.key for p in lower_priority_pods)
        if run_filters_with_nominated(ctx, pod, node, removed=gone) is None:
            ...  # the pod fits once they are all gone
    """
    prepare_cycle(ctx, pod)
    removed = removed if isinstance(removed, frozenset) else frozenset(removed)
    if not removed and not added:
        return _run(ctx, ctx.extra[_RULES], pod, node)
    ov = make_overlay(node, removed, added)
    previous = ctx.extra.get(OVERLAY)
    ctx.extra[OVERLAY] = ov
    try:
        # With pods added, a rule that had nothing to check may have now
        # (an added pod's anti-affinity), so every enabled rule runs.
        return _run(ctx, ctx.extra[_ALL_RULES], pod, node)
    finally:
        if previous is None:
            del ctx.extra[OVERLAY]
        else:
            ctx.extra[OVERLAY] = previous


def run_filters_with_nominated(ctx: Any, pod: Pod, node: NodeState, *,
                               removed: frozenset[str] | Iterable[str] = frozenset()
                               ) -> Failure | None:
    """Upstream ``RunFilterPluginsWithNominatedPods`` on ``node`` (minus ``removed``).

    Pass 1 adds the pods nominated to the node with priority >= ``pod``'s;
    if it added none or failed, its result stands.  Pass 2 runs without them;
    the node fits only if both passes fit.
    """
    removed = removed if isinstance(removed, frozenset) else frozenset(removed)
    noms = nominated_pods(ctx, pod, node)
    if noms:
        f = run_filters(ctx, pod, node, removed=removed, added=noms)
        if f is not None:
            return f
    return run_filters(ctx, pod, node, removed=removed)


# --- node order and percentageOfNodesToScore -------------------------------------------

class _Cursor:
    """Per-cluster scheduler memory: the next start index (``nextStartNodeIndex``)."""

    __slots__ = ("next_start",)

    def __init__(self) -> None:
        self.next_start = 0


_CURSORS: weakref.WeakKeyDictionary[ClusterState, _Cursor] = weakref.WeakKeyDictionary()


def _cursor(state: ClusterState) -> _Cursor:
    c = _CURSORS.get(state)
    if c is None:
        c = _CURSORS[state] = _Cursor()
    return c


def node_order(state: ClusterState) -> list[NodeState]:
    """Nodes in the scheduler's visiting order, the node tree's (a copy).

    Zones round-robin in the order their first node was added; inside a
    zone, add order (:mod:`kruleset.model.node_tree`).  Example: zone 1 =
    n1..n4, zone 2 = n5, n6 gives n1, n5, n2, n6, n3, n4.
    """
    return list(state.node_order())


def invalidate_node_order(state: ClusterState) -> None:
    """Re-file every node under its zone (for callers that changed labels in place).

    :meth:`ClusterState.relabel_node` does this for one node; the order
    changes at the next node added or removed, as upstream's.
    """
    for node in state.nodes.values():
        state.node_tree.relabelled(node)


def num_feasible_nodes_to_find(num_nodes: int, percentage: int | None) -> int:
    """Upstream ``numFeasibleNodesToFind`` (seed 003 §9).

    Below 100 nodes, or at 100%, every node.  ``None`` or 0 means the adaptive
    default ``max(5, 50 - nodes/125)``%.  The result is at least 100.
    """
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_nodes
    pct = percentage or 0
    if pct >= 100:
        return num_nodes
    if pct <= 0:
        pct = 50 - num_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_nodes * pct // 100
    if n < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return n


def find_feasible(ctx: Any, pod: Pod, ps: PodState | None = None, *, advance: bool = True
                  ) -> tuple[list[NodeState], dict[str, Failure]]:
    """Filter nodes for ``pod``: the feasible ones and each failed node's reason.

    Tries the nominated node first; then visits nodes from where the previous
    cycle stopped until enough fit.  ``advance=False`` leaves the start
    offset where it was (for what-if questions).
    """
    state: ClusterState = ctx.state
    rules = prepare_cycle(ctx, pod)
    noms: Mapping[str, list[PodState]] = ctx.extra[_NOMINATED]
    failures: dict[str, Failure] = {}
    nominated = ps.nominated if ps is not None else None
    nominated_failure = None
    if nominated is not None and nominated in state.nodes:
        node = state.nodes[nominated]
        nominated_failure = run_filters_with_nominated(ctx, pod, node)
        if nominated_failure is None:
            return [node], failures
    narrowed = ctx.extra.get(PREFILTER_NODES)
    if narrowed is not None:
        if nominated_failure is not None:
            failures[node.name] = nominated_failure
            narrowed = _also_rejected_by(narrowed, nominated_failure)
        return _find_narrowed(ctx, rules, pod, narrowed, failures, advance)
    cursor = _cursor(state)
    order = state.node_order()
    n = len(order)
    if n == 0:
        return [], failures
    to_find = num_feasible_nodes_to_find(n, ctx.profile.setting("percentageOfNodesToScore"))
    start = cursor.next_start % n
    trace = ctx.trace
    memo = ctx.memo if isinstance(ctx, ScheduleContext) else None
    key = None
    if memo is not None and OVERLAY not in ctx.extra:
        key = memo.filters_key(ctx, pod)
        if key is not None:
            def judge(node: NodeState) -> Failure | None:
                if noms and node.name in noms:
                    return run_filters_with_nominated(ctx, pod, node)
                return _run(ctx, rules, pod, node)

            if trace is None:
                hit = memo.all_failed(key, order, start, judge)
                if hit is not None:
                    # Every node was judged: the start offset stays where it is.
                    return [], hit
            else:
                kept = memo.all_failed_traced(
                    key, order, start, _rule_places(rules)[0],
                    lambda node: _judge_traced(ctx, rules, pod, node))
                if kept is not None:
                    failed, base, since, odd, count = kept
                    _trace_kept(trace, pod, rules, base, odd, since, count)
                    return [], failed
    # A trace without deferred groups (a caller's own recorder) gets the
    # node-by-node loop below, which records entry by entry.
    if OVERLAY not in ctx.extra and (trace is None or hasattr(trace, "defer")):
        fail_at: dict[str, int] | None = {} if trace is not None else None
        nom_entries: dict[str, list[tuple[str, str, str, str]]] | None = (
            {} if trace is not None else None)
        feasible, processed, extra = _find_batched(ctx, rules, pod, order, start, to_find,
                                                   failures, fail_at, nom_entries)
        if trace is not None and fail_at is not None and nom_entries is not None:
            _trace_search(trace, pod, rules, order, start, processed + extra, failures, fail_at,
                          nom_entries)
        if key is not None and memo is not None and not feasible and processed == n:
            if fail_at is None or nom_entries is None:
                memo.keep_all_failed(key, failures, start)
            else:
                subject = f"{pod.key} on {{}}"
                info: dict[str, TraceInfo] = {
                    name: ((nom_entries[name], subject.format(name)) if name in nom_entries
                           else (fail_at[name], f.reason))
                    for name, f in failures.items()}
                memo.keep_all_failed_traced(key, failures, start,
                                                   _rule_places(rules)[0], info)
        if advance:
            cursor.next_start = (start + processed) % n
        return feasible, failures
    feasible, processed = _find_one_by_one(ctx, rules, pod, order, start, to_find, failures)
    if advance:
        cursor.next_start = (start + processed) % n
    return feasible, failures


def _find_one_by_one(ctx: Any, rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                     pod: Pod, order: Sequence[NodeState], start: int, to_find: int,
                     failures: dict[str, Failure]) -> tuple[list[NodeState], int]:
    """Filter ``order`` from ``start`` node by node: the feasible nodes and how many
    nodes got a status (feasible or failed).

    Once ``to_find`` nodes fit, the search goes on until one more fits
    (upstream cancels its search then; with one worker the nodes checked
    before are exactly these, and their failures count as processed).
    """
    noms: Mapping[str, list[PodState]] = ctx.extra[_NOMINATED]
    feasible: list[NodeState] = []
    processed = 0
    n = len(order)
    for i in range(n):
        node = order[(start + i) % n]
        if noms and node.name in noms:
            f = run_filters_with_nominated(ctx, pod, node)
        else:
            f = _run(ctx, rules, pod, node)
        if f is None:
            if len(feasible) >= to_find:
                break
            feasible.append(node)
        else:
            failures[node.name] = f
        processed += 1
    return feasible, processed


def _also_rejected_by(narrowed: tuple[frozenset[str], str], failure: Failure
                      ) -> tuple[frozenset[str], str]:
    """``narrowed`` with the plugin that rejected the nominated node among its plugins.

    Upstream keeps one set of the cycle's unschedulable plugins: the
    nominated node's filter failure adds its plugin before the nodes PreFilter
    left out are given their status, so their message names both
    (``node(s) didn't satisfy plugin(s) [NodeAffinity NodeResourcesFit]``),
    sorted as ``sets.List`` sorts.
    """
    names, plugins = narrowed
    plugin = failure.rule.rpartition(".")[2]
    if not plugin:
        return narrowed
    listed = set(plugins.strip("[]").split()) | {plugin}
    return names, "[" + " ".join(sorted(listed)) + "]"


def _find_narrowed(ctx: Any, rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                   pod: Pod, narrowed: tuple[frozenset[str], str], failures: dict[str, Failure],
                   advance: bool) -> tuple[list[NodeState], dict[str, Failure]]:
    """The search when PreFilter named the nodes (upstream ``PreFilterResult``).

    Only the named nodes that exist are filtered, in the scheduler's node
    order (upstream ranges over a set), from the start index taken modulo
    their number, and percentageOfNodesToScore counts them alone.  Every
    other node gets the absent status: UnschedulableAndUnresolvable,
    ``node(s) didn't satisfy plugin(s) [NodeAffinity]`` (a node the nominated
    check already failed keeps that failure).  The start index then moves by
    the nodes given a status, modulo all the nodes (``findNodesThatFitPod``).
    Node by node, without the cycle cache (such pods are rare).
    """
    state: ClusterState = ctx.state
    names, plugins = narrowed
    every = state.node_order()
    order = [node for node in every if node.name in names]
    absent = Failure(f"node(s) didn't satisfy plugin(s) {plugins}", UNRESOLVABLE,
                     PREFILTER_NODE_AFFINITY)
    for node in every:
        if node.name not in names:
            failures.setdefault(node.name, absent)
    cursor = _cursor(state)
    feasible: list[NodeState] = []
    n = len(order)
    if n:
        to_find = num_feasible_nodes_to_find(n, ctx.profile.setting("percentageOfNodesToScore"))
        feasible = _find_one_by_one(ctx, rules, pod, order, cursor.next_start % n, to_find,
                                    failures)[0]
    if advance and every:
        statuses = sum(1 for f in failures.values() if f is not absent)
        cursor.next_start = (cursor.next_start + len(feasible) + statuses) % len(every)
    return feasible, failures


def _find_batched(ctx: Any, rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                  pod: Pod, order: Sequence[NodeState], start: int, to_find: int,
                  failures: dict[str, Failure], fail_at: dict[str, int] | None = None,
                  nom_entries: dict[str, list[tuple[str, str, str, str]]] | None = None
                  ) -> tuple[list[NodeState], int, int]:
    """The node-by-node search of :func:`find_feasible`, a chunk of nodes at a time.

    Each rule runs once per chunk on the nodes that passed the rules before it
    (the first failure per node wins, as node by node); then the chunk is
    walked in order and the search stops exactly where the node-by-node loop
    would, so feasible nodes, recorded failures and the number of nodes
    processed are identical.  Rules are pure functions of the cluster, so
    evaluating a few nodes past the stopping point changes nothing.
    Returns the feasible nodes, the number of nodes processed (given a
    status) and 1 if the search stopped on one more feasible node (filtered
    but not kept, as :func:`_find_one_by_one`), else 0; with
    ``fail_at``, also which rule (its position) failed each failed node, and
    with ``nom_entries`` the trace entries of each node with nominated pods
    (checked one by one, recorded apart so they can be replayed in order).
    """
    n = len(order)
    noms: Mapping[str, list[PodState]] = ctx.extra[_NOMINATED]
    feasible: list[NodeState] = []
    processed = 0
    pos = 0
    batches = [(k, _BATCH.get(fn), fn, args, name) for k, (fn, args, name) in enumerate(rules)]
    failed_at: dict[int, int] = {}
    while pos < n:
        # Once enough fit, the search goes on to the next node that fits.
        need = to_find - len(feasible)
        size = min(n - pos, max(need, _MIN_CHUNK))
        a = (start + pos) % n
        b = a + size
        chunk = order[a:b] if b <= n else [*order[a:], *order[:b - n]]
        alive: Sequence[NodeState] = chunk
        failed: dict[int, Failure] = {}
        if noms:
            # Nodes with nominated pods get upstream's two-pass check one by one.
            alive = []
            for node in chunk:
                if node.name in noms:
                    if nom_entries is not None:
                        buffer = _Recorder()
                        saved, ctx.trace = ctx.trace, buffer
                        try:
                            f = run_filters_with_nominated(ctx, pod, node)
                        finally:
                            ctx.trace = saved
                        nom_entries[node.name] = buffer.items
                    else:
                        f = run_filters_with_nominated(ctx, pod, node)
                    if f is not None:
                        failed[id(node)] = f
                else:
                    alive.append(node)
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


class _Recorder:
    """Collects the entries one node's nominated-pods check records, for replay."""

    __slots__ = ("items", "now")

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str, str]] = []
        self.now = 0

    def add(self, rule: str, subject: str, result: str, why: str = "") -> None:
        self.items.append((rule, subject, result, why))

    def __bool__(self) -> bool:
        return True


def _judge_traced(ctx: Any, rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                  pod: Pod, node: NodeState
                  ) -> tuple[Failure | None, TraceInfo | None]:
    """One node judged as the traced search judges it: its failure and what it records."""
    failures: dict[str, Failure] = {}
    fail_at: dict[str, int] = {}
    nom_entries: dict[str, list[tuple[str, str, str, str]]] = {}
    if _find_batched(ctx, rules, pod, [node], 0, 1, failures, fail_at, nom_entries)[0]:
        return None, None
    f = failures[node.name]
    recorded = nom_entries.get(node.name)
    if recorded is not None:
        return f, (recorded, f"{pod.key} on {node.name}")
    return f, (fail_at[node.name], f.reason)


def _trace_kept(trace: Any, pod: Pod,
                rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                base: Mapping[str, Failure], odd: Mapping[str, TraceInfo],
                since: Mapping[str, tuple[Failure, TraceInfo | None]],
                count: int) -> None:
    """Record a search answered from the cache: the entries :func:`_trace_search` makes,
    in visiting order (that of ``base``; nothing changes ``base`` and ``odd``
    afterwards, ``since`` holds the nodes changed after they were taken): from each
    failure (the rules before the failing one passed), or from the node's kept
    :data:`~kruleset.rules.scheduler.fast.TraceInfo` where there is one.

    The group is a :func:`functools.partial` of plain values, not a closure:
    a trace keeps one per search until read, and each closure cell is one more
    object every full collection walks.
    """
    names, at = _rule_places(rules)
    trace.defer(count, functools.partial(_kept_entries, names, at, pod.key, base, odd,
                                         since or _NOTHING))


_NOTHING: Mapping[str, Any] = MappingProxyType({})


def _rule_places(rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]]
                 ) -> tuple[tuple[str, ...], Mapping[str, int]]:
    """The names of the rules a search runs, and each name's place among them."""
    return _places(tuple([name for _, _, name in rules]))


@functools.lru_cache(maxsize=64)
def _places(names: tuple[str, ...]) -> tuple[tuple[str, ...], Mapping[str, int]]:
    return names, MappingProxyType({name: i for i, name in enumerate(names)})


def _kept_entries(names: Sequence[str], at: Mapping[str, int], key: str,
                  base: Mapping[str, Failure], odd: Mapping[str, TraceInfo],
                  since: Mapping[str, tuple[Failure, TraceInfo | None]]
                  ) -> Iterator[tuple[str, str, str, str]]:
    for node, f in base.items():
        changed = since.get(node) if since else None
        if changed is None:
            info = odd.get(node)
        else:
            f, info = changed
        subject = f"{key} on {node}"
        if info is None:
            yield from _up_to(names, subject, at[f.rule], f.reason)
        elif isinstance(info[0], int):
            yield from _up_to(names, subject, info[0], info[1])
        else:
            for rule, was, result, why in info[0]:
                yield rule, (subject if was == info[1] else was), result, why


def _up_to(names: Sequence[str], subject: str, failed: int | None, why: str = ""
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


def _trace_search(trace: Any, pod: Pod,
                  rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                  order: Sequence[NodeState], start: int, processed: int,
                  failures: Mapping[str, Failure], fail_at: Mapping[str, int],
                  nom_entries: Mapping[str, list[tuple[str, str, str, str]]]) -> None:
    """Record the search's trace as one deferred group of the node-by-node entries.

    The entries (per node visited, each rule ``pass`` until the one that
    fails) are exactly those of the node-by-node loop, in its order;
    they are only built when the trace is read, so tracing a 5,000-node
    search costs a few microseconds per node instead of an object per rule.
    """
    names = [name for _, _, name in rules]
    n = len(order)
    end = start + processed
    nodes = order[start:end] if end <= n else [*order[start:], *order[:end - n]]
    # Names only: a tuple of strings, which the collector stops tracking, is what
    # the trace keeps until it is read.
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
    key = pod.key

    def produce() -> Iterator[tuple[str, str, str, str]]:
        for node in visiting:
            recorded = nom_entries.get(node)
            if recorded is not None:
                yield from recorded
                continue
            k = fail_at.get(node)
            yield from _up_to(names, f"{key} on {node}", k,
                              "" if k is None else failures[node].reason)

    trace.defer(count, produce)
