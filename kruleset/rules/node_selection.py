"""Which nodes the filters run on, and in what order (findNodesThatFitPod).

Upstream stops filtering once it has found ``numFeasibleNodesToFind`` nodes
(percentageOfNodesToScore, seed 003 §9) and starts where the previous cycle
stopped.  This first version filters every node in declaration order; the
adaptive percentage arrives with the scheduling rule set (issue: scheduling).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.objects import Pod
from ..model.state import NodeState
from .engine import Failure
from .scheduling import FILTERS

__all__ = ["find_feasible"]


def find_feasible(
    ctx: Any, pod: Pod, nodes: Sequence[NodeState]
) -> tuple[list[NodeState], dict[str, Failure]]:
    """Run the filters on ``nodes``: the feasible ones, and each other node's failure."""
    active = ctx.profile.active(FILTERS.name)
    rules = [(a.rule.fn, a.args, a.rule.name) for a in active.rules]
    trace = ctx.trace
    feasible: list[NodeState] = []
    failures: dict[str, Failure] = {}
    for node in nodes:
        for fn, args, name in rules:
            f = fn(ctx, args, pod, node)
            if f is not None:
                if not f.rule:
                    f = Failure(f.reason, f.code, name, f.detail)
                failures[node.name] = f
                if trace is not None:
                    trace.add(name, f"{pod.key} on {node.name}", "fail", f.reason)
                break
            if trace is not None:
                trace.add(name, f"{pod.key} on {node.name}", "pass")
        else:
            feasible.append(node)
    return feasible, failures
