"""What the HTML report adds to the attempts and decisions: resources, end state, queue.

* the amounts behind a why-not cell (``needs 2 cpu, 0.9 free of 4``): the
  trace records NodeResourcesFit's reason only, so the node's requested
  resources at the attempt are rebuilt from the run's bindings (a pod counts
  from its binding until it is gone, a terminating pod included, as the
  scheduler's cache keeps it);
* per node its allocatable and per pod its requests, from which the page
  draws allocated against allocatable over time;
* the end state (pods by node, pending pods with their message) and each
  pod's scheduling attempts as the queue made them (the JSON report's
  ``queue``).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from ..model.quantity import format_duration
from ..sim.result import Result

__all__ = ["Occupancy", "amount", "end_state_data", "queue_data"]

_ENDS = ("preempted", "evicted", "deleted", "succeeded", "failed")
_GIB, _MIB = 1 << 30, 1 << 20


def amount(resource: str, value: int) -> str:
    """``2`` (cpu in cores), ``1.5Gi``/``512Mi`` (bytes), or the plain count."""
    if resource == "cpu":
        return f"{value / 1000:.3f}".rstrip("0").rstrip(".")
    if resource in ("memory", "ephemeral-storage"):
        if abs(value) >= _GIB:
            return f"{value / _GIB:.2f}".rstrip("0").rstrip(".") + "Gi"
        return f"{value / _MIB:.1f}".rstrip("0").rstrip(".") + "Mi"
    return str(value)


class Occupancy:
    """Each node's bound pods over time, as the decisions bound and ended them.

    A pod counts on its node from its binding (time and decision index) until
    it is gone: its deletion time (the end of its grace period) when it was
    preempted, evicted or deleted, its end when it succeeded or failed.
    """

    def __init__(self, result: Result) -> None:
        self.result = result
        self.spans: dict[str, list[list[Any]]] = {}
        self.times = [d.time for d in result.decisions]
        pods = result.state.pods
        open_spans: dict[str, list[Any]] = {}
        for i, d in enumerate(result.decisions):
            if d.kind in ("scheduled", "running") and d.node and "/" in d.pod:
                ps = pods.get(d.pod)
                req = ps.pod.requests if ps is not None else None
                span = [d.time, i, None, 0 if req is None else req.cpu,
                        0 if req is None else req.memory, d.pod]
                open_spans[d.pod] = span
                self.spans.setdefault(d.node, []).append(span)
            elif d.kind in _ENDS and d.pod in open_spans:
                span = open_spans.pop(d.pod)
                ps = pods.get(d.pod)
                gone = ps.deletion_time if (d.kind not in ("succeeded", "failed") and ps is not None
                                            and ps.deletion_time is not None) else d.time
                span[2] = max(d.time, gone)
        for key, span in open_spans.items():
            ps = pods.get(key)
            if ps is not None and ps.gone and ps.deletion_time is not None:
                span[2] = ps.deletion_time

    def used(self, node: str, time: int, before: int) -> tuple[int, int, int]:
        """cpu, memory and pods requested on ``node`` when decision ``before`` was made at
        ``time`` (bindings earlier than it, pods not gone by then)."""
        cpu = mem = count = 0
        for start, di, gone, c, m, _ in self.spans.get(node, ()):
            if (start < time or (start == time and di < before)) and (gone is None
                                                                       or gone > time):
                cpu += c
                mem += m
                count += 1
        return cpu, mem, count

    def index_at(self, time: int) -> int:
        """The decision index just past every decision made at ``time``."""
        return bisect_right(self.times, time)

    def why_not(self, pod: str, node: str, time: int, before: int) -> str:
        """``needs 2 cpu, 0.9 free of 4`` for each resource the pod is short of on
        ``node`` then (or of the resources it requests, when none is short here:
        pods nominated to the node hold their share in the scheduler's count)."""
        ps = self.result.state.pods.get(pod)
        ns = self.result.state.nodes.get(node)
        if ps is None or ns is None:
            return ""
        req, alloc = ps.pod.requests, ns.allocatable
        cpu, mem, count = self.used(node, time, before)
        rows = [("cpu", req.cpu, alloc.cpu - cpu, alloc.cpu),
                ("memory", req.memory, alloc.memory - mem, alloc.memory)]
        short = [r for r in rows if r[1] and r[1] > r[2]]
        parts = [f"needs {amount(n, q)} {n}, {amount(n, free)} free of {amount(n, a)}"
                 for n, q, free, a in (short or [r for r in rows if r[1]])]
        if count + 1 > alloc.pods:
            parts.insert(0, f"{count} of {alloc.pods} pods")
        text = "; ".join(parts)
        return text if short or not text else text + " (less what nominated pods hold)"


def end_state_data(result: Result, node: Any, pod: Any, s: Any) -> dict[str, Any]:
    """Pods by node at the end, and pending pods with their message and nominated node."""
    by_node: dict[str, list[int]] = {}
    pending: list[list[Any]] = []
    for ps in sorted((p for p in result.state.pods.values() if not p.gone),
                     key=lambda p: p.seq):
        if ps.node is not None:
            by_node.setdefault(ps.node, []).append(pod(ps.key))
        elif ps.phase not in ("Succeeded", "Failed"):
            pending.append([pod(ps.key), s(ps.schedule_message or "not scheduled yet"),
                            node(ps.nominated)])
    return {"nodes": [[node(n), pods] for n, pods in by_node.items()], "pending": pending}


def queue_data(result: Result, pod: Any, node: Any, s: Any) -> list[list[Any]]:
    """Per pod (first tried first) its attempts:
    ``[time, n, result, why, node, nominated, message, queue, [victims]]``."""
    per: dict[str, list[list[Any]]] = {}
    for a in result.attempts:
        per.setdefault(a.pod, []).append(
            [a.time, a.attempt, s(a.result), s(a.why), node(a.node), node(a.nominated),
             s(a.message), s(a.queue), [pod(v) for v in a.victims]])
    return [[pod(key), rows] for key, rows in per.items()]


def resources_data(result: Result, nodes: list[str], pods: list[str]) -> dict[str, Any]:
    """Allocatable cpu and memory per node, requests per pod (index order; None when
    the run no longer holds it: a node removed, for instance)."""
    state_nodes, state_pods = result.state.nodes, result.state.pods
    alloc = []
    for n in nodes:
        ns = state_nodes.get(n)
        alloc.append(None if ns is None else [ns.allocatable.cpu, ns.allocatable.memory])
    req = []
    for p in pods:
        ps = state_pods.get(p)
        req.append(None if ps is None else [ps.pod.requests.cpu, ps.pod.requests.memory])
    return {"alloc": alloc, "req": req, "end_text": format_duration(result.end_time)}
