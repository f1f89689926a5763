"""The scheduler controller: takes pending pods in queue order, binds or preempts.

A pod that could not be placed is retried when the cluster changed in a way
that may help (a pod went away, a node/class/quota/gate changed: see
:meth:`Simulation.changed`), or, for pods whose failure came from inter-pod
affinity or topology spread, when another pod was bound.
"""

from __future__ import annotations

from time import perf_counter

from ..model.state import PodState
from ..rules.engine import ActiveRuleSet
from ..rules.scheduler.cycle import PREENQUEUE, QUEUE, ScheduleContext, schedule_one
from ..rules.scheduler.fast.cycle_cache import CycleCache
from ..rules.scheduler.filters.topology_index import pod_index
from ..rules.scheduler.preemption.postfilter import (
    POSTFILTER_MESSAGE,
    PostFilterResult,
    run_postfilter,
)
from .core import Simulation, register_controller

__all__ = ["TIMINGS", "SchedulerController"]

# ``sim.extra[TIMINGS]``: when a caller (the benchmark runner) puts a dict
# there before the run, every scheduling attempt adds its wall time (seconds:
# the cycle, PostFilter, binding and recording) to the pod's entry.  Absent,
# the scheduler reads no clock: one ``is None`` test per attempt.
TIMINGS = "scheduler.timings"

