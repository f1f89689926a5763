"""A realistic cluster dump, as ``kubectl get <every kind> -A -o yaml`` prints it.

No real cluster is at hand in the tests, so this writes what one prints: a
``kind: List`` with nodes (one NotReady, one cordoned, a control-plane
taint), the built-in priority classes, Deployments with their ReplicaSets and
pods, StatefulSets, DaemonSets (pods pinned by node affinity, with the
controller's tolerations), Jobs and the CronJob that made one,
ReplicationControllers, PDBs, LimitRanges, ResourceQuotas, a pending pod
nominated to a node, a terminating pod, and the kinds that play no part
(Services, ConfigMaps, Secrets, Events, Endpoints, EndpointSlices, Leases,
ServiceAccounts, RBAC, a custom resource) — with the metadata, managedFields
and status fields a real dump carries.
"""

from __future__ import annotations

import hashlib
from typing import Any

import yaml

__all__ = ["dump", "dump_text"]

_T0 = "2026-11-20T08:00:00Z"
_DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
     "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
     "tolerationSeconds": 300},
]
_DAEMON_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
]


def _uid(*parts: object) -> str:
    h = hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _meta(kind: str, name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"creationTimestamp": _T0, "name": name,
                         "resourceVersion": str(len(name) * 7919 % 100000),
                         "uid": _uid(kind, namespace, name)}
    if namespace is not None:
        m["namespace"] = namespace
    m["managedFields"] = [{"apiVersion": "v1", "fieldsType": "FieldsV1",
                           "fieldsV1": {"f:metadata": {"f:labels": {".": {}}}},
                           "manager": "kube-controller-manager", "operation": "Update",
                           "time": _T0}]
    m.update(extra)
    return m


def _owner(kind: str, name: str, namespace: str, api: str = "apps/v1") -> list[dict[str, Any]]:
    return [{"apiVersion": api, "blockOwnerDeletion": True, "controller": True, "kind": kind,
             "name": name, "uid": _uid(kind, namespace, name)}]


def _container(name: str, cpu: str, memory: str) -> dict[str, Any]:
    return {"image": f"registry.example/{name}:1.0", "imagePullPolicy": "IfNotPresent",
            "name": name, "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
            "resources": {"limits": {"memory": memory}, "requests": {"cpu": cpu,
                                                                     "memory": memory}},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                              "name": "kube-api-access", "readOnly": True}]}


def _pod_spec(name: str, cpu: str, memory: str, **extra: Any) -> dict[str, Any]:
    spec = {"containers": [_container(name, cpu, memory)], "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler",
            "securityContext": {}, "serviceAccount": "default",
            "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
            "tolerations": _DEFAULT_TOLERATIONS,
            "volumes": [{"name": "kube-api-access", "projected": {
                "defaultMode": 420,
                "sources": [{"serviceAccountToken": {"expirationSeconds": 3607,
                                                     "path": "token"}}]}}]}
    spec.update(extra)
    return spec


def _status(node: str | None, phase: str = "Running", ready: bool = True,
            **extra: Any) -> dict[str, Any]:
    if node is None:
        return {"conditions": [{"lastProbeTime": None, "lastTransitionTime": _T0,
                                "message": "0/40 nodes are available: 40 Insufficient cpu.",
                                "reason": "Unschedulable", "status": "False",
                                "type": "PodScheduled"}],
                "phase": "Pending", "qosClass": "Burstable", **extra}
    return {"conditions": [{"lastProbeTime": None, "lastTransitionTime": _T0,
                            "status": "True" if ready else "False", "type": t}
                           for t in ("Initialized", "Ready", "ContainersReady",
                                     "PodScheduled")],
            "containerStatuses": [{"containerID": "containerd://abc", "image": "x",
                                   "imageID": "x", "lastState": {}, "name": "c",
                                   "ready": ready, "restartCount": 0, "started": True,
                                   "state": {"running": {"startedAt": _T0}}}],
            "hostIP": "10.0.0.1", "hostIPs": [{"ip": "10.0.0.1"}], "phase": phase,
            "podIP": "10.244.0.5", "podIPs": [{"ip": "10.244.0.5"}], "qosClass": "Burstable",
            "startTime": _T0, **extra}


def _pod(name: str, namespace: str, node: str | None, labels: dict[str, str],
         owner: list[dict[str, Any]] | None, spec: dict[str, Any],
         status: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    m = _meta("Pod", name, namespace, labels=labels, **meta)
    if owner:
        m["ownerReferences"] = owner
    spec = dict(spec)
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec,
            "status": status if status is not None else _status(node)}


