"""Node-indexed arrays of the cluster's resources, kept in step with binds, for vector searches.

At 65,000 nodes percentageOfNodesToScore still has the scheduler filter and
score 3,250 nodes per pod; a Python loop over them costs microseconds per
node.  :class:`NodeVectors` keeps, per node in the scheduler's node order,
what NodeResourcesFit and the resource scores read (allocatable and
requested cpu, memory, ephemeral storage and pod count, the non-zero
requests) as NumPy arrays, and which nodes have taints or are cordoned, so
that :mod:`.vector_search` and :mod:`.vector_scores` answer for thousands of
nodes with a few array operations.

Keeping them true:

* requested totals change only at :meth:`ClusterState.bind` and ``unbind``;
  the arrays are a listener of both and copy the node's tallies into its row;
* the node order (adds, removals, zone moves) gives a new list object: the
  arrays are rebuilt from the nodes;
* a node's object, taints and cordon change only with ``ClusterState.epoch``
  moving (the contract the cycle cache relies on too): when it has moved,
  the nodes' objects and flags are checked again before the arrays answer.

Values that NumPy's 64-bit integers could not hold with room for the scores'
``* 100`` make the arrays refuse (:attr:`NodeVectors.usable`), and the
callers take the batch path.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kruleset.model.state import ClusterState, NodeState, PodState

__all__ = ["LIMIT", "VECTOR_SCORES", "NodeVectors", "Scores", "vector_score", "vectors_for"]

# Every value the arrays hold (and every request compared with them) stays below
# this, so sums of two and products by 100 stay inside int64.
LIMIT = 1 << 55

_NODE = attrgetter("node")
_TAINTS = attrgetter("taints")
_UNSCHEDULABLE = attrgetter("unschedulable")
_ALLOCATABLE = attrgetter("allocatable")
_REQUESTED = attrgetter("requested")
_NONZERO = attrgetter("nonzero")
_CPU = attrgetter("cpu")
_MEMORY = attrgetter("memory")
_EPHEMERAL = attrgetter("ephemeral_storage")
_PODS = attrgetter("pods")


def _column(values: Any, n: int) -> np.ndarray:
    return np.fromiter(values, np.int64, n)


class NodeVectors:
    """The arrays of one :class:`ClusterState` (see the module docstring).

    Row ``i`` is ``order[i]``, the node of rank ``i``.  Columns: ``alloc_*``
    (allocatable), ``used_*`` (requested by bound pods), ``nz_*`` (requested
    with the scheduler's non-zero defaults), ``tainted`` and ``cordoned``.
    """

    __slots__ = (
        "order", "names", "row", "epoch", "objects", "usable",
        "alloc_cpu", "alloc_mem", "alloc_eph", "alloc_pods",
        "used_cpu", "used_mem", "used_eph", "used_pods", "nz_cpu", "nz_mem",
        "tainted", "cordoned", "flagged", "domains", "__weakref__",
    )

    def __init__(self) -> None:
        self.order: list[NodeState] | None = None
        self.names: list[str] = []
        self.row: dict[str, int] = {}
        self.epoch = -1
        self.objects: list[Any] = []
        self.usable = False
        # label key -> (has the key, value id per row, value -> id); "" is the
        # id of a missing label too.  Labels change only with the epoch.
        self.domains: dict[str, tuple[np.ndarray, np.ndarray, dict[str, int]]] = {}

    # --- keeping in step ----------------------------------------------------------
    def sync(self, state: ClusterState) -> bool:
        """Bring the arrays up to date with ``state``; False if they cannot answer."""
        order = state.node_order()
        if order is not self.order:
            self._build(order)
            self.epoch = state.epoch
        elif state.epoch != self.epoch:
            self._check_nodes(order)
            self.epoch = state.epoch
        return self.usable

    def _build(self, order: list[NodeState]) -> None:
        n = len(order)
        self.order = order
        self.domains = {}
        # Node names per row: traced searches list thousands of them per pod.
        self.names = [ns.node.name for ns in order]
        self.row = {name: i for i, name in enumerate(self.names)}
        self.objects = list(map(_NODE, order))
        try:
            self._allocatable(n)
            used = list(map(_REQUESTED, order))
            nonzero = list(map(_NONZERO, order))
            self.used_cpu = _column(map(_CPU, used), n)
            self.used_mem = _column(map(_MEMORY, used), n)
            self.used_eph = _column(map(_EPHEMERAL, used), n)
            self.used_pods = _column(map(_PODS, used), n)
            self.nz_cpu = _column(map(_CPU, nonzero), n)
            self.nz_mem = _column(map(_MEMORY, nonzero), n)
        except OverflowError:
            self.usable = False
            return
        self._flags(order)
        self.usable = self._in_range()

    def _allocatable(self, n: int) -> None:
        alloc = list(map(_ALLOCATABLE, self.objects))
        self.alloc_cpu = _column(map(_CPU, alloc), n)
        self.alloc_mem = _column(map(_MEMORY, alloc), n)
        self.alloc_eph = _column(map(_EPHEMERAL, alloc), n)
        self.alloc_pods = _column(map(_PODS, alloc), n)

    def _flags(self, order: Sequence[NodeState]) -> None:
        n = len(order)
        self.tainted = np.fromiter(map(bool, map(_TAINTS, order)), np.bool_, n)
        self.cordoned = np.fromiter(map(bool, map(_UNSCHEDULABLE, order)), np.bool_, n)
        self.flagged = self.tainted | self.cordoned

    def _in_range(self) -> bool:
        columns = (self.alloc_cpu, self.alloc_mem, self.alloc_eph, self.alloc_pods,
                   self.used_cpu, self.used_mem, self.used_eph, self.used_pods,
                   self.nz_cpu, self.nz_mem)
        if not len(self.alloc_cpu):
            return True
        return all(int(np.abs(c).max()) < LIMIT for c in columns)

    def _check_nodes(self, order: list[NodeState]) -> None:
        """After the epoch moved: node objects replaced (allocatable) and taints or cordons."""
        self.domains = {}
        objects = list(map(_NODE, order))
        if any(a is not b for a, b in zip(objects, self.objects, strict=True)):
            self.objects = objects
            try:
                self._allocatable(len(order))
            except OverflowError:
                self.usable = False
                return
            self.usable = self._in_range()
        self._flags(order)

    # --- the Listener protocol of ClusterState ------------------------------------
    def on_bind(self, state: ClusterState, ps: PodState) -> None:
        """Copy the node's new totals into its row."""
        if ps.node is not None:
            self._refresh(ps.node)

    def on_unbind(self, state: ClusterState, ps: PodState) -> None:
        """Copy the node's new totals into its row (``ps.node`` is still set)."""
        if ps.node is not None:
            self._refresh(ps.node)

    def _refresh(self, name: str) -> None:
        i = self.row.get(name)
        if i is None or self.order is None:
            return  # a node the arrays do not hold yet: the next sync rebuilds them
        ns = self.order[i]
        used, nz = ns.requested, ns.nonzero
        values = (used.cpu, used.memory, used.ephemeral_storage, used.pods, nz.cpu, nz.memory)
        if any(not -LIMIT < v < LIMIT for v in values):
            self.usable = False
            return
        self.used_cpu[i], self.used_mem[i], self.used_eph[i], self.used_pods[i] = values[:4]
        self.nz_cpu[i], self.nz_mem[i] = values[4:]

    # --- reading -----------------------------------------------------------------
    def domain(self, key: str) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        """Per row: whether the node has label ``key``, and its value's id (``""`` if not)."""
        found = self.domains.get(key)
        if found is None:
            assert self.order is not None
            ids: dict[str, int] = {"": 0}
            values = [ns.labels.get(key) for ns in self.order]
            n = len(values)
            has = np.fromiter((v is not None for v in values), np.bool_, n)
            setdefault = ids.setdefault
            dom = np.fromiter((0 if v is None else setdefault(v, len(ids)) for v in values),
                              np.int64, n)
            found = self.domains[key] = (has, dom, ids)
        return found

    def window(self, start: int, size: int) -> slice | np.ndarray:
        """Rows ``start``, ``start + 1``, … (``size`` of them, wrapping around the order)."""
        n = len(self.alloc_cpu)
        end = start + size
        if end <= n:
            return slice(start, end)
        return np.concatenate((np.arange(start, n), np.arange(0, end - n)))


# The arrays of each cluster; weak, so a finished simulation's state is freed
# (the arrays hold no reference to it: the state lists them as a listener).
_VECTORS: weakref.WeakKeyDictionary[ClusterState, NodeVectors] = weakref.WeakKeyDictionary()


def vectors_for(state: ClusterState, order: Sequence[NodeState]) -> NodeVectors | None:
    """The arrays of ``state``, up to date and in the order ``order``; None if unusable.

    The first call builds them from the nodes' totals and registers them as a
    bind listener (not through ``subscribe``, which would replay every bound
    pod: the totals already sum them).
    """
    vec = _VECTORS.get(state)
    if vec is None:
        vec = _VECTORS[state] = NodeVectors()
        state.listeners.append(vec)
    if not vec.sync(state) or vec.order is not order:
        return None
    return vec


# A score rule's array form (used by .vector_scores): ``form(ctx, args, pod,
# feasible)`` gives the rule's (raw, normalised) scores over the feasible nodes
# of a vector search, each one int for every node or an int64 array, or None
# when it cannot (the rule's batch form then runs).  Kept here, a module that
# imports no rules, so the modules declaring forms can import it freely.
Scores = tuple[int | np.ndarray, int | np.ndarray]
VECTOR_SCORES: dict[Callable[..., Any], Callable[..., Scores | None]] = {}


def vector_score(fn: Callable[..., Any]
                 ) -> Callable[[Callable[..., Scores | None]], Callable[..., Scores | None]]:
    """Decorator: the array form of the score rule function ``fn`` (see ``VECTOR_SCORES``)."""

    def wrap(form: Callable[..., Scores | None]) -> Callable[..., Scores | None]:
        VECTOR_SCORES[fn] = form
        return form

    return wrap
