"""Benchmark workloads shaped like upstream's ``test/integration/scheduler_perf``.

Each workload is generated as `.kr` text that uses ranges (``nodes n-[1..5000]``,
``pods p-[1..1000]``), so the files stay a few lines long and nothing large is
kept in the repository.  Node and pod shapes are scheduler_perf's templates:
nodes 4 CPU, 32Gi, 110 pods; pods 100m CPU, 500Mi unless a workload says
otherwise.

The *measured* pods of a scheduling workload are the ones whose names start
with ``measured-``: they are created by a timeline event at 1s, after the
initial pods have been placed at 0s, so the runner can tell setup from
measurement (see ``benchmarks/run.py``).
"""

from __future__ import annotations

import attrs

__all__ = [
    "MEASURED_PREFIX",
    "Workload",
    "affinity_spread",
    "deployment_rollout",
    "deployment_scheduling_basic",
    "dra_gpus",
    "eviction_storm",
    "gke_cluster_lines",
    "gke_capacity",
    "gke_drain",
    "gke_load",
    "gke_preemption",
    "gke_scheduling_basic",
    "language_file",
    "load_cluster",
    "preemption",
    "quota_reclaim",
    "scheduling_basic",
    "sweep_cluster",
    "sweep_n1",
]

MEASURED_PREFIX = "measured-"
NODE = "cpu=4 memory=32Gi pods=110"
POD = "requests(cpu=100m, memory=500Mi)"


@attrs.frozen
class Workload:
    """One generated scenario and what to measure in it.

    ``kind`` says what counts as a measured decision: ``"schedule"`` (pods
    named ``measured-*`` reaching a node), ``"evict"`` (kubelet evictions) or
    ``"load"`` / ``"parse"`` (no simulation: the time to get the cluster
    ready).  ``target`` is in decisions per second for the first two, in
    seconds for the others.
    """

    name: str
    text: str
    kind: str
    nodes: int
    initial_pods: int
    measured: int
    target: float
    unit: str = "pods/s"


def scheduling_basic(nodes: int = 5000, initial: int = 1000, measured: int = 10_000,
                     name: str = "SchedulingBasic") -> Workload:
    """scheduler_perf SchedulingBasic: plain pods onto identical nodes."""
    text = f"""\
scenario "{name}"
nodes node-[1..{nodes}] {NODE}
pods default/init-[1..{initial}] {POD}
at 1s create pods default/{MEASURED_PREFIX}[1..{measured}] {POD}
"""
    return Workload(name, text, "schedule", nodes, initial, measured, 1000.0)


def preemption(nodes: int = 5000, low_per_node: int = 4, measured: int = 5000) -> Workload:
    """scheduler_perf PreemptionAsync: every high-priority pod must preempt.

    Upstream's templates: low-priority pods request 900m CPU (four fill a
    4-CPU node to 3.6 CPU), high-priority pods 3 CPU, so each needs three
    victims.  Victims have a 0s grace period so the preemptor binds in the
    same instant, as upstream's integration test deletes them at once.
    """
    initial = nodes * low_per_node
    lines = ['scenario "Preemption"', "priorityclass low value=100",
             "priorityclass high value=1000", f"nodes node-[1..{nodes}] {NODE}"]
    # The low-priority pods start running on their nodes (four each): placing
    # them is setup, not what this workload measures.
    for n in range(1, nodes + 1):
        lines.append(f"pods default/low-{n}-[1..{low_per_node}] on node-{n} priorityclass=low "
                     "grace-period=0s requests(cpu=900m, memory=500Mi)")
    lines.append(f"at 1s create pods default/{MEASURED_PREFIX}[1..{measured}] priorityclass=high "
                 "requests(cpu=3, memory=500Mi)")
    return Workload("Preemption", "\n".join(lines) + "\n", "schedule", nodes, initial, measured,
                    570.0)