def _node(name: str, *, ready: bool = True, unschedulable: bool = False,
          control_plane: bool = False, zone: str = "a") -> dict[str, Any]:
    spec: dict[str, Any] = {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"],
                            "providerID": f"kind://docker/kind/{name}"}
    taints = []
    if control_plane:
        taints.append({"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"})
    if unschedulable:
        spec["unschedulable"] = True
        taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable",
                       "timeAdded": _T0})
    if not ready:
        taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/not-ready"})
        taints.append({"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
                       "timeAdded": _T0})
    if taints:
        spec["taints"] = taints
    conditions = [{"lastHeartbeatTime": _T0, "lastTransitionTime": _T0, "message": m,
                   "reason": r, "status": s, "type": t} for t, s, r, m in (
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "ok"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "ok"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "ok"),
        ("Ready", "True" if ready else "Unknown",
         "KubeletReady" if ready else "NodeStatusUnknown", "ok"))]
    labels = {"beta.kubernetes.io/arch": "amd64", "kubernetes.io/arch": "amd64",
              "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
              "topology.kubernetes.io/zone": zone}
    if control_plane:
        labels["node-role.kubernetes.io/control-plane"] = ""
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": _meta("Node", name, None, labels=labels,
                              annotations={"node.alpha.kubernetes.io/ttl": "0"}),
            "spec": spec,
            "status": {"addresses": [{"address": "10.0.0.1", "type": "InternalIP"},
                                     {"address": name, "type": "Hostname"}],
                       "allocatable": {"cpu": "8", "ephemeral-storage": "100Gi",
                                       "hugepages-2Mi": "0", "memory": "31Gi", "pods": "110"},
                       "capacity": {"cpu": "8", "ephemeral-storage": "100Gi",
                                    "hugepages-2Mi": "0", "memory": "32Gi", "pods": "110"},
                       "conditions": conditions,
                       "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                       "images": [{"names": ["registry.example/web:1.0"],
                                   "sizeBytes": 123456789}],
                       "nodeInfo": {"architecture": "amd64", "kubeletVersion": "v1.35.0",
                                    "operatingSystem": "linux", "osImage": "Debian"}}}


def _template(name: str, labels: dict[str, str], cpu: str, memory: str,
              **spec: Any) -> dict[str, Any]:
    s = _pod_spec(name, cpu, memory, **spec)
    s.pop("priority")  # the API server sets it on pods, not templates
    return {"metadata": {"creationTimestamp": None, "labels": labels}, "spec": s}


