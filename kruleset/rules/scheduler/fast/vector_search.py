"""The filter search as array operations over the node vectors (the ``node_vectors`` option).

The batch search (:mod:`.batch_search`) runs each filter's batch form on a
chunk of nodes: still a Python step per node and filter.  For the common pod
(the filters left after PreFilter are NodeUnschedulable, NodeName with no
``nodeName``, TaintToleration and NodeResourcesFit, and the pod requests no
extended resource) only NodeResourcesFit can fail a node that is neither
tainted nor cordoned and has no nominated pods, and that is a comparison of
the pod's requests with :class:`~.node_vectors.NodeVectors`' columns.  So
:func:`vector_find` judges a chunk of nodes at once: the resource test as
arrays, the few tainted, cordoned or nominated nodes one by one through
the rules themselves (all of them, in order, so the first failure is
theirs), and then stops exactly where the node-by-node search stops.  It
returns what :func:`~.batch_search.find_batched` returns: the same feasible
nodes, failures (the same Failure values, named as the batch search names
them, in visiting order), processed count and, when traced, which rule failed
each node and what each nominated node recorded.  Any other pod (or an
unusable array) gets None and the batch search answers.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState, PodState

from ...engine import Failure
from ..defaults import (
    FILTER_NODE_NAME,
    FILTER_NODE_RESOURCES_FIT,
    FILTER_NODE_UNSCHEDULABLE,
    FILTER_TAINT_TOLERATION,
)
from ..filters import (  # noqa: F401  (imported for their rules, named below)
    nodename,
    noderesourcesfit,
    nodeunschedulable,
    tainttoleration,
)
from ..framework import FILTERS, ScheduleContext
from ..node_selection import NOMINATED_KEY, run_filters_with_nominated
from .node_vectors import LIMIT, NodeVectors, vectors_for
from .search_trace import FilterRules, nominated_recorded

__all__ = ["Feasible", "vector_find"]

# Nodes judged together per chunk at least: array operations cost about the
# same for a few nodes as for a thousand, and judging past the stopping
# point changes nothing (filters are pure functions of the cluster).
MIN_CHUNK = 1024

# The filters the arrays answer for; any other left after PreFilter sends the
# pod to the batch search.
_UNSCHEDULABLE = FILTERS.rule(FILTER_NODE_UNSCHEDULABLE).fn
_NODE_NAME = FILTERS.rule(FILTER_NODE_NAME).fn
_TAINTS = FILTERS.rule(FILTER_TAINT_TOLERATION).fn
_FIT = FILTERS.rule(FILTER_NODE_RESOURCES_FIT).fn
_SUPPORTED = frozenset({_UNSCHEDULABLE, _NODE_NAME, _TAINTS, _FIT})

Verdict = tuple[Failure | None, int | None]


class Feasible(Sequence[NodeState]):
    """Feasible nodes found by :func:`vector_find`, as their rows in ``vectors``.

    A sequence of :class:`NodeState` to every reader, but the list of nodes
    is made only when iterated: touching thousands of scattered node objects
    costs more than the vector search itself, and the vector scores
    (:mod:`.vector_scores`) read ``rows`` instead.
    """

    __slots__ = ("rows", "vectors", "names", "_nodes", "_columns")

    def __init__(self, rows: np.ndarray, vectors: NodeVectors) -> None:
        self.rows = rows
        self.vectors = vectors
        # The nodes' names, when a traced search already has them.
        self.names: Sequence[str] | None = None
        self._nodes: list[NodeState] | None = None
        self._columns: dict[str, np.ndarray] = {}

    def column(self, name: str) -> np.ndarray:
        """The vectors' column ``name`` at these rows (gathered once: several scores read it)."""
        got = self._columns.get(name)
        if got is None:
            got = self._columns[name] = getattr(self.vectors, name)[self.rows]
        return got

    def nodes(self) -> list[NodeState]:
        """The nodes, in search order."""
        if self._nodes is None:
            order = self.vectors.order
            assert order is not None
            self._nodes = [order[i] for i in self.rows.tolist()]
        return self._nodes

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, int) and self._nodes is None:
            order = self.vectors.order
            assert order is not None
            return order[int(self.rows[i])]
        return self.nodes()[i]

    def __iter__(self) -> Iterator[NodeState]:
        return iter(self.nodes())

    def __repr__(self) -> str:
        return repr(self.nodes())