def affinity_spread(nodes: int = 1000, zones: int = 10, measured: int = 5000) -> Workload:
    """Required anti-affinity by hostname plus a zone spread constraint.

    scheduler_perf's SchedulingPodAntiAffinity and TopologySpreading combined:
    every pod is labelled ``color=blue``, refuses a node that already holds one
    (so at most one per node), and keeps the zones within a skew of 1.  With
    more pods than nodes the last ones stay pending, which the scheduler must
    also decide quickly.  The run ends a minute in: what is measured is the
    scheduling of the burst, not the queue's 5-minute leftover flushes that
    retry the pending pods afterwards (``queue_pending`` measures those).
    """
    per_zone = nodes // zones
    lines = ['scenario "AffinitySpread"']
    for z in range(zones):
        first, last = z * per_zone + 1, (z + 1) * per_zone
        lines.append(f"nodes node-[{first}..{last}] {NODE} "
                     f"labels(topology.kubernetes.io/zone=zone-{z + 1})")
    lines.append(
        f"at 1s create pods default/{MEASURED_PREFIX}[1..{measured}] {POD} labels(color=blue) {{")
    lines.append("  anti-affinity pod required color=blue topology=kubernetes.io/hostname")
    lines.append("  spread max-skew=1 topology=topology.kubernetes.io/zone selector(color=blue)")
    lines.append("}")
    lines.append("run until 1m")
    return Workload("AffinitySpread", "\n".join(lines) + "\n", "schedule", nodes, 0,
                    measured, 300.0)


def queue_pending(nodes: int = 500, pending: int = 2000, minutes: int = 60) -> Workload:
    """scheduler_perf's unschedulable-pods workloads over time: pods that stay pending.

    Half the measured pods ask for more CPU than any node has (NodeResourcesFit
    rejects them), half for a zone no node is in (NodeAffinity).  Every minute
    a bound filler pod is deleted, an event NodeResourcesFit's QueueingHint
    queues its pods for and NodeAffinity's does not; every 5 minutes the
    queue's leftover flush retries every pod that waited that long.  Measured:
    scheduling attempts per second over the simulated hour.
    """
    half = pending // 2
    lines = ['scenario "QueuePending"',
             f"nodes node-[1..{nodes}] {NODE} labels(topology.kubernetes.io/zone=a)",
             f"pods default/filler-[1..{minutes}] {POD} grace-period=0s",
             f"at 1s create pods default/{MEASURED_PREFIX}[1..{half}] "
             "requests(cpu=8, memory=500Mi)",
             f"at 1s create pods default/{MEASURED_PREFIX}[{half + 1}..{pending}] {POD} "
             "node-selector(topology.kubernetes.io/zone=b)"]
    for m in range(1, minutes + 1):
        lines.append(f"at {m}m delete pod default/filler-{m}")
    lines.append(f"run until {minutes}m")
    return Workload("QueuePending", "\n".join(lines) + "\n", "attempts", nodes, minutes,
                    pending, 1000.0, unit="attempts/s")


def eviction_storm(nodes: int = 1000, per_node: int = 30) -> Workload:
    """Every node crosses a hard memory threshold at once.

    Nodes have 32Gi; each pod uses 1Gi (requests 500Mi: Burstable, above its
    requests), so 30 pods leave 2Gi available against a hard threshold of
    ``memory.available<5Gi``: each kubelet evicts one pod per pass (10s
    housekeeping) until three are gone — 3 evictions per node.
    """
    lines = ['scenario "EvictionStorm"', "kubelet * {",
             "  eviction-hard memory.available<5Gi", "}",
             f"nodes node-[1..{nodes}] {NODE}"]
    for n in range(1, nodes + 1):
        lines.append(f"pods default/p{n}-[1..{per_node}] on node-{n} {POD} "
                     "usage(memory=1Gi)")
    return Workload("EvictionStorm", "\n".join(lines) + "\n", "evict", nodes,
                    nodes * per_node, nodes * 3, 5000.0, "evictions/s")


