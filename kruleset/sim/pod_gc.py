"""Deleting a Node object, and what the pod garbage collector then does to its pods.

Upstream (``pkg/controller/podgc/gc_controller.go`` ``gcOrphaned``): pods
bound to a node that no longer exists are marked Failed with the condition
DisruptionTarget (reason ``DeletionByPodGC``, message "PodGC: node no longer
exists") and force-deleted (grace period 0); PDBs are not consulted.

kruleset's timing: the collector acts in the same instant as the deletion.
Upstream it first quarantines an unknown node name for 40 s and runs every
20 s, so the pods go 40 to 60 s later; pinning a timer that depends on when
the controller-manager started would make results depend on it too.
"""

from __future__ import annotations

from ..model.state import FAILED, SUCCEEDED, NodeState, PodState
from ..rules.controllers.outcome import outcome
from ..rules.scheduler.node_selection import invalidate_node_order
from .core import Simulation

__all__ = ["POD_GC_MESSAGE", "POD_GC_REASON", "collect_orphans", "delete_node"]

POD_GC_REASON = "DeletionByPodGC"
POD_GC_MESSAGE = "PodGC: node no longer exists"


def collect_orphans(sim: Simulation, node: NodeState, rule: str,
                    pods: list[PodState] | None = None) -> int:
    """``gcOrphaned`` for one node: every pod bound there (or ``pods``) is marked Failed
    and force-deleted."""
    count = 0
    for ps in sorted(node.pods.values() if pods is None else pods, key=lambda p: p.key):
        ps.conditions["DisruptionTarget"] = POD_GC_REASON
        if ps.phase not in (FAILED, SUCCEEDED):
            ps.phase = FAILED
        if ps.terminating:
            ps.deletion_time = sim.now
            sim.record("deleted", ps, node.name, "pod-gc", POD_GC_REASON, POD_GC_MESSAGE, (rule,))
            sim._finish(ps)  # its grace period is cut short: nothing is left to run it
        else:
            sim.terminate(ps, "deleted", by="pod-gc", reason=POD_GC_REASON,
                          message=POD_GC_MESSAGE, grace=0, rules=(rule,))
        count += 1
    return count


def delete_node(sim: Simulation, name: str, by: str, why: str, rule: str) -> int:
    """Delete the Node ``name`` now and collect its pods; returns how many went with it."""
    state = sim.state
    node = state.nodes.get(name)
    if node is None:
        sim.record("ignored", name, name, "", "NotFound", f'nodes "{name}" not found')
        return 0
    from ..rules.controllers.podgc import ORPHANED

    sim.record("node-deleted", name, name, by, "NodeDeleted", why, (rule,))
    doomed = [ps for ps in node.pods.values()
              if outcome(sim, ORPHANED, False, ps.key, -1) >= 0]
    removed = collect_orphans(sim, node, "controllers.podgc.orphaned", doomed)
    state.drop_node(name)
    invalidate_node_order(state)
    state.new_epoch()
    sim.changed()
    return removed