def _fit_index(rules: FilterRules, pod: Pod) -> int | None | bool:
    """NodeResourcesFit's place among ``rules`` (None: not run); False if unsupported."""
    fit: int | None = None
    for k, (fn, _, _) in enumerate(rules):
        if fn not in _SUPPORTED or (fn is _NODE_NAME and pod.node_name):
            return False
        if fn is _FIT:
            fit = k
    return fit


def vector_find(ctx: ScheduleContext, rules: FilterRules, pod: Pod, order: Sequence[NodeState],
                start: int, to_find: int, failures: dict[str, Failure],
                fail_at: dict[str, int] | None = None,
                nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None = None
                ) -> tuple[Feasible, int, int] | None:
    """:func:`~.batch_search.find_batched`'s answer from the node vectors, or None."""
    fit = _fit_index(rules, pod)
    req = pod.requests
    if (fit is False or req.scalars
            or max(req.cpu, req.memory, req.ephemeral_storage) >= LIMIT):
        return None
    vec = vectors_for(ctx.state, order)
    if vec is None:
        return None
    noms: Mapping[str, list[PodState]] = ctx.extra[NOMINATED_KEY]
    nominated = sorted(vec.row[name] for name in ctx.state.nominations
                       if name in vec.row and name in noms) if noms else []
    search = _Search(ctx, rules, pod, vec, order, fit if fit is not False else None,
                     failures, fail_at, nom_entries)
    n = len(order)
    pos = processed = found = 0
    picks: list[np.ndarray] = []
    while pos < n:
        need = to_find - found
        # A quarter more than still needed (and the next that fits): usually one chunk.
        size = min(n - pos, max(need + (need >> 2), MIN_CHUNK))
        first = (start + pos) % n
        take, count, stopped = search.chunk(first, size, need, nominated)
        picks.append(take)
        found += len(take)
        processed += count
        if stopped:
            return search.feasible(picks), processed, 1
        pos += size
    return search.feasible(picks), processed, 0


