"""Usage as the kubelet reads it: Summary API documents and metrics.k8s.io lists.

``kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary`` prints one
node's Summary (no ``kind``: ``node`` and ``pods`` at the top; several may
be concatenated as YAML documents or given as a JSON list).  What the
eviction manager reads of it (upstream ``pkg/kubelet/eviction/helpers.go``
``makeSignalObservations`` and the ranking's ``podMemoryUsage`` /
``podDiskUsage``):

* node signals: ``memory.available`` = ``node.memory.availableBytes``;
  ``allocatableMemory.available`` = the ``pods`` system container's
  ``memory.availableBytes``; ``nodefs.available`` / ``nodefs.inodesFree`` =
  ``node.fs.availableBytes`` / ``inodesFree``; ``imagefs.*`` =
  ``node.runtime.imageFs``; ``containerfs.*`` = ``node.runtime.containerFs``;
  ``pid.available`` = ``node.rlimit.maxpid`` − ``curproc``;
* per pod: ``memory`` = the pod's ``memory.workingSetBytes`` (else the sum of
  its containers'); ``writable-layer`` = the containers' ``rootfs.usedBytes``;
  ``ephemeral-storage`` = the containers' ``logs.usedBytes`` and the pod's
  ``volume[].usedBytes`` of volumes that are not emptyDirs of the pod (an
  emptyDir's usage goes to that volume, which its ``sizeLimit`` is checked
  against); ``inodes`` = every ``inodesUsed`` of those; ``pids`` =
  ``process_stats.process_count``;
* per container: ``logs`` and ``rootfs`` bytes, for its ephemeral-storage limit.

A metrics.k8s.io ``PodMetricsList`` / ``NodeMetricsList`` (``kubectl get
--raw /apis/metrics.k8s.io/v1beta1/pods``, what ``kubectl top`` shows) gives
memory only: a pod's ``memory`` is the sum of its containers' usage and a
node's ``memory.available`` is its memory capacity minus its usage.  Where a
Summary covers a node or pod, its metrics are not used.  A malformed
document is refused with the field's path; one naming a node or pod the
scenario does not have is a warning (see :mod:`kruleset.lang.usage_include`).
"""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import STRICT, did_you_mean, notice
from ..model.observed import ObservedNode, ObservedPod
from ._fields import Doc, mapping, quantity, seq

__all__ = ["METRICS_KINDS", "Observed", "UsageReader", "is_summary"]

METRICS_KINDS = ("PodMetrics", "NodeMetrics")


def is_summary(value: object) -> bool:
    """Whether a decoded document is a Summary API answer (no kind; ``node`` and ``pods``)."""
    return (isinstance(value, dict) and "kind" not in value and isinstance(value.get("node"),
                                                                          dict))


@attrs.frozen(slots=True)
class Observed:
    """A node's or pod's usage (the model's action entry), which document gave it and where."""

    entry: ObservedNode | ObservedPod
    source: str = "summary"  # or "metrics": a Summary of the same node or pod wins
    where: str = ""


#: The fields of the Summary API's objects (kubelet ``stats/v1alpha1``) at the levels
#: kruleset reads; the stats blocks inside them (cpu, network, …) are not checked.
_KNOWN = {
    "summary": ("node", "pods"),
    "node": ("nodeName", "systemContainers", "startTime", "cpu", "memory", "network", "fs",
             "runtime", "rlimit", "swap", "io"),
    "pod": ("podRef", "startTime", "containers", "cpu", "memory", "network", "volume",
            "ephemeral-storage", "process_stats", "swap", "io"),
    "container": ("name", "startTime", "cpu", "memory", "accelerators", "rootfs", "logs",
                  "userDefinedMetrics", "swap", "io"),
}


def _known(doc: Doc, value: dict[str, Any], what: str, field: str) -> None:
    """An unknown field of a Summary object: an error, or a warning when allowed."""
    for key in value:
        if key in _KNOWN[what]:
            continue
        at = f"{field}{key}"
        if STRICT.get():
            hint = did_you_mean(key, _KNOWN[what])
            doc.fail(at, f"unknown field of a Summary API {what}",
                     hint or "--allow-unknown-fields reads documents of newer kubelets")
        notice(f"{doc.file}: warning: unknown field {doc.prefix}{at} of a Summary API {what}, "
               "ignored")


