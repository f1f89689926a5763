"""The discrete-event simulation: clock, instants, controllers, decisions.

Within one instant the order is LANGUAGE.md §5's: the timeline's events in
file order; then, repeated until nothing changes, grace periods ending (phase
2), workload controllers (3), the scheduler (4), kubelet passes (5) and the
taint manager (6); then the expectations written for that instant.

Controllers and timeline-action handlers register themselves
(:func:`register_controller`, :func:`register_action`), so each mechanism
lives in its own module; a timeline action nobody handles stops the run with
:class:`~kruleset.errors.NotImplementedMechanism` (exit status 3).
"""

from __future__ import annotations

import contextlib
import heapq
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..errors import KrulesetError, NotImplementedMechanism, ScenarioError, Span
from ..model.config import KubeletConfig
from ..model.scenario import MAX_SIMULATED_TIME, Scenario
from ..model.state import FAILED, ClusterState, PodState
from ..rules.engine import Failure, Trace
from ..rules.profile import Profile
from ..rules.scheduler.framework import FastPaths
from ..rules.scheduler.queue.events import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    UNSCHEDULED_POD_DELETE,
    Occurrence,
    PodView,
    pod_view,
)
from .registry import (
    ACTIONS,
    CONTROLLERS,
    POD_ADMISSION,
    POD_CHANGES,
    Controller,
    register_action,
    register_controller,
    register_pod_admission,
)
from .result import Decision

__all__ = [
    "Controller",
    "Decision",
    "Simulation",
    "SimulationDidNotSettle",
    "register_action",
    "register_controller",
    "register_pod_admission",
]

MAX_AFTER_LAST_EVENT = 3_600_000  # 1h (LANGUAGE.md §5)
MAX_LOOPS_PER_INSTANT = 10_000
_ONE_BY_ONE_ROUNDS = 1_000
_WATCHED_LOOPS = 50  # the last rounds of an instant that did not settle, for the report


class SimulationDidNotSettle(KrulesetError):
    """An instant whose controllers keep changing the cluster (exit status 3).

    The message names the controllers still changing things in the last
    rounds and the pods whose decisions repeat, with what was decided.
    """

    def __init__(self, now: int, controllers: Mapping[str, int],
                 decisions: list[Decision]) -> None:
        from ..model.quantity import format_duration

        self.now = now
        self.controllers = dict(controllers)
        counts: dict[tuple[str, str, str], int] = {}
        for d in decisions:
            what = d.kind + (f" on {d.node}" if d.node else "") + (f" by {d.by}" if d.by else "")
            key = (d.pod, what, d.message)
            counts[key] = counts.get(key, 0) + 1
        self.loops = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        parts = [f"the simulation did not settle at {format_duration(now)}: in the last "
                 f"{_WATCHED_LOOPS} of {MAX_LOOPS_PER_INSTANT} rounds "
                 + (", ".join(f"{name} changed the cluster {k} times"
                              for name, k in sorted(self.controllers.items()))
                    or "no controller reported a change")]
        if self.loops:
            parts.append("decisions repeating:")
            for (pod, what, message), k in self.loops[:10]:
                parts.append(f"  {pod}: {what} ({k} times)" + (f": {message}" if message else ""))
        else:
            parts.append("no decision was recorded in those rounds: a controller reports "
                         "a change it does not make")
        parts.append("this is a bug in kruleset; please report it with the scenario")
        super().__init__("\n".join(parts))


# Modules that register controllers and action handlers; a module that does
# not exist yet simply registers nothing (its actions then report exit 3).
_SIM_MODULES = (
    "termination", "readiness", "workloads", "rollout", "controllers", "api_admission",
    "actions", "manifest_actions",
    "scheduler", "kubelet", "taints", "drain", "observed_usage",
)
_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in _SIM_MODULES:
        try:
            importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{name}":
                raise
    # DRA: the resource-claim controller lives with its mechanism.
    importlib.import_module("kruleset.sim.dra_claims")


