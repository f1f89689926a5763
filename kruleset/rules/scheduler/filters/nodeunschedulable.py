"""NodeUnschedulable filter: a cordoned node takes only pods that tolerate it (seed 003 §6.6).

Upstream ``pkg/scheduler/framework/plugins/nodeunschedulable``: a node with
``spec.unschedulable`` fails every pod without a toleration of the
``node.kubernetes.io/unschedulable:NoSchedule`` taint (the taint itself need
not be on the node).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.selectors import Taint
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNRESOLVABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..paths import pod_shape

__all__: list[str] = []

_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


def _node_unschedulable_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                            nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    # None: no node is cordoned, so every node passes.
    if not any(n.unschedulable for n in nodes):
        return None
    return [_node_unschedulable(ctx, args, pod, n) for n in nodes]


@rule(FILTERS, "scheduler.filter.NodeUnschedulable",
      doc="A cordoned node takes only pods tolerating node.kubernetes.io/unschedulable:NoSchedule.",
      source="seed 003 §6.6; pkg/scheduler/framework/plugins/nodeunschedulable",
      batch=_node_unschedulable_all, reads=Reads("node", pod_shape))
def _node_unschedulable(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                        node: NodeState) -> Failure | None:
    if not node.unschedulable:
        return None
    for t in pod.tolerations:
        if t.tolerates(_UNSCHEDULABLE_TAINT):
            return None
    return Failure("node(s) were unschedulable", UNRESOLVABLE)
