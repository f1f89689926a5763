"""SchedulingGates: a pod with scheduling gates is not queued until they are all removed.

Seed 003 §4; upstream ``pkg/scheduler/framework/plugins/schedulinggates`` (PreEnqueue):
the pod stays SchedulingGated, and is never tried, while
``spec.schedulingGates`` lists any gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.model.objects import Pod
from kruleset.rules.engine import UNRESOLVABLE, Failure
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import PREENQUEUE

__all__: list[str] = []


@rule(PREENQUEUE, "scheduler.preenqueue.SchedulingGates",
      doc="A pod with schedulingGates stays SchedulingGated until every gate is removed.",
      source="seed 003 §4; pkg/scheduler/framework/plugins/schedulinggates")
def _gates(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    if pod.gates:
        return Failure(f"waiting for scheduling gates: [{' '.join(pod.gates)}]", UNRESOLVABLE,
                       detail={"gated": True})
    return None
