"""DefaultPreemption's dry run and pick without a walk: an index of judged nodes.

The reference dry run walks the potential nodes from the first, judging each,
until it holds a non-violating candidate and ``numCandidates`` candidates
(10% of the nodes: 6,500 at 65,000), and the pick then compares them all.
Between two preemptors of one shape only the nodes the cluster's touched log
names change, so the walk's outcome follows from a few numbers kept per
position of the potential nodes:

* where the walk stops: the later of the first non-violating candidate and the
  ``numCandidates``-th candidate (sorted lists of the candidates' positions);
* which candidates it holds: the non-violating ones up to there (never more
  than ``numCandidates``: the walk stops when it has that many) and the first
  ``numCandidates`` violating ones (the reference's second, capped list);
* which it picks: every non-violating candidate's default pick key beats every
  violating one's (the first criterion is the number of PDB violations), so the
  best two keys of each kind over a range of positions decide; each kind has a
  segment tree of (key, position) giving the least pair over any range.

Judged positions only grow (the walk's frontier moves on when the judged ones
do not hold enough candidates); a changed node is judged again and its entries
replaced.  The index is valid for one potential-nodes sequence (compared by
identity); the judgements themselves outlive it in the cycle cache.
Traced, each position holds its judgement's place in the judgement log, and a
Fenwick tree sums the trace entries the judgements recorded, for the visited
prefix.  Used by :mod:`~kruleset.rules.scheduler.fast.dry_run` (the
``cycle_cache`` option of ``FastPaths``), checked against the reference walk by
``tests/test_candidate_index.py``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import Any

from kruleset.model.state import NodeState

from ..preemption.postfilter import Candidate

__all__ = ["CandidateIndex", "Visits", "Window"]

Key = tuple[int, ...]
# A traced index takes a new base of its results once the writes since the last
# outnumber its positions (and this many): reading a dry run's visits replays at
# most that many writes.
_REBASE_AT = 256
# Above every (pick key, position) pair: pick keys start with a count of PDB violations.
_EMPTY: tuple[Key, int] = ((1 << 62,), 1 << 62)


class _MinTree:
    """The least (key, position) pair over a range of positions, with point updates.

    Leaves written with ``later=True`` (the frontier moving on, one leaf after
    another) get their ancestors rebuilt in one pass before the next query.
    """

    __slots__ = ("size", "cells", "lo", "hi")

    def __init__(self, n: int) -> None:
        size = 1
        while size < n:
            size <<= 1
        self.size = size
        self.cells: list[tuple[Key, int]] = [_EMPTY] * (2 * size)
        self.lo = self.hi = -1  # leaves [lo, hi] written without their ancestors

    def put(self, i: int, value: tuple[Key, int], *, later: bool = False) -> None:
        cells = self.cells
        cells[i + self.size] = value
        if later:
            if self.lo < 0:
                self.lo = self.hi = i
            else:
                self.lo, self.hi = min(self.lo, i), max(self.hi, i)
            return
        i = (i + self.size) >> 1
        while i:
            a, b = cells[2 * i], cells[2 * i + 1]
            cells[i] = a if a <= b else b
            i >>= 1

    def _settle(self) -> None:
        cells = self.cells
        lo, hi = self.lo + self.size, self.hi + self.size
        self.lo = self.hi = -1
        while lo > 1:
            lo, hi = lo >> 1, hi >> 1
            for i in range(lo, hi + 1):
                a, b = cells[2 * i], cells[2 * i + 1]
                cells[i] = a if a <= b else b

    def least(self, lo: int, hi: int) -> tuple[Key, int]:
        """The least pair at positions ``lo`` ≤ p < ``hi`` (``_EMPTY`` if none)."""
        if self.lo >= 0:
            self._settle()
        cells = self.cells
        best = _EMPTY
        lo += self.size
        hi += self.size
        while lo < hi:
            if lo & 1:
                if cells[lo] < best:
                    best = cells[lo]
                lo += 1
            if hi & 1:
                hi -= 1
                if cells[hi] < best:
                    best = cells[hi]
            lo >>= 1
            hi >>= 1
        return best

    def two_least(self, lo: int, hi: int) -> tuple[tuple[Key, int], tuple[Key, int]]:
        """The two least pairs at positions ``lo`` ≤ p < ``hi``."""
        first = self.least(lo, hi)
        if first is _EMPTY:
            return first, first
        at = first[1]
        left, right = self.least(lo, at), self.least(at + 1, hi)
        return first, (left if left <= right else right)


class _Sums:
    """Prefix sums over positions with point updates (a Fenwick tree)."""

    __slots__ = ("tree",)

    def __init__(self, n: int) -> None:
        self.tree = [0] * (n + 1)

    def add(self, i: int, amount: int) -> None:
        tree = self.tree
        i += 1
        while i < len(tree):
            tree[i] += amount
            i += i & -i

    def prefix(self, n: int) -> int:
        """The sum over positions < ``n``."""
        tree = self.tree
        total = 0
        while n > 0:
            total += tree[n]
            n -= n & -n
        return total


class _Kind:
    """One kind of candidate (non-violating or violating): positions and candidates,
    in position order, and the tree of their keys."""

    __slots__ = ("pos", "cands", "tree")

    def __init__(self, n: int) -> None:
        # Machine integers: a slice is one memcpy and holds no objects.
        self.pos = array("q")
        self.cands: list[Candidate] = []
        self.tree = _MinTree(n)

    def add(self, p: int, c: Candidate, key: Key | None, later: bool) -> None:
        i = bisect_left(self.pos, p)
        self.pos.insert(i, p)
        self.cands.insert(i, c)
        if key is not None:
            self.tree.put(p, (key, p), later=later)

    def remove(self, p: int) -> None:
        i = bisect_left(self.pos, p)
        del self.pos[i], self.cands[i]
        self.tree.put(p, _EMPTY)


class Window:
    """What one dry run found: the positions visited (``0 .. visited - 1``), how many
    non-violating (``fine``) and violating (``violating``) candidates it holds, and
    how many violating candidates it visited in all (beyond the cap too)."""

    __slots__ = ("visited", "fine", "violating", "seen_violating")

    def __init__(self, visited: int, fine: int, violating: int, seen_violating: int) -> None:
        self.visited = visited
        self.fine = fine
        self.violating = violating
        self.seen_violating = seen_violating

    @property
    def failed(self) -> int:
        """How many visited nodes are no candidate."""
        return self.visited - self.fine - self.seen_violating


class CandidateIndex:
    """The judged positions of one potential-nodes sequence, indexed for the dry run.

    ``results[p]`` is what is kept for ``nodes[p]`` (its judgement, or traced its
    place in ``log``); ``outcome`` reads the judgement (a candidate, a failure,
    or None for a failure left to be built).  ``keyed``: the candidates' default
    pick keys are kept (the default pick criteria are in force).
    """

    __slots__ = ("nodes", "log", "keyed", "results", "where", "fine", "bad", "every", "sums",
                 "dirty", "base", "wpos", "wval", "key_of")

    def __init__(self, nodes: Sequence[NodeState], log: list[tuple[Any, ...]] | None,
                 keyed: bool) -> None:
        n = len(nodes)
        self.nodes = nodes
        self.log = log
        self.keyed = keyed
        # Traced: places in the log, as machine integers (see _Kind.pos).
        self.results: Any = array("q") if log is not None else []
        self.where: dict[str, int] | None = None  # node name -> position, built when needed
        self.fine = _Kind(n)
        self.bad = _Kind(n)
        self.every = array("q")  # every candidate's position, sorted
        self.sums = _Sums(n) if log is not None else None
        self.dirty: set[int] = set()
        # Traced: a copy of ``results`` and every write to them since (positions and
        # places in the log, appended to only), so that a dry run hands the trace
        # how many writes it saw instead of a copy of its visited positions (at
        # 65,000 nodes 6,500 of them per preemptor: 50 kB, fresh memory each time
        # while the trace keeps them); and each judgement's pick key, by its place.
        self.base = array("q")
        self.wpos = array("q")
        self.wval = array("q")
        self.key_of: dict[int, Key] = {}

    def outcome(self, kept: Any) -> Any:
        """The judgement behind what a position keeps."""
        return self.log[kept][0] if self.log is not None else kept

    def changed(self, names: Sequence[str]) -> None:
        """These nodes changed: their judged positions are judged again before the next query."""
        if not names or not self.results:
            return
        where = self.where
        if where is None:
            where = self.where = {node.name: p for p, node in enumerate(self.nodes)}
        judged = len(self.results)
        for name in names:
            p = where.get(name)
            if p is not None and p < judged:
                self.dirty.add(p)

    def query(self, wanted: int, judge: Callable[[NodeState], Any],
              key: Callable[[Candidate], Key] | None) -> Window:
        """Where the reference dry run stops for ``wanted`` candidates, and what it holds.

        ``judge(node)`` gives what to keep for a node not judged yet (or judged
        before it changed); ``key`` the default pick key of a candidate (with
        ``keyed``).
        """
        for p in sorted(self.dirty):
            self._unplace(p)
            self._place(p, judge(self.nodes[p]), key, later=False)
        self.dirty.clear()
        stop = self._stop(wanted)
        nodes = self.nodes
        while stop is None and len(self.results) < len(nodes):
            p = len(self.results)
            self.results.append(0 if self.log is not None else None)
            self._place(p, judge(nodes[p]), key, later=True)
            stop = self._stop(wanted)
        end = len(nodes) if stop is None else stop + 1
        fine = bisect_right(self.fine.pos, end - 1)
        seen = bisect_right(self.bad.pos, end - 1)
        return Window(end, min(fine, wanted), min(seen, wanted), seen)

    def _stop(self, wanted: int) -> int | None:
        """The reference's stop: a non-violating candidate and ``wanted`` in all."""
        fine, every = self.fine.pos, self.every
        if not fine or len(every) < wanted:
            return None
        return max(fine[0], every[wanted - 1])

    def _place(self, p: int, kept: Any, key: Callable[[Candidate], Key] | None,
               later: bool) -> None:
        self.results[p] = kept
        traced = self.log is not None
        if traced:
            self.wpos.append(p)
            self.wval.append(kept)
        got = self.outcome(kept)
        if isinstance(got, Candidate):
            k = key(got) if key is not None and self.keyed else None
            if traced and k is not None:
                self.key_of[kept] = k
            (self.fine if got.num_pdb_violations == 0 else self.bad).add(p, got, k, later)
            if later:
                self.every.append(p)
            else:
                self.every.insert(bisect_left(self.every, p), p)
        if self.sums is not None:
            self.sums.add(p, self.log[kept][2])  # type: ignore[index]

    def _unplace(self, p: int) -> None:
        kept = self.results[p]
        got = self.outcome(kept)
        if isinstance(got, Candidate):
            (self.fine if got.num_pdb_violations == 0 else self.bad).remove(p)
            del self.every[bisect_left(self.every, p)]
        if self.sums is not None:
            self.sums.add(p, -self.log[kept][2])  # type: ignore[index]

    # --- what a window holds ---------------------------------------------------------

    def candidates(self, w: Window) -> tuple[Candidate, ...]:
        """The window's candidates as the reference lists them: non-violating first."""
        return tuple(self.fine.cands[:w.fine] + self.bad.cands[:w.violating])

    def visits(self, w: Window) -> Visits:
        """Traced: the window's :class:`Visits`, as of now."""
        n = len(self.wpos)
        if n > max(len(self.results), _REBASE_AT):
            self.base = self.results[:]
            self.wpos, self.wval = array("q"), array("q")
            n = 0
        assert self.log is not None
        return Visits(self.log, self.base, self.wpos, self.wval, n, w, self.key_of)

    def best_two(self, w: Window) -> tuple[int, Key, Key | None]:
        """The best candidate's place in :meth:`candidates`, its key, the runner-up's key
        (None: a single candidate).  ``keyed`` only; the window holds a candidate."""
        fine, bad = self.fine, self.bad
        if w.fine:
            first, second = fine.tree.two_least(0, fine.pos[w.fine - 1] + 1)
            place = bisect_left(fine.pos, first[1])
            if second is _EMPTY and w.violating:
                second = bad.tree.least(0, bad.pos[w.violating - 1] + 1)
        else:
            first, second = bad.tree.two_least(0, bad.pos[w.violating - 1] + 1)
            place = bisect_left(bad.pos, first[1])
        return place, first[0], (None if second is _EMPTY else second[0])


