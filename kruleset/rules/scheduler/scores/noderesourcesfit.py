"""NodeResourcesFit score: its scoring strategies, weighted per resource (seed 003 §10).

Upstream ``pkg/scheduler/framework/plugins/noderesources`` (fit.go's Score,
least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go); its
filter is :mod:`kruleset.rules.scheduler.filters.noderesourcesfit`.  The
strategies read each resource's ``(allocatable, requested, weight)``
(:mod:`.resource_pairs`) with the scheduler's non-zero requests:

* LeastAllocated: ``(alloc - req) * 100 // alloc`` (0 when over), weighted
  mean ``sum(score * w) // sum(w)``.
* MostAllocated: ``min(req, alloc) * 100 // alloc``, the same weighted mean.
* RequestedToCapacityRatio: utilisation ``req * 100 // alloc`` (100 when
  over), through the broken-linear ``shape`` (scores given 0-10, scaled by
  10), weighted mean over the resources scoring above 0, rounded to nearest
  (Go ``math.Round``).

No normalisation: scores are already 0-100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..defaults import DEFAULT_SHAPE
from ..framework import SCORES
from .normalize import MAX_NODE_SCORE
from .resource_pairs import default_weights, scored_pairs, scored_resources

__all__ = [
    "broken_linear",
    "least_allocated",
    "most_allocated",
    "requested_to_capacity_ratio",
]

MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100


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


def _fit_score_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                   nodes: Sequence[NodeState]) -> list[int]:
    weights = default_weights(args)
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


@rule(SCORES, "scheduler.score.NodeResourcesFit",
      doc="scoringStrategy LeastAllocated (default: prefer free nodes), MostAllocated (bin "
          "packing) or RequestedToCapacityRatio (a shape of utilisation), weighted per resource.",
      source="seed 003 §10; pkg/scheduler/framework/plugins/noderesources "
             "(least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go)",
      batch=_fit_score_all)
def _fit_score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    pairs = scored_pairs(node, pod.nonzero_requests, node.nonzero, scored_resources(args))
    kind = args.get("type") or "LeastAllocated"
    if kind == "MostAllocated":
        return most_allocated(pairs)
    if kind == "RequestedToCapacityRatio":
        return requested_to_capacity_ratio(pairs, tuple(args.get("shape") or DEFAULT_SHAPE))
    return least_allocated(pairs)


# --- batch form (one call per cycle; the same integer arithmetic) --------------------------
