"""The queue's clock rules: backoff, its whole-second window, the leftover flush.

Upstream ``pkg/scheduler/backend/queue/backoff_queue.go`` and
``scheduling_queue.go`` (v1.35): a pod that failed waits
``podInitialBackoffSeconds`` doubled per attempt up to ``podMaxBackoffSeconds``
(1 s and 10 s by default) after its last failure; the expiry is truncated to
the 1 s ordering window, and a pod is backing off while its expiry is not
before the window ``now`` is in.  ``flushBackoffQCompleted`` runs on every
whole second, ``flushUnschedulablePodsLeftover`` every 30 s and moves pods
that waited more than 5 minutes in unschedulablePods.

Times are simulated milliseconds.  Upstream's queue timestamps also carry the
tiny advance of each write and cycle (the oracle's 1 µs ticks); kruleset keeps
those as a tie-break counter beside the millisecond, so ``ts + backoff``
truncated to the window is the millisecond's, and a leftover flush exactly
5 minutes after a failure does not yet move the pod (it waited a tick less).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.rules.context import Unread
from kruleset.rules.registry import define_ruleset, rule

__all__ = [
    "BACKOFF_RULE", "FLUSH_BACKOFF_RULE", "FLUSH_LEFTOVER_RULE", "LEFTOVER_PERIOD_MS",
    "MAX_IN_UNSCHEDULABLE_MS", "QUEUEING", "WINDOW_MS", "backing_off", "backoff_expiry",
    "leftover_due",
]

QUEUEING = define_ruleset(
    "scheduler.queueing", "pipeline",
    "The scheduling queue's decisions: which queue a pod waits in, when it is retried.",
)

WINDOW_MS = 1_000                  # backoffQOrderingWindowDuration; the backoff flush period
LEFTOVER_PERIOD_MS = 30_000        # flushUnschedulablePodsLeftover's period
MAX_IN_UNSCHEDULABLE_MS = 300_000  # podMaxInUnschedulablePodsDuration

BACKOFF_RULE = "scheduler.queue.backoff"
FLUSH_BACKOFF_RULE = "scheduler.queue.flush-backoff"
FLUSH_LEFTOVER_RULE = "scheduler.queue.flush-leftover"


@rule(QUEUEING, BACKOFF_RULE,
      doc="A failed pod backs off podInitialBackoffSeconds doubled per attempt, at most "
          "podMaxBackoffSeconds, from its last failure; the expiry is truncated to the second.",
      source="pkg/scheduler/backend/queue/backoff_queue.go calculateBackoffDuration, "
             "getBackoffTime, alignToWindow")
def backoff_expiry(ctx: Unread, args: Mapping[str, Any], attempts: int, failed_ms: int,
                   initial_ms: int, max_ms: int) -> int | None:
    """When a pod's backoff ends (a whole second), or None if it never had an attempt."""
    if attempts == 0:
        return None
    duration = initial_ms
    for _ in range(1, attempts):
        if duration > max_ms - duration:
            duration = max_ms
            break
        duration += duration
    return (failed_ms + duration) // WINDOW_MS * WINDOW_MS


def backing_off(expiry: int | None, now: int) -> bool:
    """Still backing off at ``now``: the expiry is not before now's window
    (upstream ``isPodBackingoff``)."""
    return expiry is not None and expiry >= now // WINDOW_MS * WINDOW_MS


@rule(QUEUEING, FLUSH_BACKOFF_RULE,
      doc="Every whole second, pods whose backoff is over leave backoffQ (and the error "
          "backoffQ) for activeQ.",
      source="pkg/scheduler/backend/queue/scheduling_queue.go flushBackoffQCompleted")
def backoff_flush_due(ctx: Unread, args: Mapping[str, Any], expiry: int) -> int:
    """The first whole-second flush that releases a pod whose backoff ends at ``expiry``."""
    return expiry + WINDOW_MS


@rule(QUEUEING, FLUSH_LEFTOVER_RULE,
      doc="Every 30 s, pods that waited more than 5 minutes in unschedulablePods are "
          "retried (after their backoff).",
      source="pkg/scheduler/backend/queue/scheduling_queue.go flushUnschedulablePodsLeftover")
def leftover_due(ctx: Unread, args: Mapping[str, Any], failed_ms: int) -> int:
    """The 30 s flush that moves a pod that failed at ``failed_ms`` (strictly more than
    5 minutes later)."""
    return ((failed_ms + MAX_IN_UNSCHEDULABLE_MS) // LEFTOVER_PERIOD_MS + 1) * LEFTOVER_PERIOD_MS
