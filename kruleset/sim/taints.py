"""The taint manager: deleting pods from nodes with NoExecute taints (phase 6).

Upstream ``pkg/controller/tainteviction``: a pod that does not tolerate every
NoExecute taint of its node is deleted at once; one that tolerates them all
is deleted after the smallest ``tolerationSeconds`` of the tolerations used,
counted from when the eviction was first scheduled (a later re-evaluation
keeps that time), or never when none of them sets one; removing the taints
cancels a scheduled deletion.  The pod is deleted with its own grace period
and gets the condition DisruptionTarget (DeletionByTaintManager).

Also registers the DefaultTolerationSeconds API admission step
(``register_pod_admission``): every pod created gets the not-ready and
unreachable NoExecute tolerations for 300s unless it has its own.
"""

from __future__ import annotations

from typing import Any

from ..model.state import NodeState, PodState
from ..rules.disruption.taint_manager import (
    TAINT_MESSAGE,
    TAINT_REASON,
    decide,
    default_toleration_changes,
    default_tolerations,
)
from .core import Simulation, register_controller, register_pod_admission

__all__ = ["TaintManager"]


class TaintManager:
    """Schedules and carries out NoExecute evictions."""

    name = "taints"
    phase = 6

    def __init__(self, sim: Simulation) -> None:
        self.scheduled: dict[str, int] = {}  # pod key -> when it is deleted

    def step(self, sim: Simulation) -> bool:
        """Re-evaluate pods on NoExecute-tainted nodes; delete those whose time has come."""
        changed = False
        for node in sim.state.nodes.values():
            taints = [t for t in node.taints if t.effect == "NoExecute"]
            if not taints:
                continue
            for ps in list(node.pods.values()):
                if ps.terminating:
                    self.scheduled.pop(ps.key, None)
                    continue
                if self._process(sim, node, ps, taints):
                    changed = True
        # Deletions whose pod left, or whose node lost its NoExecute taints, are cancelled.
        for key in list(self.scheduled):
            pod = sim.state.pods.get(key)
            where = sim.state.nodes.get(pod.node) if pod is not None and pod.node else None
            if (pod is None or not pod.bound or pod.terminating or where is None
                    or not any(t.effect == "NoExecute" for t in where.taints)):
                del self.scheduled[key]
        return changed

    def _process(self, sim: Simulation, node: NodeState, ps: PodState, taints: list[Any]
                 ) -> bool:
        key = ps.key
        if not taints:
            self.scheduled.pop(key, None)
            return False
        d = decide(sim, ps.pod, taints)
        if d.delay is None:
            self.scheduled.pop(key, None)
            return False
        if d.delay == 0:
            self.scheduled.pop(key, None)
            return self._evict(sim, ps, d.why)
        when = self.scheduled.get(key)
        if when is None:
            when = self.scheduled[key] = sim.now + d.delay
            sim.wake(when)
            if sim.trace is not None:
                sim.trace.add("kubelet.taint-manager.toleration-seconds", key, "scheduled",
                              f"{d.why} on {node.name}")
        if when <= sim.now:
            del self.scheduled[key]
            return self._evict(sim, ps, d.why)
        return False

    def _evict(self, sim: Simulation, ps: PodState, why: str) -> bool:
        ps.extra["eviction_kind"] = "Taint"
        ps.conditions["DisruptionTarget"] = "DeletionByTaintManager"
        rule = ("kubelet.taint-manager.untolerated" if why.startswith("untolerated")
                else "kubelet.taint-manager.toleration-seconds")
        sim.terminate(ps, "evicted", by="taint-manager", reason=TAINT_REASON,
                      message=TAINT_MESSAGE, grace=None, rules=(rule,))
        return True

    def next_time(self, sim: Simulation) -> int | None:
        """The next scheduled deletion."""
        later = [t for t in self.scheduled.values() if t > sim.now]
        return min(later) if later else None


def _default_toleration_seconds(sim: Simulation, pod: Any) -> Any:
    if not hasattr(pod, "tolerations"):
        return pod
    return default_tolerations(pod)


def _default_toleration_changes(sim: Simulation, pod: Any) -> Any:
    if not hasattr(pod, "tolerations"):
        return {}
    return default_toleration_changes(pod)


register_controller(TaintManager)
register_pod_admission(_default_toleration_seconds, changes=_default_toleration_changes)
