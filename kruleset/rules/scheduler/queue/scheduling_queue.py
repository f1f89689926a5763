"""The scheduling queue of kube-scheduler v1.35: activeQ, backoffQ, unschedulablePods.

Upstream ``pkg/scheduler/backend/queue/scheduling_queue.go`` (``PriorityQueue``),
``active_queue.go``, ``backoff_queue.go``, with the v1.35 feature gates on
(SchedulerQueueingHints, SchedulerPopFromBackoffQ, SchedulerAsyncPreemption):

* a new pod goes to activeQ unless a PreEnqueue plugin (scheduling gates)
  keeps it in unschedulablePods, without an attempt;
* ``pop`` takes activeQ's head (the queue-sort order: priority, then the
  queue timestamp), and when activeQ is empty backoffQ's head (earliest
  backoff expiry, then the same order), backoff over or not;
* a pod a plugin rejected waits in unschedulablePods; an event moves it only
  if one of its rejecting plugins registered for the event and its
  QueueingHint says Queue (:mod:`.hints`); it then goes to backoffQ while
  backing off, to activeQ otherwise;
* a pod that failed with an error (no rejecting plugin) goes to the error
  backoffQ, which ``pop`` never takes early: only the whole-second flush
  releases it;
* the leftover flush moves pods that waited more than 5 minutes;
* while a pod's asynchronous preemption runs, DefaultPreemption's PreEnqueue
  keeps it out (``scheduler.queue.preemption-gate``).

Each decision is a named rule, traced with the pod as subject.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from kruleset.model.state import PodState
from kruleset.rules.context import Unread
from kruleset.rules.engine import Trace
from kruleset.rules.registry import rule

from .backoff import (
    FLUSH_BACKOFF_RULE,
    FLUSH_LEFTOVER_RULE,
    LEFTOVER_PERIOD_MS,
    QUEUEING,
    WINDOW_MS,
    backing_off,
    backoff_expiry,
    backoff_flush_due,
    leftover_due,
)
from .events import UNSCHEDULED_POD, WILDCARD, ClusterEvent, Occurrence
from .hints import Hint, registrations_of
from .runheap import RunHeap

__all__ = ["Clock", "QueuedPod", "SchedulingQueue"]

ACTIVE, BACKOFF, ERROR_BACKOFF, UNSCHEDULABLE, IN_FLIGHT = (
    "active", "backoff", "error-backoff", "unschedulable", "in-flight")
_SKIP, _AFTER_BACKOFF = 0, 1

ADD_RULE = "scheduler.queue.add"
GATED_RULE = "scheduler.queue.gated"
POP_RULE = "scheduler.queue.pop"
FAILED_RULE = "scheduler.queue.unschedulable"
ERROR_RULE = "scheduler.queue.error-backoff"
REQUEUE_RULE = "scheduler.queue.requeue"
PREEMPTION_GATE_RULE = "scheduler.queue.preemption-gate"
PREEMPTION_GATE = "DefaultPreemption"
SCHEDULING_GATES = "SchedulingGates"


def _doc_rule(name: str, doc: str, source: str) -> None:
    # Decisions made by SchedulingQueue's methods, registered for `kruleset
    # rules` and --explain; the function only names the decision.
    def decide(ctx: Unread, args: Mapping[str, Any], *subject: Any) -> str:
        return name

    rule(QUEUEING, name, doc=doc, source=source)(decide)


_doc_rule(ADD_RULE, "A new pod enters activeQ, unless a PreEnqueue plugin gates it.",
          "pkg/scheduler/backend/queue/scheduling_queue.go PriorityQueue.Add, moveToActiveQ")
_doc_rule(GATED_RULE, "A pod a PreEnqueue plugin rejects waits in unschedulablePods, "
          "never attempted, until an event lets the plugin pass it.",
          "pkg/scheduler/backend/queue/scheduling_queue.go runPreEnqueuePlugins")
_doc_rule(POP_RULE, "The scheduler takes activeQ's head (queue-sort order); when activeQ is "
          "empty, backoffQ's head (earliest backoff expiry), even before its backoff ends.",
          "pkg/scheduler/backend/queue/active_queue.go unlockedPop (SchedulerPopFromBackoffQ)")
_doc_rule(FAILED_RULE, "A pod rejected by plugins waits in unschedulablePods (no event came "
          "while it was being scheduled).",
          "pkg/scheduler/backend/queue/scheduling_queue.go AddUnschedulableIfNotPresent, "
          "determineSchedulingHintForInFlightPod")
_doc_rule(ERROR_RULE, "A pod whose attempt ended in an error (no rejecting plugin) waits in the "
          "error backoffQ, which only the whole-second flush releases.",
          "pkg/scheduler/backend/queue/backoff_queue.go add (podErrorBackoffQ)")
_doc_rule(REQUEUE_RULE, "An event moves an unschedulable pod when a rejecting plugin registered "
          "for it and its QueueingHint says Queue: to backoffQ while backing off, else activeQ.",
          "pkg/scheduler/backend/queue/scheduling_queue.go movePodsToActiveOrBackoffQueue, "
          "isPodWorthRequeuing, requeuePodWithQueueingStrategy")
_doc_rule(PREEMPTION_GATE_RULE, "While its asynchronous preemption runs, the preemptor is kept "
          "out of the queues; once gated it hears only pod deletions.",
          "pkg/scheduler/framework/plugins/defaultpreemption PreEnqueue; "
          "pkg/scheduler/framework/preemption prepareCandidateAsync")


class Clock(Protocol):
    """What the queue reads the simulated time (ms) from."""

    @property
    def now(self) -> int: ...


class QueuedPod:
    """Upstream ``QueuedPodInfo``: a pod's place and history in the queue."""

    __slots__ = ("ps", "ms", "tick", "attempts", "plugins", "expiry", "where", "stamp",
                 "gated_by", "why", "key")

    def __init__(self, ps: PodState, ms: int, tick: int) -> None:
        self.ps = ps
        self.key = ps.key
        # The queue timestamp (ms, tick), kept as two numbers: no tuple per pod
        # and per failure for the garbage collector to count.
        self.ms = ms
        self.tick = tick
        self.attempts = 0
        self.plugins: frozenset[str] = frozenset()  # rejecting (or gating) plugins
        self.expiry: int | None = None      # backoff expiry, cached until the next pop
        self.where = ""
        self.stamp = 0                      # heap entries with another stamp are stale
        self.gated_by = ""                  # the PreEnqueue plugin keeping it out
        self.why = "it was created"         # why it is in activeQ/backoffQ (for attempts)

    @property
    def ts(self) -> tuple[int, int]:
        """The queue timestamp: (ms, tick)."""
        return (self.ms, self.tick)