def quota_reclaim(nodes: int = 1000, namespaces: int = 20, measured: int = 2000) -> Workload:
    """ElasticQuota reclaim: half the namespaces borrow, the others take their min back.

    Cluster: 1000 nodes × 4 CPU = 4000 CPU.  Each of 20 namespaces has
    min 200 CPU (the whole cluster in total), max 400 CPU.  The ten
    lending namespaces start empty; the ten ``borrow`` namespaces fill
    the cluster with 1-CPU pods (400 each, 200 of them borrowed).  Then 2000
    1-CPU pods arrive in the lender namespaces (200 each, within their min):
    each must reclaim by preempting a borrower.
    """
    half = namespaces // 2
    per_borrower = nodes * 4 // half
    lines = ['scenario "QuotaReclaim"', f"nodes node-[1..{nodes}] {NODE}"]
    quota_min = nodes * 4 // namespaces
    for i in range(1, namespaces + 1):
        lines.append(f"quota ns-{i} min(cpu={quota_min}, memory=1Ti) "
                     f"max(cpu={2 * quota_min}, memory=2Ti)")
    # The borrowers start running, four 1-CPU pods per node, node after node.
    per_node = 4
    for n in range(1, nodes + 1):
        ns = (n - 1) * per_node // per_borrower + 1
        lines.append(f"pods ns-{ns}/b-{n}-[1..{per_node}] on node-{n} grace-period=0s "
                     "requests(cpu=1, memory=500Mi)")
    per_lender = measured // (namespaces - half)
    events = [f"  create pods ns-{i}/{MEASURED_PREFIX}[1..{per_lender}] grace-period=0s "
              "requests(cpu=1, memory=500Mi)" for i in range(half + 1, namespaces + 1)]
    lines.append("at 1s {")
    lines.extend(events)
    lines.append("}")
    return Workload("QuotaReclaim", "\n".join(lines) + "\n", "schedule", nodes,
                    half * per_borrower, per_lender * (namespaces - half), 500.0)


def dra_gpus(nodes: int = 1000, gpus: int = 8, measured: int = 5000) -> Workload:
    """Dynamic Resource Allocation: GPUs claimed through templates with a CEL selector.

    Every node publishes one ResourceSlice of ``gpus`` devices with the
    attributes model, memory (GiB, an int) and index; half the nodes have
    A100s (80), half L40S (48).  Half the measured pods claim one GPU, half
    two, each through a template whose selector asks for at least 40 GiB:
    7,500 of the 8,000 GPUs end up allocated.
    """
    half = nodes // 2
    lines = ['scenario "DRA"', f"nodes node-[1..{nodes}] {NODE}",
             f"devices gpu-[0..{gpus - 1}] on node-[1..{half}] driver=gpu.example.com "
             "attributes(model=a100, memory=80, index=#)",
             f"devices gpu-[0..{gpus - 1}] on node-[{half + 1}..{nodes}] "
             "driver=gpu.example.com attributes(model=l40s, memory=48, index=#)",
             "deviceclass gpu.example.com driver=gpu.example.com",
             "claimtemplate one-gpu class=gpu.example.com "
             "selector(\"device.attributes['gpu.example.com'].memory >= 40\")",
             "claimtemplate two-gpus class=gpu.example.com count=2 "
             "selector(\"device.attributes['gpu.example.com'].memory >= 40\")",
             f"at 1s create pods default/{MEASURED_PREFIX}[1..{measured // 2}] {POD} "
             "claims(gpu=template/one-gpu)",
             f"at 1s create pods default/{MEASURED_PREFIX}[{measured // 2 + 1}..{measured}] "
             f"{POD} claims(gpu=template/two-gpus)"]
    return Workload("DRA", "\n".join(lines) + "\n", "schedule", nodes, 0, measured, 300.0)