# --- a traced dry run's visits, made when the trace is read ----------------------------------

class Visits:
    """What a traced dry run visited, as of its query, made only when read.

    ``own()``: the places in ``log`` of the visited positions' judgements;
    ``chosen()``: the candidates' positions in :meth:`CandidateIndex.candidates`'
    order; ``names()`` and ``keys()``: their node names and pick keys (``keyed``
    indexes only).  Kept as the index's base of results and the first ``n`` of
    its writes since, which are only appended to: one object per preemptor
    for the trace to keep, where copies of the positions were 50 kB each and
    views of them a handful of objects for every full collection to walk.
    """

    __slots__ = ("log", "_base", "_wpos", "_wval", "_n", "_visited", "_fine", "_violating",
                 "_key_of", "_own", "_chosen")

    def __init__(self, log: list[tuple[Any, ...]], base: array[int], wpos: array[int],
                 wval: array[int], n: int, window: Window, key_of: dict[int, Key]) -> None:
        self.log = log
        self._base, self._wpos, self._wval, self._n = base, wpos, wval, n
        # The window's numbers, not the window: one object fewer kept per preemptor.
        self._visited, self._fine, self._violating = window.visited, window.fine, window.violating
        self._key_of = key_of
        self._own: list[int] | None = None
        self._chosen: list[int] | None = None

    def own(self) -> list[int]:
        """The results of the visited positions (places in ``log``), in order."""
        if self._own is None:
            got = array("q", self._base)
            size = len(got)
            n = self._n
            for p, kept in zip(self._wpos[:n], self._wval[:n], strict=True):
                if p < size:
                    got[p] = kept
                else:  # the frontier moving on: positions are added in order
                    got.append(kept)
                    size += 1
            self._own = got[:self._visited].tolist()
        return self._own

    def chosen(self) -> list[int]:
        """The first non-violating and violating candidates' positions the window holds."""
        if self._chosen is None:
            log = self.log
            good: list[int] = []
            bad: list[int] = []
            for p, kept in enumerate(self.own()):
                got = log[kept][0]
                if isinstance(got, Candidate):
                    (good if got.num_pdb_violations == 0 else bad).append(p)
            self._chosen = good[:self._fine] + bad[:self._violating]
        return self._chosen

    def names(self) -> list[str]:
        """The candidates' node names, in :meth:`chosen`'s order."""
        log, own = self.log, self.own()
        return [log[own[p]][4] for p in self.chosen()]

    def keys(self) -> list[Key]:
        """The candidates' pick keys, in :meth:`chosen`'s order."""
        key_of, own = self._key_of, self.own()
        return [key_of[own[p]] for p in self.chosen()]
