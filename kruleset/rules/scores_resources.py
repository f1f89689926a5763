"""NodeResourcesFit scoring strategies (seed 003 §10)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.objects import Pod
from ..model.state import NodeState
from .registry import rule
from .scheduling import SCORES

MAX_NODE_SCORE = 100


@rule(SCORES, "scheduler.score.NodeResourcesFit",
      doc="LeastAllocated by default: prefer nodes with more free cpu and memory "
          "(non-zero request defaults 100m / 200Mi for pods that request none).",
      source="seed 003 §10; pkg/scheduler/framework/plugins/noderesources/least_allocated.go",
      args={"type": "LeastAllocated", "resources": (("cpu", 1), ("memory", 1))},
      weight=1)
def _fit_score(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    total_w = 0
    score = 0
    alloc, used, req = node.allocatable, node.nonzero, pod.nonzero_requests
    for name, w in args["resources"]:
        a = alloc.get(name)
        r = used.get(name) + req.get(name)
        if a == 0:
            s = 0
        elif r > a:
            s = 0
        else:
            s = (a - r) * MAX_NODE_SCORE // a
        score += s * w
        total_w += w
    return score // total_w if total_w else 0