class _Search:
    """One vector search's pod, rules and outputs (see :func:`vector_find`)."""

    __slots__ = ("ctx", "rules", "pod", "vec", "order", "fit", "failures", "fail_at",
                 "nom_entries", "fit_failures")

    def __init__(self, ctx: ScheduleContext, rules: FilterRules, pod: Pod, vec: NodeVectors,
                 order: Sequence[NodeState], fit: int | None, failures: dict[str, Failure],
                 fail_at: dict[str, int] | None,
                 nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None) -> None:
        self.ctx, self.rules, self.pod, self.vec, self.order = ctx, rules, pod, vec, order
        self.fit = fit
        self.failures, self.fail_at, self.nom_entries = failures, fail_at, nom_entries
        # NodeResourcesFit's failure per node state, one object each (as its batch form).
        self.fit_failures: dict[tuple[int, ...], Failure] = {}

    def chunk(self, first: int, size: int, need: int, nominated: Sequence[int]
              ) -> tuple[np.ndarray, int, bool]:
        """Judge rows ``first``… (``size`` of them): the feasible rows kept, the nodes
        given a status, and whether the search stops in this chunk."""
        vec, n = self.vec, len(self.order)
        w = vec.window(first, size)
        bad = self._fit_mask(w, size)
        special = set(np.flatnonzero(vec.flagged[w]).tolist())
        for row in nominated:
            rel = (row - first) % n
            if rel < size:
                special.add(rel)
        verdicts: dict[int, Verdict] = {}
        noms = set(nominated)
        for rel in sorted(special):
            row = (first + rel) % n
            verdict = self._judge(self.order[row], row in noms)
            verdicts[rel] = verdict
            bad[rel] = verdict[0] is not None
        ok = np.flatnonzero(~bad)
        stopped = len(ok) > need
        count = int(ok[need]) if stopped else size
        take = ok[:need] if stopped else ok
        self._record(first, np.flatnonzero(bad[:count]).tolist(), verdicts)
        return (take + first) % n, count, stopped

    def _fit_mask(self, w: Any, size: int) -> np.ndarray:
        """NodeResourcesFit's verdict on rows ``w`` (True: fails), as ``insufficient_resources``."""
        if self.fit is None:
            return np.zeros(size, np.bool_)
        vec, req = self.vec, self.pod.requests
        bad: np.ndarray = vec.used_pods[w] + 1 > vec.alloc_pods[w]
        if req.cpu:
            bad |= req.cpu > vec.alloc_cpu[w] - vec.used_cpu[w]
        if req.memory:
            bad |= req.memory > vec.alloc_mem[w] - vec.used_mem[w]
        if req.ephemeral_storage:
            bad |= req.ephemeral_storage > vec.alloc_eph[w] - vec.used_eph[w]
        return bad

    def _judge(self, node: NodeState, nominated: bool) -> Verdict:
        """Every rule on one node, as the batch search judges it."""
        ctx, pod = self.ctx, self.pod
        if nominated:
            entries = self.nom_entries
            if entries is None:
                return run_filters_with_nominated(ctx, pod, node), None
            f, entries[node.name] = nominated_recorded(ctx, pod, node)
            return f, None
        for k, (fn, args, name) in enumerate(self.rules):
            f = fn(ctx, args, pod, node)
            if f is not None:
                return self._name(f, name), k
        return None, None

    @staticmethod
    def _name(f: Failure, name: str) -> Failure:
        return f if f.rule else Failure(f.reason, f.code, name, f.detail)

    def _record(self, first: int, failing: Sequence[int], verdicts: Mapping[int, Verdict]
                ) -> None:
        """The failures of the nodes given a status, in visiting order."""
        n = len(self.order)
        rows = (np.asarray(failing, np.int64) + first) % n
        got: list[Failure | None] = self._fit_failures_at(rows, [
            rel not in verdicts for rel in failing] if verdicts else None)
        at: list[int | None] = [self.fit] * len(got)
        for rel, verdict in verdicts.items():
            # The few nodes judged one by one: their place among the failing
            # (sorted) rows, found without a pass over all of them.
            i = bisect_left(failing, rel)
            if i < len(failing) and failing[i] == rel:
                got[i], at[i] = verdict
        names = self.vec.names
        chosen = [names[r] for r in rows.tolist()]
        assert None not in got
        self.failures.update(zip(chosen, got, strict=True))  # type: ignore[arg-type]
        if self.fail_at is not None:
            self.fail_at.update((name, k) for name, k in zip(chosen, at, strict=True)
                                if k is not None)

    def _fit_failures_at(self, rows: np.ndarray, mask: list[bool] | None
                         ) -> list[Failure | None]:
        """NodeResourcesFit's failure of each row (None where ``mask`` is False), one
        :meth:`_fit_failure` per distinct row of numbers instead of one per node."""
        if not len(rows):
            return []
        vec = self.vec
        keep = rows if mask is None else rows[np.asarray(mask, np.bool_)]
        out: list[Failure | None] = [None] * len(rows)
        if not len(keep):
            return out
        numbers = np.stack([vec.alloc_pods[keep], vec.alloc_cpu[keep], vec.alloc_mem[keep],
                            vec.alloc_eph[keep], vec.used_pods[keep], vec.used_cpu[keep],
                            vec.used_mem[keep], vec.used_eph[keep]], axis=1)
        _, first, inverse = np.unique(numbers, axis=0, return_index=True, return_inverse=True)
        order = self.order
        fs = [self._fit_failure(order[r]) for r in keep[first].tolist()]
        each = [fs[i] for i in inverse.reshape(-1).tolist()]
        if mask is None:
            return each  # type: ignore[return-value]
        it = iter(each)
        return [next(it) if m else None for m in mask]

    def _fit_failure(self, node: NodeState) -> Failure:
        """NodeResourcesFit's failure, shared by nodes with the same numbers (as its batch form)."""
        alloc, used = node.node.allocatable, node.requested
        key = (alloc.pods, alloc.cpu, alloc.memory, alloc.ephemeral_storage,
               used.pods, used.cpu, used.memory, used.ephemeral_storage)
        f = self.fit_failures.get(key)
        if f is None:
            assert self.fit is not None
            fn, args, name = self.rules[self.fit]
            got = fn(self.ctx, args, self.pod, node)
            assert got is not None
            f = self.fit_failures[key] = self._name(got, name)
        return f

    def feasible(self, picks: list[np.ndarray]) -> Feasible:
        return Feasible(np.concatenate(picks) if len(picks) != 1 else picks[0], self.vec)
