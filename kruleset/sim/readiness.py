"""Readiness over time: a pod with a readiness probe becomes Ready once its
``initialDelaySeconds`` have passed after it started running.

The approximation, documented in docs/SIMULATED.md: the first probe succeeds, so a
pod is Ready exactly ``initialDelaySeconds`` after it started (upstream's
kubelet probes at that delay, then every ``periodSeconds``, and needs
``successThreshold`` successes; a probe that never succeeds is written as
``not-ready``).  A pod without a probe is Ready as soon as it runs
(:meth:`Readiness.on_bind`).  The deployment controller
reads ``ready_since`` for availability and ``minReadySeconds``.
"""

from __future__ import annotations

import heapq

from ..model.state import ClusterState, PodState
from ..rules.kubelet.readiness import ready_at
from .core import Simulation, register_controller

__all__ = ["READINESS_RULE", "Readiness", "set_ready"]

READINESS_RULE = "kubelet.readiness.initial-delay"
# Set on a pod whose readiness a `ready pod`/`unready pod` statement decided:
# its probe no longer does.
OVERRIDDEN = "readiness_overridden"


def set_ready(ps: PodState, ready: bool, now: int) -> None:
    """A `ready pod` / `unready pod` statement: the Ready condition changes now."""
    if ready and ps.ready_since is None and ps.node is not None:
        ps.ready_since = now
    elif not ready:
        ps.ready_since = None
    ps.ready = ready
    ps.extra[OVERRIDDEN] = True


class Readiness:
    """Phase 3: pods whose readiness probe's initial delay has passed become Ready."""

    name = "readiness"
    phase = 3

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self._due: list[tuple[int, int, str]] = []  # (time, seq, pod key)
        sim.state.subscribe(self)

    def on_bind(self, state: ClusterState, ps: PodState) -> None:
        """A pod started running: it is Ready now, or note when its probe makes it so.

        A pod declared not Ready stays so; a pod of the time-0 cluster may say
        when it became Ready (``ready_at``) or when it started (``started``).
        """
        pod = ps.pod
        if not ps.ready:
            ps.ready_since = None
            return
        if pod.ready_at is not None:
            ps.ready_since = pod.ready_at
            return
        now = state.now if ps.start_time is None else ps.start_time
        start = now if pod.started is None or pod.started > now else pod.started
        at = ready_at(self.sim, {}, (start, pod.readiness_delay))
        if at <= now:
            ps.ready_since = at
            return
        ps.ready = False
        ps.ready_since = None
        heapq.heappush(self._due, (at, ps.seq, ps.key))

    def on_unbind(self, state: ClusterState, ps: PodState) -> None:
        """Nothing to do: a pod no longer bound is skipped when its time comes."""

    def step(self, sim: Simulation) -> bool:
        due = self._due
        if not due or due[0][0] > sim.now:
            return False
        changed = False
        while due and due[0][0] <= sim.now:
            at, seq, key = heapq.heappop(due)
            ps = sim.state.pods.get(key)
            if ps is None or ps.seq != seq or ps.gone or ps.node is None or \
                    ps.ready_since is not None or ps.extra.get(OVERRIDDEN):
                continue
            ps.ready = True
            ps.ready_since = at
            sim.record("ready", ps, ps.node, "kubelet", "ReadinessProbe",
                       "the readiness probe's initialDelaySeconds passed", (READINESS_RULE,))
            if sim.trace is not None:
                sim.trace.add(READINESS_RULE, ps.key, "ready",
                              f"Ready at {at} ms (initialDelaySeconds "
                              f"{(ps.pod.readiness_delay or 0) // 1000})")
            changed = True
        if changed:
            sim.changed()
        return changed

    def next_time(self, sim: Simulation) -> int | None:
        """When the next pod's initial delay ends."""
        return self._due[0][0] if self._due else None


register_controller(Readiness)
