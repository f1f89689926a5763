"""The scheduler controller: kube-scheduler's loop over its scheduling queue.

Phase 4 of every instant: the queue's timer steps due now (the whole-second
backoff flush, the 30 s leftover flush), then ``ScheduleOne`` while ``Pop``
would not block (activeQ or backoffQ holds a pod), as upstream's
``Scheduler.Run`` does with zero-duration cycles.  Which pod is tried, when,
and why is the queue's (:mod:`kruleset.rules.scheduler.queue.scheduling_queue`);
cluster events reach it through :meth:`Simulation.cluster_event`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from time import perf_counter
from typing import Any, NamedTuple, overload

from ..model.state import PodState
from ..rules.scheduler.cycle import PREENQUEUE, QUEUE, ScheduleContext, schedule_one
from ..rules.scheduler.fast.cycle_cache import CycleCache
from ..rules.scheduler.filters.topology_index import pod_index
from ..rules.scheduler.preemption.postfilter import (
    POSTFILTER_MESSAGE,
    PostFilterResult,
    run_postfilter,
)
from ..rules.scheduler.queue.events import (
    UNSCHEDULED_POD_DELETE,
    Occurrence,
    PodView,
)
from ..rules.scheduler.queue.scheduling_queue import QueuedPod, SchedulingQueue
from .core import Simulation, register_controller
from .dra_claims import claim_occurrence, claims_reserved

__all__ = ["TIMINGS", "AttemptLog", "AttemptRecord", "SchedulerController"]

# ``sim.extra[TIMINGS]``: when a caller (the benchmark runner) puts a dict
# there before the run, every scheduling attempt adds its wall time (seconds:
# the cycle, PostFilter, binding and recording) to the pod's entry.  Absent,
# the scheduler reads no clock: one ``is None`` test per attempt.
TIMINGS = "scheduler.timings"

NO_NODES = "no nodes available to schedule pods"


class AttemptRecord(NamedTuple):
    """One scheduling attempt as the report lists it (upstream: one ``ScheduleOne``).

    A tuple of strings and numbers: a run keeps one per attempt, and the
    garbage collector stops tracking such tuples.
    """

    time: int
    pod: str
    attempt: int
    result: str                      # scheduled | unschedulable | error
    why: str                         # why the pod was in activeQ/backoffQ then
    node: str = ""
    message: str = ""
    nominated: str = ""
    victims: tuple[str, ...] = ()
    queue: str = ""                  # where it waits afterwards

    def as_json(self) -> dict[str, Any]:
        """The report's form (empty fields left out)."""
        out: dict[str, Any] = {"time": self.time, "attempt": self.attempt,
                               "result": self.result, "why": self.why}
        for name in ("node", "message", "nominated", "queue"):
            value = getattr(self, name)
            if value:
                out[name] = value
        if self.victims:
            out["victims"] = list(self.victims)
        return out


_FIELDS = len(AttemptRecord._fields)


