"""Retries of a workload controller whose pod creation the API server refused.

Upstream's workload controllers sync each workload from a rate-limited work
queue: a sync that fails (a pod create refused by ResourceQuota or
LimitRanger admission) puts the workload back with a delay that doubles with
each consecutive failure, and a sync that succeeds forgets them.  The
ReplicaSet, StatefulSet and DaemonSet controllers use client-go's default
controller rate limiter (5 ms, at most 1,000 s); the Job controller its own
API backoff (1 s, at most 60 s).  An event on one of the workload's own pods
(created, bound, ready, terminating, gone) queues it again at once.  A failed
sync also stops creating the rest of its pods (the slow-start batches stop at
the first batch with an error; kruleset stops at the first refusal).

Without this a controller refused by a full quota retried at the same
instant for ever, and the simulation could not settle.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from ..model.state import PodState

__all__ = ["JOB_BACKOFF", "REPLICASET_BACKOFF", "CreateBackoff", "pods_mark"]

# (first delay, longest delay) in ms.
REPLICASET_BACKOFF = (5, 1_000_000)  # workqueue.DefaultTypedControllerRateLimiter
JOB_BACKOFF = (1_000, 60_000)        # job controller: DefaultJobApiBackOff, MaxJobApiBackOff


def pods_mark(pods: Iterable[PodState]) -> Hashable:
    """What a workload's controller would hear about its pods: a change requeues it at once."""
    return tuple((ps.key, ps.node, ps.phase, ps.ready, ps.terminating, ps.gone) for ps in pods)


class CreateBackoff:
    """The per-workload failure counts and retry times of one controller's work queue."""

    def __init__(self, delays: tuple[int, int]) -> None:
        self.first, self.longest = delays
        self.failures: dict[str, int] = {}  # key -> consecutive failed syncs
        self.waiting: dict[str, tuple[int, Hashable]] = {}  # key -> (retry time, pods_mark)

    def blocked(self, key: str, now: int, mark: Hashable) -> bool:
        """Whether ``key`` must not sync now: it failed, its delay has not passed and
        nothing happened to its pods since (``mark``)."""
        got = self.waiting.get(key)
        if got is None:
            return False
        if now >= got[0] or mark != got[1]:
            del self.waiting[key]
            return False
        return True

    def failed(self, key: str, now: int, mark: Hashable) -> None:
        """A sync of ``key`` had a pod refused: retry after the next delay."""
        n = self.failures.get(key, 0)
        self.failures[key] = n + 1
        delay = self.longest if n >= 40 else min(self.first << n, self.longest)
        self.waiting[key] = (now + delay, mark)

    def succeeded(self, key: str) -> None:
        """A sync of ``key`` went through: the next failure starts from the first delay."""
        self.failures.pop(key, None)

    def next_time(self, now: int) -> int | None:
        """The earliest retry still to come."""
        times = [at for at, _ in self.waiting.values() if at > now]
        return min(times) if times else None
