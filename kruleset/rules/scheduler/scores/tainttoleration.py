"""TaintToleration score: fewer untolerated PreferNoSchedule taints score higher.

Seed 003 §6.2-6.3; upstream ``pkg/scheduler/framework/plugins/tainttoleration`` (Score,
NormalizeScore reversed); its filter is
:mod:`kruleset.rules.scheduler.filters.tainttoleration`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import SCORES
from .normalize import reversed_normalized

__all__: list[str] = []


def _taint_score_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                     nodes: Sequence[NodeState]) -> list[int]:
    return [_taint_score(ctx, args, pod, n) if n.taints else 0 for n in nodes]


@rule(SCORES, "scheduler.score.TaintToleration",
      doc="Fewer untolerated PreferNoSchedule taints score higher.",
      source="seed 003 §6.2-6.3; pkg/scheduler/framework/plugins/tainttoleration Score",
      normalize=reversed_normalized,
      batch=_taint_score_all)
def _taint_score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    if not node.taints:
        return 0
    # Only tolerations with an empty or PreferNoSchedule effect count (upstream
    # getAllTolerationPreferNoSchedule).
    tols = [t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule")]
    n = 0
    for taint in node.taints:
        if taint.effect != "PreferNoSchedule":
            continue
        if not any(t.tolerates(taint) for t in tols):
            n += 1
    return n
