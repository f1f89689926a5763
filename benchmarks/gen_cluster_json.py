"""Generate a large ``kubectl get nodes,pods -A -o json`` style cluster dump.

Usage::

    python benchmarks/gen_cluster_json.py [--nodes 5000] [--pods 150000] [--out FILE] [--load]

Without ``--out`` the file goes to a temporary directory.  With ``--load`` the
file is then read with :func:`kruleset.manifests.load_objects` and the time is
printed (the target is 5 s for the default size).  The output is deterministic
for a given size: pods look like what kubectl prints for Deployment and
DaemonSet pods (uids, timestamps, status, default tolerations, a projected
service-account volume), without managedFields, which kubectl hides by default.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
SHAPES = (  # (cpu, memory, allocatable cpu, allocatable memory)
    ("8", "32933452Ki", "7910m", "31734860Ki"),
    ("16", "65843540Ki", "15890m", "64123988Ki"),
    ("32", "131748560Ki", "31850m", "129553744Ki"),
)
CONTAINERS = (  # (image, requests, limits)
    ("nginx:1.25", {"cpu": "100m", "memory": "128Mi"}, {"cpu": "500m", "memory": "256Mi"}),
    ("registry.example.com/api:4.2", {"cpu": "250m", "memory": "512Mi"},
     {"memory": "512Mi"}),
    ("registry.example.com/worker:1.9", {"cpu": "1", "memory": "1Gi"},
     {"cpu": "1", "memory": "1Gi"}),
    ("redis:7.2", {"cpu": "200m", "memory": "256Mi"}, {}),
    ("busybox:1.36", {}, {}),
)


def _uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _time(rng: random.Random) -> str:
    day = rng.randint(1, 28)
    return f"2024-05-{day:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:" \
           f"{rng.randint(0, 59):02d}Z"


# The characters of a generated name's random suffix (apimachinery's rand.String).
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_SUFFIXES = len(_ALPHABET) ** 5


def _suffix(i: int) -> str:
    """Pod ``i``'s five-character suffix: random-looking, and a different one for each
    ``i`` below 27⁵ (a random suffix repeats within a million pods)."""
    n = i * 7_654_321 % _SUFFIXES  # a multiplier prime to 27⁵: one suffix per i
    out = []
    for _ in range(5):
        n, d = divmod(n, len(_ALPHABET))
        out.append(_ALPHABET[d])
    return "".join(out)


def node(i: int, rng: random.Random) -> dict[str, Any]:
    """One worker node as ``kubectl get node -o json`` prints it."""
    cpu, mem, acpu, amem = SHAPES[i % len(SHAPES)]
    name = f"node-{i:05d}"
    created = _time(rng)
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                            "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
            "creationTimestamp": created,
            "labels": {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                       "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
                       "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "m5.xl",
                       "topology.kubernetes.io/zone": ZONES[i % 3]},
            "name": name, "resourceVersion": str(rng.randint(1000, 10**7)), "uid": _uid(rng),
        },
        "spec": {"podCIDR": f"10.{i // 250}.{i % 250}.0/24",
                 "providerID": f"aws:///eu-west-1a/i-{rng.getrandbits(64):016x}"},
        "status": {
            "addresses": [{"address": f"10.0.{i // 250}.{i % 250}", "type": "InternalIP"},
                          {"address": name, "type": "Hostname"}],
            "allocatable": {"cpu": acpu, "ephemeral-storage": "95551679124",
                            "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": amem,
                            "pods": "110"},
            "capacity": {"cpu": cpu, "ephemeral-storage": "102687672Ki", "hugepages-1Gi": "0",
                         "hugepages-2Mi": "0", "memory": mem, "pods": "110"},
            "conditions": [
                {"lastHeartbeatTime": created, "lastTransitionTime": created,
                 "message": "kubelet has sufficient memory available",
                 "reason": "KubeletHasSufficientMemory", "status": "False",
                 "type": "MemoryPressure"},
                {"lastHeartbeatTime": created, "lastTransitionTime": created,
                 "message": "kubelet is posting ready status", "reason": "KubeletReady",
                 "status": "True", "type": "Ready"},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.13",
                         "kernelVersion": "6.1.0", "kubeletVersion": "v1.30.0",
                         "operatingSystem": "linux", "osImage": "Debian GNU/Linux 12"},
        },
    }


def pod(i: int, nodes: int, rng: random.Random, apps: int = 1500) -> dict[str, Any]:
    """One running pod of a Deployment (one of ``apps``) as ``kubectl get pod -o json`` shows it."""
    app = f"app-{i % apps:04d}"
    ns = f"team-{i % 40:02d}"
    rs = f"{app}-{(i % apps) * 7919 % 10**10:010x}"[:len(app) + 11]
    hash_ = rs[len(app) + 1:]
    name = f"{rs}-{_suffix(i)}"
    node_name = f"node-{i % nodes:05d}"
    started = _time(rng)
    image, req, lim = CONTAINERS[i % len(CONTAINERS)]
    resources: dict[str, Any] = {}
    if req:
        resources["requests"] = dict(req)
    if lim:
        resources["limits"] = dict(lim)
    containers = [{
        "image": image, "imagePullPolicy": "IfNotPresent", "name": "main",
        "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
        "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                "fieldPath": "metadata.name"}}}],
        "resources": resources,
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                          "name": "kube-api-access", "readOnly": True}],
    }]
    if i % 3 == 0:
        containers.append({
            "image": "envoyproxy/envoy:v1.29", "name": "proxy",
            "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                          "limits": {"memory": "128Mi"}},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        })
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "creationTimestamp": started, "generateName": f"{rs}-",
            "labels": {"app": app, "pod-template-hash": hash_, "team": ns},
            "name": name, "namespace": ns,
            "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": True,
                                 "controller": True, "kind": "ReplicaSet", "name": rs,
                                 "uid": _uid(rng)}],
            "resourceVersion": str(rng.randint(1000, 10**8)), "uid": _uid(rng),
        },
        "spec": {
            "containers": containers,
            "dnsPolicy": "ClusterFirst", "enableServiceLinks": True,
            "nodeName": node_name, "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler",
            "securityContext": {}, "serviceAccount": "default",
            "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
                 "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
                 "operator": "Exists", "tolerationSeconds": 300},
            ],
            "volumes": [{"name": "kube-api-access", "projected": {
                "defaultMode": 420,
                "sources": [{"serviceAccountToken": {"expirationSeconds": 3607,
                                                     "path": "token"}}]}}],
        },
        "status": {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": started, "status": "True",
                 "type": t} for t in ("Initialized", "Ready", "ContainersReady",
                                      "PodScheduled")
            ],
            "containerStatuses": [{
                "containerID": f"containerd://{rng.getrandbits(128):032x}",
                "image": image, "imageID": f"sha256:{rng.getrandbits(64):016x}",
                "lastState": {}, "name": "main", "ready": True, "restartCount": 0,
                "started": True, "state": {"running": {"startedAt": started}},
            }],
            "hostIP": f"10.0.{(i % nodes) // 250}.{(i % nodes) % 250}",
            "phase": "Running", "podIP": f"10.{100 + i // 65536}.{(i // 256) % 256}.{i % 256}",
            "qosClass": "Burstable", "startTime": started,
        },
    }


def items(nodes: int, pods: int, seed: int = 7, apps: int = 1500) -> Iterator[dict[str, Any]]:
    """The objects of the dump, nodes first; the pods are replicas of ``apps`` Deployments."""
    rng = random.Random(seed)
    for i in range(nodes):
        yield node(i, rng)
    for i in range(pods):
        yield pod(i, nodes, rng, apps)


def write(path: Path, nodes: int, pods: int, apps: int = 1500) -> int:
    """Write the dump to ``path``; returns its size in bytes."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        first = True
        for obj in items(nodes, pods, apps=apps):
            if not first:
                out.write(",\n")
            first = False
            out.write(json.dumps(obj, indent=None, separators=(", ", ": ")))
        out.write('\n    ],\n    "kind": "List",\n    "metadata": {"resourceVersion": ""}\n}\n')
    return path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--load", action="store_true", help="time load_objects on the file")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="kruleset-bench-")) / "cluster.json"
    size = write(out, args.nodes, args.pods)
    print(f"wrote {out} ({size / 2**20:.0f} MiB, {args.nodes} nodes, {args.pods} pods)")
    if args.load:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from kruleset.manifests import load_objects

        begin = time.perf_counter()
        objects = load_objects(out)
        elapsed = time.perf_counter() - begin
        print(f"load_objects: {len(objects)} objects in {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
