"""NodeName filter: a pod naming a node in ``spec.nodeName`` fits only that node (seed 003 §2.4).

Upstream ``pkg/scheduler/framework/plugins/nodename``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNRESOLVABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..paths import pod_shape

__all__: list[str] = []


def _node_name_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                   nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    # None: the pod names no node, so every node passes.
    if not pod.node_name:
        return None
    return [_node_name(ctx, args, pod, n) for n in nodes]


@rule(FILTERS, "scheduler.filter.NodeName",
      doc="A pod with spec.nodeName fits only that node.",
      source="seed 003 §2.4; pkg/scheduler/framework/plugins/nodename",
      batch=_node_name_all, reads=Reads("node", pod_shape))
def _node_name(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
               node: NodeState) -> Failure | None:
    if pod.node_name and pod.node_name != node.name:
        return Failure("node(s) didn't match the requested node name", UNRESOLVABLE)
    return None
