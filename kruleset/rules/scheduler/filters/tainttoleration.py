"""TaintToleration filter: every NoSchedule and NoExecute taint must be tolerated.

Seed 003 §6.1-6.3; upstream
``pkg/scheduler/framework/plugins/tainttoleration`` (Filter); its score is
:mod:`kruleset.rules.scheduler.scores.tainttoleration`.
:func:`find_untolerated_taint` is also PodTopologySpread's nodeTaintsPolicy
Honor and the DaemonSet controller's check of which nodes get a daemon pod.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.selectors import Taint, Toleration
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNRESOLVABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..paths import pod_shape

__all__ = ["find_untolerated_taint"]

_FILTER_EFFECTS = ("NoSchedule", "NoExecute")
_UNTOLERATED = "node(s) had untolerated taint(s)"


def find_untolerated_taint(taints: Iterable[Taint], tolerations: Sequence[Toleration],
                           effects: tuple[str, ...] = _FILTER_EFFECTS) -> Taint | None:
    """The first taint with one of ``effects`` that no toleration tolerates.

    Upstream ``FindMatchingUntoleratedTaint`` with the DoNotSchedule filter
    (NoSchedule and NoExecute); PreferNoSchedule is only scored.
    """
    for taint in taints:
        if taint.effect not in effects:
            continue
        for tol in tolerations:
            if tol.tolerates(taint):
                break
        else:
            return taint
    return None


def _taint_toleration_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                          nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    # None: no node is tainted, so every node passes.
    if not any(n.taints for n in nodes):
        return None
    return [_taint_toleration(ctx, args, pod, n) if n.taints else None for n in nodes]


@rule(FILTERS, "scheduler.filter.TaintToleration",
      doc="Every NoSchedule and NoExecute taint of the node must be tolerated "
          "(PreferNoSchedule only scores).",
      source="seed 003 §6.1-6.3; pkg/scheduler/framework/plugins/tainttoleration Filter",
      batch=_taint_toleration_all, reads=Reads("node", pod_shape))
def _taint_toleration(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                      node: NodeState) -> Failure | None:
    if not node.taints:
        return None
    taint = find_untolerated_taint(node.taints, pod.tolerations)
    if taint is None:
        return None
    # v1.35 names no taint (older releases said "untolerated taint {key: value}"),
    # so nodes failing for different taints count as one reason in the message.
    return Failure(_UNTOLERATED, UNRESOLVABLE, detail={"taint": str(taint)})
