"""Small builders of DRA clusters in the oracle's input shape, for hand-made cases."""

from __future__ import annotations

from typing import Any

GPU, NIC = "gpu.example.com", "nic.example.com"


def node(name: str, cpu: str = "2") -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": "4Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": alloc, "capacity": alloc}}


def device(name: str, **attributes: Any) -> dict[str, Any]:
    return {"name": name, "attributes": attributes}


def slice_(name: str, pool: str, devices: list[dict[str, Any]], *, node: str = "",
           count: int = 1, generation: int = 1, driver: str = GPU,
           **where: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": driver, "devices": devices, **where,
                            "pool": {"name": pool, "generation": generation,
                                     "resourceSliceCount": count}}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name}, "spec": spec}


def device_class(name: str, *expressions: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]}}


CLASSES = [device_class("gpu", f'device.driver == "{GPU}"'),
           device_class("nic", f'device.driver == "{NIC}"')]


def selectors(*expressions: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": e}} for e in expressions]


def exactly(name: str, cls: str = "gpu", mode: str = "ExactCount", count: int = 1,
            **more: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"deviceClassName": cls, "allocationMode": mode, **more}
    if mode == "ExactCount":
        spec["count"] = count
    return {"name": name, "exactly": spec}


def sub(name: str, cls: str = "gpu", mode: str = "ExactCount", count: int = 1,
        **more: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "deviceClassName": cls, "allocationMode": mode,
                            **more}
    if mode == "ExactCount":
        spec["count"] = count
    return spec


def first_available(name: str, *subs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(subs)}


def claim(name: str, *requests: dict[str, Any], constraints: list[Any] | None = None,
          status: dict[str, Any] | None = None) -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    out: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                           "metadata": {"name": name, "namespace": "default"},
                           "spec": {"devices": devices}}
    if status:
        out["status"] = status
    return out


def pod(name: str, *claims: str, cpu: str = "100m", priority: str = "", node: str = "",
        node_selector: dict[str, str] | None = None, start: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": {"cpu": cpu}}}]}
    if claims:
        spec["resourceClaims"] = [{"name": f"c{i}", "resourceClaimName": c}
                                  for i, c in enumerate(claims)]
    if priority:
        spec["priorityClassName"] = priority
    if node:
        spec["nodeName"] = node
    if node_selector:
        spec["nodeSelector"] = node_selector
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": "default",
                                        "uid": f"uid-default-{name}"}, "spec": spec}
    if start:
        out["status"] = {"phase": "Running", "startTime": start}
    return out


HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "high"}, "value": 1000}


def cluster(nodes: list[Any], slices: list[Any], claims: list[Any], incoming: list[Any],
            running: list[Any] | None = None, **more: Any) -> dict[str, Any]:
    return {"nodes": nodes, "pods": running or [], "priorityClasses": [HIGH],
            "deviceClasses": CLASSES + more.pop("classes", []), "resourceSlices": slices,
            "resourceClaims": claims, "incoming": incoming, **more}