def _count(doc: Doc, value: object, field: str) -> int | None:
    """A non-negative integer (bytes, inodes, processes); None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        doc.fail(field, f"expected a non-negative integer, found {value!r}")
    return value


def _stat(doc: Doc, parent: dict[str, Any], key: str, field: str, name: str) -> int | None:
    return _count(doc, mapping(doc, parent.get(key), f"{field}{key}").get(name),
                  f"{field}{key}.{name}")


def _name(doc: Doc, value: object, field: str) -> str:
    if not isinstance(value, str) or not value:
        doc.fail(field, "expected a name")
    return value


class UsageReader:
    """Collects what Summary and metrics documents of one file say, by node and pod."""

    def __init__(self) -> None:
        self.nodes: dict[str, Observed] = {}
        self.pods: dict[str, Observed] = {}

    def summary(self, doc: Doc, value: dict[str, Any]) -> None:
        """One node's Summary API answer."""
        _known(doc, value, "summary", "")
        node = mapping(doc, value.get("node"), "node")
        _known(doc, node, "node", "node.")
        name = _name(doc, node.get("nodeName"), "node.nodeName")
        where = f"{doc.file}, document {doc.document}"
        signals: dict[str, int] = {}

        def put(signal: str, got: int | None) -> None:
            if got is not None:
                signals[signal] = got

        put("memory.available", _stat(doc, node, "memory", "node.", "availableBytes"))
        for i, sc in enumerate(seq(doc, node.get("systemContainers"), "node.systemContainers")):
            sc = mapping(doc, sc, f"node.systemContainers[{i}]")
            if sc.get("name") == "pods":
                put("allocatableMemory.available",
                    _stat(doc, sc, "memory", f"node.systemContainers[{i}].", "availableBytes"))
        put("nodefs.available", _stat(doc, node, "fs", "node.", "availableBytes"))
        put("nodefs.inodesFree", _stat(doc, node, "fs", "node.", "inodesFree"))
        runtime = mapping(doc, node.get("runtime"), "node.runtime")
        for key, fs in (("imageFs", "imagefs"), ("containerFs", "containerfs")):
            put(f"{fs}.available", _stat(doc, runtime, key, "node.runtime.", "availableBytes"))
            put(f"{fs}.inodesFree", _stat(doc, runtime, key, "node.runtime.", "inodesFree"))
        rlimit = mapping(doc, node.get("rlimit"), "node.rlimit")
        maxpid = _count(doc, rlimit.get("maxpid"), "node.rlimit.maxpid")
        cur = _count(doc, rlimit.get("curproc"), "node.rlimit.curproc")
        if maxpid is not None and cur is not None:
            signals["pid.available"] = max(maxpid - cur, 0)
        self.nodes[name] = Observed(ObservedNode(name, signals), where=where)
        for i, pod in enumerate(seq(doc, value.get("pods"), "pods")):
            self._pod(doc, mapping(doc, pod, f"pods[{i}]"), f"pods[{i}].", where)

    def _pod(self, doc: Doc, pod: dict[str, Any], field: str, where: str) -> None:
        _known(doc, pod, "pod", field)
        ref = mapping(doc, pod.get("podRef"), f"{field}podRef")
        key = (f"{_name(doc, ref.get('namespace'), f'{field}podRef.namespace')}/"
               f"{_name(doc, ref.get('name'), f'{field}podRef.name')}")
        memory = _stat(doc, pod, "memory", field, "workingSetBytes")
        logs = rootfs = inodes = 0
        summed = 0
        containers: dict[str, dict[str, int]] = {}
        for j, c in enumerate(seq(doc, pod.get("containers"), f"{field}containers")):
            at = f"{field}containers[{j}]."
            c = mapping(doc, c, at.rstrip("."))
            _known(doc, c, "container", at)
            cname = _name(doc, c.get("name"), f"{at}name")
            c_logs = _stat(doc, c, "logs", at, "usedBytes") or 0
            c_root = _stat(doc, c, "rootfs", at, "usedBytes") or 0
            inodes += (_stat(doc, c, "logs", at, "inodesUsed") or 0) + \
                (_stat(doc, c, "rootfs", at, "inodesUsed") or 0)
            summed += _stat(doc, c, "memory", at, "workingSetBytes") or 0
            logs += c_logs
            rootfs += c_root
            containers[cname] = {"logs": c_logs, "rootfs": c_root}
        volumes: dict[str, int] = {}
        for j, v in enumerate(seq(doc, pod.get("volume"), f"{field}volume")):
            at = f"{field}volume[{j}]."
            v = mapping(doc, v, at.rstrip("."))
            volumes[_name(doc, v.get("name"), f"{at}name")] = \
                _count(doc, v.get("usedBytes"), f"{at}usedBytes") or 0
            inodes += _count(doc, v.get("inodesUsed"), f"{at}inodesUsed") or 0
        pids = _stat(doc, pod, "process_stats", field, "process_count")
        usage = {"memory": memory if memory is not None else summed,
                 "writable-layer": rootfs, "ephemeral-storage": logs, "inodes": inodes}
        if pids is not None:
            usage["pids"] = pids
        self.pods[key] = Observed(ObservedPod(key, usage, volumes, containers), where=where)

    def metrics(self, doc: Doc, value: dict[str, Any]) -> None:
        """One PodMetrics or NodeMetrics item (memory only)."""
        meta = mapping(doc, value.get("metadata"), "metadata")
        name = _name(doc, meta.get("name"), "metadata.name")
        where = f"{doc.file}, document {doc.document}"
        if value.get("kind") == "NodeMetrics":
            usage = mapping(doc, value.get("usage"), "usage")
            if usage.get("memory") is None:
                return  # a sample without memory (a node not yet scraped): nothing to set
            used = quantity(doc, usage["memory"], "usage.memory", "memory")
            if name not in self.nodes:
                self.nodes[name] = Observed(ObservedNode(name, {}, used), "metrics", where)
            return
        ns = meta.get("namespace") or "default"
        total = 0
        for j, c in enumerate(seq(doc, value.get("containers"), "containers")):
            c = mapping(doc, c, f"containers[{j}]")
            mem = mapping(doc, c.get("usage"), f"containers[{j}].usage").get("memory")
            if mem is not None:
                total += quantity(doc, mem, f"containers[{j}].usage.memory", "memory")
        key = f"{ns}/{name}"
        if key not in self.pods:
            self.pods[key] = Observed(ObservedPod(key, {"memory": total}), "metrics", where)

    def merged(self, other: UsageReader) -> None:
        """Add ``other``'s findings; a Summary wins over metrics for the same node or pod."""
        for k, n in other.nodes.items():
            if k not in self.nodes or self.nodes[k].source == "metrics":
                self.nodes[k] = n
        for k, p in other.pods.items():
            if k not in self.pods or self.pods[k].source == "metrics":
                self.pods[k] = p
