"""Random DRA clusters over v1.35's whole DRA surface, in the oracle's input shape.

Drawn: one to four nodes (racks, zones, cpu, a taint now and then), two
drivers, node-local pools (one or two slices, sometimes an incomplete or
re-generated pool), pools whose slices sit on different nodes, network
pools (``nodeSelector``) and ``allNodes`` pools, devices with string, int,
bool and version attributes and a capacity (some attributes missing, so
some selectors fail at run time); classes with CEL selectors; claims with
one to three requests (ExactCount, All, ``firstAvailable`` lists whose
subrequests may be All, admin access), ``matchAttribute`` constraints
(naming requests and subrequests), selectors over the CEL libraries of
v1.35's DRA environment; claims shared by pods, claims allocated before the
run; running pods of low priority and incoming pods of several priorities,
so that preemption meets DRA.

Upstream visits a node's pools in Go map order (random per run): where that
order matters the oracle's answer varies between runs; the comparison
(:mod:`.dra_verdict`) recognises those ties by running the oracle again.
"""

from __future__ import annotations

import random
from typing import Any

from .generator import BASE_TIME, _iso

__all__ = ["DRIVERS", "SELECTORS", "generate_dra"]

GPU, NIC = "gpu.example.com", "nic.example.com"
DRIVERS = (GPU, NIC)
MODELS = ("a100", "t4", "h100")

# Request selectors: the CEL libraries of v1.35's DRA environment, some of
# which fail at run time on devices lacking an attribute.
SELECTORS = (
    f'device.attributes["{GPU}"].model == "a100"',
    f'device.attributes["{GPU}"].model.startsWith("a")',
    f'device.attributes["{GPU}"].model.lowerAscii() == "t4"',
    f'device.attributes["{GPU}"].model.upperAscii().endsWith("100")',
    f'device.attributes["{GPU}"].model.split("1").size() > 1',
    f'device.attributes["{GPU}"].model.substring(0, 1) == "h"',
    f'device.attributes["{GPU}"].model.indexOf("0") >= 0',
    f'device.attributes["{GPU}"].model.replace("a", "b") == "b100"',
    f'device.attributes["{GPU}"].model.matches("^[ah]")',
    f'device.attributes["{GPU}"].index % 2 == 0',
    f'device.attributes["{GPU}"].index < 2',
    f'device.attributes["{GPU}"].healthy',
    f'device.attributes["{GPU}"].driverVersion.isGreaterThan(semver("1.5.0"))',
    f'device.attributes["{GPU}"].driverVersion.major() >= 2',
    f'device.capacity["{GPU}"].memory.compareTo(quantity("40Gi")) >= 0',
    f'device.capacity["{GPU}"].memory.isGreaterThan(quantity("20Gi"))',
    f'cel.bind(m, device.attributes["{GPU}"].model, m == "a100" || m == "h100")',
    f'["a100", "h100"].exists(m, m == device.attributes["{GPU}"].model)',
    f'[1, 2, 3].all(i, i != device.attributes["{GPU}"].index)',
    f'[1, 2, 3].exists_one(i, i == device.attributes["{GPU}"].index)',
    f'[0, 1, 2].filter(i, i <= device.attributes["{GPU}"].index).size() >= 2',
    f'[0, 1].map(i, i * 2).sum() == 2 && device.attributes["{GPU}"].index >= 0',
    f'[1, 2].isSorted() && [3, 1].sum() == 4 && device.attributes["{GPU}"].index >= 1',
    f'[2, 5].min() <= device.attributes["{GPU}"].index',
    f'device.attributes["{GPU}"].model.find("[0-9]+") == "100"',
    f'"%d-%s".format([1, "x"]) == "1-x" && device.attributes["{GPU}"].model.trim() != ""',
    f'device.attributes["{GPU}"].model.charAt(3) == "0"',
    f'device.attributes["{GPU}"].model.substring(3) == ""',
    f'device.attributes["{GPU}"].index > "1"',
    f'"{GPU}" in device.attributes && device.attributes["{GPU}"].model != "t4"',
    f'has(device.attributes["{GPU}"].model)',
    'device.attributes["nic.example.com"].speed >= 100',
    'device.attributes["nic.example.com"].speed > 10 || device.driver == "gpu.example.com"',
    f'device.attributes["{GPU}"].nosuch == 1',
    'isURL("https://example.com/" + device.driver)',
    'isIP("10.0.0.1") && device.driver.size() > 3',
)