def load_cluster(nodes: int = 5000, pods: int = 150_000) -> Workload:
    """A large running cluster declared with ranges: pods already on their nodes."""
    per_node = pods // nodes
    lines = ['scenario "Load"', f"nodes node-[1..{nodes}] {NODE}"]
    for n in range(1, nodes + 1):
        lines.append(f"pods default/p{n}-[1..{per_node}] on node-{n} {POD}")
    return Workload("Load", "\n".join(lines) + "\n", "load", nodes, per_node * nodes, 0, 3.0,
                    "s")


def language_file(lines_wanted: int = 10_000) -> Workload:
    """A hand-style `.kr` file: one statement per line, varied, no ranges."""
    out = ['scenario "Language"', "",
           "priorityclass high value=1000 preemption=PreemptLowerPriority",
           "priorityclass low value=10 default description=\"batch\"",
           "runtimeclass kata overhead(cpu=250m, memory=120Mi)",
           "kubelet * {", "  eviction-hard memory.available<100Mi nodefs.available<10%",
           "  eviction-soft memory.available<1.5Gi",
           "  eviction-soft-grace-period memory.available=1m30s", "}", ""]
    n_nodes = 500
    for i in range(1, n_nodes + 1):
        zone = "abc"[i % 3]
        taint = " taints(dedicated=gpu:NoSchedule)" if i % 50 == 0 else ""
        out.append(f"node node-{i} cpu=8 memory=32Gi pods=110 "
                   f"labels(topology.kubernetes.io/zone={zone}, tier=t{i % 4}){taint}")
    out.append("")
    i = 5  # so the first expectation (i - 5) names a pod that exists
    t = 0
    while len(out) < lines_wanted - 2:
        i += 1
        node = f"node-{i % n_nodes + 1}"
        k = i % 6
        if k == 0:
            out.append(f"pod team-{i % 7}/web-{i} on {node} priorityclass=low "
                       f"requests(cpu=250m, memory=256Mi) limits(cpu=500m, memory=512Mi) "
                       f"labels(app=web, idx=i{i})")
        elif k == 1:
            out.append(f"pod team-{i % 7}/db-{i} priority={i % 100} requests(cpu=1, memory=2Gi) "
                       f"tolerations(dedicated=gpu:NoSchedule) node-selector(tier=t{i % 4})")
        elif k == 2:
            out.append(f"pod team-{i % 7}/cache-{i} on {node} besteffort grace-period=10s "
                       f"usage(memory=100Mi)")
        elif k == 3:
            t += 1
            out.append(f"at {t}s create pod team-{i % 7}/job-{i} priorityclass=high "
                       f"requests(cpu=500m, memory=1Gi)")
        elif k == 4:
            out.append(f"pdb team-{i % 7}/pdb-{i} selector(app=web, idx=i{i - 4}) "
                       f"max-unavailable=1")
        else:
            out.append(f"expect pod team-{(i - 5) % 7}/web-{i - 5} running")
    out.append("run until 1h")
    return Workload("Language", "\n".join(out) + "\n", "parse", n_nodes, 0, 0, 1.0, "s")



SWEEP_CLUSTER = "sweep-cluster.json"


def sweep_n1(nodes: int = 1000, pods: int = 20_000, zones: int = 10,
             deployments: int = 200) -> Workload:
    """N-1: ``pods`` running replicas of ``deployments`` Deployments on ``nodes`` nodes.

    The cluster is a ``kubectl get nodes,deploy,rs,pods -o json`` style dump
    (:func:`sweep_cluster`, written next to the scenario as
    ``sweep-cluster.json``): the pods are already bound, as in a real cluster,
    and owned through ReplicaSets by Deployments, so deleting a node makes
    their controllers recreate its pods and the scheduler place them on the
    other nodes (spread by upstream's default constraints).  Measured by
    ``python -m benchmarks.sweep``: ``kruleset sweep --fail-each node`` over
    every node, the wall time of the whole sweep (target 5 minutes).
    """
    text = (f'scenario "SweepN1: {nodes} nodes in {zones} zones, {pods} pods"\n'
            f'include "{SWEEP_CLUSTER}"\n'
            f"expect pods default/app-* running count={pods // deployments * deployments}\n")
    return Workload("SweepN1", text, "sweep", nodes, pods, nodes, 300.0, unit="s")


