"""What the two resource scores read of a node: ``(allocatable, requested, weight)`` per resource.

Shared by NodeResourcesFit's score (:mod:`.noderesourcesfit`, with the
scheduler's non-zero requests: 100m cpu / 200Mi memory for a container
requesting none) and NodeResourcesBalancedAllocation
(:mod:`.noderesourcesbalancedallocation`, with the real requests), as
upstream's ``noderesources`` package shares ``resource_allocation.go``
between them.  Requested is what the node's pods request plus what the pod
requests.  A resource the node does not have (allocatable 0) is left out,
and so is an extended resource the pod does not request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.resources import Resources
from kruleset.model.state import NodeState, Tally

from ..defaults import DEFAULT_RESOURCES

__all__ = ["default_weights", "resource_pairs", "scored_pairs", "scored_resources"]

_BASIC = ("cpu", "memory", "ephemeral-storage")


def resource_pairs(node: NodeState, pod_req: Resources, used: Tally,
                   resources: Sequence[tuple[str, int]]) -> list[tuple[int, int, int]]:
    """``(allocatable, requested incl. the pod, weight)`` per scored resource.

    Upstream ``calculateResourceAllocatableRequest``: resources with
    allocatable 0 and extended resources the pod does not request are left
    out.  ``used`` is the node's non-zero or real tally.  (Scores run on the
    real cluster only, never under a filter overlay.)
    """
    alloc = node.allocatable
    out = []
    for name, w in resources:
        r = pod_req.get(name)
        if r == 0 and name not in _BASIC:
            continue
        a = alloc.get(name)
        if a == 0:
            continue
        out.append((a, used.get(name) + r, w))
    return out


def _cpu_mem_pairs(node: NodeState, pod_req: Resources, used: Tally, wc: int, wm: int
                   ) -> list[tuple[int, int, int]]:
    # The default resources (cpu and memory), without the generic lookups.
    alloc = node.allocatable
    out = []
    if alloc.cpu:
        out.append((alloc.cpu, used.cpu + pod_req.cpu, wc))
    if alloc.memory:
        out.append((alloc.memory, used.memory + pod_req.memory, wm))
    return out


def scored_pairs(node: NodeState, pod_req: Resources, used: Tally,
          resources: Sequence[tuple[str, int]]) -> list[tuple[int, int, int]]:
    """:func:`resource_pairs`, taking a shorter way for the default resources (cpu, memory)."""
    if len(resources) == 2 and resources[0][0] == "cpu" and resources[1][0] == "memory":
        return _cpu_mem_pairs(node, pod_req, used, resources[0][1], resources[1][1])
    return resource_pairs(node, pod_req, used, resources)


def scored_resources(args: Mapping[str, Any]) -> Sequence[tuple[str, int]]:
    """The rule's ``resources`` arg (name, weight), or the default: cpu and memory, weight 1."""
    res: Sequence[tuple[str, int]] = args.get("resources") or DEFAULT_RESOURCES
    return res


def default_weights(args: Mapping[str, Any]) -> tuple[int, int] | None:
    """The weights of cpu and memory when they are exactly the scored resources, else None.

    The batch and vector forms answer that case with their own arithmetic.
    """
    res = scored_resources(args)
    if len(res) == 2 and res[0][0] == "cpu" and res[1][0] == "memory":
        return res[0][1], res[1][1]
    return None
