"""PrioritySort: the order of the scheduling queue (seed 003 §11.3).

Upstream ``pkg/scheduler/framework/plugins/queuesort`` (``Less``): the pod
with the higher priority first, then the one queued first.  Each rule gives a
pod a sort key (lower first); the queue compares them in rule order, so
``scheduler.queue.QueueTime`` only breaks ties of
``scheduler.queue.PrioritySort``.  The queue timestamp is upstream's
``QueuedPodInfo.Timestamp``: when the pod was created, or when its last
attempt failed (:mod:`.scheduling_queue`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.model.state import PodState
from kruleset.rules.context import Unread
from kruleset.rules.registry import rule

from ..framework import QUEUE

__all__: list[str] = []


@rule(QUEUE, "scheduler.queue.PrioritySort",
      doc="Higher priority first.",
      source="seed 003 §11.3; pkg/scheduler/framework/plugins/queuesort Less",
      describe=lambda k: f"priority {-k}")
def _queue_priority(ctx: Unread, args: Mapping[str, Any], ps: PodState) -> int:
    return -ps.pod.effective_priority


def _describe_time(k: tuple[int, int]) -> str:
    from kruleset.model.quantity import format_duration

    return f"queued at {format_duration(k[0])}"


@rule(QUEUE, "scheduler.queue.QueueTime",
      doc="Then the pod queued first: created, or failed its last attempt, earlier.",
      source="pkg/scheduler/framework/plugins/queuesort Less (QueuedPodInfo.Timestamp)",
      describe=_describe_time)
def _queue_time(ctx: Unread, args: Mapping[str, Any], ps: PodState) -> tuple[int, int]:
    got = ps.queue_time
    return got if got is not None else (ps.created, ps.seq)