def _node(rng: random.Random, name: str) -> dict[str, Any]:
    cpu = str(rng.choice([2, 4, 4, 8]))
    alloc = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    labels = {"kubernetes.io/hostname": name, "example.com/rack": rng.choice("ab")}
    node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                            "metadata": {"name": name, "labels": labels},
                            "spec": {}, "status": {"allocatable": alloc, "capacity": alloc}}
    if rng.random() < 0.12:
        node["spec"]["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    return node


def _device(rng: random.Random, driver: str, name: str, index: int) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if driver == GPU:
        if rng.random() < 0.93:
            attrs["model"] = {"string": rng.choice(MODELS)}
        attrs["index"] = {"int": index}
        if rng.random() < 0.9:
            attrs["healthy"] = {"bool": rng.random() < 0.85}
        if rng.random() < 0.9:
            attrs["driverVersion"] = {"version": rng.choice(["1.2.0", "1.10.1", "2.0.0-rc.1",
                                                             "2.1.3"])}
        cap = {"memory": {"value": rng.choice(["16Gi", "40Gi", "80Gi"])}}
    else:
        attrs["speed"] = {"int": rng.choice([10, 100, 400])}
        attrs["model"] = {"string": rng.choice(MODELS)}
        cap = {"bandwidth": {"value": rng.choice(["10G", "100G"])}}
    return {"name": name, "attributes": attrs, "capacity": cap}


def _slice(name: str, driver: str, pool: str, devices: list[dict[str, Any]], *,
           generation: int = 1, count: int = 1, **where: Any) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": driver, "pool": {"name": pool, "generation": generation,
                                                "resourceSliceCount": count},
                     "devices": devices, **where}}


def _devices(rng: random.Random, driver: str, prefix: str, low: int, high: int,
             start: int = 0) -> list[dict[str, Any]]:
    return [_device(rng, driver, f"{prefix}-{i}", i)
            for i in range(start, start + rng.randint(low, high))]


def _slices(rng: random.Random, nodes: list[str]) -> list[dict[str, Any]]:
    """Slices of several shapes; every pool's devices have distinct names."""
    out: list[dict[str, Any]] = []
    for n in nodes:
        if rng.random() < 0.75:
            shape = rng.random()
            if shape < 0.15:  # two slices, one of them missing: an incomplete pool
                out.append(_slice(f"{n}-gpu-a", GPU, f"{n}-gpu", _devices(rng, GPU, "gpu", 1, 3),
                                  count=2, nodeName=n))
            elif shape < 0.3:  # two slices of one pool
                a = _devices(rng, GPU, "gpu", 1, 2)
                b = _devices(rng, GPU, "gpu", 1, 2, start=len(a))
                out.append(_slice(f"{n}-gpu-a", GPU, f"{n}-gpu", a, count=2, nodeName=n))
                out.append(_slice(f"{n}-gpu-b", GPU, f"{n}-gpu", b, count=2, nodeName=n))
            elif shape < 0.38:  # a stale generation beside the current one
                out.append(_slice(f"{n}-gpu-old", GPU, f"{n}-gpu",
                                  _devices(rng, GPU, "old", 1, 2), generation=1, nodeName=n))
                out.append(_slice(f"{n}-gpu", GPU, f"{n}-gpu", _devices(rng, GPU, "gpu", 1, 3),
                                  generation=2, nodeName=n))
            else:
                out.append(_slice(f"{n}-gpu", GPU, f"{n}-gpu", _devices(rng, GPU, "gpu", 1, 4),
                                  nodeName=n))
        if rng.random() < 0.3:
            out.append(_slice(f"{n}-nic", NIC, f"{n}-nic", _devices(rng, NIC, "nic", 1, 2),
                              nodeName=n))
    if len(nodes) > 1 and rng.random() < 0.35:
        # One pool whose slices sit on different nodes (complete cluster-wide).
        spread = rng.sample(nodes, k=rng.randint(2, len(nodes)))
        count = len(spread) + (1 if rng.random() < 0.15 else 0)
        for i, n in enumerate(spread):
            out.append(_slice(f"spread-{n}", GPU, "spread",
                              _devices(rng, GPU, f"sp{i}", 1, 2), count=count, nodeName=n))
    if rng.random() < 0.3:
        terms = [{"matchExpressions": [{"key": "example.com/rack", "operator": "In",
                                        "values": ["a"]}]}]
        if rng.random() < 0.1:  # two terms: upstream cannot build the allocation's selector
            terms.append({"matchExpressions": [{"key": "example.com/rack", "operator": "In",
                                                "values": ["b"]}]})
        out.append(_slice("rack-a", NIC, "rack-a", _devices(rng, NIC, "net", 1, 3),
                          nodeSelector={"nodeSelectorTerms": terms}))
    if rng.random() < 0.25:
        out.append(_slice("shared", GPU, "shared", _devices(rng, GPU, "shared", 1, 2),
                          allNodes=True))
    return out