def sweep_cluster(nodes: int = 1000, pods: int = 20_000, zones: int = 10,
                  deployments: int = 200) -> dict[str, object]:
    """The cluster of :func:`sweep_n1` as a Kubernetes List (nodes 4 CPU/32Gi, pods 100m/500Mi).

    Pods are dealt to nodes round-robin, so every node runs ``pods / nodes``
    of them, from different deployments.
    """
    items: list[dict[str, object]] = []
    for i in range(1, nodes + 1):
        name = f"node-{i:04d}"
        alloc = {"cpu": "4", "memory": "32Gi", "pods": "110"}
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": name, "labels": {"kubernetes.io/hostname": name,
                                     "topology.kubernetes.io/zone": f"zone-{(i - 1) % zones + 1}"}},
            "status": {"capacity": alloc, "allocatable": alloc}})
    replicas = pods // deployments
    placed = 0
    for d in range(1, deployments + 1):
        app, rs_hash = f"app-{d}", f"{d * 7919:010x}"
        labels = {"app": app}
        template = {"metadata": {"labels": labels}, "spec": {"containers": [{
            "name": "main", "image": "registry.example.com/app:1",
            "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]}}
        rs = f"{app}-{rs_hash}"
        owned = {"app": app, "pod-template-hash": rs_hash}
        items.append({"apiVersion": "apps/v1", "kind": "Deployment",
                      "metadata": {"name": app, "namespace": "default"},
                      "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                               "template": template}})
        items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
            "name": rs, "namespace": "default", "labels": owned,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                 "controller": True, "uid": f"uid-{app}"}]},
            "spec": {"replicas": replicas, "selector": {"matchLabels": owned},
                     "template": template}})
        for r in range(replicas):
            items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"{rs}-{r:05x}", "namespace": "default", "labels": owned,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                     "controller": True, "uid": f"uid-{rs}"}]},
                "spec": {"nodeName": f"node-{placed % nodes + 1:04d}",
                         **template["spec"]},  # type: ignore[dict-item]
                "status": {"phase": "Running"}})
            placed += 1
    return {"apiVersion": "v1", "kind": "List", "items": items}


# --- GKE-size clusters and Deployment-shaped pods -----------------------------------------
#
# A GKE cluster may hold 65,000 nodes and about a million pods.  The nodes are
# spread over three zones; the running pods are replicas of ``deployments``
# Deployments (labelled ``app=app-K``), declared with one ``pods … on NODE``
# range per node and deployment (a node holds the next replicas in order), so
# a million pods take about 66,000 lines.


