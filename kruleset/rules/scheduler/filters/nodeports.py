"""NodePorts filter: the pod's host ports must be free on the node (seed 003 §1).

Upstream ``pkg/scheduler/framework/plugins/nodeports``.  The pods on the
node are those of the filter's
:class:`~kruleset.rules.scheduler.node_selection.Overlay` when one is in
force (pods hypothetically removed from or added to the node).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNSCHEDULABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..node_selection import node_pods
from ..paths import pod_shape

__all__: list[str] = []


def _node_ports_prepare(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> bool:
    return bool(pod.host_ports)


@rule(FILTERS, "scheduler.filter.NodePorts",
      doc="The pod's host ports (port and protocol) must be free on the node.",
      source="seed 003 §1; pkg/scheduler/framework/plugins/nodeports Filter",
      prepare=_node_ports_prepare, reads=Reads("ports", pod_shape))
def _node_ports(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                node: NodeState) -> Failure | None:
    if not pod.host_ports:
        return None
    wanted = set(pod.host_ports)
    for ps in node_pods(ctx, node):
        for hp in ps.pod.host_ports:
            if hp in wanted:
                return Failure("node(s) didn't have free ports for the requested pod ports",
                               UNSCHEDULABLE)
    return None
