"""The StatefulSet, DaemonSet and Job controllers (phase 3, beside the deployment's).

* **StatefulSet**: pods ``NAME-0 … NAME-(replicas-1)``, each recreated under
  its own name once the old one is gone.  OrderedReady creates ordinal *i*
  only when every lower ordinal is Running and Ready, and scales down from
  the highest ordinal one pod at a time; Parallel creates and deletes all
  at once.
* **DaemonSet**: one pod per node the pod fits on by the DaemonSet
  controller's own test (``NodeShouldRunDaemonPod``: nodeSelector and
  required node affinity, and the NoSchedule/NoExecute taints tolerated with
  the tolerations the controller adds).  Each pod is named ``NAME-NODE`` and
  bound by the default scheduler through a required node affinity on
  ``metadata.name`` (upstream's ``ReplaceDaemonSetPodNodeNameNodeAffinity``),
  with the controller's tolerations added (``AddOrUpdateDaemonPodTolerations``;
  the network-unavailable one it adds to hostNetwork pods is not, as the
  model does not keep hostNetwork).
* **Job**: up to ``parallelism`` pods ``NAME-1``, ``NAME-2``, … at a time until
  ``completions`` pods succeeded (``complete pod``); with no completions, no
  new pod once one succeeded.  A pod that fails or is deleted is replaced.

Pods of these workloads read from a cluster dump (linked by their controlling
ownerReference) count as theirs: nothing is created twice.  A pod the API
server refuses (ResourceQuota, LimitRanger) ends the workload's sync and puts
it in its work queue's backoff (:mod:`.create_backoff`): 5 ms doubling up to
1,000 s for StatefulSets and DaemonSets, 1 s doubling up to 60 s for Jobs.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from ..model.objects import NodeAffinity, Pod, Workload
from ..model.selectors import NodeSelectorTerm, Requirement, Toleration
from ..model.state import PodState
from ..rules.scheduler.filters.nodeaffinity import node_matches_pod_affinity
from ..rules.scheduler.filters.tainttoleration import find_untolerated_taint
from .core import Simulation, register_controller
from .create_backoff import JOB_BACKOFF, REPLICASET_BACKOFF, CreateBackoff, pods_mark
from .setup import create_pod

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


def _owned(sim: Simulation, w: Workload) -> Iterator[PodState]:
    """The workload's pods that still exist (terminating ones too), in creation order."""
    for ps in sim.state.by_namespace.get(w.namespace, {}).values():
        p = ps.pod
        if p.owner_kind == w.kind and p.owner_name == w.name and not ps.gone:
            yield ps


def _active(ps: PodState) -> bool:
    return not ps.terminating and ps.outcome is None and ps.phase in ("Pending", "Running")


def _create(sim: Simulation, w: Workload, pod: Pod, rule: str) -> bool:
    """Create one of ``w``'s pods; False when the API server refused it."""
    ps = create_pod(sim, pod)
    if ps is not None:
        sim.record("created", ps, None, f"{w.kind.lower()}/{w.name}", "", "", (rule,))
    return ps is not None


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

    def step(self, sim: Simulation) -> bool:
        workloads = sim.state.workloads
        if not workloads:
            return False
        changed = False
        syncs = {"StatefulSet": self._statefulset, "DaemonSet": self._daemonset,
                 "Job": self._job}
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

    def _statefulset(self, sim: Simulation, w: Workload) -> bool:
        pods = {ps.pod.name: ps for ps in _owned(sim, w)}
        changed = False
        for i in range(w.replicas):
            name = f"{w.name}-{i}"
            ps = pods.get(name)
            if ps is None:
                labels = {**w.template.labels, "statefulset.kubernetes.io/pod-name": name,
                          "apps.kubernetes.io/pod-index": str(i)}
                changed = True
                if not self._create(sim, w, attrs.evolve(w.template, name=name, labels=labels),
                                    "workloads.statefulset.create") or w.ordered:
                    break  # refused; or the next ordinal waits for this one to be Ready
                continue
            if w.ordered and not (ps.node is not None and ps.ready and _active(ps)):
                break
        extra = sorted((ps for n, ps in pods.items() if _ordinal(w, n) >= w.replicas),
                       key=lambda ps: -_ordinal(w, ps.pod.name))
        for ps in extra:
            if w.ordered and any(p.terminating for p in extra):
                break  # one at a time, the highest ordinal first
            if _active(ps):
                sim.terminate(ps, "deleted", by=f"statefulset/{w.name}", reason="ScaledDown",
                              rules=("workloads.statefulset.scale-down",))
                changed = True
                if w.ordered:
                    break
        return changed

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

    def _job(self, sim: Simulation, w: Workload) -> bool:
        owned = list(_owned(sim, w))
        succeeded = sum(1 for ps in owned if ps.phase == "Succeeded")
        active = sum(1 for ps in owned if _active(ps))
        if w.completions is None:
            wanted = 0 if succeeded else w.replicas - active
        else:
            wanted = min(w.replicas, w.completions - succeeded) - active
        changed = False
        counters = sim.extra.setdefault("job_counter", {})
        key = f"{w.namespace}/{w.name}"
        while wanted > 0:
            n = counters.get(key, 0) + 1
            while f"{w.namespace}/{w.name}-{n}" in sim.state.pods:
                n += 1
            counters[key] = n
            labels = {**w.template.labels, "batch.kubernetes.io/job-name": w.name}
            wanted -= 1
            changed = True
            if not self._create(sim, w, attrs.evolve(w.template, name=f"{w.name}-{n}",
                                                     labels=labels), "workloads.job.create"):
                break
        return changed

    def next_time(self, sim: Simulation) -> int | None:
        """The next retry of a workload whose pods were refused."""
        times = [t for b in self.backoff.values() if (t := b.next_time(sim.now)) is not None]
        return min(times) if times else None


def _ordinal(w: Workload, name: str) -> int:
    tail = name[len(w.name) + 1:]
    return int(tail) if tail.isdigit() else -1


register_controller(WorkloadControllers)