class Simulation:
    """Simulates a :class:`Scenario`; see :func:`kruleset.run` for the usual entry."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Simulation:
        # The first simulation of the process: its modules, rules loaded, leave the
        # collector's generations before it is allocated (setup.freeze_process).
        from .setup import freeze_process, process_frozen

        if not process_frozen():
            _load()
            freeze_process()
        return super().__new__(cls)

    def __init__(self, scenario: Scenario, *, profile: Profile | None = None,
                 trace: bool = False, until: int | None = None,
                 fast: FastPaths | None = None) -> None:
        # Which fast paths the mechanisms take (all by default); each decides
        # as the reference rules, which the differential tests check.
        self.fast = fast if fast is not None else FastPaths()
        _load()
        from .setup import build_profile

        self.scenario = scenario
        self.state = ClusterState()
        self.profile = profile or build_profile(scenario)
        self.trace: Trace | None = Trace() if trace else None
        self.now = 0
        self.until = until if until is not None else scenario.run_until
        self.horizon: int | None = None  # the simulated end expected, once run() starts
        if self.until is not None and self.until > MAX_SIMULATED_TIME:
            raise ScenarioError(f"a simulation runs at most {MAX_SIMULATED_TIME // 86_400_000} "
                                "days (the kubelet is simulated every 10s)")
        self.decisions: list[Decision] = []
        self.victims: dict[str, list[str]] = {}
        self.kubelet_evictions: list[str] = []
        self.eviction_status: dict[str, int] = {}
        self.kubelets: dict[str, KubeletConfig] = {}
        self.default_kubelet = KubeletConfig()
        self.version = 0           # bumps when something that may help pending pods happens
        self.bind_version = 0      # bumps on every bind (helps affinity-bound pods)
        self._wakes: list[int] = []
        self._terminations: list[tuple[int, int, str]] = []
        self._deletions = 0
        self._deletion_batch = False  # deletions share one timestamp (one preemption's)
        self.extra: dict[str, Any] = {}
        # The scheduling queue (kruleset.rules.scheduler.queue), set by the
        # scheduler controller: cluster events go to it (see cluster_event).
        self.queue: Any = None
        # Every scheduling attempt, as the queue ran it (kruleset.sim.scheduler).
        self.attempts: Sequence[Any] = []
        # Called once each instant has settled, before that instant's
        # expectations; True settles the instant again.  kruleset.sweep uses it
        # to fail a node in a copy of a simulation paused there.
        self.on_settled: Callable[[Simulation], bool] | None = None
        self.controllers: list[Controller] = sorted(
            (f(self) for f in CONTROLLERS), key=lambda c: c.phase)

    # --- services for controllers and handlers ------------------------------------
    def record(self, kind: str, ps: PodState | str, node: str | None = None, by: str = "",
               reason: str = "", message: str = "", rules: tuple[str, ...] = ()) -> Decision:
        """Add a decision to the report."""
        key = ps if isinstance(ps, str) else ps.key
        d = Decision(self.now, kind, key, node, by, reason, message, tuple(rules))
        self.decisions.append(d)
        return d

    def changed(self) -> None:
        """Something changed that may let a pending pod schedule: retry them."""
        self.version += 1

    def cluster_event(self, occ: Any, pre_check: Callable[[PodState], bool] | None = None
                      ) -> None:
        """An event the scheduling queue hears (upstream's event handlers call
        ``MoveAllToActiveOrBackoffQueue``): unschedulable pods whose rejecting
        plugins' QueueingHints say Queue are retried."""
        if self.queue is not None:
            self.queue.event(occ, pre_check)

    def wildcard_event(self, what: str) -> None:
        """A change kruleset does not name a cluster event for (DRA objects,
        ElasticQuotas): every unschedulable pod is retried after its backoff."""
        if self.queue is not None:
            from ..rules.scheduler.queue.events import ALL, WILDCARD, ClusterEvent, Occurrence

            self.queue.event(Occurrence(ClusterEvent(WILDCARD, ALL), None, None, what))

    def node_changed(self, name: str, before: Any) -> None:
        """``before`` (a NodeView) changed into the node's state now: upstream
        ``updateNodeInCache``'s events, one by one."""
        if self.queue is None or not self.queue.unschedulable:
            return
        from ..rules.scheduler.queue.events import Occurrence, node_update_events, node_view

        after = node_view(self.state.nodes[name])
        for ev in node_update_events(before, after):
            self.queue.event(Occurrence(ev, before, after, _node_words(name, ev)))

    def wake(self, time: int) -> None:
        """Make sure the simulation stops at ``time``."""
        if time >= self.now:
            heapq.heappush(self._wakes, time)

    def kubelet_config(self, node: str) -> KubeletConfig:
        """The kubelet settings in force on ``node``."""
        return self.kubelets.get(node, self.default_kubelet)

    def admission_changes(self, pod: Any) -> dict[str, Any] | Failure | None:
        """What the API admission steps would set on ``pod`` (``{}``: nothing), their
        refusal, or None when a step can only say by admitting the pod itself."""
        if None in POD_CHANGES:
            return None
        changed: dict[str, Any] = {}
        for step in POD_CHANGES:
            got = step(self, pod)  # type: ignore[misc]
            if got is None:
                return None
            if isinstance(got, Failure):
                return got  # a refusal
            changed.update(got)
        return changed

    def admit_to_api(self, pod: Any) -> Any:
        """Run the API admission steps (priority, default tolerations) on a new pod."""
        changed = self.admission_changes(pod)
        if type(changed) is dict:
            return pod.replace(**changed) if changed else pod
        if changed is not None:
            return changed  # a refusal
        for fn in POD_ADMISSION:
            pod = fn(self, pod)
            if not hasattr(pod, "key"):
                return pod  # a refusal (a Failure)
        return pod

    def bind(self, ps: PodState, node: str, rules: tuple[str, ...] = (),
             admit: bool = True) -> bool:
        """Bind ``ps`` to ``node`` through kubelet admission; False if the kubelet refused."""
        if admit:
            from ..rules.kubelet import admission as kubelet_admission

            result = kubelet_admission.admit(self, self.state.nodes[node], ps)
            if not result.admitted:
                ps.node = None
                # The scheduler's binding went through (and ended the
                # nomination) before the kubelet refused the pod; a
                # nomination left behind would keep holding room.
                if ps.nominated is not None:
                    ps.nominated = None
                self.reject(ps, result.reason, result.message,
                            tuple(f.rule for f in result.failures if f.rule))
                return False
            for v in result.victims:
                if not v.terminating:
                    self.terminate(v, "preempted", by=ps.key, reason="Preempting",
                                   message=getattr(result, "victim_message", "")
                                   or "Preempted in order to admit critical pod",
                                   grace=None, rules=("kubelet.preemption",))
            if result.victims:
                self.victims.setdefault(ps.key, []).extend(v.key for v in result.victims)
        self.state.bind(ps, node, self.now)
        self.bind_version += 1
        queue = self.queue
        if queue is not None:
            if ps.key in queue.pods:  # the scheduler's own binds left the queue already
                queue.delete(ps.key)
            if queue.unschedulable and queue.listens(ASSIGNED_POD_ADD):
                queue.event(Occurrence(ASSIGNED_POD_ADD, None, pod_view(ps),
                                       f"pod {ps.pod.name} was bound to {node}"))
        return True

    def add_running(self, pods: list[Any], node: str) -> None:
        """Pods of the time-0 cluster, already admitted, created running on ``node``.

        What creating and binding each without kubelet admission does (a
        change, the pod added and bound, its ``running`` decision), for a
        ``pods … on NODE`` range at once (``ClusterState.add_running``).
        """
        now = self.now
        self.version += len(pods)
        made = self.state.add_running(pods, node, now)
        self.bind_version += len(pods)
        self.decisions.extend([Decision(now, "running", ps.pod.key, node, "", "", "", ())
                               for ps in made])

    def reject(self, ps: PodState, reason: str, message: str,
               rules: tuple[str, ...] = ()) -> None:
        """The kubelet refused the pod: it fails (phase Failed) where it was bound."""
        ps.outcome, ps.reason, ps.message = "rejected", reason, message
        ps.phase = FAILED
        ps.gone = False
        self.record("rejected", ps, ps.node, "kubelet", reason, message, rules)
        self._pod_ended(ps)
        self.pod_deleted(ps, ps.node)

    def pod_deleted(self, ps: PodState, node: str | None) -> None:
        """``ps`` left the scheduler's view (deleted, or terminal), from ``node`` if it
        was bound: upstream ``deletePodFromCache`` (AssignedPodDelete) or
        ``deletePodFromSchedulingQueue`` (UnscheduledPodDelete when it was nominated)."""
        queue = self.queue
        if queue is None:
            return
        key = ps.key
        if key in queue.pods:  # a bound pod (a preemption's victim) never was
            queue.delete(key)
        if not queue.unschedulable:
            return
        if node is not None:
            if queue.listens(ASSIGNED_POD_DELETE):
                queue.event(Occurrence(ASSIGNED_POD_DELETE, PodView(ps.pod, node, ps.nominated),
                                       None,
                                       f"{node}'s pod {ps.pod.name} was deleted"))
        elif ps.nominated is not None and queue.listens(UNSCHEDULED_POD_DELETE):
            prio = ps.pod.effective_priority
            queue.event(Occurrence(UNSCHEDULED_POD_DELETE, pod_view(ps), None,
                                   f"pod {ps.pod.name} nominated to {ps.nominated} was "
                                   "deleted"),
                        lambda other: other.pod.effective_priority <= prio)

    def terminate(self, ps: PodState, outcome: str, *, by: str = "", reason: str = "",
                  message: str = "", grace: int | None = None,
                  rules: tuple[str, ...] = ()) -> None:
        """Start deleting ``ps``: it holds its resources until its grace period ends.

        Deleting a pod already terminating with ``grace=0`` removes it at once
        (the API server's ``BeforeDelete`` takes a shorter grace period, and
        0 deletes immediately); any other later deletion changes nothing.
        """
        if ps.gone:
            return
        if ps.terminating:
            if grace == 0 and ps.node is not None:
                ps.deletion_time = self.now
                self._finish(ps)
            return
        ps.outcome, ps.by, ps.reason, ps.message = outcome, by, reason, message
        g = ps.pod.grace_period if grace is None else grace
        self.record(outcome, ps, ps.node, by, reason, message, rules)
        if ps.node is None:
            # A pending pod has nothing to give back: it is gone at once.
            ps.deletion_time = self.now
            self._finish(ps)
            return
        ps.deletion_time = self.now + g
        if g > 0:
            self.state.pod_updated(ps)  # the deletionTimestamp: an update of the bound pod
        self.state.touch(ps.node)  # it is terminating now, which victim selection reads
        # Same-instant ends in the order of the deletions (upstream's deletion
        # timestamps differ by the writes between them); the victims of one
        # preemption share one (deleted together, ended together, by name).
        if not self._deletion_batch:
            self._deletions += 1
        heapq.heappush(self._terminations, (ps.deletion_time, self._deletions, ps.key))
        self._pod_ended(ps)
        if g == 0:
            # Gone at once; other grace periods ending now are not hurried with it.
            self._finish(ps)

    def finish_terminations(self, one: bool = False) -> bool:
        """Pods whose grace period has ended go away; True if any did (``one``: only
        the first deletion's, so the scheduler sees each removal apart; the pods
        of one :meth:`deletion_batch` share a deletion and go together)."""
        done = False
        batch: tuple[int, int] | None = None
        while self._terminations and self._terminations[0][0] <= self.now:
            if one and done and self._terminations[0][:2] != batch:
                break
            at, seq, key = heapq.heappop(self._terminations)
            ps = self.state.pods[key]
            if not ps.gone:
                self._finish(ps)
                done = True
                batch = (at, seq)
        return done

    @contextlib.contextmanager
    def deletion_batch(self) -> Iterator[None]:
        """Deletions made inside share one deletion timestamp.

        Upstream's asynchronous preemption deletes a candidate's victims from
        one goroutine without the clock moving between its API calls, so
        victims with equal grace periods end at the same instant and the
        kubelet removals reach the scheduler before its next cycle (measured
        on the timeline oracle, whose kubelet takes them in name order).
        """
        self._deletions += 1
        self._deletion_batch = True
        try:
            yield
        finally:
            self._deletion_batch = False

    def _finish(self, ps: PodState) -> None:
        node = ps.node
        self.state.unbind(ps, FAILED if ps.outcome != "deleted" else ps.phase)
        ps.gone = True
        self.pod_deleted(ps, node)
        self.state.nominee_gone(ps)  # a nomination no longer holds room
        self.changed()

    def _pod_ended(self, ps: PodState) -> None:
        # Workload controllers replace a pod as soon as it starts terminating.
        self.extra.setdefault("ended", []).append(ps)

    def next_termination(self) -> int | None:
        """When the next grace period ends."""
        return self._terminations[0][0] if self._terminations else None

    # --- the main loop ----------------------------------------------------------------
    def run(self) -> Any:
        """Run to the end; returns a :class:`kruleset.sim.result.Result`."""
        from .expect import check_expectations, check_windows, window_bounds
        from .result import Result
        from .setup import apply_declarations, freeze_settled

        apply_declarations(self)
        events = sorted(self.scenario.events, key=lambda e: (e.time, e.seq))
        windows = [x for x in self.scenario.expectations if "window" in x.args]
        timed = sorted({x.time for x in self.scenario.expectations if x.time is not None}
                       | window_bounds(windows))
        outcomes: dict[int, Any] = {}
        last_event = max([e.time for e in events] + timed + [0])
        limit = self.until if self.until is not None else last_event + MAX_AFTER_LAST_EVENT
        self.horizon = self.until if self.until is not None else last_event  # for progress
        i = 0
        t = 0
        exp_index = 0
        while True:
            self.now = t
            self.state.new_epoch()
            if self.trace is not None:
                self.trace.now = t
            applied = i
            while i < len(events) and events[i].time == t:
                self._apply(events[i])
                i += 1
            self._settle(late_terminations=i > applied)
            if self.on_settled is not None and self.on_settled(self):
                self._settle()
            if t == 0:
                freeze_settled(self)
            while exp_index < len(timed) and timed[exp_index] <= t:
                for x, res in check_expectations(self, timed[exp_index]):
                    outcomes[id(x)] = res
                exp_index += 1
            if windows:
                check_windows(self, windows)
            nxt = self._next_time(events[i].time if i < len(events) else None, exp_index, timed)
            if nxt is None:
                break
            if nxt > limit:
                if self.until is not None and limit > t:
                    t = limit
                    continue
                break
            t = nxt
        if self.until is not None and self.now < self.until:
            self.now = self.until
            if windows:
                check_windows(self, windows)
        for c in self.controllers:
            finish = getattr(c, "finish", None)
            if finish is not None:
                finish(self)
        for x, res in check_expectations(self, None):
            outcomes[id(x)] = res
        ordered = [outcomes[id(x)] for x in self.scenario.expectations if id(x) in outcomes]
        workloads: tuple[dict[str, Any], ...] = ()
        if self.state.workloads:
            from .workload_status import statuses_json

            workloads = statuses_json(self)
        return Result(self.scenario, self.decisions, ordered, self.state, self.trace, self.now,
                      workloads, self.attempts)

    def settle(self) -> None:
        """Let the controllers act at the current instant until nothing changes (embedding)."""
        self.state.new_epoch()
        self._settle()

    def advance(self, until: int, done: Callable[[], bool] | None = None) -> None:
        """Move the clock instant by instant to ``until`` (ms), settling each, or until ``done()``.

        For embedding (:func:`kruleset.advance`, :func:`kruleset.drain`): only what
        the controllers and the terminations do; no timeline event, no expectation.
        """
        while done is None or not done():
            nxt = self._next_time(None, 0, [])
            if nxt is None or nxt > until:
                self.now = max(self.now, until)
                return
            self.now = nxt
            self.state.new_epoch()
            if self.trace is not None:
                self.trace.now = nxt
            self._settle()

    def _next_time(self, event_time: int | None, exp_index: int, timed: list[int]) -> int | None:
        cands = [x for x in (event_time, self.next_termination()) if x is not None]
        if exp_index < len(timed):
            cands.append(timed[exp_index])
        for c in self.controllers:
            nt = c.next_time(self)
            if nt is not None:
                cands.append(nt)
        while self._wakes and self._wakes[0] <= self.now:
            heapq.heappop(self._wakes)
        if self._wakes:
            cands.append(self._wakes[0])
        later = [c for c in cands if c > self.now]
        return min(later) if later else None

    def _settle(self, late_terminations: bool = False) -> None:
        """Run the controllers until nothing changes.

        ``late_terminations``: timeline events were applied at this instant, so
        grace periods ending now end after the first round.  A deletion's
        timestamp carries the instant it was made plus the writes before it
        (upstream's clock never stands still), so a pod deleted at D with grace
        g goes a moment after D + g: after the API writes made at D + g and the
        scheduling cycles they start (measured on the timeline oracle).
        """
        watch_from = MAX_LOOPS_PER_INSTANT - _WATCHED_LOOPS
        watched: dict[str, int] = {}  # controller -> rounds it changed something
        mark = 0
        for n in range(MAX_LOOPS_PER_INSTANT):
            if n == watch_from:
                mark = len(self.decisions)
            # While pods wait in the queue, grace periods ending together end one
            # per round: upstream's clock orders them by their deletions, and the
            # scheduler's cycles run between (bounded, for mass evictions).
            one = n < _ONE_BY_ONE_ROUNDS and self.queue is not None and \
                bool(self.queue.unschedulable)
            changed = False if late_terminations and n == 0 else self.finish_terminations(one)
            state = self.state
            for c in self.controllers:
                if not getattr(c, "tracked", False):
                    # Its changes are not all in the state's touched log.
                    state.new_epoch()
                if c.step(self):
                    changed = True
                    if n >= watch_from:
                        watched[c.name] = watched.get(c.name, 0) + 1
            if late_terminations and n == 0:
                changed |= self.finish_terminations(one)
            if not changed:
                return
        raise SimulationDidNotSettle(self.now, watched, self.decisions[mark:])

    def _apply(self, event: Any) -> None:
        action = event.action
        handler = ACTIONS.get(type(action))
        if handler is None:
            raise NotImplementedMechanism(_describe(action), getattr(action, "span", None))
        self.state.new_epoch()
        handler(self, action)
        self.state.new_epoch()


def _describe(action: Any) -> str:
    names = {
        "EvictPod": "API-initiated eviction (`evict pod`)",
        "DrainNode": "node drain (`drain node`)",
        "PodUsage": "kubelet node-pressure eviction (`usage pod`)",
        "NodeUsage": "kubelet node-pressure eviction (`usage node`)",
        "NodeReadiness": "taint-based eviction (`node NAME not-ready`)",
    }
    return names.get(type(action).__name__, f"the statement {type(action).__name__}")


def _node_words(name: str, event: Any) -> str:
    from ..rules.scheduler.queue.events import (
        UPDATE_NODE_ALLOCATABLE,
        UPDATE_NODE_LABEL,
        UPDATE_NODE_TAINT,
    )

    return {UPDATE_NODE_ALLOCATABLE: f"node {name}'s allocatable changed",
            UPDATE_NODE_LABEL: f"node {name}'s labels changed",
            UPDATE_NODE_TAINT: f"node {name}'s taints or unschedulable flag changed",
            }.get(event.action, f"node {name} changed")


def span_of(obj: Any) -> Span | None:
    """The source position of a model object or action, if it has one."""
    return getattr(obj, "span", None)
