"""What one node's traced judgement recorded, kept with its result for replay.

The cycle cache keeps, with a traced dry run's judgement of a node, the entries
the judgement recorded, and replays them for the next pod of the same shape
(see :mod:`~kruleset.rules.scheduler.fast.cycle_cache`).  A traced run keeps
every such record until its trace is read, so they are kept as tuples of plain
values, which the collector stops tracking.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Recorded", "Recorder", "producer"]


# Entries are (rule, subject, result, why); groups (count, function, arguments): the
# producer Trace.defer takes, a functools.partial kept as its function and arguments.
Recorded = list[tuple[Any, ...]]


# The functions of the groups recorders keep, by number: a group kept as (count,
# number, arguments of plain values) is a tuple the collector stops tracking, where
# one holding the function stays tracked (a traced dry run keeps one per node judged).
_PRODUCERS: list[Callable[..., Any]] = []
_NUMBERS: dict[Callable[..., Any], int] = {}


def _number(fn: Callable[..., Any]) -> int | None:
    """``fn``'s number among the producers, for a module-level function (their number
    is bounded); None for anything else."""
    got = _NUMBERS.get(fn)
    if got is None:
        if type(fn) is not types.FunctionType or "<locals>" in fn.__qualname__:
            return None
        got = _NUMBERS[fn] = len(_PRODUCERS)
        _PRODUCERS.append(fn)
    return got


def producer(kept: Any) -> Callable[..., Any]:
    """The function of a group a :class:`Recorder` kept (its ``items[k][1]``)."""
    return _PRODUCERS[kept] if type(kept) is int else kept  # type: ignore[no-any-return]


class Recorder:
    """A stand-in trace that keeps what one node's judgement records, for replay.

    Takes :meth:`add` and :meth:`defer` like :class:`~kruleset.rules.engine.Trace`;
    ``count`` is the number of entries recorded.
    """

    __slots__ = ("items", "count", "now")

    def __init__(self, now: int = 0) -> None:
        self.items: Recorded = []
        self.count = 0
        self.now = now

    def add(self, rule: str, subject: str, result: str, why: str = "") -> None:
        """Keep one entry."""
        self.items.append((rule, subject, result, why))
        self.count += 1

    def defer(self, count: int, produce: Callable[[], Iterable[tuple[str, str, str, str]]]
              ) -> None:
        """Keep a group of ``count`` entries; ``produce`` may be called once per replay.

        A partial is kept as its function (a module-level one by its number, see
        :func:`producer`) and arguments (of plain values, the collector stops
        tracking them): the judgement log keeps these for every node judged.
        """
        if type(produce) is functools.partial and not produce.keywords:
            number = _number(produce.func)
            self.items.append((count, produce.func if number is None else number,
                               produce.args))
        else:
            self.items.append((count, produce, ()))
        self.count += count

    def __bool__(self) -> bool:
        return True
