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
  the start offset advances by the nodes given a status.  That loop is the
  reference; the ``batch_search`` fast path
  (:mod:`~kruleset.rules.scheduler.fast.batch_search`), chosen through
  :mod:`~kruleset.rules.scheduler.paths`, finds the same nodes a chunk at
  a time.
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

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.node_tree import zone_key
from kruleset.model.objects import Pod
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState, NodeState, PodState

from ..engine import UNRESOLVABLE, Failure
from .defaults import PREFILTER_NODE_AFFINITY
from .framework import FILTERS, PREFILTER_NODES, ScheduleContext

__all__ = [
    "OVERLAY",
    "Overlay",
    "find_feasible",
    "invalidate_node_order",
    "next_start_index",
    "node_pods",
    "nominated_pods",
    "node_order",
    "num_feasible_nodes_to_find",
    "overlay_for",
    "prepare_cycle",
    "run_filters",
    "run_filters_with_nominated",
    "zone_key",
    "NOMINATED_KEY",
    "run_rules",
    "set_next_start_index",
]

OVERLAY = "filters.overlay"
_PREPARED = "filters.prepared"
_RULES = "filters.rules"
#: ``ctx.extra`` key: the pods nominated to each node (the fast searches read it).
NOMINATED_KEY = "filters.nominated"

# Upstream constants (pkg/scheduler/schedule_one.go).
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


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


def overlay_for(ctx: ScheduleContext, node: NodeState) -> Overlay | None:
    """The overlay in force for ``node``, if any (filters call this)."""
    ov: Overlay | None = ctx.extra.get(OVERLAY)
    if ov is not None and ov.node == node.name:
        return ov
    return None


def node_pods(ctx: ScheduleContext, node: NodeState) -> Iterable[PodState]:
    """``node``'s pods as this check sees them: without the pods a preemption dry run
    takes away and with the nominated pods it adds (the overlay in force), else all."""
    ov = overlay_for(ctx, node)
    return ov.pods(node) if ov is not None else node.pods.values()


# --- per-cycle preparation ------------------------------------------------------

def prepare_cycle(ctx: ScheduleContext,
                  pod: Pod) -> list[tuple[Callable[..., Any], Mapping[str, Any], str]]:
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
    for a in active.rules:
        prep = a.rule.prepare
        if prep is None or prep(ctx, a.args, pod):
            rules.append((a.rule.fn, a.args, a.rule.name))
    ctx.extra[_RULES] = rules
    ctx.extra[NOMINATED_KEY] = _nominated_by_node(ctx.state, pod)
    ctx.extra[_PREPARED] = pod
    return rules


def nominated_pods(ctx: ScheduleContext, pod: Pod, node: NodeState) -> list[PodState]:
    """Pods nominated to ``node`` that ``pod`` must leave room for.

    Upstream ``addNominatedPods``: priority >= the pod's, not the pod itself.
    """
    prepare_cycle(ctx, pod)
    found: list[PodState] = ctx.extra[NOMINATED_KEY].get(node.name, [])
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

def run_rules(ctx: ScheduleContext,
              rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
              pod: Pod, node: NodeState) -> Failure | None:
    """Run ``rules`` (function, args, name) on ``node`` in order, tracing each: the first
    failure (named for its rule), or None when every one passes."""
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


def run_filters(ctx: ScheduleContext, pod: Pod, node: NodeState, *,
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
        return run_rules(ctx, ctx.extra[_RULES], pod, node)
    ov = make_overlay(node, removed, added)
    previous = ctx.extra.get(OVERLAY)
    ctx.extra[OVERLAY] = ov
    try:
        # A rule whose PreFilter skipped it stays skipped for the whole cycle,
        # nominated pods added or victims removed: upstream's RunFilterPlugins
        # and RunPreFilterExtensionAddPod/RemovePod both pass over the plugins
        # in the cycle state's SkipFilterPlugins (framework/runtime/framework.go),
        # so a nominated pod's anti-affinity never rejects a pod InterPodAffinity
        # skipped (no affinity terms, no bound pod's anti-affinity matching it).
        return run_rules(ctx, ctx.extra[_RULES], pod, node)
    finally:
        if previous is None:
            del ctx.extra[OVERLAY]
        else:
            ctx.extra[OVERLAY] = previous


def run_filters_with_nominated(ctx: ScheduleContext, pod: Pod, node: NodeState, *,
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


def next_start_index(state: ClusterState) -> int:
    """Where the next cycle's node search begins (upstream ``nextStartNodeIndex``),
    before it is taken modulo the number of nodes searched."""
    return _cursor(state).next_start


def set_next_start_index(state: ClusterState, index: int) -> None:
    """Start the next cycle's node search at ``index``: a cycle judged on its own
    (a scheduler just started begins at 0) is compared with one taken over time."""
    _cursor(state).next_start = index


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


def find_feasible(ctx: ScheduleContext, pod: Pod, ps: PodState | None = None, *,
                  advance: bool = True
                  ) -> tuple[Sequence[NodeState], dict[str, Failure]]:
    """Filter nodes for ``pod``: the feasible ones and each failed node's reason.

    Tries the nominated node first; then visits nodes from where the previous
    cycle stopped until enough fit.  ``advance=False`` leaves the start
    offset where it was (for what-if questions).
    """
    state: ClusterState = ctx.state
    rules = prepare_cycle(ctx, pod)
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
    search = ctx.paths.search
    found = search(ctx, rules, pod, order, start, to_find, failures) if search else None
    feasible: Sequence[NodeState]
    if found is None:
        feasible, processed = _find_one_by_one(ctx, rules, pod, order, start, to_find, failures)
    else:
        feasible, failures, kept = found
        if kept is None:
            # The cycle cache judged every node: the start offset stays where it is.
            return feasible, failures
        processed = kept
    if advance:
        cursor.next_start = (start + processed) % n
    return feasible, failures


def _find_one_by_one(ctx: ScheduleContext,
                     rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
                     pod: Pod, order: Sequence[NodeState], start: int, to_find: int,
                     failures: dict[str, Failure]) -> tuple[list[NodeState], int]:
    """Filter ``order`` from ``start`` node by node: the feasible nodes and how many
    nodes got a status (feasible or failed).

    Once ``to_find`` nodes fit, the search goes on until one more fits
    (upstream cancels its search then; with one worker the nodes checked
    before are exactly these, and their failures count as processed).
    """
    noms: Mapping[str, list[PodState]] = ctx.extra[NOMINATED_KEY]
    feasible: list[NodeState] = []
    processed = 0
    n = len(order)
    for i in range(n):
        node = order[(start + i) % n]
        if noms and node.name in noms:
            f = run_filters_with_nominated(ctx, pod, node)
        else:
            f = run_rules(ctx, rules, pod, node)
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


def _find_narrowed(ctx: ScheduleContext,
                   rules: Sequence[tuple[Callable[..., Any], Mapping[str, Any], str]],
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