def _classes() -> list[dict[str, Any]]:
    def cls(name: str, *exprs: str) -> dict[str, Any]:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": {"name": name},
                "spec": {"selectors": [{"cel": {"expression": e}} for e in exprs]}}

    return [cls("gpu", f'device.driver == "{GPU}"'),
            cls("nic", f'device.driver == "{NIC}"'),
            cls("big", f'device.driver == "{GPU}"',
                f'device.capacity["{GPU}"].memory.compareTo(quantity("40Gi")) >= 0'),
            cls("any")]


def _exact(rng: random.Random, *, admin: bool) -> dict[str, Any]:
    cls = rng.choice(["gpu", "gpu", "gpu", "big", "nic", "any"])
    out: dict[str, Any] = {"deviceClassName": cls}
    if rng.random() < 0.15:
        out["allocationMode"] = "All"
    else:
        out["allocationMode"] = "ExactCount"
        out["count"] = rng.choice([1, 1, 1, 2, 3])
    if rng.random() < 0.4:
        out["selectors"] = [{"cel": {"expression": rng.choice(SELECTORS)}}]
    if admin and rng.random() < 0.1:
        out["adminAccess"] = True
    if rng.random() < 0.01:
        out["deviceClassName"] = "nosuch"
    return out


def _claim(rng: random.Random, name: str) -> dict[str, Any]:
    requests: list[dict[str, Any]] = []
    for i in range(rng.choice([1, 1, 1, 2, 2, 3])):
        if rng.random() < 0.25:
            subs = [{"name": n, **_exact(rng, admin=False)}
                    for n in rng.sample(["a", "b", "c"], k=rng.randint(2, 3))]
            requests.append({"name": f"r{i}", "firstAvailable": subs})
        else:
            requests.append({"name": f"r{i}", "exactly": _exact(rng, admin=True)})
    devices: dict[str, Any] = {"requests": requests}
    if rng.random() < 0.35:
        attr = rng.choice(["model", "index", "healthy", "driverVersion"])
        c: dict[str, Any] = {"matchAttribute": f"{GPU}/{attr}"}
        if len(requests) > 1 or rng.random() < 0.3:
            names = []
            for r in requests:
                if "firstAvailable" in r and rng.random() < 0.5:
                    names.append(f"{r['name']}/{rng.choice(r['firstAvailable'])['name']}")
                elif rng.random() < 0.7:
                    names.append(r["name"])
            if names and rng.random() < 0.6:
                c["requests"] = names
        devices["constraints"] = [c]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices}}


