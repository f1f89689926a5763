"""The StatefulSet, DaemonSet and Job controllers (phase 3, beside the deployment's).

* **StatefulSet**: :mod:`.statefulset` (ordinals, OrderedReady/Parallel,
  RollingUpdate with partition and maxUnavailable, OnDelete, status).
* **DaemonSet**: one pod per node the pod fits on by the DaemonSet
  controller's own test (``NodeShouldRunDaemonPod``: nodeSelector and
  required node affinity, and the NoSchedule/NoExecute taints tolerated with
  the tolerations the controller adds).  Each pod is named ``NAME-NODE`` and
  bound by the default scheduler through a required node affinity on
  ``metadata.name`` (upstream's ``ReplaceDaemonSetPodNodeNameNodeAffinity``),
  with the controller's tolerations added (``AddOrUpdateDaemonPodTolerations``;
  the network-unavailable one it adds to hostNetwork pods is not, as the
  model does not keep hostNetwork).
* **Job**: :mod:`.job` (parallelism, completions, Indexed, the pod failure
  backoff, backoffLimit, activeDeadlineSeconds, podFailurePolicy, conditions).

Pods of these workloads read from a cluster dump (linked by their controlling
ownerReference) count as theirs: nothing is created twice.  A pod the API
server refuses (ResourceQuota, LimitRanger) ends the workload's sync and puts
it in its work queue's backoff (:mod:`.create_backoff`): 5 ms doubling up to
1,000 s for StatefulSets and DaemonSets, 1 s doubling up to 60 s for Jobs.
"""

from __future__ import annotations

import attrs

from ..model.objects import NodeAffinity, Pod, Workload
from ..model.selectors import NodeSelectorTerm, Requirement, Toleration
from ..model.state import PodState
from ..rules.scheduler.filters.nodeaffinity import node_matches_pod_affinity
from ..rules.scheduler.filters.tainttoleration import find_untolerated_taint
from .core import Simulation, register_controller
from .create_backoff import JOB_BACKOFF, REPLICASET_BACKOFF, CreateBackoff, pods_mark
from .job import sync_job
from .statefulset import statefulset_status, sync_statefulset
from .workload_pods import active, available_at, create, owned

__all__ = ["DAEMON_TOLERATIONS", "WorkloadControllers", "daemon_pod"]

# What the DaemonSet controller adds to every daemon pod (util.AddOrUpdateDaemonPodTolerations).
DAEMON_TOLERATIONS = (
    Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),
)


_owned = owned
_active = active


def _create(sim: Simulation, w: Workload, pod: Pod, rule: str) -> bool:
    """Create one of ``w``'s pods; False when the API server refused it."""
    return create(sim, w, pod, rule) is not None


def daemon_pod(w: Workload, node: str) -> Pod:
    """The pod the DaemonSet controller makes for ``node``: pinned there by node affinity."""
    t = w.template
    pin = Requirement("metadata.name", "In", (node,))
    na = t.node_affinity
    if na is not None and na.required:
        # Every term keeps its expressions; its matchFields become the node name only.
        terms = tuple(NodeSelectorTerm(term.expressions, (pin,)) for term in na.required)
    else:
        terms = (NodeSelectorTerm((), (pin,)),)
    affinity = NodeAffinity(terms, na.preferred if na is not None else ())
    tolerations = list(t.tolerations)
    for tol in DAEMON_TOLERATIONS:
        if tol not in tolerations:
            tolerations.append(tol)
    return attrs.evolve(t, name=f"{w.name}-{node}", node_affinity=affinity,
                        tolerations=tuple(tolerations), owner_kind="DaemonSet",
                        owner_name=w.name)


def _node_of(ps: PodState) -> str | None:
    """The node a daemon pod is for: where it runs, or the node its affinity pins it to."""
    if ps.node is not None:
        return ps.node
    if ps.pod.node_name:
        return ps.pod.node_name
    na = ps.pod.node_affinity
    for term in (na.required or ()) if na is not None else ():
        for r in term.fields:
            if r.key == "metadata.name" and r.operator == "In" and len(r.values) == 1:
                return r.values[0]
    return None


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
            if key in backoff.waiting and backoff.blocked(key, sim.now, pods_mark(_owned(sim, w))):
                continue
            self.refused = False
            changed |= sync(sim, w)
            if self.refused:
                backoff.failed(key, sim.now, pods_mark(_owned(sim, w)))
            elif backoff.failures:
                backoff.succeeded(key)
        if changed:
            sim.changed()
        return changed

    def _create(self, sim: Simulation, w: Workload, pod: Pod, rule: str) -> bool:
        """:func:`_create`, noting a refusal for the sync's backoff."""
        if _create(sim, w, pod, rule):
            return True
        self.refused = True
        return False

    def _daemonset(self, sim: Simulation, w: Workload) -> bool:
        covered = {_node_of(ps) for ps in _owned(sim, w) if _active(ps)}
        changed = False
        for node in sim.state.nodes.values():
            if node.name in covered:
                continue
            pod = daemon_pod(w, node.name)
            if pod.key in sim.state.pods and not sim.state.pods[pod.key].gone:
                continue  # the old pod is still terminating
            if not node_matches_pod_affinity(w.template, node) or \
                    find_untolerated_taint(node.taints, pod.tolerations) is not None:
                continue
            changed = True
            if not self._create(sim, w, pod, "workloads.daemonset.create"):
                break
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
