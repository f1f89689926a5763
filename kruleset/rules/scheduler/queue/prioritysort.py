"""PrioritySort: the order of the scheduling queue (seed 003 §11.3).

Upstream ``pkg/scheduler/framework/plugins/queuesort`` (``Less``): the pod
with the higher priority first, then the one queued first.  Each rule gives a
pod a sort key (lower first); the queue compares them in rule order, so
``scheduler.queue.CreationOrder`` only breaks ties of
``scheduler.queue.PrioritySort``.  kruleset's queue time is the order pods
were created in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.model.state import PodState
from kruleset.rules.registry import rule

from ..framework import QUEUE

__all__: list[str] = []


@rule(QUEUE, "scheduler.queue.PrioritySort",
      doc="Higher priority first.",
      source="seed 003 §11.3; pkg/scheduler/framework/plugins/queuesort Less",
      describe=lambda k: f"priority {-k}")
def _queue_priority(ctx: Any, args: Mapping[str, Any], ps: PodState) -> int:
    return -ps.pod.effective_priority


@rule(QUEUE, "scheduler.queue.CreationOrder",
      doc="Then the pod created first (upstream: the earlier queue timestamp).",
      source="pkg/scheduler/framework/plugins/queuesort Less",
      describe=lambda k: f"created #{k}")
def _queue_creation(ctx: Any, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.seq