def _zones_lines(nodes: int, zones: int) -> list[str]:
    """``nodes`` scheduler_perf nodes ``node-1``… in ``zones`` zones, one range per zone."""
    out = []
    per = -(-nodes // zones)
    for z in range(zones):
        first, last = z * per + 1, min(nodes, (z + 1) * per)
        if first <= last:
            out.append(f"nodes node-[{first}..{last}] {NODE} "
                       f"labels(topology.kubernetes.io/zone=zone-{z + 1})")
    return out


def gke_cluster_lines(nodes: int, pods: int, deployments: int, zones: int = 3,
                      skip: int = 0, owned: bool = False) -> list[str]:
    """The declarations of a GKE-size running cluster (nodes and bound pods).

    ``pods`` replicas of ``deployments`` apps (``app-K``) are dealt out in
    order, node after node, as evenly as the counts allow: every node holds
    ``pods // nodes`` or one more.  The first ``skip`` nodes are left empty
    (a workload fills them itself).  ``owned``: each app is a Deployment
    and its pods are its running replicas (``pods default/app-K-[A..B] on
    NODE deployment=app-K``, named as its controller names them); otherwise
    they are plain pods labelled ``app=app-K``.
    """
    lines = _zones_lines(nodes, zones)
    per_app = pods // deployments
    if owned:
        lines += [f"deployment default/app-{k} replicas={per_app} {POD} labels(app=app-{k})"
                  for k in range(1, deployments + 1)]
    usable = nodes - skip
    base, extra = divmod(per_app * deployments, usable)
    app, left = 1, per_app  # the app being dealt and its replicas not yet placed
    for n in range(skip + 1, nodes + 1):
        room = base + (1 if n - skip <= extra else 0)
        while room > 0:
            take = min(room, left)
            first = per_app - left + 1
            if owned:
                lines.append(f"pods default/app-{app}-[{first}..{first + take - 1}] on node-{n} "
                             f"deployment=app-{app}")
            else:
                lines.append(f"pods default/app-{app}-r[{first}..{first + take - 1}] "
                             f"on node-{n} {POD} labels(app=app-{app})")
            room -= take
            left -= take
            if left == 0:
                app, left = app + 1, per_app
    return lines


def gke_load(nodes: int = 65_000, pods: int = 1_000_000, deployments: int = 1000,
             zones: int = 3, name: str = "GKELoad") -> Workload:
    """A GKE-size running cluster, from `.kr`: the time until it is ready to simulate.

    Its pods are the running replicas of ``deployments`` Deployments.
    """
    text = f'scenario "{name}"\n' + "\n".join(gke_cluster_lines(nodes, pods, deployments,
                                                                   zones, owned=True)) + "\n"
    return Workload(name, text, "load", nodes, pods // deployments * deployments, 0, 20.0, "s")


def gke_scheduling_basic(nodes: int = 65_000, pods: int = 1_000_000, deployments: int = 1000,
                         measured: int = 10_000) -> Workload:
    """SchedulingBasic on the GKE-size cluster: ``measured`` new plain pods."""
    lines = ['scenario "GKESchedulingBasic"', *gke_cluster_lines(nodes, pods, deployments),
             f"at 1s create pods default/{MEASURED_PREFIX}[1..{measured}] {POD}"]
    return Workload("GKESchedulingBasic", "\n".join(lines) + "\n", "schedule", nodes,
                    pods // deployments * deployments, measured, 1000.0)


def gke_preemption(nodes: int = 65_000, low_per_node: int = 4, measured: int = 5000,
                   zones: int = 3) -> Workload:
    """Preemption at GKE size: every node full of low-priority pods, 5,000 that must preempt.

    The shapes are the Preemption workload's (four 900m pods fill a node; the
    preemptors ask for 3 CPU, so each evicts three).
    """
    lines = ['scenario "GKEPreemption"', "priorityclass low value=100",
             "priorityclass high value=1000", *_zones_lines(nodes, zones)]
    for n in range(1, nodes + 1):
        lines.append(f"pods default/low-{n}-[1..{low_per_node}] on node-{n} priorityclass=low "
                     "grace-period=0s requests(cpu=900m, memory=500Mi)")
    lines.append(f"at 1s create pods default/{MEASURED_PREFIX}[1..{measured}] priorityclass=high "
                 "requests(cpu=3, memory=500Mi)")
    return Workload("GKEPreemption", "\n".join(lines) + "\n", "schedule", nodes,
                    nodes * low_per_node, measured, 500.0)


def gke_capacity(nodes: int = 65_000, pods: int = 1_000_000, deployments: int = 1000
                 ) -> Workload:
    """``kruleset capacity`` on GKELoad's cluster for scheduler_perf's plain pod.

    Measured: the wall time of the answer once the cluster is loaded and
    settled (target 20 s).  About 1.5 million more such pods fit.
    """
    text = 'scenario "GKECapacity"\n' + "\n".join(
        gke_cluster_lines(nodes, pods, deployments, owned=True)) + "\n"
    return Workload("GKECapacity", text, "capacity", nodes,
                    pods // deployments * deployments, 0, 20.0, "s")


def gke_drain(nodes: int = 65_000, pods: int = 1_000_000, deployments: int = 1000,
              on_node: int = 110, apps_on_node: int = 10) -> Workload:
    """Drain one full node (110 pods of ten apps, each app under a PDB) of the GKE cluster.

    ``node-1`` holds ``on_node`` pods of ``apps_on_node`` apps (``drained-K``);
    each app also runs on ``node-2``… (as many replicas again, so each
    PDB, ``min-available`` half the app's pods, lets the drain evict every
    pod of the node at once; a whole number, since a percentage needs the
    pods' controller).  The rest of the cluster is :func:`gke_cluster_lines`.
    Measured: wall time from the drain's instant to its ``drained``
    decision (target 1 s).
    """
    lines = ['scenario "GKEDrain"', *gke_cluster_lines(nodes, pods, deployments, skip=1)]
    per = on_node // apps_on_node
    for k in range(1, apps_on_node + 1):
        lines.append(f"pods default/drained-{k}-a[1..{per}] on node-1 {POD} "
                     f"labels(app=drained-{k})")
        lines.append(f"pods default/drained-{k}-b[1..{per}] on node-{k + 1} {POD} "
                     f"labels(app=drained-{k})")
        lines.append(f"pdb default/drained-{k} selector(app=drained-{k}) min-available={per}")
    lines.append("at 1s drain node node-1")
    return Workload("GKEDrain", "\n".join(lines) + "\n", "drain", nodes,
                    pods // deployments * deployments + 2 * per * apps_on_node, on_node, 1.0, "s")


def deployment_scheduling_basic(nodes: int = 5000, deployments: int = 200,
                                replicas: int = 100, zones: int = 3) -> Workload:
    """SchedulingBasic with Deployment-shaped pods: the system default spreading applies.

    ``deployments`` Deployments of ``replicas`` pods each are created at 1s
    on ``nodes`` nodes in ``zones`` zones; their pods are owned by a
    ReplicaSet, so PodTopologySpread's default constraints (by zone and by
    hostname, ScheduleAnyway) score every feasible node.
    """
    lines = ['scenario "DeploymentSchedulingBasic"', *_zones_lines(nodes, zones), "at 1s {"]
    lines += [f"  create deployment default/{MEASURED_PREFIX}app-{d} replicas={replicas} {POD} "
              f"labels(app=app-{d})" for d in range(1, deployments + 1)]
    lines.append("}")
    return Workload("DeploymentSchedulingBasic", "\n".join(lines) + "\n", "schedule", nodes, 0,
                    deployments * replicas, 1000.0)



def deployment_rollout(nodes: int = 5000, replicas: int = 1000) -> Workload:
    """A RollingUpdate of a ``replicas``-replica Deployment on ``nodes`` nodes.

    The Deployment's replicas run at time 0 (one per node, on every fifth
    node); at 1s ``apply deployment`` changes its pod template (more CPU),
    and the controller rolls it out with the default 25% maxSurge and
    maxUnavailable: new pods scheduled (system default spreading), old ones
    deleted in ActivePodsWithRanks order.  Measured: wall time from the
    apply to the old ReplicaSet's last scale-down (to 0), target 5 s.
    """
    step = max(nodes // replicas, 1)
    lines = ['scenario "DeploymentRollout"', f"nodes node-[1..{nodes}] {NODE}",
             f"deployment default/web replicas={replicas} {POD} labels(app=web)"]
    lines += [f"pod default/web-{i + 1} on node-{(i * step) % nodes + 1} deployment=web"
              for i in range(replicas)]
    lines.append(f"at 1s apply deployment default/web replicas={replicas} "
                 "requests(cpu=200m, memory=500Mi) labels(app=web)")
    return Workload("DeploymentRollout", "\n".join(lines) + "\n", "rollout", nodes,
                    replicas, replicas, 5.0, "s")