class AttemptLog(Sequence[AttemptRecord]):
    """Every attempt of a run, as a sequence of :class:`AttemptRecord`.

    Kept as one flat list of strings and numbers (a victims tuple as one
    string): a run of thousands of attempts adds no object per attempt for
    the garbage collector to count and walk; a record is made when read.
    """

    __slots__ = ("_flat",)

    def __init__(self) -> None:
        self._flat: list[Any] = []

    def add(self, d: _Draft) -> None:
        """Keep a finished attempt."""
        self._flat.extend((d.time, d.pod, d.attempt, d.result, d.why, d.node, d.message,
                           d.nominated, "\n".join(d.victims), d.queue))

    def __len__(self) -> int:
        return len(self._flat) // _FIELDS

    def _record(self, i: int) -> AttemptRecord:
        row = self._flat[i * _FIELDS:(i + 1) * _FIELDS]
        row[8] = tuple(row[8].split("\n")) if row[8] else ()
        return AttemptRecord._make(row)

    @overload
    def __getitem__(self, i: int) -> AttemptRecord: ...

    @overload
    def __getitem__(self, i: slice) -> list[AttemptRecord]: ...

    def __getitem__(self, i: int | slice) -> AttemptRecord | list[AttemptRecord]:
        if isinstance(i, slice):
            return [self._record(j) for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("attempt index out of range")
        return self._record(i)

    def __iter__(self) -> Iterator[AttemptRecord]:
        for i in range(len(self)):
            yield self._record(i)


class _Draft:
    """An attempt's record while it is being made (the fields an attempt does not
    set keep the class's empty defaults: one attempt, five stores)."""

    node = message = nominated = queue = ""
    victims: tuple[str, ...] = ()

    def __init__(self, time: int, pod: str, attempt: int, result: str, why: str) -> None:
        self.time, self.pod, self.attempt, self.result, self.why = \
            time, pod, attempt, result, why


class SchedulerController:
    """Phase 4 of every instant."""

    name = "scheduler"
    phase = 4
    # Every change a scheduling attempt makes (binds, nominations, victims'
    # terminations) is in the state's touched log, so cross-cycle caches
    # survive from one attempt to the next.
    tracked = True

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.memo = CycleCache(sim.state)
        # Subscribed before the declarations bind their pods, the topology
        # filters' pod index is kept at each bind instead of replayed over
        # every bound pod at the first cycle (a million pods: seconds).
        pod_index(sim.state)
        profile = sim.profile
        self._gates = profile.active(PREENQUEUE.name)
        # Untraced, a pod without gates and claims skips PreEnqueue when the only
        # plugins are these two (each passes such a pod without reading more).
        plain = sim.trace is None and {a.rule.name for a in self._gates.rules} <= {
            "scheduler.preenqueue.SchedulingGates", _dra().PREENQUEUE_RULE}
        sort = profile.active(QUEUE.name)
        default_sort = [(a.rule.name, dict(a.args)) for a in sort.rules] == [
            ("scheduler.queue.PrioritySort", {}), ("scheduler.queue.QueueTime", {})]
        self.queue = SchedulingQueue(
            sort.key(None), self._gate, sim.trace, sim,
            initial_ms=int(profile.setting("podInitialBackoffSeconds", 1)) * 1000,
            max_ms=int(profile.setting("podMaxBackoffSeconds", 10)) * 1000,
            priority_sort=default_sort, plain_passes=plain)
        sim.queue = self.queue
        self.log = sim.attempts = AttemptLog()
        # The queue reads the creation time from its clock (the simulation).
        sim.state.unbound_added.append(self.queue.created)
        self._gate_ctx: ScheduleContext | None = None

    def _context(self) -> ScheduleContext:
        sim = self.sim
        ctx = ScheduleContext(sim.state, sim.profile, sim.trace, sim.now)
        ctx.fast = sim.fast
        ctx.memo = self.memo if sim.fast.cycle_cache else None
        return ctx

    def _gate(self, ps: PodState) -> tuple[str, str] | None:
        """PreEnqueue: the gating plugin and its message, or None."""
        sim = self.sim
        ctx = self._gate_ctx
        if ctx is None or ctx.now != sim.now:
            ctx = self._gate_ctx = self._context()
        gated = self._gates.first_failure(ctx, ps.pod, subject=ps.key)
        if gated is None:
            return None
        # Scheduling gates show as SchedulingGated; other PreEnqueue plugins
        # (DynamicResources) leave their own message, without a node count.
        shown = "SchedulingGated" if gated.detail and gated.detail.get("gated") \
            else gated.reason
        if ps.schedule_message != shown:
            ps.schedule_message = shown
            sim.record("gated", ps, None, "scheduler", "SchedulingGated", gated.reason,
                       (gated.rule,))
        return gated.rule.split(".")[-1] if gated.rule else "PreEnqueue", gated.reason

    def step(self, sim: Simulation) -> bool:
        queue = self.queue
        if queue._new:
            queue.intake()
        queue.flush(sim.now)
        if not queue.can_pop():
            return False
        ctx = self._context()
        changed = False
        timings: dict[str, float] | None = sim.extra.get(TIMINGS)
        while True:
            if queue._new:
                queue.intake()
            qp = queue.pop()
            if qp is None:
                break
            ps = qp.ps
            if ps.node is not None or ps.gone:  # skipPodSchedule
                queue.scheduled(qp)
                continue
            if timings is not None:
                began = perf_counter()
                changed |= self._attempt(sim, ctx, qp)
                key = ps.key
                timings[key] = timings.get(key, 0.0) + (perf_counter() - began)
            else:
                changed |= self._attempt(sim, ctx, qp)
        return changed

    def _attempt(self, sim: Simulation, ctx: ScheduleContext, qp: QueuedPod) -> bool:
        """One scheduling attempt for ``qp``'s pod; True if the cluster changed."""
        record = _Draft(sim.now, qp.key, qp.attempts, "", qp.why)
        try:
            return self._cycle(sim, ctx, qp, record)
        finally:
            self.log.add(record)

    def _cycle(self, sim: Simulation, ctx: ScheduleContext, qp: QueuedPod,
               record: _Draft) -> bool:
        dra_plugin = _DRA or _dra()

        ps = qp.ps
        if not sim.state.nodes:
            # ErrNoNodesAvailable: an UnschedulableAndUnresolvable status naming no
            # plugin, so the pod goes to the error backoffQ.
            self._error(sim, qp, record, NO_NODES, ())
            record.result = "unschedulable"
            return False
        try:
            result = schedule_one(ctx, ps)
        except dra_plugin.SchedulingAborted as exc:  # DRA: a plugin error ends the attempt
            self._error(sim, qp, record, str(exc), (dra_plugin.FILTER_RULE,))
            return False
        if result.node is not None:
            rules: tuple[str, ...] = ("scheduler.filter", "scheduler.score")
            if dra_plugin.CYCLE in ctx.extra:  # DRA Reserve + PreBind before binding
                claims_reserved(sim, dra_plugin.reserve(ctx, ps.pod, sim.state.nodes[result.node]),
                                ps.pod.name)
            self.queue.scheduled(qp)
            record.result, record.node = "scheduled", result.node
            if sim.bind(ps, result.node, rules):
                sim.record("scheduled", ps, result.node, "scheduler", "Scheduled",
                           f"Successfully assigned {ps.key} to {result.node}", rules)
            return True
        return self._failed(sim, ctx, qp, record, result.fit_error)

    def _error(self, sim: Simulation, qp: QueuedPod, record: _Draft, message: str,
               rules: tuple[str, ...]) -> None:
        ps = qp.ps
        record.result, record.message = "error", message
        record.queue = self.queue.failed(qp, ())
        if ps.schedule_message != message:
            ps.schedule_message = message
            sim.record("pending", ps, None, "scheduler", "FailedScheduling", message, rules)

    def _failed(self, sim: Simulation, ctx: ScheduleContext, qp: QueuedPod,
                record: _Draft, fit: Any) -> bool:
        dra_plugin = _DRA or _dra()

        ps = qp.ps
        assert fit is not None
        message = fit.message
        pf = run_postfilter(ctx, ps, fit)
        changed = False
        in_flight: list[Occurrence] = []
        freed = dra_plugin.apply_deallocation(ctx)
        if freed is not None:
            # DRA PostFilter freed a claim (applied only now: the same cycle's dry
            # run saw it allocated); the claim's update arrives while the pod is in
            # flight (its hint decides for it once it fails) and reaches the waiting pods.
            occ = claim_occurrence(sim, freed[0], freed,
                                   f"ResourceClaim {freed[0].key} was deallocated")
            in_flight.append(occ)
            sim.cluster_event(occ)
            sim.changed()
            changed = True
        if pf is not None and pf.message:
            message = f"{message} {pf.message}"
        elif pf is None:
            # Not eligible: upstream still appends the plugin's status message.
            note = ctx.extra.get(POSTFILTER_MESSAGE)
            if note:
                message = f"{message} {note}"
        failed_rules = fit.rules()
        plugins = {_plugin_of(r) for r in failed_rules}
        record.result, record.message = "unschedulable", message
        queue = self.queue
        todo = [] if pf is None or not pf.nominated_node else \
            [v for v in pf.victims if not (v.terminating or v.gone)]
        if todo:
            # prepareCandidateAsync marks the preemption as running before
            # the failure is handled: DefaultPreemption's PreEnqueue gates the pod.
            queue.preempting.add(ps.key)
        # handleSchedulingFailure: the pod goes back to the queue, then its
        # status (condition, nominated node) is written.
        record.queue = queue.failed(qp, plugins, in_flight)
        if pf is not None:
            changed |= self._nominate(sim, ps, pf)
        # The victims' deletions reach the queue once the preemption's API calls
        # are done and its gate is lifted (the timeline oracle's order, measured:
        # a victim deleted at once requeues its preemptor to backoffQ); only the
        # preemptor's own status update above finds the gate up.
        queue.preempting.discard(ps.key)
        if ps.schedule_message != message:
            ps.schedule_message = message
            rules = tuple(sorted(r for r in failed_rules if r))
            sim.record("pending", ps, None, "scheduler", "FailedScheduling", message, rules)
        record.nominated = ps.nominated or ""
        if pf is not None and pf.nominated_node and pf.victims:
            # The victims chosen (`expect victims of`), terminating already or not.
            known = sim.victims.setdefault(ps.key, [])
            known.extend(v.key for v in pf.victims if v.key not in known)
        if todo:
            assert pf is not None
            changed |= self._evict(sim, ps, pf, todo)
            record.victims = tuple(sorted(v.key for v in todo))
        record.queue = queue.where(ps.key)
        return changed

    def _nominate(self, sim: Simulation, ps: PodState, pf: PostFilterResult) -> bool:
        """The preemptor's nomination (set by handleSchedulingFailure's status update)."""
        node = pf.nominated_node or None
        if ps.nominated == node:
            return False
        renominate(sim, ps, node)
        if node is not None:
            sim.record("nominated", ps, node, "scheduler", "Nominated",
                       pf.decided_by, (pf.plugin,) if pf.plugin else ())
        return True

    def _evict(self, sim: Simulation, ps: PodState, pf: PostFilterResult,
               todo: list[PodState]) -> bool:
        """The asynchronous preemption's API calls (upstream prepareCandidateAsync)."""
        rules = (pf.plugin or "scheduler.postfilter",) + (
            (pf.decided_by.split(":")[0],) if pf.decided_by else ())
        with sim.deletion_batch():
            for v in todo:
                v.conditions["DisruptionTarget"] = "PreemptionByScheduler"
                sim.terminate(v, "preempted", by=ps.key, reason="Preempted",
                              message=f"Preempted by pod {ps.key} on node {pf.nominated_node}",
                              rules=rules)
        # Lower-priority pods nominated to the node lose their nomination.
        for other in pf.clear_nominations:
            if other.nominated == pf.nominated_node:
                renominate(sim, other, None)
        sim.changed()
        return True

    def next_time(self, sim: Simulation) -> int | None:
        return self.queue.next_time(sim.now)


def renominate(sim: Simulation, ps: PodState, node: str | None) -> None:
    """Change a pending pod's ``status.nominatedNodeName``.  When it had one, upstream's
    update handler treats the room it held as freed: pods of lower or equal priority
    hear an ``UnschedulablePodDelete`` for the old nomination (the pod itself too)."""
    old = ps.nominated
    ps.nominated = node
    queue = sim.queue
    if old is None or queue is None or not queue.listens(UNSCHEDULED_POD_DELETE):
        return
    view = PodView(ps.pod, None, old)
    prio = ps.pod.effective_priority
    queue.event(
        Occurrence(UNSCHEDULED_POD_DELETE, view, None,
                   f"pod {ps.pod.name}'s nomination to {old} " +
                   (f"moved to {node}" if node else "was cleared")),
        lambda other: other.pod.effective_priority <= prio)


_DRA: Any = None


def _dra() -> Any:
    """DRA's plugin module, imported on first use (at import time the rule modules may
    not be loaded yet, and they register in builtin.py's order), then kept in ``_DRA``:
    an import statement per attempt runs the import machinery's Python code each time."""
    global _DRA
    if _DRA is None:
        from ..rules.dra import dynamicresources

        _DRA = dynamicresources
    return _DRA


def _plugin_of(rule_name: str) -> str:
    """The plugin a failing rule belongs to (``scheduler.filter.NodeResourcesFit`` ->
    ``NodeResourcesFit``); an unnamed failure counts as an unknown plugin."""
    got = _PLUGIN_OF.get(rule_name)
    if got is None:
        parts = rule_name.split(".")
        got = _PLUGIN_OF[rule_name] = parts[2] if len(parts) > 2 else (rule_name or "unknown")
    return got


_PLUGIN_OF: dict[str, str] = {}


register_controller(SchedulerController)
