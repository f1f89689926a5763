"""The StatefulSet, DaemonSet and Job controllers (phase 3, beside the deployment's).

* **StatefulSet**: :mod:`.statefulset` (ordinals, OrderedReady/Parallel,
  RollingUpdate with partition and maxUnavailable, OnDelete, status).
* **DaemonSet**: :mod:`.daemonset` (one pod per node that should run it,
  RollingUpdate with maxUnavailable and maxSurge, OnDelete, status).
* **Job**: :mod:`.job` (parallelism, completions, Indexed, the pod failure
  backoff, backoffLimit, activeDeadlineSeconds, podFailurePolicy, conditions).

Pods of these workloads read from a cluster dump (linked by their controlling
ownerReference) count as theirs: nothing is created twice.  A pod the API
server refuses (ResourceQuota, LimitRanger) ends the workload's sync and puts
it in its work queue's backoff (:mod:`.create_backoff`): 5 ms doubling up to
1,000 s for StatefulSets and DaemonSets, 1 s doubling up to 60 s for Jobs.
"""

from __future__ import annotations

from ..model.objects import Workload
from .core import Simulation, register_controller
from .create_backoff import JOB_BACKOFF, REPLICASET_BACKOFF, CreateBackoff, pods_mark
from .daemonset import DAEMON_TOLERATIONS, daemon_pod, sync_daemonset
from .job import sync_job
from .statefulset import statefulset_status, sync_statefulset
from .workload_pods import available_at, owned

__all__ = ["DAEMON_TOLERATIONS", "WorkloadControllers", "daemon_pod"]

class WorkloadControllers:
    """Phase 3: StatefulSets, DaemonSets and Jobs keep their pods."""

    name = "workload-controllers"
    phase = 3

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.backoff = {"StatefulSet": CreateBackoff(REPLICASET_BACKOFF),
                        "DaemonSet": CreateBackoff(REPLICASET_BACKOFF),
                        "Job": CreateBackoff(JOB_BACKOFF)}
        self.refused = False  # the workload being synced had a pod refused
        self.wakes: list[int] = []  # when a pod becomes available (minReadySeconds)

    def step(self, sim: Simulation) -> bool:
        workloads = sim.state.workloads
        if not workloads:
            return False
        changed = False
        syncs = {"StatefulSet": self._statefulset, "DaemonSet": self._daemonset,
                 "Job": self._job}
        self.wakes.clear()
        for w in list(workloads.values()):
            sync = syncs.get(w.kind)
            if sync is None:
                continue
            backoff = self.backoff[w.kind]
            key = f"{w.namespace}/{w.name}"
            if key in backoff.waiting and backoff.blocked(key, sim.now, pods_mark(owned(sim, w))):
                continue
            self.refused = False
            changed |= sync(sim, w)
            if self.refused:
                backoff.failed(key, sim.now, pods_mark(owned(sim, w)))
            elif backoff.failures:
                backoff.succeeded(key)
        if changed:
            sim.changed()
        return changed

    def _daemonset(self, sim: Simulation, w: Workload) -> bool:
        changed = sync_daemonset(self, sim, w)
        self._availability(sim, w)
        return changed

    def _statefulset(self, sim: Simulation, w: Workload) -> bool:
        changed = sync_statefulset(self, sim, w)
        self._availability(sim, w)
        statefulset_status(sim, w)
        return changed

    def _job(self, sim: Simulation, w: Workload) -> bool:
        return sync_job(self, sim, w)

    def _availability(self, sim: Simulation, w: Workload) -> None:
        if w.min_ready_seconds > 0:
            for ps in owned(sim, w):
                t = available_at(ps, w.min_ready_seconds)
                if t is not None and t > sim.now:
                    self.wakes.append(t)

    def next_time(self, sim: Simulation) -> int | None:
        """The next retry of a workload whose pods were refused; the next pod to be available."""
        times = [t for b in self.backoff.values() if (t := b.next_time(sim.now)) is not None]
        times += [t for t in self.wakes if t > sim.now]
        return min(times) if times else None


register_controller(WorkloadControllers)