def dump(nodes: int = 60, deployments: int = 60, replicas: int = 40,
         filler: int = 100) -> dict[str, Any]:
    """The dump as a decoded ``kind: List`` (several thousand objects with the defaults)."""
    items: list[dict[str, Any]] = []
    names = [f"worker-{i:03d}" for i in range(nodes)]
    items.append(_node("control-plane", control_plane=True))
    for i, n in enumerate(names):
        items.append(_node(n, ready=i != 1, unschedulable=i == 2, zone="abc"[i % 3]))
    all_nodes = ["control-plane", *names]
    workers = [n for i, n in enumerate(names) if i not in (1, 2)]
    for ns in ("default", "kube-system", "shop", "batch"):
        items.append({"apiVersion": "v1", "kind": "Namespace",
                      "metadata": _meta("Namespace", ns, None,
                                        labels={"kubernetes.io/metadata.name": ns}),
                      "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    for name, value, desc in (
            ("system-cluster-critical", 2000000000,
             "Used for system critical pods that must run in the cluster, but can be moved to "
             "another node if necessary."),
            ("system-node-critical", 2000001000,
             "Used for system critical pods that must not be moved from their current node."),
            ("high", 1000, "user-facing")):
        items.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                      "metadata": _meta("PriorityClass", name, None), "value": value,
                      "description": desc, "preemptionPolicy": "PreemptLowerPriority"})
    slot = 0
    for d in range(deployments):
        ns, name = "shop", f"web-{d}"
        labels = {"app": name}
        h = hashlib.sha256(name.encode()).hexdigest()[:10]
        rs = f"{name}-{h}"
        tpl = _template(name, labels, "100m", "128Mi")
        items.append({"apiVersion": "apps/v1", "kind": "Deployment",
                      "metadata": _meta("Deployment", name, ns, generation=1,
                                        annotations={"deployment.kubernetes.io/revision": "1"}),
                      "spec": {"progressDeadlineSeconds": 600, "replicas": replicas,
                               "revisionHistoryLimit": 10, "selector": {"matchLabels": labels},
                               "strategy": {"rollingUpdate": {"maxSurge": "25%",
                                                              "maxUnavailable": "25%"},
                                            "type": "RollingUpdate"}, "template": tpl},
                      "status": {"availableReplicas": replicas, "replicas": replicas}})
        items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                      "metadata": _meta("ReplicaSet", rs, ns,
                                        labels={**labels, "pod-template-hash": h},
                                        ownerReferences=_owner("Deployment", name, ns)),
                      "spec": {"replicas": replicas, "selector": {"matchLabels": {
                          **labels, "pod-template-hash": h}},
                          "template": {**tpl, "metadata": {"labels": {
                              **labels, "pod-template-hash": h}}}},
                      "status": {"replicas": replicas}})
        for r in range(replicas):
            node = workers[slot % len(workers)]
            slot += 1
            items.append(_pod(f"{rs}-{r:05x}", ns, node, {**labels, "pod-template-hash": h},
                              _owner("ReplicaSet", rs, ns), _pod_spec(name, "100m", "128Mi")))
        items.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                      "metadata": _meta("PodDisruptionBudget", name, ns),
                      "spec": {"maxUnavailable": 1, "selector": {"matchLabels": labels}},
                      "status": {"currentHealthy": replicas, "desiredHealthy": replicas - 1,
                                 "disruptionsAllowed": 1, "expectedPods": replicas}})
    # A StatefulSet with every pod in the dump, and one missing its last ordinal.
    for name, have in (("db", 3), ("cache", 2)):
        labels = {"app": name}
        items.append({"apiVersion": "apps/v1", "kind": "StatefulSet",
                      "metadata": _meta("StatefulSet", name, "shop", generation=1),
                      "spec": {"podManagementPolicy": "OrderedReady", "replicas": 3,
                               "selector": {"matchLabels": labels}, "serviceName": name,
                               "template": _template(name, labels, "250m", "256Mi"),
                               "updateStrategy": {"type": "RollingUpdate"}},
                      "status": {"replicas": have}})
        for i in range(have):
            items.append(_pod(f"{name}-{i}", "shop", workers[i],
                              {**labels, "statefulset.kubernetes.io/pod-name": f"{name}-{i}"},
                              _owner("StatefulSet", name, "shop"),
                              _pod_spec(name, "250m", "256Mi")))
    # A DaemonSet on every node it tolerates (not the control plane).
    labels = {"k8s-app": "node-agent"}
    items.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                  "metadata": _meta("DaemonSet", "node-agent", "kube-system", generation=1),
                  "spec": {"selector": {"matchLabels": labels},
                           "template": _template("node-agent", labels, "50m", "64Mi",
                                                 priorityClassName="system-node-critical"),
                           "updateStrategy": {"type": "RollingUpdate"}},
                  "status": {"desiredNumberScheduled": len(names)}})
    for n in names:
        spec = _pod_spec("node-agent", "50m", "64Mi", priority=2000001000,
                         priorityClassName="system-node-critical",
                         tolerations=_DAEMON_TOLERATIONS,
                         affinity={"nodeAffinity": {
                             "requiredDuringSchedulingIgnoredDuringExecution": {
                                 "nodeSelectorTerms": [{"matchFields": [{
                                     "key": "metadata.name", "operator": "In",
                                     "values": [n]}]}]}}})
        items.append(_pod(f"node-agent-{_uid(n)[:5]}", "kube-system", n, labels,
                          _owner("DaemonSet", "node-agent", "kube-system"), spec))
    # A CronJob, the Job it made (one pod done, one running) and a plain Job.
    items.append({"apiVersion": "batch/v1", "kind": "CronJob",
                  "metadata": _meta("CronJob", "nightly", "batch"),
                  "spec": {"concurrencyPolicy": "Forbid", "schedule": "0 3 * * *",
                           "jobTemplate": {"metadata": {"creationTimestamp": None},
                                           "spec": {"template": _template(
                                               "nightly", {}, "500m", "512Mi",
                                               restartPolicy="OnFailure")}}}})
    for job, owner in (("nightly-29000000", _owner("CronJob", "nightly", "batch", "batch/v1")),
                       ("migrate", None)):
        meta = _meta("Job", job, "batch")
        if owner:
            meta["ownerReferences"] = owner
        labels = {"batch.kubernetes.io/job-name": job}
        items.append({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
                      "spec": {"backoffLimit": 6, "completionMode": "NonIndexed",
                               "completions": 2, "parallelism": 1, "suspend": False,
                               "template": _template(job, labels, "500m", "512Mi",
                                                     restartPolicy="OnFailure")},
                      "status": {"active": 1}})
        items.append(_pod(f"{job}-done", "batch", workers[3], labels,
                          _owner("Job", job, "batch", "batch/v1"),
                          _pod_spec(job, "500m", "512Mi", restartPolicy="OnFailure"),
                          _status(workers[3], phase="Succeeded", ready=False)))
        items.append(_pod(f"{job}-run", "batch", workers[4], labels,
                          _owner("Job", job, "batch", "batch/v1"),
                          _pod_spec(job, "500m", "512Mi", restartPolicy="OnFailure")))
    # A ReplicationController and its pods.
    labels = {"app": "legacy"}
    items.append({"apiVersion": "v1", "kind": "ReplicationController",
                  "metadata": _meta("ReplicationController", "legacy", "default"),
                  "spec": {"replicas": 2, "selector": labels,
                           "template": _template("legacy", labels, "100m", "64Mi")},
                  "status": {"replicas": 2}})
    for i in range(2):
        items.append(_pod(f"legacy-{i:05x}", "default", workers[i], labels,
                          _owner("ReplicationController", "legacy", "default", "v1"),
                          _pod_spec("legacy", "100m", "64Mi")))
    # Admission state of a namespace.
    items.append({"apiVersion": "v1", "kind": "LimitRange",
                  "metadata": _meta("LimitRange", "defaults", "batch"),
                  "spec": {"limits": [{"default": {"cpu": "500m", "memory": "512Mi"},
                                       "defaultRequest": {"cpu": "100m", "memory": "128Mi"},
                                       "type": "Container"}]}})
    items.append({"apiVersion": "v1", "kind": "ResourceQuota",
                  "metadata": _meta("ResourceQuota", "compute", "batch"),
                  "spec": {"hard": {"pods": "20", "requests.cpu": "8",
                                    "requests.memory": "16Gi"}},
                  "status": {"hard": {"pods": "20"}, "used": {"pods": "3"}}})
    # A pending high-priority pod nominated to a node, and a pod being deleted.
    items.append(_pod("urgent", "default", None, {"app": "urgent"}, None,
                      _pod_spec("urgent", "7", "1Gi", priority=1000,
                                priorityClassName="high"),
                      _status(None, nominatedNodeName=workers[5])))
    items.append(_pod("leaving", "default", workers[6], {"app": "leaving"}, None,
                      _pod_spec("leaving", "100m", "64Mi"),
                      deletionTimestamp="2026-11-20T08:00:30Z", deletionGracePeriodSeconds=30))
    # Kinds that play no part, and a custom resource.
    for i in range(filler):
        ns = ("default", "shop", "kube-system", "batch")[i % 4]
        items.append({"apiVersion": "v1", "kind": "Service",
                      "metadata": _meta("Service", f"svc-{i}", ns),
                      "spec": {"clusterIP": "10.96.0.10", "ports": [{"port": 80}],
                               "selector": {"app": f"web-{i}"}, "type": "ClusterIP"},
                      "status": {"loadBalancer": {}}})
        items.append({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": _meta("ConfigMap", f"cm-{i}", ns), "data": {"key": "value"}})
        items.append({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                      "metadata": _meta("Secret", f"secret-{i}", ns), "data": {"k": "dg=="}})
        items.append({"apiVersion": "v1", "kind": "Event",
                      "metadata": _meta("Event", f"ev-{i}.17a", ns), "reason": "Scheduled",
                      "message": "Successfully assigned", "type": "Normal",
                      "involvedObject": {"kind": "Pod", "name": f"p-{i}", "namespace": ns}})
        items.append({"apiVersion": "v1", "kind": "Endpoints",
                      "metadata": _meta("Endpoints", f"svc-{i}", ns), "subsets": []})
        items.append({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                      "metadata": _meta("EndpointSlice", f"svc-{i}-abcde", ns),
                      "addressType": "IPv4", "endpoints": [], "ports": []})
        items.append({"apiVersion": "v1", "kind": "ServiceAccount",
                      "metadata": _meta("ServiceAccount", f"sa-{i}", ns)})
    for n in all_nodes:
        items.append({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                      "metadata": _meta("Lease", n, "kube-node-lease"),
                      "spec": {"holderIdentity": n, "leaseDurationSeconds": 40}})
    items.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                  "metadata": _meta("ClusterRole", "view", None), "rules": []})
    items.append({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                  "metadata": _meta("Certificate", "site", "shop"),
                  "spec": {"secretName": "site-tls"}})
    return {"apiVersion": "v1", "kind": "List", "items": items,
            "metadata": {"resourceVersion": ""}}


def dump_text(**kw: int) -> str:
    """The dump as YAML text, as ``kubectl get … -o yaml`` writes it."""
    return yaml.safe_dump(dump(**kw), sort_keys=True, default_flow_style=False)
