"""Random timelines for the timeline oracle (the real kube-scheduler with its queue).

A case is the oracle's JSON input (``../shared/oracle-timeline/README.md``):
nodes and bound pods at time 0, then a timeline of events at random
instants: pods created (priorities, scheduling gates, node selectors,
tolerations, grace periods), pods deleted (with or without a grace period),
gates removed, nodes added, labelled, tainted and untainted one taint at a
time, cordoned and uncordoned.  Preemptions happen when a pod of a higher
class finds no room.  Everything follows from the seed.

What is not generated, and why: taints replaced wholesale (kruleset's
timeline changes one taint per statement, the oracle's ``patchNode``
replaces the list: one event upstream, two in kruleset), label removal,
inter-pod affinity and topology spread (``timeline_topology.py`` generates
those, ``scripts/differential.py --timeline --topology``), binding
failures (kruleset has none) and nodes deleted with pods on them (the
oracle has no pod GC).

With ``config=True`` the case also carries a KubeSchedulerConfiguration
drawn from a second generator seeded from ``seed``: ``podInitialBackoffSeconds``
(1-5 s), ``podMaxBackoffSeconds`` (at least that, up to 60 s) and, half the
time, DefaultPreemption's ``minCandidateNodesPercentage``/``Absolute``; the
cluster and the timeline stay those of ``config=False``.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["generate_timeline"]

_CLASSES = (("low", 10, None), ("mid", 100, None), ("high", 1000, None),
            ("urgent", 5000, None), ("polite", 2000, "Never"))
_CPUS = ("250m", "500m", "1", "1500m", "2", "3")
_TAINTS = ({"key": "dedicated", "value": "batch", "effect": "NoSchedule"},
           {"key": "maintenance", "value": "true", "effect": "NoSchedule"})


def _node(name: str, cpu: int, labels: dict[str, str],
          taints: list[dict[str, str]]) -> dict[str, Any]:
    res = {"cpu": str(cpu), "memory": "16Gi", "pods": "110"}
    node: dict[str, Any] = {"metadata": {"name": name, "labels": dict(labels)},
                            "status": {"allocatable": dict(res), "capacity": dict(res)}}
    if taints:
        node["spec"] = {"taints": [dict(t) for t in taints]}
    return node


def _pod(rnd: random.Random, name: str, node: str | None = None) -> dict[str, Any]:
    cls = rnd.choice(_CLASSES)[0]
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x",
                        "resources": {"requests": {"cpu": rnd.choice(_CPUS),
                                                   "memory": "1Gi"}}}],
        "priorityClassName": cls,
        "terminationGracePeriodSeconds": rnd.choice((0, 0, 5, 30)),
    }
    if node is not None:
        spec["nodeName"] = node
    else:
        if rnd.random() < 0.2:
            spec["schedulingGates"] = [{"name": f"g{i}"} for i in range(rnd.choice((1, 2)))]
        if rnd.random() < 0.2:
            spec["nodeSelector"] = rnd.choice(({"zone": "a"}, {"disk": "ssd"}))
        if rnd.random() < 0.25:
            t = rnd.choice(_TAINTS)
            spec["tolerations"] = [{"key": t["key"], "operator": "Exists",
                                    "effect": t["effect"]}]
    return {"metadata": {"name": name}, "spec": spec}


def _cpu_m(text: str) -> int:
    return int(text[:-1]) if text.endswith("m") else int(text) * 1000


class _Builder:
    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.nodes: dict[str, dict[str, Any]] = {}  # name -> {cpu, labels, taints, cordoned}
        self.pods: dict[str, dict[str, Any]] = {}   # name -> {bound, gates, alive}
        self.n = 0

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def new_node(self) -> dict[str, Any]:
        rnd = self.rnd
        name = self.name("n")
        labels = {"zone": rnd.choice("ab")}
        if rnd.random() < 0.3:
            labels["disk"] = "ssd"
        taints = [rnd.choice(_TAINTS)] if rnd.random() < 0.2 else []
        cpu = rnd.choice((2, 4, 4, 6, 8))
        self.nodes[name] = {"cpu": cpu, "labels": labels, "taints": taints, "free": cpu * 1000}
        return _node(name, cpu, labels, taints)


def _event(b: _Builder, at: int) -> dict[str, Any] | None:
    rnd = b.rnd
    roll = rnd.random()
    alive = [n for n, p in b.pods.items() if p["alive"]]
    if roll < 0.45 or not alive:
        name = b.name("p")
        pod = _pod(rnd, name)
        b.pods[name] = {"alive": True, "gates": [g["name"] for g in
                                                 pod["spec"].get("schedulingGates", ())]}
        return {"at": at, "op": "create", "pod": pod}
    if roll < 0.62:
        victim = rnd.choice(alive)
        b.pods[victim]["alive"] = False
        ev: dict[str, Any] = {"at": at, "op": "delete", "kind": "pod",
                              "name": f"default/{victim}"}
        if rnd.random() < 0.6:
            ev["gracePeriodSeconds"] = rnd.choice((0, 0, 3, 20))
        return ev
    gated = [n for n in alive if b.pods[n]["gates"]]
    if roll < 0.72 and gated:
        who = rnd.choice(gated)
        gates = b.pods[who]["gates"]
        drop = gates[:] if rnd.random() < 0.6 else gates[:1]
        b.pods[who]["gates"] = [g for g in gates if g not in drop]
        return {"at": at, "op": "ungate", "name": f"default/{who}", "gates": drop}
    if roll < 0.77:
        return {"at": at, "op": "create", "node": b.new_node()}
    return _patch_node(b, at)


def _patch_node(b: _Builder, at: int) -> dict[str, Any]:
    rnd = b.rnd
    name = rnd.choice(sorted(b.nodes))
    node = b.nodes[name]
    kind = rnd.choice(("label", "taint", "cordon"))
    ev: dict[str, Any] = {"at": at, "op": "patchNode", "name": name}
    if kind == "label":
        key, value = rnd.choice((("disk", "ssd"), ("zone", "a"), ("zone", "b")))
        node["labels"][key] = value
        ev["labels"] = {key: value}
    elif kind == "taint":
        taints = node["taints"]
        spare = [t for t in _TAINTS if t not in taints]
        if taints and (not spare or rnd.random() < 0.5):
            taints.remove(rnd.choice(taints))
        else:
            taints.append(rnd.choice(spare))
        ev["taints"] = [dict(t) for t in taints]
    else:
        node["cordoned"] = not node.get("cordoned", False)
        ev["unschedulable"] = node["cordoned"]
    return ev


def scheduler_config(seed: int) -> dict[str, Any]:
    """The random KubeSchedulerConfiguration of ``generate_timeline(seed, config=True)``."""
    rnd = random.Random(f"config-{seed}")
    initial = rnd.choice((1, 2, 3, 5))
    profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
    if rnd.random() < 0.5:
        profile["pluginConfig"] = [{"name": "DefaultPreemption", "args": {
            "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs",
            "minCandidateNodesPercentage": rnd.choice((0, 10, 50)),
            "minCandidateNodesAbsolute": rnd.choice((1, 2, 100))}}]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration", "podInitialBackoffSeconds": initial,
            "podMaxBackoffSeconds": max(initial, rnd.choice((initial, 5, 10, 20, 60))),
            "profiles": [profile]}


def generate_timeline(seed: int, *, config: bool = False) -> dict[str, Any]:
    """The timeline case for ``seed`` (with a random scheduler configuration: ``config``)."""
    rnd = random.Random(seed)
    b = _Builder(rnd)
    nodes = [b.new_node() for _ in range(rnd.randint(1, 3))]
    pods = []
    for _ in range(rnd.randint(0, 4)):
        name = rnd.choice(sorted(b.nodes))
        pod = _pod(rnd, b.name("b"), name)
        need = _cpu_m(pod["spec"]["containers"][0]["resources"]["requests"]["cpu"])
        if need > b.nodes[name]["free"]:
            continue
        b.nodes[name]["free"] -= need
        b.pods[pod["metadata"]["name"]] = {"alive": True, "gates": []}
        pods.append(pod)
    timeline = []
    at = 0
    for _ in range(rnd.randint(3, 14)):
        at += rnd.choice((0, 100, 300, 500, 1000, 1500, 2500, 4000, 10000))
        ev = _event(b, at)
        if ev is not None:
            timeline.append(ev)
    classes = [{"metadata": {"name": n}, "value": v,
                **({"preemptionPolicy": p} if p else {})} for n, v, p in _CLASSES]
    until = at + (400_000 if rnd.random() < 0.25 else 60_000)
    case = {"priorityClasses": classes, "nodes": nodes, "pods": pods,
            "timeline": timeline, "until": until}
    if config:
        case["config"] = scheduler_config(seed)
    return case