class SchedulingQueue:
    """The queue; the simulation calls it at every pod, event, instant and attempt."""

    def __init__(self, sort_key: Callable[[PodState], tuple[Any, ...]],
                 gate: Callable[[PodState], tuple[str, str] | None],
                 trace: Trace | None, clock: Clock,
                 initial_ms: int = 1_000, max_ms: int = 10_000, *,
                 priority_sort: bool = False, plain_passes: bool = False) -> None:
        # The simulation's time (its ``now``, read at each step: events arrive
        # between the queue's steps).
        self.clock = clock
        self.sort_key = sort_key
        # The default QueueSort (PrioritySort then QueueTime, no arguments): its key
        # is made here, without the rule engine's composite per push.
        self.priority_sort = priority_sort
        # PreEnqueue passes a pod without scheduling gates and claims unasked
        # (only SchedulingGates and DynamicResources run it, untraced).
        self.plain_passes = plain_passes
        self.gate = gate
        self.trace = trace
        self.initial_ms = initial_ms
        self.max_ms = max_ms
        self.tick = 0
        self.pods: dict[str, QueuedPod] = {}
        self.unschedulable: dict[str, QueuedPod] = {}
        self.by_plugin: dict[str, set[str]] = {}
        self._active = RunHeap()
        self._backoff = RunHeap()
        self._error = RunHeap()
        # Pods parked after a failure -> when the leftover flush moves them.  They
        # are parked at their failure, so in the order of their due times: the
        # first entry is the earliest, and a pod leaving unschedulablePods
        # leaves this too (no stale entries, no heap).
        self._leftover: dict[str, int] = {}
        self.sizes = {ACTIVE: 0, BACKOFF: 0, ERROR_BACKOFF: 0}
        self.preempting: set[str] = set()
        self._flushed = (-1, -1)
        self._hint_cache: dict[tuple[str, str, int], list[Hint | None]] = {}
        # Pods created since the last look, flat: pod, creation ms, tick, pod, … (a
        # burst of thousands adds no tuple per pod for the garbage collector).
        self._new: list[Any] = []

    # --- bookkeeping -------------------------------------------------------------------
    @property
    def now(self) -> int:
        """The simulated time (ms)."""
        return self.clock.now

    def _stamp(self) -> tuple[int, int]:
        self.tick += 1
        return (self.clock.now, self.tick)

    def _note(self, rule_name: str, qp: QueuedPod, result: str, why: str = "") -> None:
        # Callers test ``self.trace`` first where the words cost something to make.
        if self.trace is not None:
            self.trace.add(rule_name, qp.key, result, why)

    def _leave(self, qp: QueuedPod) -> None:
        where = qp.where
        if where in self.sizes:
            self.sizes[where] -= 1
        elif where == UNSCHEDULABLE:
            del self.unschedulable[qp.key]
            self._leftover.pop(qp.key, None)
            for p in qp.plugins:
                keys = self.by_plugin.get(p)
                if keys is not None:
                    keys.discard(qp.key)
        qp.where = ""
        qp.stamp += 1

    def _order(self, qp: QueuedPod) -> tuple[Any, ...]:
        ps = qp.ps
        if self.priority_sort:
            return (-ps.pod.effective_priority, qp.ms, qp.tick)
        ps.queue_time = qp.ts
        key = self.sort_key(ps)
        ps.queue_time = None  # read by the sort key only: no reference outlives the queue's
        return key

    def _expiry(self, qp: QueuedPod) -> int | None:
        if qp.expiry is None and qp.attempts:
            qp.expiry = backoff_expiry(None, {}, qp.attempts, qp.ms, self.initial_ms,
                                       self.max_ms)
        return qp.expiry

    def _push_active(self, qp: QueuedPod) -> None:
        if qp.where:
            self._leave(qp)
        else:
            qp.stamp += 1
        qp.where = ACTIVE
        self.sizes[ACTIVE] += 1
        # One flat entry (the sort key's fields, stamp, pod): one tuple per queued pod.
        if self.priority_sort:
            self._active.push((-qp.ps.pod.effective_priority, qp.ms, qp.tick, qp.stamp, qp))
        else:
            self._active.push((*self._order(qp), qp.stamp, qp))

    def _push_backoff(self, qp: QueuedPod) -> None:
        if qp.where:
            self._leave(qp)
        else:
            qp.stamp += 1
        where = BACKOFF if qp.plugins else ERROR_BACKOFF
        qp.where = where
        self.sizes[where] += 1
        heap = self._backoff if qp.plugins else self._error
        expiry = qp.expiry if qp.expiry is not None else self._expiry(qp)
        if self.priority_sort:
            heap.push((expiry, -qp.ps.pod.effective_priority, qp.ms, qp.tick, qp.stamp, qp))
        else:
            heap.push((expiry, *self._order(qp), qp.stamp, qp))

    def _park(self, qp: QueuedPod) -> None:
        self._leave(qp)
        qp.where = UNSCHEDULABLE
        self.unschedulable[qp.key] = qp
        if qp.gated_by != SCHEDULING_GATES:
            for p in qp.plugins:
                self.by_plugin.setdefault(p, set()).add(qp.key)
        if not qp.gated_by:
            self._leftover[qp.key] = leftover_due(None, {}, qp.ms)

    def _gated(self, qp: QueuedPod) -> bool:
        """Run PreEnqueue (upstream ``runPreEnqueuePlugins``); True if a plugin gates it.

        Its callers first pass a plain pod unasked (``plain_passes``), inline:
        one call less per move of a pod without gates and claims."""
        got: tuple[str, str] | None
        if qp.key in self.preempting:
            got = (PREEMPTION_GATE, "waiting for the preemption for this pod to be finished")
            self._note(PREEMPTION_GATE_RULE, qp, "gated", got[1])
        else:
            got = self.gate(qp.ps)
        if got is None:
            qp.gated_by = ""
            return False
        qp.gated_by = got[0]
        qp.plugins = qp.plugins | {got[0]}
        if self.trace is not None:
            self._note(GATED_RULE, qp, f"gated by {got[0]}", got[1])
        self._park(qp)
        return True

    def _to_active(self, qp: QueuedPod) -> str:
        pod = qp.ps.pod
        if self.plain_passes and not pod.gates and not pod.resource_claims \
                and qp.key not in self.preempting:
            qp.gated_by = ""
        elif self._gated(qp):
            return UNSCHEDULABLE
        self._push_active(qp)
        return ACTIVE

    def _to_backoff(self, qp: QueuedPod) -> str:
        pod = qp.ps.pod
        if self.plain_passes and not pod.gates and not pod.resource_claims \
                and qp.key not in self.preempting:
            qp.gated_by = ""
        elif self._gated(qp):
            return UNSCHEDULABLE
        self._push_backoff(qp)
        return qp.where

    def _requeue(self, qp: QueuedPod, strategy: int) -> str:
        if strategy == _SKIP:
            self._park(qp)
            return UNSCHEDULABLE
        expiry = qp.expiry if qp.expiry is not None else self._expiry(qp)
        # backing_off(expiry, now), inline: one call less per requeue.
        if expiry is not None and expiry >= self.clock.now // WINDOW_MS * WINDOW_MS:
            return self._to_backoff(qp)
        return self._to_active(qp)

    # --- what the simulation tells the queue --------------------------------------------
    def created(self, ps: PodState) -> None:
        """A pod was created (its queue timestamp is now); it is queued at the next
        look if it is still unscheduled then (a pod created bound never is)."""
        self.tick += 1
        self._new += (ps, self.clock.now, self.tick)

    def intake(self) -> None:
        """Queue the pods created since the last look (upstream ``Add``)."""
        new, self._new = self._new, []
        for i in range(0, len(new), 3):
            ps = new[i]
            if ps.node is None and not ps.gone and ps.phase == "Pending":
                self._add(ps, new[i + 1], new[i + 2])

    def add(self, ps: PodState, ts: tuple[int, int] | None = None) -> None:
        """A new unscheduled pod (upstream ``Add``)."""
        if ts is None:
            ts = self._stamp()
        self._add(ps, *ts)

    def _add(self, ps: PodState, ms: int, tick: int) -> None:
        qp = self.pods.get(ps.key)
        if qp is not None:
            if qp.ps is ps:
                return
            self.delete(ps.key)  # a pod of the same name, created anew
        qp = self.pods[ps.key] = QueuedPod(ps, ms, tick)
        if self._to_active(qp) == ACTIVE and self.trace is not None:
            self._note(ADD_RULE, qp, "activeQ")

    def gates_eliminated(self, ps: PodState) -> None:
        """The pod's last scheduling gate was removed (``UpdatePodSchedulingGatesEliminated``)."""
        self.intake()
        from .events import UPDATE_POD_GATES_ELIMINATED, pod_view

        self.pod_updated(ps, Occurrence(ClusterEvent(UNSCHEDULED_POD, UPDATE_POD_GATES_ELIMINATED),
                                        None, pod_view(ps),
                                        f"the last scheduling gate of {ps.pod.name} was removed"))

    def delete(self, key: str) -> None:
        """The pod is gone or bound by something else than the scheduler."""
        qp = self.pods.pop(key, None)
        if qp is not None:
            self._leave(qp)

    def can_pop(self) -> bool:
        """``Pop`` would not block: activeQ or backoffQ holds a pod."""
        return bool(self.sizes[ACTIVE] or self.sizes[BACKOFF])

    def pop(self) -> QueuedPod | None:
        """The next pod to schedule, or None (upstream ``Pop``)."""
        sizes = self.sizes
        # A heap whose size is 0 holds only stale entries: it is not searched (they
        # stay stale, and leave at a later pop).
        qp: QueuedPod | None = None
        if sizes[ACTIVE]:
            qp = self._active.pop_live(ACTIVE)
            source = "activeQ"
        if qp is None and sizes[BACKOFF]:
            qp = self._backoff.pop_live(BACKOFF)
            source = "backoffQ, activeQ being empty"
        if qp is None:
            return None
        # _leave for a pod in activeQ or backoffQ, inline.
        sizes[qp.where] -= 1
        qp.stamp += 1
        qp.where = IN_FLIGHT
        qp.attempts += 1
        qp.expiry = None
        if self.trace is not None:
            from kruleset.model.quantity import format_duration

            verb = "retried" if qp.attempts > 1 else "tried"
            self._note(POP_RULE, qp, f"attempt {qp.attempts}",
                       f"{qp.key.split('/', 1)[1]}: {verb} at {format_duration(self.now)} "
                       f"because {qp.why} (from {source})")
        return qp

    def scheduled(self, qp: QueuedPod) -> None:
        """The attempt bound the pod: it leaves the queue."""
        self.pods.pop(qp.key, None)
        qp.where = ""

    def failed(self, qp: QueuedPod, plugins: Iterable[str],
               in_flight: list[Occurrence] | None = None) -> str:
        """The attempt failed (upstream ``AddUnschedulableIfNotPresent``); where it waits."""
        if self.pods.get(qp.key) is not qp:
            return ""  # deleted during its own attempt
        self.tick += 1
        qp.ms, qp.tick = self.clock.now, self.tick
        qp.plugins = frozenset(plugins)
        qp.gated_by = ""
        if not qp.plugins:
            qp.why = "its error backoff ended"
            where = self._to_backoff(qp)
            self._note(ERROR_RULE, qp, where, f"backoff until {self._expiry(qp)}ms")
            return where
        for occ in in_flight or ():
            strategy, why = self._worth(qp, occ)
            if strategy != _SKIP:
                qp.why = why
                where = self._requeue(qp, strategy)
                if self.trace is not None:
                    self._note(REQUEUE_RULE, qp, where, why + " (while being scheduled)")
                return where
        self._park(qp)
        if self.trace is not None:
            self._note(FAILED_RULE, qp, "unschedulablePods",
                       "rejected by " + ", ".join(sorted(qp.plugins)))
        return UNSCHEDULABLE

    def _hints(self, plugin: str, event: ClusterEvent) -> list[Hint | None]:
        # Keyed by plain strings and ints: their hashes are computed in C.
        key = (plugin, event.resource, event.action)
        got = self._hint_cache.get(key)
        if got is None:
            got = self._hint_cache[key] = [h for reg, h in registrations_of(plugin)
                                           if event.matches(reg)]
        return got

    def _worth(self, qp: QueuedPod, occ: Occurrence) -> tuple[int, str]:
        """Upstream ``isPodWorthRequeuing``: the strategy and the words for it."""
        if occ.event.resource == WILDCARD:
            return _AFTER_BACKOFF, occ.what
        pod = qp.ps.pod
        plugins: Iterable[str] = qp.plugins
        if len(qp.plugins) > 1:
            # The gating plugin last: the words name the rejecting plugin that queued it.
            plugins = sorted(qp.plugins, key=lambda p: (p == qp.gated_by, p))
        for plugin in plugins:
            for hint in self._hints(plugin, occ.event):
                if hint is None or hint(pod, occ.old, occ.new):
                    return _AFTER_BACKOFF, f"{occ.what} ({plugin}: Queue)"
        return _SKIP, ""

    def listens(self, event: ClusterEvent) -> bool:
        """Whether ``event`` can reach a pod in unschedulablePods (some waiting pod's
        plugin registered for it), so that callers describe only events a pod hears."""
        if self._new:
            self.intake()
        if not self.unschedulable:
            return False
        if event.resource == WILDCARD:
            return True
        return next(self._hearers(event), None) is not None

    def _hearers(self, event: ClusterEvent) -> Iterator[set[str]]:
        """The waiting pods of each plugin registered for ``event`` (its hints cached)."""
        cache, resource, action = self._hint_cache, event.resource, event.action
        for plugin, members in self.by_plugin.items():
            if members:
                got = cache.get((plugin, resource, action))
                if got is None:
                    got = self._hints(plugin, event)
                if got:
                    yield members

    def event(self, occ: Occurrence,
              pre_check: Callable[[PodState], bool] | None = None) -> None:
        """Upstream ``MoveAllToActiveOrBackoffQueue`` for one event."""
        if self._new:
            self.intake()
        if not self.unschedulable:
            return
        event = occ.event
        wildcard = event.resource == WILDCARD
        if wildcard:
            keys: Iterable[str] = list(self.unschedulable)
        else:
            found: set[str] = set()
            for members in self._hearers(event):
                found |= members
            keys = found
        unschedulable = self.unschedulable
        chosen = [unschedulable[k] for k in keys]
        if len(chosen) > 1:
            chosen.sort(key=_queued_at)
        for qp in chosen:
            if qp.gated_by == SCHEDULING_GATES or qp.where != UNSCHEDULABLE:
                continue
            if qp.gated_by and not wildcard and not self._hints(qp.gated_by, event):
                continue  # a gated pod hears only its gating plugin's events
            if pre_check is not None and not pre_check(qp.ps):
                continue
            self._hear(qp, occ)

    def pod_updated(self, ps: PodState, occ: Occurrence) -> None:
        """The pod itself changed (upstream ``Update`` for a pod in unschedulablePods)."""
        qp = self.pods.get(ps.key)
        if qp is None or qp.where != UNSCHEDULABLE:
            return
        self._hear(qp, occ)

    def _hear(self, qp: QueuedPod, occ: Occurrence) -> None:
        """An unschedulable pod hears ``occ``: requeued where its hints say, or left."""
        strategy, why = self._worth(qp, occ)
        if strategy == _SKIP:
            return
        qp.why = why
        where = self._requeue(qp, strategy)
        if self.trace is not None:
            self._note(REQUEUE_RULE, qp, where, why)

    # --- the clock ------------------------------------------------------------------------
    def flush(self, now: int) -> None:
        """The timer steps due at ``now`` (once per instant)."""
        if now % WINDOW_MS == 0 and self._flushed[0] != now:
            self._flushed = (now, self._flushed[1])
            for heap, where in ((self._backoff, BACKOFF), (self._error, ERROR_BACKOFF)):
                self._flush_backoff(heap, where)
        if now % LEFTOVER_PERIOD_MS == 0 and self._flushed[1] != now:
            self._flushed = (self._flushed[0], now)
            self._flush_leftover(now)

    def _flush_backoff(self, heap: RunHeap, where: str) -> None:
        while heap:
            entry = heap.peek()
            expiry, stamp, qp = entry[0], entry[-2], entry[-1]
            if qp.stamp != stamp or qp.where != where:
                heap.pop()
                continue
            if backing_off(expiry, self.clock.now):
                return
            heap.pop()
            qp.why = "its backoff ended" if where == BACKOFF else "its error backoff ended"
            self._note(FLUSH_BACKOFF_RULE, qp, self._to_active(qp), qp.why)

    def _flush_leftover(self, now: int) -> None:
        due: list[QueuedPod] = []
        for key, at in self._leftover.items():
            if at > now:
                break
            due.append(self.pods[key])
        due.sort(key=_queued_at)
        for qp in due:
            qp.why = "it waited more than 5m0s in unschedulablePods"
            self._note(FLUSH_LEFTOVER_RULE, qp, self._requeue(qp, _AFTER_BACKOFF), qp.why)

    def next_time(self, now: int) -> int | None:
        """The next instant a timer step changes something."""
        out: list[int] = []
        for heap, where in ((self._backoff, BACKOFF), (self._error, ERROR_BACKOFF)):
            while heap and (heap.peek()[-1].stamp != heap.peek()[-2]
                            or heap.peek()[-1].where != where):
                heap.pop()
            if heap:
                out.append(max(backoff_flush_due(None, {}, heap.peek()[0]),
                               (now // WINDOW_MS + 1) * WINDOW_MS))
        for at in self._leftover.values():
            out.append(at)  # the earliest (see __init__)
            break
        later = [t for t in out if t > now]
        return min(later) if later else None

    def where(self, key: str) -> str:
        """Which queue the pod waits in (``gated (Plugin)`` for a gated pod), or ""."""
        qp = self.pods.get(key)
        if qp is None:
            return ""
        if qp.where == UNSCHEDULABLE and qp.gated_by:
            return f"gated ({qp.gated_by})"
        return qp.where


def _queued_at(qp: QueuedPod) -> tuple[int, int]:
    return (qp.ms, qp.tick)


UNSCHEDULED_POD_EVENT = UNSCHEDULED_POD  # re-exported for the simulation's pre-checks
