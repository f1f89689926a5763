"""``kruleset run --state-out FILE``: the end state as Kubernetes YAML that ``include`` reads.

A ``kind: List`` as ``kubectl get -A -o yaml`` prints it, holding what the
scheduler and the kubelet act on: Namespaces, PriorityClasses (not the
built-in ones), Nodes (labels, taints, cordon, capacity, allocatable),
Deployments (with their pods tied to them through a ReplicaSet named
``NAME-kruleset``, as upstream's pod-template-hash does), PodDisruptionBudgets,
ElasticQuotas and every pod of the end state: bound pods keep their node
(``spec.nodeName``, phase Running), pending ones their nomination
(``status.nominatedNodeName``).  Read back with ``include``, every pod is
where it was: a round trip gives the same placements.

Pod fields written: labels, priority and its class, preemption policy,
containers and init containers (image, requests, limits, host ports,
sidecars), overhead, nodeSelector, affinity (node, pod, anti-pod),
tolerations, topology spread constraints, scheduling gates and the grace
period.  Not written (a what-if on the written file does not see them):
emptyDir volumes, DRA claims, and StatefulSets, DaemonSets and Jobs (their
pods are written as plain pods).
"""

from __future__ import annotations

from typing import Any

import yaml

from .model.objects import BUILTIN_PRIORITY_CLASSES, Pod
from .model.quantity import format_quantity
from .model.resources import Resources
from .model.selectors import LabelSelector, NodeSelectorTerm, Requirement
from .state_report import state_pods

__all__ = ["state_yaml"]

_HASH = "kruleset"
_BUILTIN = {pc.name for pc in BUILTIN_PRIORITY_CLASSES}


def _qty(r: Resources) -> dict[str, str]:
    return {k: format_quantity(k, v) for k, v in r.items()}


def _meta(name: str, namespace: str | None = None, labels: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if namespace is not None:
        out["namespace"] = namespace
    if labels:
        out["labels"] = dict(labels)
    return out


def _exprs(reqs: tuple[Requirement, ...]) -> list[dict[str, Any]]:
    out = []
    for r in reqs:
        e: dict[str, Any] = {"key": r.key, "operator": r.operator}
        if r.values:
            e["values"] = list(r.values)
        out.append(e)
    return out


def _selector(sel: LabelSelector) -> dict[str, Any]:
    return {"matchExpressions": _exprs(sel.requirements)} if sel.requirements else {}


def _term(t: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if t.expressions:
        out["matchExpressions"] = _exprs(t.expressions)
    if t.fields:
        out["matchFields"] = _exprs(t.fields)
    return out


def _pod_term(t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"labelSelector": _selector(t.selector), "topologyKey": t.topology_key}
    if t.namespaces:
        out["namespaces"] = list(t.namespaces)
    if t.namespace_selector is not None:
        out["namespaceSelector"] = _selector(t.namespace_selector)
    if t.match_label_keys:
        out["matchLabelKeys"] = list(t.match_label_keys)
    if t.mismatch_label_keys:
        out["mismatchLabelKeys"] = list(t.mismatch_label_keys)
    return out


def _affinity(pod: Pod) -> dict[str, Any]:
    out: dict[str, Any] = {}
    na = pod.node_affinity
    if na is not None:
        node: dict[str, Any] = {}
        if na.required is not None:
            node["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [_term(t) for t in na.required]}
        if na.preferred:
            node["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w.weight, "preference": _term(w.term)} for w in na.preferred]
        out["nodeAffinity"] = node
    for key, req, pref in (("podAffinity", pod.pod_affinity, pod.pod_affinity_preferred),
                           ("podAntiAffinity", pod.pod_anti_affinity,
                            pod.pod_anti_affinity_preferred)):
        part: dict[str, Any] = {}
        if req:
            part["requiredDuringSchedulingIgnoredDuringExecution"] = [_pod_term(t) for t in req]
        if pref:
            part["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w.weight, "podAffinityTerm": _pod_term(w.term)} for w in pref]
        if part:
            out[key] = part
    return out


def _container(c: Any, ports: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "image": c.image or "registry.k8s.io/pause:3.10"}
    res: dict[str, Any] = {}
    if c.requests.items():
        res["requests"] = _qty(c.requests)
    if c.limits.items():
        res["limits"] = _qty(c.limits)
    if res:
        out["resources"] = res
    if ports:
        out["ports"] = ports
    if c.restart_always:
        out["restartPolicy"] = "Always"
    return out


def _spread(c: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                           "whenUnsatisfiable": c.when_unsatisfiable,
                           "labelSelector": _selector(c.selector)}
    if c.min_domains is not None:
        out["minDomains"] = c.min_domains
    if c.match_label_keys:
        out["matchLabelKeys"] = list(c.match_label_keys)
    out["nodeAffinityPolicy"] = c.node_affinity_policy
    out["nodeTaintsPolicy"] = c.node_taints_policy
    return out


def _toleration(t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"operator": t.operator}
    if t.key:
        out["key"] = t.key
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


def pod_spec(pod: Pod) -> dict[str, Any]:
    """A Pod's ``spec`` as the API has it (what kruleset simulates of it)."""
    ports = [{"containerPort": p, "hostPort": p, "protocol": proto}
             for p, proto in pod.host_ports]
    spec: dict[str, Any] = {
        "containers": [_container(c, ports if i == 0 else [])
                       for i, c in enumerate(pod.containers)]}
    if pod.init_containers:
        spec["initContainers"] = [_container(c, []) for c in pod.init_containers]
    if pod.priority_class:
        spec["priorityClassName"] = pod.priority_class
    if pod.priority is not None:
        spec["priority"] = pod.priority
    if pod.preemption_policy:
        spec["preemptionPolicy"] = pod.preemption_policy
    if pod.overhead.items():
        spec["overhead"] = _qty(pod.overhead)
    if pod.node_selector:
        spec["nodeSelector"] = dict(pod.node_selector)
    affinity = _affinity(pod)
    if affinity:
        spec["affinity"] = affinity
    if pod.tolerations:
        spec["tolerations"] = [_toleration(t) for t in pod.tolerations]
    if pod.spread:
        spec["topologySpreadConstraints"] = [_spread(c) for c in pod.spread]
    if pod.gates:
        spec["schedulingGates"] = [{"name": g} for g in pod.gates]
    spec["terminationGracePeriodSeconds"] = pod.grace_period // 1000
    return spec


def _pod(ps: Any, deployments: set[str]) -> dict[str, Any]:
    pod = ps.pod
    meta = _meta(pod.name, pod.namespace, pod.labels)
    dep = f"{pod.namespace}/{pod.owner_name}"
    if pod.owner_kind == "ReplicaSet" and dep in deployments:
        meta["labels"] = {**meta.get("labels", {}), "pod-template-hash": _HASH}
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                    "name": f"{pod.owner_name}-{_HASH}", "uid": "",
                                    "controller": True}]
    spec = pod_spec(pod)
    status: dict[str, Any] = {}
    if ps.node is not None:
        spec["nodeName"] = ps.node
        status["phase"] = "Running"
    else:
        status["phase"] = "Pending"
        if ps.nominated:
            status["nominatedNodeName"] = ps.nominated
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": status}


def _node(ns: Any) -> dict[str, Any]:
    node = ns.node
    spec: dict[str, Any] = {}
    if ns.taints:
        spec["taints"] = [{"key": t.key, **({"value": t.value} if t.value else {}),
                           "effect": t.effect} for t in ns.taints]
    if ns.unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"capacity": _qty(node.capacity),
                              "allocatable": _qty(node.allocatable)}
    if not ns.ready:
        status["conditions"] = [{"type": "Ready", "status": "False"}]
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                           "metadata": _meta(node.name, None, ns.labels)}
    if spec:
        out["spec"] = spec
    out["status"] = status
    return out


def _deployment(d: Any) -> dict[str, Any]:
    labels = dict(d.template.labels)
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": _meta(d.name, d.namespace),
            "spec": {"replicas": d.replicas,
                     "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": pod_spec(d.template)}}}