_BIND_SENSITIVE = ("InterPodAffinity", "PodTopologySpread")


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
        # pod key -> (version, bind_version, bind-sensitive) at its last failed attempt
        self.tried: dict[str, tuple[int, int, bool]] = {}
        self.memo = CycleCache(sim.state)
        self._none_pending_at = -1  # state.created when no pod was pending
        # Subscribed before the declarations bind their pods, the topology
        # filters' pod index is kept at each bind instead of replayed over
        # every bound pod at the first cycle (a million pods: seconds).
        pod_index(sim.state)

    def _due(self, sim: Simulation, ps: PodState) -> bool:
        last = self.tried.get(ps.key)
        if last is None:
            return True
        version, bind_version, sensitive = last
        return version != sim.version or (sensitive and bind_version != sim.bind_version)

    def step(self, sim: Simulation) -> bool:
        state = sim.state
        # A pod is pending only from when it is added: with none pending at the
        # last look and none added since, there is nothing to scan for (a
        # kubelet storm steps thousands of times over a cluster of bound pods).
        if self._none_pending_at == state.created:
            return False
        waiting = list(state.pending())
        if not waiting:
            self._none_pending_at = state.created
            return False
        pending = [ps for ps in waiting if self._due(sim, ps)]
        if not pending:
            return False
        ctx = ScheduleContext(sim.state, sim.profile, sim.trace, sim.now)
        ctx.fast = sim.fast
        ctx.memo = self.memo if sim.fast.cycle_cache else None
        queue = sim.profile.active(QUEUE.name)
        gates = sim.profile.active(PREENQUEUE.name)
        changed = False
        timings: dict[str, float] | None = sim.extra.get(TIMINGS)
        for ps in queue.sort(ctx, pending):
            if ps.node is not None or ps.gone or not self._due(sim, ps):
                continue
            if timings is not None:
                began = perf_counter()
                changed |= self._attempt(sim, ctx, gates, ps)
                key = ps.key
                timings[key] = timings.get(key, 0.0) + (perf_counter() - began)
            else:
                changed |= self._attempt(sim, ctx, gates, ps)
        return changed

    def _attempt(self, sim: Simulation, ctx: ScheduleContext, gates: ActiveRuleSet,
                 ps: PodState) -> bool:
        """One scheduling attempt for ``ps``; True if the cluster changed."""
        # DRA's plugin (imported here: at import time the rule modules may not be
        # loaded yet, and they register in builtin.py's order).
        from ..rules.dra import dynamicresources as dra_plugin

        changed = False
        gated = gates.first_failure(ctx, ps.pod, subject=ps.key)
        if gated is not None:
            # Scheduling gates show as SchedulingGated; other PreEnqueue plugins
            # (DynamicResources) leave their own message, without a node count.
            shown = "SchedulingGated" if gated.detail and gated.detail.get("gated") \
                else gated.reason
            if ps.schedule_message != shown:
                ps.schedule_message = shown
                sim.record("gated", ps, None, "scheduler", "SchedulingGated", gated.reason,
                           (gated.rule,))
            self.tried[ps.key] = (sim.version, sim.bind_version, False)
            return changed
        try:
            result = schedule_one(ctx, ps)
        except dra_plugin.SchedulingAborted as exc:  # DRA: a plugin error ends the attempt
            self.tried[ps.key] = (sim.version, sim.bind_version, False)
            if ps.schedule_message != str(exc):
                ps.schedule_message = str(exc)
                sim.record("pending", ps, None, "scheduler", "FailedScheduling", str(exc),
                           (dra_plugin.FILTER_RULE,))
            return changed
        if result.node is not None:
            rules: tuple[str, ...] = ("scheduler.filter", "scheduler.score")
            if dra_plugin.CYCLE in ctx.extra:  # DRA Reserve + PreBind before binding
                dra_plugin.reserve(ctx, ps.pod, sim.state.nodes[result.node])
            if sim.bind(ps, result.node, rules):
                sim.record("scheduled", ps, result.node, "scheduler", "Scheduled",
                           f"Successfully assigned {ps.key} to {result.node}", rules)
                self.tried.pop(ps.key, None)
            return True
        fit = result.fit_error
        assert fit is not None
        message = fit.message
        before = sim.version
        pf = run_postfilter(ctx, ps, fit)
        deallocated = dra_plugin.apply_deallocation(ctx)
        if deallocated:  # DRA PostFilter freed a claim: the claim event requeues the pod
            sim.changed()
            changed = True
        if pf is not None:
            changed |= self._act(sim, ps, pf)
            if pf.message:
                message = f"{message} {pf.message}"
        else:
            # Not eligible: upstream still appends the plugin's status message.
            note = ctx.extra.get(POSTFILTER_MESSAGE)
            if note:
                message = f"{message} {note}"
        failed_rules = fit.rules()
        sensitive = any(r.endswith(_BIND_SENSITIVE) for r in failed_rules)
        version = sim.version
        if pf is not None and any(v.gone for v in pf.victims) or deallocated:
            # Victims with a zero grace period are already gone: try again at once.
            version = before
        self.tried[ps.key] = (version, sim.bind_version, sensitive)
        if ps.schedule_message != message:
            ps.schedule_message = message
            rules = tuple(sorted(r for r in failed_rules if r))
            sim.record("pending", ps, None, "scheduler", "FailedScheduling", message, rules)
        return changed

    def _act(self, sim: Simulation, ps: PodState, pf: PostFilterResult) -> bool:
        """Carry out a preemption decision (upstream prepareCandidate)."""
        if not pf.nominated_node:
            if ps.nominated is not None:
                ps.nominated = None
                return True
            return False
        # Nothing new (every victim already terminating, the same nomination):
        # no change, or every pending pod would be retried at once, forever.
        acted = False
        for v in pf.victims:
            if v.terminating or v.gone:
                continue
            acted = True
            v.conditions["DisruptionTarget"] = "PreemptionByScheduler"
            sim.terminate(
                v, "preempted", by=ps.key, reason="Preempted",
                message=f"Preempted by pod {ps.key} on node {pf.nominated_node}",
                rules=(pf.plugin or "scheduler.postfilter",) + ((pf.decided_by.split(":")[0],)
                                                               if pf.decided_by else ()),
            )
        if pf.victims:
            sim.victims.setdefault(ps.key, []).extend(
                v.key for v in pf.victims if v.key not in sim.victims.get(ps.key, ()))
        # Nominations are status updates of pending pods: upstream they move
        # only the pods whose nomination was cleared back to the active queue
        # (prepareCandidate), not every pending pod.  Retrying every pod on a
        # nomination let two nominated pods take the node from each other
        # forever once the victim's DisruptionTarget no longer said preemption.
        renominated = False
        for other in pf.clear_nominations:
            if other.nominated == pf.nominated_node:
                other.nominated = None
                self.tried.pop(other.key, None)
                renominated = True
        if ps.nominated != pf.nominated_node:
            ps.nominated = pf.nominated_node
            sim.record("nominated", ps, pf.nominated_node, "scheduler", "Nominated",
                       pf.decided_by, (pf.plugin,) if pf.plugin else ())
            renominated = True
        if acted:
            sim.changed()
        return acted or renominated

    def next_time(self, sim: Simulation) -> int | None:
        return None


register_controller(SchedulerController)
