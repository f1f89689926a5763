"""Random clusters for differential testing, by feature group, seeded and deterministic.

:func:`generate` returns one cluster in the oracle's JSON contract (nodes,
bound pods, priority classes, PDBs, ElasticQuotas, namespaces, ReplicaSets,
the incoming pods and optionally a KubeSchedulerConfiguration); the same
seed and group always give the same cluster.  Each group turns on the
features it is about, with a little of the others mixed in; ``mixed`` draws
from everything.

What is deliberately not drawn (see ``README.md``, "Differential tests"):

* pods that are pending in the initial cluster, with or without
  ``status.nominatedNodeName``: the oracle never retries them, kruleset
  schedules them at once (it has a queue); nominated pods come from
  preemptions on the timeline instead;
* ``tolerationSeconds`` below an hour and NoExecute taints on nodes whose
  running pods do not tolerate them: the oracle runs no taint manager;
* PDBs with ``maxUnavailable`` or percentages, and incoming pods a PDB
  selects: the oracle keeps PDB status as given, kruleset computes it as the
  disruption controller does (the two agree only for ``minAvailable`` counts
  over running pods);
* scheduling gates, DRA claims and hostIP-specific host ports.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["GROUPS", "generate"]

# group -> features it turns on (every group also mixes a few others in).
GROUPS: dict[str, tuple[str, ...]] = {
    "resources": ("limits-only", "init", "sidecar", "overhead", "extended", "ephemeral",
                  "pod-count", "besteffort"),
    "priority": ("priority", "pdb", "preemption-never", "full", "preemption-args"),
    "node-affinity": ("node-selector", "node-affinity", "match-fields", "preferred-node"),
    "pod-affinity": ("pod-affinity", "anti-affinity", "preferred-pod", "namespaces",
                     "zones", "existing-affinity"),
    "spread": ("spread", "zones", "system-default", "min-domains", "spread-policies",
               "node-affinity"),
    "taints": ("taints", "unschedulable", "tolerations", "no-execute"),
    "ports": ("ports", "full"),
    "zones": ("zones", "zone-major", "spread"),
    "images": ("images",),
    "quota": ("quota", "priority", "full"),
    "profiles": ("profiles", "spread", "pod-affinity", "taints", "node-affinity"),
    "sampling": ("sampling", "profiles"),
}
ALL_FEATURES = sorted({f for fs in GROUPS.values() for f in fs} - {"sampling", "quota"})

CPU = ["100m", "250m", "500m", "750m", "1", "1500m", "2", "3"]
MEM = ["64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi"]
APPS = ["web", "db", "cache", "batch"]
ZONES = ["zone-a", "zone-b", "zone-c"]
IMAGES = [("registry.example/web:1", 300), ("registry.example/db:2", 800),
          ("registry.example/cache:3", 50), ("registry.example/tool:4", 5)]
TAINTS = [("dedicated", "gpu", "NoSchedule"), ("dedicated", "infra", "NoSchedule"),
          ("spot", "true", "PreferNoSchedule"), ("maintenance", "", "NoExecute"),
          ("team", "a", "NoSchedule")]
EXTENDED = "example.com/gpu"
ZONE_KEY = "topology.kubernetes.io/zone"
HOST_KEY = "kubernetes.io/hostname"
BASE_TIME = 1_700_000_000  # 2023-11-14T22:13:20Z


def _millis(q: str) -> int:
    return int(float(q[:-1])) if q.endswith("m") else int(float(q) * 1000)


def _bytes(q: str) -> int:
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    for u, m in units.items():
        if q.endswith(u):
            return int(q[:-2]) * m
    return int(q)


def _iso(seconds: int) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Gen:
    """One cluster's drawing state."""

    def __init__(self, group: str, seed: int) -> None:
        self.group = group
        self.rng = random.Random(f"{group}:{seed}")
        rng = self.rng
        if group == "mixed":
            self.features = {f for f in ALL_FEATURES if rng.random() < 0.3}
        else:
            self.features = set(GROUPS[group])
            for f in ALL_FEATURES:
                if f not in self.features and rng.random() < 0.08:
                    self.features.add(f)
        if group not in ("sampling", "quota") and rng.random() < 0.4:
            # Preemption meets every other feature: full nodes, higher-priority arrivals.
            self.features |= {"priority", "full"}
        if "quota" in self.features:
            self.features -= {"profiles", "sampling", "extended", "ephemeral"}
        self.nodes: list[dict[str, Any]] = []
        self.free: dict[str, dict[str, int]] = {}
        self.ports: dict[str, set[tuple[str, int]]] = {}
        self.pods: list[dict[str, Any]] = []
        self.namespaces = ["default"]
        self.counter = 0

    def on(self, feature: str, p: float = 1.0) -> bool:
        return feature in self.features and self.rng.random() < p

    # --- nodes ------------------------------------------------------------------
    def make_nodes(self) -> None:
        rng = self.rng
        n = rng.randint(100, 130) if "sampling" in self.features else rng.randint(2, 8)
        zoned = "zones" in self.features or rng.random() < 0.2
        zones = ZONES[: rng.randint(2, 3)] if zoned else []
        for i in range(n):
            name = f"n{i + 1}"
            labels = {HOST_KEY: name, "disk": rng.choice(["ssd", "hdd"]),
                      "gen": str(rng.randint(1, 5))}
            if zones and (rng.random() < 0.9 or "zone-major" in self.features):
                labels[ZONE_KEY] = rng.choice(zones)
                labels["topology.kubernetes.io/region"] = "region-1"
            cpu = rng.choice(["2", "4", "8"]) if n < 50 else "4"
            mem = rng.choice(["4Gi", "8Gi", "16Gi"]) if n < 50 else "8Gi"
            alloc = {"cpu": cpu, "memory": mem, "pods": "110"}
            if self.on("pod-count", 0.5):
                alloc["pods"] = str(rng.randint(1, 4))
            if self.on("ephemeral", 0.7):
                alloc["ephemeral-storage"] = rng.choice(["10Gi", "20Gi", "50Gi"])
            if self.on("extended", 0.6):
                alloc[EXTENDED] = str(rng.randint(1, 4))
            node: dict[str, Any] = {
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "spec": {},
                "status": {"allocatable": dict(alloc), "capacity": dict(alloc)},
            }
            if self.on("taints", 0.5):
                taints: list[dict[str, str]] = []
                for key, value, effect in rng.sample(TAINTS, rng.randint(1, 2)):
                    if effect == "NoExecute" and "no-execute" not in self.features:
                        continue
                    if any(t["key"] == key and t["effect"] == effect for t in taints):
                        continue
                    t = {"key": key, "effect": effect}
                    if value:
                        t["value"] = value
                    taints.append(t)
                if taints:
                    node["spec"]["taints"] = taints
            if self.on("unschedulable", 0.25):
                node["spec"]["unschedulable"] = True
            if self.on("images", 0.7):
                node["status"]["images"] = [
                    {"names": [img], "sizeBytes": size << 20}
                    for img, size in rng.sample(IMAGES, rng.randint(1, 3))]
            self.nodes.append(node)
            self.free[name] = {"cpu": _millis(cpu), "memory": _bytes(mem),
                               "pods": int(alloc["pods"])}
        if "zone-major" in self.features and zones:
            # Declared zone by zone, as a cluster built one zone at a time.
            self.nodes.sort(key=lambda nd: nd["metadata"]["labels"].get(ZONE_KEY, ""))

    # --- pods -------------------------------------------------------------------
    def container(self, name: str, *, big: bool = False) -> dict[str, Any]:
        rng = self.rng
        c: dict[str, Any] = {"name": name, "image": rng.choice(IMAGES)[0]}
        if self.on("besteffort", 0.15):
            return c
        req: dict[str, str] = {}
        cpus = CPU[3:] if big else CPU
        if rng.random() < 0.9:
            req["cpu"] = rng.choice(cpus)
        if rng.random() < 0.8:
            req["memory"] = rng.choice(MEM)
        if self.on("ephemeral", 0.4):
            req["ephemeral-storage"] = rng.choice(["1Gi", "5Gi", "15Gi"])
        if self.on("extended", 0.4):
            req[EXTENDED] = str(rng.randint(1, 2))
        if not req:
            return c
        if self.on("limits-only", 0.3):
            c["resources"] = {"limits": req}
        elif rng.random() < 0.2:
            lim = {k: v for k, v in req.items() if k in ("cpu", "memory")}
            c["resources"] = {"requests": req, "limits": lim} if lim else {"requests": req}
        else:
            if EXTENDED in req:  # extended resources need limits equal to requests
                c["resources"] = {"requests": req, "limits": {EXTENDED: req[EXTENDED]}}
            else:
                c["resources"] = {"requests": req}
        return c

    def labels(self, app: str) -> dict[str, str]:
        labels = {"app": app}
        if self.rng.random() < 0.5:
            labels["tier"] = self.rng.choice(["front", "back"])
        if "spread" in self.features and self.rng.random() < 0.5:
            labels["pod-template-hash"] = self.rng.choice(["h1", "h2"])
        return labels

    def pod(self, name: str, *, incoming: bool) -> dict[str, Any]:
        rng = self.rng
        ns = rng.choice(self.namespaces)
        app = rng.choice(APPS)
        spec: dict[str, Any] = {"containers": [self.container("c", big=incoming and
                                                               "full" in self.features)],
                                "terminationGracePeriodSeconds": 0}
        if self.on("init", 0.5) or self.on("sidecar", 0.3):
            spec["initContainers"] = [self.container("init")]
            if self.on("sidecar", 0.6):
                spec["initContainers"][0]["restartPolicy"] = "Always"
        if rng.random() < 0.2:
            spec["containers"].append(self.container("c2"))
        if self.on("overhead", 0.4):
            spec["overhead"] = {"cpu": rng.choice(["50m", "250m"]), "memory": "64Mi"}
        meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": self.labels(app)}
        if "priority" in self.features or "quota" in self.features:
            if incoming:
                choices = ["high", "high", "mid", "low", ""]
                if "preemption-never" in self.features:
                    choices.append("high-never")
            else:
                choices = ["low", "low", "mid", ""]
            cls = rng.choice(choices)
            if cls:
                spec["priorityClassName"] = cls
        if self.on("system-default", 0.5) and not incoming or (
                incoming and self.on("system-default", 0.5)):
            meta["labels"] = {"app": app}
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                        "name": f"rs-{app}", "uid": f"uid-rs-{ns}-{app}",
                                        "controller": True}]
        if self.on("ports", 0.6):
            port: dict[str, Any] = {"containerPort": 80,
                                    "hostPort": rng.choice([8080, 8081, 53])}
            if rng.random() < 0.3:
                port["protocol"] = "UDP"
            spec["containers"][0]["ports"] = [port]
        if incoming or rng.random() < 0.3:
            self.scheduling_terms(spec, meta, incoming=incoming)
        if self.on("images", 0.8):
            spec["containers"][0]["image"] = rng.choice(IMAGES)[0]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    def scheduling_terms(self, spec: dict[str, Any], meta: dict[str, Any], *,
                         incoming: bool) -> None:
        rng = self.rng
        if self.on("node-selector", 0.4) and incoming:
            spec["nodeSelector"] = {"disk": rng.choice(["ssd", "hdd"])}
        affinity: dict[str, Any] = {}
        if incoming and (self.on("node-affinity", 0.6) or self.on("match-fields", 0.4)
                         or self.on("preferred-node", 0.5)):
            affinity["nodeAffinity"] = self.node_affinity()
        if self.on("pod-affinity", 0.5) and incoming:
            affinity.setdefault("podAffinity", {}).update(self.pod_terms(meta, preferred=False))
        if self.on("anti-affinity", 0.5) and (incoming or self.on("existing-affinity", 0.5)):
            affinity.setdefault("podAntiAffinity", {}).update(
                self.pod_terms(meta, preferred=False))
        if self.on("preferred-pod", 0.5):
            kind = rng.choice(["podAffinity", "podAntiAffinity"])
            affinity.setdefault(kind, {}).update(self.pod_terms(meta, preferred=True))
        affinity = {k: v for k, v in affinity.items() if v}
        if affinity:
            spec["affinity"] = affinity
        if self.on("spread", 0.7) and incoming and "ownerReferences" not in meta:
            spec["topologySpreadConstraints"] = [
                self.spread(meta) for _ in range(rng.randint(1, 2))]
        if "tolerations" in self.features or "taints" in self.features:
            tol = self.tolerations()
            if tol:
                spec["tolerations"] = tol

    def node_affinity(self) -> dict[str, Any]:
        rng = self.rng
        out: dict[str, Any] = {}
        if self.on("node-affinity", 0.7) or self.on("match-fields", 0.8):
            terms = []
            for _ in range(rng.randint(1, 2)):
                term: dict[str, Any] = {}
                if self.on("match-fields", 0.6):
                    names = [n["metadata"]["name"] for n in self.nodes]
                    # The API server allows exactly one value for In/NotIn here.
                    term["matchFields"] = [{"key": "metadata.name",
                                            "operator": rng.choice(["In", "In", "NotIn"]),
                                            "values": [rng.choice(names)]}]
                if not term or rng.random() < 0.5:
                    term["matchExpressions"] = [self.node_expr()
                                                for _ in range(rng.randint(1, 2))]
                terms.append(term)
            out["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
        if self.on("preferred-node", 0.7) or not out:
            out["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "preference": {"matchExpressions": [
                    self.node_expr()]}} for _ in range(rng.randint(1, 2))]
        return out

    def node_expr(self) -> dict[str, Any]:
        rng = self.rng
        kind = rng.choice(["disk", "gen", "zone", "exists"])
        if kind == "disk":
            return {"key": "disk", "operator": rng.choice(["In", "NotIn"]),
                    "values": [rng.choice(["ssd", "hdd"])]}
        if kind == "gen":
            return {"key": "gen", "operator": rng.choice(["Gt", "Lt"]),
                    "values": [str(rng.randint(1, 4))]}
        if kind == "zone":
            return {"key": ZONE_KEY, "operator": "In",
                    "values": rng.sample(ZONES, rng.randint(1, 2))}
        return {"key": rng.choice([ZONE_KEY, "disk", "gpu"]),
                "operator": rng.choice(["Exists", "DoesNotExist"])}

    def selector(self, meta: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        app = meta["labels"]["app"] if rng.random() < 0.5 else rng.choice(APPS)
        if rng.random() < 0.7:
            return {"matchLabels": {"app": app}}
        return {"matchExpressions": [{"key": "app", "operator": rng.choice(["In", "NotIn"]),
                                      "values": rng.sample(APPS, 2)}]}

    def pod_term(self, meta: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        keys = [HOST_KEY, ZONE_KEY] if self.has_zones() else [HOST_KEY]
        term: dict[str, Any] = {"labelSelector": self.selector(meta),
                                "topologyKey": rng.choice(keys)}
        if "namespaces" in self.features:
            r = rng.random()
            if r < 0.3:
                term["namespaces"] = rng.sample(self.namespaces,
                                                rng.randint(1, len(self.namespaces)))
            elif r < 0.5:
                term["namespaceSelector"] = {}
            elif r < 0.7:
                term["namespaceSelector"] = {"matchLabels": {"team": rng.choice(["a", "b"])}}
        if rng.random() < 0.2 and "tier" in meta["labels"]:
            term["matchLabelKeys"] = ["tier"]
        elif rng.random() < 0.1 and "pod-template-hash" in meta["labels"]:
            term["mismatchLabelKeys"] = ["pod-template-hash"]
        return term

    def pod_terms(self, meta: dict[str, Any], *, preferred: bool) -> dict[str, Any]:
        rng = self.rng
        if preferred:
            return {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.randint(1, 100), "podAffinityTerm": self.pod_term(meta)}
                for _ in range(rng.randint(1, 2))]}
        return {"requiredDuringSchedulingIgnoredDuringExecution": [self.pod_term(meta)]}

    def has_zones(self) -> bool:
        return any(ZONE_KEY in n["metadata"]["labels"] for n in self.nodes)

    def spread(self, meta: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        keys = [HOST_KEY, ZONE_KEY] if self.has_zones() else [HOST_KEY]
        c: dict[str, Any] = {
            "maxSkew": rng.randint(1, 3),
            "topologyKey": rng.choice(keys),
            "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
            "labelSelector": {"matchLabels": {"app": meta["labels"]["app"]}},
        }
        if c["whenUnsatisfiable"] == "DoNotSchedule" and self.on("min-domains", 0.5):
            c["minDomains"] = rng.randint(1, 4)
        if self.on("spread-policies", 0.6):
            c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
        if self.on("spread-policies", 0.6):
            c["nodeTaintsPolicy"] = rng.choice(["Honor", "Ignore"])
        if "pod-template-hash" in meta["labels"] and rng.random() < 0.5:
            c["matchLabelKeys"] = ["pod-template-hash"]
        return c

    def tolerations(self) -> list[dict[str, Any]]:
        rng = self.rng
        pool: list[dict[str, Any]] = [
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            {"key": "dedicated", "operator": "Exists"},
            {"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"},
            {"key": "team", "operator": "Equal", "value": "a"},
            {"key": "maintenance", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 3600},
            {"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
             "effect": "NoSchedule"},
            {"operator": "Exists"},
        ]
        if rng.random() < 0.3:
            return []
        return rng.sample(pool, rng.randint(1, 3))

    def place(self, pod: dict[str, Any]) -> bool:
        """Bind ``pod`` to a random node it fits on (resources, pods, NoExecute taints)."""
        rng = self.rng
        need_cpu = need_mem = 0
        for c in pod["spec"]["containers"]:
            res = c.get("resources") or {}
            req = res.get("requests") or res.get("limits") or {}
            need_cpu += _millis(req["cpu"]) if "cpu" in req else 0
            need_mem += _bytes(req["memory"]) if "memory" in req else 0
        if any((c.get("resources") or {}).get("requests", {}).get(EXTENDED)
               or (c.get("resources") or {}).get("limits", {}).get(EXTENDED)
               for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", [])):
            pod["spec"]["containers"] = [self.plain(c) for c in pod["spec"]["containers"]]
            pod["spec"].pop("initContainers", None)
            return self.place(pod)
        pod["spec"].pop("initContainers", None)
        pod["spec"].pop("overhead", None)
        names = list(self.free)
        rng.shuffle(names)
        for name in names:
            free = self.free[name]
            node = next(n for n in self.nodes if n["metadata"]["name"] == name)
            if any(t["effect"] == "NoExecute" for t in node["spec"].get("taints", ())):
                pod["spec"].setdefault("tolerations", []).append(
                    {"key": "maintenance", "operator": "Exists", "effect": "NoExecute"})
            # A kubelet never runs two pods using the same host port (and
            # upstream's port bookkeeping assumes it: removing one frees both).
            ports = {(p.get("protocol", "TCP"), p["hostPort"])
                     for c in pod["spec"]["containers"] for p in c.get("ports", ())}
            if (free["cpu"] >= need_cpu and free["memory"] >= need_mem and free["pods"] > 0
                    and not ports & self.ports.setdefault(name, set())):
                free["cpu"] -= need_cpu
                free["memory"] -= need_mem
                free["pods"] -= 1
                self.ports[name] |= ports
                pod["spec"]["nodeName"] = name
                return True
        return False

    def plain(self, c: dict[str, Any]) -> dict[str, Any]:
        c = dict(c)
        res = c.get("resources")
        if res:
            c["resources"] = {k: {r: q for r, q in v.items() if r in ("cpu", "memory")}
                              for k, v in res.items()}
        return c

    def existing(self) -> None:
        rng = self.rng
        n = len(self.nodes)
        count = rng.randint(0, 3 * n) if n < 50 else rng.randint(0, n)
        if "full" in self.features:
            count = rng.randint(2 * n, 5 * n)
        t = BASE_TIME
        for _ in range(count):
            self.counter += 1
            pod = self.pod(f"p{self.counter}", incoming=False)
            if "full" in self.features and rng.random() < 0.5:
                pod["spec"]["containers"][0] = self.container("c", big=True)
            pod["spec"].pop("topologySpreadConstraints", None)
            if self.place(pod):
                # Distinct start times: upstream orders equal ones by an unstable sort.
                t += rng.randint(1, 600)
                pod["status"] = {"phase": "Running", "startTime": _iso(t),
                                 "conditions": [{"type": "Ready", "status": "True"}]}
                self.pods.append(pod)

    # --- cluster-wide objects ------------------------------------------------------
    def case(self) -> dict[str, Any]:
        rng = self.rng
        out: dict[str, Any] = {}
        if "namespaces" in self.features or "quota" in self.features:
            self.namespaces = ["default", "ns-a", "ns-b"]
            out["namespaces"] = [
                {"apiVersion": "v1", "kind": "Namespace",
                 "metadata": {"name": "ns-a", "labels": {"team": "a"}}},
                {"apiVersion": "v1", "kind": "Namespace",
                 "metadata": {"name": "ns-b", "labels": {"team": "b"}}},
            ]
            if "quota" in self.features:
                self.namespaces = ["ns-a", "ns-b"]
        self.make_nodes()
        out["nodes"] = self.nodes
        out["priorityClasses"] = self.priority_classes()
        self.existing()
        out["pods"] = self.pods
        incoming = []
        for i in range(rng.randint(1, 3)):
            pod = self.pod(f"in{i + 1}", incoming=True)
            # The oracle starts a bound pod at its creationTimestamp (year 1 when
            # absent, which would make it the oldest pod); a pod created now
            # starts after every running pod, as kruleset starts it.
            pod["metadata"]["creationTimestamp"] = _iso(BASE_TIME + 10**6 + i)
            incoming.append(pod)
        out["incoming"] = incoming
        for pod in self.pods + incoming:
            _as_stored(pod)
        if "pdb" in self.features:
            out["pdbs"] = self.pdbs(incoming)
        if "quota" in self.features:
            out["elasticQuotas"] = self.quotas()
        owners = {(p["metadata"]["namespace"], r["name"], p["metadata"]["labels"]["app"])
                  for p in self.pods + incoming for r in p["metadata"].get("ownerReferences", ())}
        if owners:
            out["replicaSets"] = [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                 "metadata": {"name": name, "namespace": ns, "uid": f"uid-rs-{ns}-{app}"},
                 "spec": {"replicas": 1, "selector": {"matchLabels": {"app": app}},
                          "template": {"metadata": {"labels": {"app": app}},
                                       "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
                for ns, name, app in sorted(owners)]
        if "profiles" in self.features or "preemption-args" in self.features:
            config = self.config()
            if config is not None:
                out["config"] = config
        return {k: v for k, v in out.items() if v}

    def priority_classes(self) -> list[dict[str, Any]]:
        rng = self.rng
        classes = [("low", 100, None), ("mid", 1000, None), ("high", 10000, None),
                   ("high-never", 10000, "Never")]
        out = []
        default = rng.choice(["mid", "low", None, None])
        for name, value, policy in classes:
            pc: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                  "metadata": {"name": name}, "value": value}
            if policy:
                pc["preemptionPolicy"] = policy
            if name == default:
                pc["globalDefault"] = True
            out.append(pc)
        return out

    def pdbs(self, incoming: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rng = self.rng
        out = []
        # A label only PDBs select, on existing pods only (see the module docstring).
        for pod in self.pods:
            if rng.random() < 0.4:
                pod["metadata"]["labels"]["guard"] = rng.choice(["g1", "g2"])
        for ns in self.namespaces:
            for g in ("g1", "g2"):
                if rng.random() < 0.5:
                    continue
                covered = [p for p in self.pods if p["metadata"]["namespace"] == ns
                           and p["metadata"]["labels"].get("guard") == g]
                m = rng.randint(0, len(covered) + 1)
                out.append({
                    "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": {"name": f"pdb-{g}", "namespace": ns},
                    "spec": {"minAvailable": m, "selector": {"matchLabels": {"guard": g}}},
                    "status": {"disruptionsAllowed": max(0, len(covered) - m),
                               "currentHealthy": len(covered), "desiredHealthy": m,
                               "expectedPods": len(covered)},
                })
        return out

    def quotas(self) -> list[dict[str, Any]]:
        rng = self.rng
        total_cpu = sum(_millis(n["status"]["allocatable"]["cpu"]) for n in self.nodes)
        total_mem = sum(_bytes(n["status"]["allocatable"]["memory"]) for n in self.nodes)
        out = []
        for ns in self.namespaces:
            share = rng.choice([0.25, 0.4, 0.5])
            mn = {"cpu": f"{int(total_cpu * share)}m",
                  "memory": f"{int(total_mem * share) >> 20}Mi"}
            mx = {"cpu": f"{int(total_cpu * min(1.0, share * rng.choice([1, 1.5, 2])))}m",
                  "memory": f"{int(total_mem * min(1.0, share * 2)) >> 20}Mi"}
            out.append({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
                        "metadata": {"name": f"q-{ns}", "namespace": ns},
                        "spec": {"min": mn, "max": mx}})
        return out

    def config(self) -> dict[str, Any] | None:
        rng = self.rng
        profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
        plugins: dict[str, Any] = {}
        args: list[dict[str, Any]] = []
        if "profiles" in self.features:
            # A plugin is weighted or disabled, never both (upstream refuses to
            # score with a plugin whose PreScore was disabled).
            scorers = ["NodeResourcesFit", "NodeResourcesBalancedAllocation", "TaintToleration",
                       "NodeAffinity", "PodTopologySpread", "InterPodAffinity", "ImageLocality"]
            rng.shuffle(scorers)
            if rng.random() < 0.5:
                weighted, scorers = scorers[:rng.randint(1, 3)], scorers[3:]
                plugins["score"] = {"enabled": [{"name": p, "weight": rng.randint(1, 10)}
                                                for p in weighted]}
            if rng.random() < 0.4:
                off = [p for p in scorers if p != "NodeResourcesFit"][:rng.randint(1, 2)]
                plugins.setdefault("score", {})["disabled"] = [{"name": p} for p in off]
                scorers = [p for p in scorers if p not in off]
            multi = [p for p in ("TaintToleration", "NodePorts", "PodTopologySpread",
                                 "InterPodAffinity", "NodeAffinity")
                     if p in scorers or p == "NodePorts"]
            if multi and rng.random() < 0.2:
                plugins["multiPoint"] = {"disabled": [{"name": rng.choice(multi)}]}
            if rng.random() < 0.5:
                kind = rng.choice(["LeastAllocated", "MostAllocated",
                                   "RequestedToCapacityRatio"])
                strategy: dict[str, Any] = {"type": kind, "resources": [
                    {"name": "cpu", "weight": rng.randint(1, 3)},
                    {"name": "memory", "weight": rng.randint(1, 3)}]}
                if kind == "RequestedToCapacityRatio":
                    strategy["requestedToCapacityRatio"] = {"shape": [
                        {"utilization": 0, "score": rng.choice([0, 10])},
                        {"utilization": 100, "score": rng.choice([0, 10])}]}
                args.append({"name": "NodeResourcesFit", "args": {
                    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesFitArgs",
                    "scoringStrategy": strategy}})
            if rng.random() < 0.3:
                constraints = [{"maxSkew": rng.randint(1, 3), "topologyKey": rng.choice(
                    [HOST_KEY, ZONE_KEY]), "whenUnsatisfiable": rng.choice(
                    ["ScheduleAnyway", "DoNotSchedule"])}]
                args.append({"name": "PodTopologySpread", "args": {
                    "apiVersion": "kubescheduler.config.k8s.io/v1",
                    "kind": "PodTopologySpreadArgs", "defaultingType": "List",
                    "defaultConstraints": constraints}})
        if "preemption-args" in self.features and rng.random() < 0.6:
            args.append({"name": "DefaultPreemption", "args": {
                "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs",
                "minCandidateNodesPercentage": rng.choice([0, 10, 50, 100]),
                "minCandidateNodesAbsolute": rng.choice([1, 2, 100])}})
        if plugins:
            profile["plugins"] = plugins
        if args:
            profile["pluginConfig"] = args
        cfg: dict[str, Any] = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                               "kind": "KubeSchedulerConfiguration", "profiles": [profile]}
        if "sampling" in self.features:
            cfg["percentageOfNodesToScore"] = rng.choice([1, 5, 10, 50])
        if len(profile) == 1 and len(cfg) == 3:
            return None
        return cfg


def _as_stored(pod: dict[str, Any]) -> None:
    """What the API server stores: pod (anti-)affinity ``matchLabelKeys`` merged.

    On create the API server adds ``key In (value)`` to a term's
    labelSelector for each of its matchLabelKeys the pod has (NotIn for
    mismatchLabelKeys); the scheduler reads only the selector.  The oracle
    applies defaulting, not this strategy step, so the generator writes pods
    as they are stored, for both sides.
    """
    labels = pod["metadata"].get("labels") or {}
    affinity = pod["spec"].get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind) or {}
        for t in list(terms.get("requiredDuringSchedulingIgnoredDuringExecution") or ()) + [
                w["podAffinityTerm"] for w in
                terms.get("preferredDuringSchedulingIgnoredDuringExecution") or ()]:
            sel = t.get("labelSelector")
            if sel is None:
                continue
            for field, op in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
                for key in t.get(field) or ():
                    if key in labels:
                        sel.setdefault("matchExpressions", []).append(
                            {"key": key, "operator": op, "values": [labels[key]]})


def generate(seed: int, group: str) -> dict[str, Any]:
    """One random cluster of ``group`` (a key of :data:`GROUPS` or ``mixed``) for ``seed``."""
    if group != "mixed" and group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; known: {', '.join([*GROUPS, 'mixed'])}")
    return _Gen(group, seed).case()