def _preallocate(rng: random.Random, claim: dict[str, Any],
                 slices: list[dict[str, Any]]) -> None:
    """Give a one-request claim a node-local device as its status at time 0."""
    local = [s for s in slices if s["spec"].get("nodeName") and s["spec"]["devices"]]
    if not local:
        return
    s = rng.choice(local)
    d = rng.choice(s["spec"]["devices"])
    claim["spec"]["devices"] = {"requests": [{"name": "r0", "exactly": {
        "deviceClassName": "gpu" if s["spec"]["driver"] == GPU else "nic",
        "allocationMode": "ExactCount", "count": 1}}]}
    node = s["spec"]["nodeName"]
    claim["status"] = {"allocation": {
        "devices": {"results": [{"request": "r0", "driver": s["spec"]["driver"],
                                 "pool": s["spec"]["pool"]["name"], "device": d["name"]}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}


def _pod(rng: random.Random, name: str, claims: list[str], *, node: str = "",
         cpu: str = "100m", priority: str = "") -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "x",
                                 "resources": {"requests": {"cpu": cpu}}}
    spec: dict[str, Any] = {"containers": [container]}
    if claims:
        container["resources"]["claims"] = [{"name": f"c{i}"} for i in range(len(claims))]
        spec["resourceClaims"] = [{"name": f"c{i}", "resourceClaimName": c}
                                  for i, c in enumerate(claims)]
    if node:
        spec["nodeName"] = node
    if priority:
        spec["priorityClassName"] = priority
    if rng.random() < 0.15:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists",
                                "effect": "NoSchedule"}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-default-{name}"},
            "spec": spec}


def generate_dra(seed: int) -> dict[str, Any]:
    """One random DRA cluster for ``seed`` (the oracle's input)."""
    rng = random.Random(seed)
    nodes = [_node(rng, f"n{i}") for i in range(1, rng.randint(1, 4) + 1)]
    names = [n["metadata"]["name"] for n in nodes]
    slices = _slices(rng, names)
    claims = [_claim(rng, f"claim-{i}") for i in range(rng.randint(1, 5))]
    for c in claims:
        if rng.random() < 0.12:
            _preallocate(rng, c, slices)
    running = []
    free = {n["metadata"]["name"]: int(n["status"]["allocatable"]["cpu"]) for n in nodes}
    for i in range(rng.randint(0, 3)):
        node = rng.choice(names)
        # Running pods fit their node (an over-committed node is another matter).
        cpu = min(free[node], int(nodes[names.index(node)]["status"]["allocatable"]["cpu"])
                  // rng.choice([1, 2]))
        if cpu:
            free[node] -= cpu
            pod = _pod(rng, f"run{i}", [], node=node, cpu=str(cpu))
            # Distinct start times: upstream orders equal ones by an unstable sort.
            pod["status"] = {"phase": "Running", "startTime": _iso(BASE_TIME + 60 * i),
                             "conditions": [{"type": "Ready", "status": "True"}]}
            running.append(pod)
    claim_names = [c["metadata"]["name"] for c in claims]
    incoming = []
    for i in range(rng.randint(1, 5)):
        used = rng.sample(claim_names, k=min(len(claim_names), rng.choice([0, 1, 1, 1, 2])))
        wanted = rng.choice(["100m", "100m", "1", "2", "3"])
        pod = _pod(rng, f"p{i}", used, cpu=wanted, priority=rng.choice(["", "", "high", "mid"]))
        # The oracle starts a bound pod at its creationTimestamp (the oldest pod when
        # absent); a pod created now starts after every running pod, as in kruleset.
        pod["metadata"]["creationTimestamp"] = _iso(BASE_TIME + 10**6 + i)
        incoming.append(pod)
    return {
        "namespaces": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {
            "name": "default", "labels": {"resource.kubernetes.io/admin-access": "true"}}}],
        "priorityClasses": [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "high"}, "value": 1000},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "mid"}, "value": 100}],
        "nodes": nodes, "pods": running, "deviceClasses": _classes(),
        "resourceSlices": slices, "resourceClaims": claims, "incoming": incoming}
