"""Sequences made only when read, for results and traces of the vector paths.

A traced vector cycle at 65,000 nodes scores 3,250 nodes per pod; keeping
their names, totals and per-rule scores as Python tuples meant allocating
tens of thousands of objects per pod, and the collector then walked every
one of them in the young collections that followed.  A :class:`Lazy` keeps
what the tuple is made from instead (a shared list of node names and a NumPy
array of rows, an int64 array of scores: objects the collector does not
walk) and makes the tuple on first read, equal to the one it stands for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["Lazy", "names_at", "names_from", "narrow", "values_of"]


class Lazy(Sequence[Any]):
    """The tuple of ``make(*args)``'s items, made on first read (equal to that tuple).

    ``make`` should be a module-level function and ``args`` plain values
    that do not change afterwards: a closure would be two more objects per
    sequence for the collector to walk while a trace keeps it.
    """

    __slots__ = ("_make", "_args", "_items")

    def __init__(self, make: Callable[..., Iterable[Any]], *args: Any) -> None:
        self._make: Callable[..., Iterable[Any]] | None = make
        self._args: tuple[Any, ...] = args
        self._items: tuple[Any, ...] | None = None

    def items(self) -> tuple[Any, ...]:
        """The items, as one tuple (made on the first read)."""
        return self._got()

    def _got(self) -> tuple[Any, ...]:
        if self._items is None:
            assert self._make is not None
            made = self._make(*self._args)
            self._items = made if type(made) is tuple else tuple(made)
            self._make = None
            self._args = ()
        return self._items

    def __getitem__(self, i: Any) -> Any:
        return self._got()[i]

    def __len__(self) -> int:
        return len(self._got())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._got())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lazy):
            other = other._got()
        return self._got() == other

    def __hash__(self) -> int:
        return hash(self._got())

    def __repr__(self) -> str:
        return repr(self._got())


def names_at(every: Sequence[str], rows: np.ndarray) -> tuple[str, ...]:
    """The names ``every[r]`` of the rows ``rows``, in their order."""
    return tuple(map(every.__getitem__, rows.tolist()))


def names_from(every: Sequence[str], start: int, count: int) -> tuple[str, ...]:
    """``count`` names of ``every`` from ``start``, wrapping around at its end once."""
    n = len(every)
    end = start + count
    return tuple(every[start:end]) if end <= n else (*every[start:], *every[:end - n])


# int objects 0..4095, shared by every tuple of totals made: a total is usually
# above 256 (Python's own small ints), and a 3,250-node cycle otherwise made
# 3,250 int objects for its totals.
_INTS = np.array(range(4096), dtype=object)


def values_of(v: int | np.ndarray, n: int, plus: int = 0) -> list[int]:
    """The ``n`` values ``v + plus`` (``v`` one int for all, or an int64 array) as ints."""
    if isinstance(v, int):
        return [v + plus] * n
    if plus:
        v = v.astype(np.int64) + plus  # a narrowed array (see narrow) would overflow
    if len(v) and int(v.min()) >= 0 and int(v.max()) < len(_INTS):
        out: list[int] = _INTS[v].tolist()
        return out
    return v.tolist()  # type: ignore[no-any-return]


# The integer types an int64 array kept for a trace is narrowed to, smallest first.
_NARROW = [np.iinfo(t) for t in (np.uint8, np.int16, np.int32)]


def narrow(v: Any) -> Any:
    """``v`` (an int64 array) in the smallest integer type holding its values, else as is.

    A traced cycle keeps its arrays of rows, totals and scores until the trace
    is read: at 65,000 nodes several of 3,250 items per pod, 26 kB each as
    int64, fresh memory every time (the trace keeps the last).  Scores of 0 to
    100 take one byte each; the values read back are the same.
    """
    if not isinstance(v, np.ndarray) or v.dtype != np.int64 or len(v) < 64:
        return v
    lo, hi = int(v.min()), int(v.max())
    for t in _NARROW:
        if t.min <= lo and hi <= t.max:
            return v.astype(t.dtype)
    return v
