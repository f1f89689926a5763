"""NodeResourcesBalancedAllocation score: prefer nodes whose resources stay balanced.

Upstream ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go``:
``int((1 - std) * 100)`` of the fractions ``min(req / alloc, 1)`` (floats, as
upstream) of each resource's ``(allocatable, requested)``
(:mod:`.resource_pairs`, with the real requests, not the scheduler's non-zero
ones); 0 for pods that request none of the scored resources.  No
normalisation: scores are already 0-100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import SCORES
from .normalize import MAX_NODE_SCORE
from .resource_pairs import default_weights, scored_pairs, scored_resources

__all__ = ["balanced_score"]


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


def _balanced_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                  nodes: Sequence[NodeState]) -> list[int]:
    resources = scored_resources(args)
    req = pod.requests
    if all(req.get(name) == 0 for name, _ in resources):
        return [0] * len(nodes)
    if default_weights(args) is None:
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
            append(balanced_score(scored_pairs(n, req, used, resources)))
    return out


@rule(SCORES, "scheduler.score.NodeResourcesBalancedAllocation",
      doc="Prefer nodes whose resource fractions stay balanced after placing the pod "
          "(skipped for pods requesting nothing).",
      source="pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go",
      batch=_balanced_all)
def _balanced(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    resources = scored_resources(args)
    req = pod.requests
    if all(req.get(name) == 0 for name, _ in resources):
        return 0
    return balanced_score(scored_pairs(node, req, node.requested, resources))


# --- batch form (one call per cycle; the same float arithmetic) ----------------------------
