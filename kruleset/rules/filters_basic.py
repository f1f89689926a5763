"""The basic filters: NodeUnschedulable, NodeName, NodeResourcesFit (seed 003 §1-3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.objects import Pod
from ..model.selectors import Taint
from ..model.state import NodeState
from .engine import UNRESOLVABLE, UNSCHEDULABLE, Failure
from .registry import rule
from .scheduling import FILTERS

__all__ = ["insufficient_resources"]

_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


@rule(FILTERS, "scheduler.filter.NodeUnschedulable",
      doc="A cordoned node takes only pods tolerating node.kubernetes.io/unschedulable:NoSchedule.",
      source="seed 003 §6.6; pkg/scheduler/framework/plugins/nodeunschedulable")
def _node_unschedulable(ctx: Any, args: Mapping[str, Any], pod: Pod,
                        node: NodeState) -> Failure | None:
    if not node.unschedulable:
        return None
    for t in pod.tolerations:
        if t.tolerates(_UNSCHEDULABLE_TAINT):
            return None
    return Failure("node(s) were unschedulable", UNRESOLVABLE)


@rule(FILTERS, "scheduler.filter.NodeName",
      doc="A pod with spec.nodeName fits only that node.",
      source="seed 003 §2.4; pkg/scheduler/framework/plugins/nodename")
def _node_name(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> Failure | None:
    if pod.node_name and pod.node_name != node.name:
        return Failure("node(s) didn't match the requested node name", UNRESOLVABLE)
    return None


def insufficient_resources(pod: Pod, node: NodeState, ignored: frozenset[str] = frozenset()
                           ) -> list[tuple[str, int, int, int]]:
    """Each short resource as ``(name, requested, used, allocatable)``, in upstream's order.

    The pod count is always checked; a pod requesting nothing else stops there.
    Equality fits.
    """
    alloc, used, req = node.allocatable, node.requested, pod.requests
    out: list[tuple[str, int, int, int]] = []
    if used.pods + 1 > alloc.pods:
        out.append(("pods", 1, used.pods, alloc.pods))
    if not (req.cpu or req.memory or req.ephemeral_storage or req.scalars):
        return out
    if req.cpu and req.cpu > alloc.cpu - used.cpu:
        out.append(("cpu", req.cpu, used.cpu, alloc.cpu))
    if req.memory and req.memory > alloc.memory - used.memory:
        out.append(("memory", req.memory, used.memory, alloc.memory))
    if req.ephemeral_storage and req.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage:
        out.append(("ephemeral-storage", req.ephemeral_storage, used.ephemeral_storage,
                    alloc.ephemeral_storage))
    for name, q in req.scalars:
        if q == 0 or name in ignored:
            continue
        a, u = alloc.get(name), used.scalars.get(name, 0)
        if q > a - u:
            out.append((name, q, u, a))
    return out


@rule(FILTERS, "scheduler.filter.NodeResourcesFit",
      doc="The pod's requests (init-container max, sidecars, overhead) must fit the node's "
          "free allocatable; a request above allocatable is unresolvable.",
      source="seed 003 §3, §10; pkg/scheduler/framework/plugins/noderesources/fit.go",
      args={"ignoredResources": ()})
def _node_resources_fit(ctx: Any, args: Mapping[str, Any], pod: Pod,
                        node: NodeState) -> Failure | None:
    short = insufficient_resources(pod, node, frozenset(args.get("ignoredResources") or ()))
    if not short:
        return None
    reasons = ["Too many pods" if n == "pods" else f"Insufficient {n}" for n, *_ in short]
    unresolvable = any(n != "pods" and q > a for n, q, _, a in short)
    return Failure(reasons[0], UNRESOLVABLE if unresolvable else UNSCHEDULABLE,
                   detail={"reasons": reasons, "short": short})