def _pdb(b: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": _selector(b.selector)}
    if b.min_available is not None:
        spec["minAvailable"] = b.min_available
    if b.max_unavailable is not None:
        spec["maxUnavailable"] = b.max_unavailable
    spec["unhealthyPodEvictionPolicy"] = b.unhealthy_pod_eviction_policy
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": _meta(b.name, b.namespace), "spec": spec}


def _quota(q: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if q.min is not None:
        spec["min"] = _qty(q.min)
    if q.max is not None:
        spec["max"] = _qty(q.max)
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
            "metadata": _meta(q.name or q.namespace, q.namespace), "spec": spec}


def state_yaml(result: Any) -> str:
    """The end state of ``result`` as one ``kind: List`` YAML document."""
    state = result.state
    items: list[dict[str, Any]] = []
    for name in sorted(state.namespaces):
        ns = state.namespaces[name]
        items.append({"apiVersion": "v1", "kind": "Namespace",
                      "metadata": _meta(name, None, ns.labels)})
    for name in sorted(state.priority_classes):
        pc = state.priority_classes[name]
        if name in _BUILTIN:
            continue
        item: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                "metadata": {"name": name}, "value": pc.value,
                                "preemptionPolicy": pc.preemption_policy}
        if pc.global_default:
            item["globalDefault"] = True
        items.append(item)
    items.extend(_node(ns) for ns in state.node_list())
    deployments = set(state.deployments)
    items.extend(_deployment(state.deployments[k]) for k in sorted(state.deployments))
    items.extend(_pdb(state.pdbs[k]) for k in sorted(state.pdbs))
    items.extend(_quota(state.quotas[k]) for k in sorted(state.quotas))
    items.extend(_pod(ps, deployments) for ps in state_pods(state)
                 if ps.phase not in ("Succeeded", "Failed") and not ps.terminating)
    head = (f"# The end state of {result.scenario.file} at the end of its run, written by "
            "kruleset run --state-out.\n")
    return head + yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items},
                                 sort_keys=False, default_flow_style=False)
