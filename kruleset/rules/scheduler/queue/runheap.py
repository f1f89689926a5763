"""A min-queue of tuples for the scheduling queue's activeQ and backoffQ.

Upstream keeps activeQ and backoffQ as binary heaps.  Pods mostly enter them
in order (a burst of pods created at one instant, of one priority; pods
failing one after another with the same backoff), and popping each from a
binary heap of thousands compares a dozen tuples.  :class:`RunHeap` keeps
the entries pushed in order in a run (a deque) and only the others in a heap;
``pop`` takes the smaller of the two heads, so it always returns the least
entry, exactly as one heap would (entries never compare equal: each ends
with a unique stamp and the queued pod).
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Any

__all__ = ["RunHeap"]


class RunHeap:
    """The entries' minimum first, whatever order they were pushed in."""

    __slots__ = ("_heap", "_run")

    def __init__(self) -> None:
        self._run: deque[tuple[Any, ...]] = deque()
        self._heap: list[tuple[Any, ...]] = []

    def __bool__(self) -> bool:
        return bool(self._run) or bool(self._heap)

    def __len__(self) -> int:
        return len(self._run) + len(self._heap)

    def push(self, entry: tuple[Any, ...]) -> None:
        """Add ``entry``."""
        run = self._run
        if not run or entry > run[-1]:
            run.append(entry)
        else:
            heapq.heappush(self._heap, entry)

    def peek(self) -> tuple[Any, ...]:
        """The least entry (the queue must not be empty)."""
        run, heap = self._run, self._heap
        if run and (not heap or run[0] < heap[0]):
            return run[0]
        return heap[0]

    def pop_live(self, where: str) -> Any:
        """Pop entries until one is live: its pod (last field) still has the entry's
        stamp (the field before) and waits in ``where``; that pod, or None."""
        run, heap = self._run, self._heap
        while run or heap:
            in_run = run and (not heap or run[0] < heap[0])
            entry = run.popleft() if in_run else heapq.heappop(heap)
            qp = entry[-1]
            if qp.stamp == entry[-2] and qp.where == where:
                return qp
        return None

    def pop(self) -> tuple[Any, ...]:
        """Remove and return the least entry (the queue must not be empty)."""
        run, heap = self._run, self._heap
        if run and (not heap or run[0] < heap[0]):
            return run.popleft()
        return heapq.heappop(heap)
