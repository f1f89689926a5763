"""The pod garbage collector's decision on orphaned pods (``pkg/controller/podgc``, v1.35).

``gcOrphaned``: a pod bound to a node that no longer exists is marked Failed
with the condition DisruptionTarget (reason ``DeletionByPodGC``) and
force-deleted (grace period 0); PodDisruptionBudgets are not consulted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..context import Unread
from ..engine import Stop
from ..registry import define_ruleset, rule

__all__ = ["ORPHANED"]

ORPHANED = define_ruleset(
    "controllers.podgc", "pipeline",
    "What the pod garbage collector does with a pod whose node is gone.")


@rule(ORPHANED, "controllers.podgc.orphaned",
      doc="A pod bound to a node that no longer exists is marked Failed (DisruptionTarget, "
          "DeletionByPodGC) and force-deleted.",
      source="pkg/controller/podgc/gc_controller.go gcOrphaned, "
             "markFailedAndDeletePodWithCondition")
def _orphaned(ctx: Unread, args: Mapping[str, Any], node_exists: bool) -> Any:
    if node_exists:
        return None
    return Stop(0, "node no longer exists: force-delete (grace 0)")
