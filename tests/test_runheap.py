"""The queue's RunHeap pops exactly what one binary heap would, whatever the push order."""

from __future__ import annotations

import heapq
import random

import pytest

from kruleset.rules.scheduler.queue.runheap import RunHeap


@pytest.mark.parametrize("seed", range(20))
def test_pops_the_least_entry_like_a_heap(seed: int) -> None:
    rnd = random.Random(seed)
    ours = RunHeap()
    ref: list[tuple[int, int]] = []
    for step in range(400):
        if rnd.random() < 0.6 or not ref:
            # Mostly in order (a burst), sometimes out of it, never equal.
            key = (step if rnd.random() < 0.7 else rnd.randint(0, 400), step)
            ours.push(key)
            heapq.heappush(ref, key)
        else:
            assert ours.peek() == ref[0]
            assert ours.pop() == heapq.heappop(ref)
        assert len(ours) == len(ref) and bool(ours) == bool(ref)
    while ref:
        assert ours.pop() == heapq.heappop(ref)
    assert not ours
