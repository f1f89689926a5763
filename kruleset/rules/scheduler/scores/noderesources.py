"""Resource scores: NodeResourcesFit's strategies and BalancedAllocation (seed 003 §10).

Upstream ``pkg/scheduler/framework/plugins/noderesources``:

* Each configured resource contributes ``(allocatable, requested)`` where
  requested = what the node's pods request + what the pod requests.  The fit
  strategies use the scheduler's non-zero requests (100m cpu / 200Mi memory
  for a container requesting none); BalancedAllocation uses the real ones.
  A resource the node does not have (allocatable 0) is left out, and so is
  an extended resource the pod does not request.
* LeastAllocated: ``(alloc - req) * 100 // alloc`` (0 when over), weighted
  mean ``sum(score * w) // sum(w)``.
* MostAllocated: ``min(req, alloc) * 100 // alloc``, the same weighted mean.
* RequestedToCapacityRatio: utilisation ``req * 100 // alloc`` (100 when
  over), through the broken-linear ``shape`` (scores given 0-10, scaled by
  10), weighted mean over the resources scoring above 0, rounded to nearest
  (Go ``math.Round``).
* BalancedAllocation: ``int((1 - std) * 100)`` of the fractions
  ``min(req / alloc, 1)`` (floats, as upstream); skipped for pods that
  request nothing.

None of them normalise: scores are already 0-100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.resources import Resources
from kruleset.model.state import NodeState, Tally
from kruleset.rules.registry import rule

from ..cycle import register_batch_score
from ..defaults import DEFAULT_RESOURCES, DEFAULT_SHAPE
from ..framework import SCORES

__all__ = [
    "MAX_NODE_SCORE",
    "balanced_score",
    "broken_linear",
    "least_allocated",
    "most_allocated",
    "requested_to_capacity_ratio",
    "resource_pairs",
]

MAX_NODE_SCORE = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100
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


def _pairs(node: NodeState, pod_req: Resources, used: Tally,
           resources: Sequence[tuple[str, int]]) -> list[tuple[int, int, int]]:
    if len(resources) == 2 and resources[0][0] == "cpu" and resources[1][0] == "memory":
        return _cpu_mem_pairs(node, pod_req, used, resources[0][1], resources[1][1])
    return resource_pairs(node, pod_req, used, resources)


def least_allocated(pairs: Sequence[tuple[int, int, int]]) -> int:
    """LeastAllocated over ``(allocatable, requested, weight)``."""
    score = total = 0
    for a, r, w in pairs:
        s = 0 if r > a else (a - r) * MAX_NODE_SCORE // a
        score += s * w
        total += w
    return score // total if total else 0


def most_allocated(pairs: Sequence[tuple[int, int, int]]) -> int:
    """MostAllocated over ``(allocatable, requested, weight)``; requests cap at allocatable."""
    score = total = 0
    for a, r, w in pairs:
        s = min(r, a) * MAX_NODE_SCORE // a
        score += s * w
        total += w
    return score // total if total else 0


def broken_linear(shape: Sequence[tuple[int, int]], p: int) -> int:
    """Upstream ``BuildBrokenLinearFunction``: integer interpolation between shape points."""
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return s
            u0, s0 = shape[i - 1]
            return s0 + _go_div((s - s0) * (p - u0), u - u0)
    return shape[-1][1]


def _go_div(a: int, b: int) -> int:
    # Go's integer division truncates toward zero (a decreasing shape gives negatives).
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _go_round(x: float) -> int:
    # math.Round: half away from zero.
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def requested_to_capacity_ratio(pairs: Sequence[tuple[int, int, int]],
                                shape: Sequence[tuple[int, int]], scale: int = 10) -> int:
    """RequestedToCapacityRatio with ``shape`` points ``(utilisation, score 0-10)``.

    ``scale`` multiplies the shape's scores (upstream: MaxNodeScore /
    MaxCustomPriorityScore = 10).  With ``scale=1`` the result is on the
    document's 0-10 scale (seed 003 §10's worked example: 5 and 7).
    """
    scaled = [(u, s * scale) for u, s in shape]
    score = total = 0
    for a, r, w in pairs:
        util = MAX_UTILIZATION if r > a else r * MAX_UTILIZATION // a
        s = broken_linear(scaled, util)
        if s > 0:
            score += s * w
            total += w
    return _go_round(score / total) if total else 0


def balanced_score(pairs: Sequence[tuple[int, int, int]]) -> int:
    """BalancedAllocation: ``int((1 - std) * 100)`` of the used fractions (floats, as upstream)."""
    fractions = []
    for a, r, _ in pairs:
        f = float(r) / float(a)
        fractions.append(1.0 if f > 1 else f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / float(len(fractions))
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE))


def _resources(args: Mapping[str, Any]) -> Sequence[tuple[str, int]]:
    res: Sequence[tuple[str, int]] = args.get("resources") or DEFAULT_RESOURCES
    return res


@rule(SCORES, "scheduler.score.NodeResourcesFit",
      doc="scoringStrategy LeastAllocated (default: prefer free nodes), MostAllocated (bin "
          "packing) or RequestedToCapacityRatio (a shape of utilisation), weighted per resource.",
      source="seed 003 §10; pkg/scheduler/framework/plugins/noderesources "
             "(least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go)")
def _fit_score(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    pairs = _pairs(node, pod.nonzero_requests, node.nonzero, _resources(args))
    kind = args.get("type") or "LeastAllocated"
    if kind == "MostAllocated":
        return most_allocated(pairs)
    if kind == "RequestedToCapacityRatio":
        return requested_to_capacity_ratio(pairs, tuple(args.get("shape") or DEFAULT_SHAPE))
    return least_allocated(pairs)


@rule(SCORES, "scheduler.score.NodeResourcesBalancedAllocation",
      doc="Prefer nodes whose resource fractions stay balanced after placing the pod "
          "(skipped for pods requesting nothing).",
      source="pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go")
def _balanced(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    resources = _resources(args)
    req = pod.requests
    if all(req.get(name) == 0 for name, _ in resources):
        return 0
    return balanced_score(_pairs(node, req, node.requested, resources))


# --- batch forms (one call per cycle; the same integer and float arithmetic) ---------------

def _default_resources(args: Mapping[str, Any]) -> tuple[int, int] | None:
    res = _resources(args)
    if len(res) == 2 and res[0][0] == "cpu" and res[1][0] == "memory":
        return res[0][1], res[1][1]
    return None


@register_batch_score(_fit_score)
def _fit_score_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                   nodes: Sequence[NodeState]) -> list[int]:
    weights = _default_resources(args)
    kind = args.get("type") or "LeastAllocated"
    if weights is None or kind != "LeastAllocated":
        return [_fit_score(ctx, args, pod, n) for n in nodes]
    wc, wm = weights
    req = pod.nonzero_requests
    rc, rm = req.cpu, req.memory
    out: list[int] = []
    append = out.append
    for n in nodes:
        alloc = n.node.allocatable
        used = n.nonzero
        ac, am = alloc.cpu, alloc.memory
        if ac and am:
            r1 = used.cpu + rc
            r2 = used.memory + rm
            s1 = 0 if r1 > ac else (ac - r1) * 100 // ac
            s2 = 0 if r2 > am else (am - r2) * 100 // am
            append((s1 * wc + s2 * wm) // (wc + wm))
        else:
            append(_fit_score(ctx, args, pod, n))
    return out


@register_batch_score(_balanced)
def _balanced_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                  nodes: Sequence[NodeState]) -> list[int]:
    resources = _resources(args)
    req = pod.requests
    if all(req.get(name) == 0 for name, _ in resources):
        return [0] * len(nodes)
    if _default_resources(args) is None:
        return [_balanced(ctx, args, pod, n) for n in nodes]
    rc, rm = req.cpu, req.memory
    out: list[int] = []
    append = out.append
    for n in nodes:
        alloc = n.node.allocatable
        used = n.requested
        ac, am = alloc.cpu, alloc.memory
        if ac and am:
            # float64 operands, then divide, as upstream (exact below 2**53).
            fc = float(used.cpu + rc) / float(ac)
            fm = float(used.memory + rm) / float(am)
            if fc > 1:
                fc = 1.0
            if fm > 1:
                fm = 1.0
            d = (fc - fm) / 2
            append(int((1 - (d if d >= 0 else -d)) * 100.0))
        else:
            append(balanced_score(_pairs(n, req, used, resources)))
    return out
