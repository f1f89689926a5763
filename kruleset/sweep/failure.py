"""Removing a node or a zone from a running simulation, as deleting its Node objects would.

What upstream does when a Node object is deleted (the machine is gone):

* the scheduler drops the node from its snapshot at once: nothing is
  scheduled there again, and its pods stop counting for topology spread and
  inter-pod affinity;
* the pod garbage collector (``pkg/controller/podgc``, ``gcOrphaned``) finds
  pods bound to a node that no longer exists (``sim/pod_gc.py``), marks them Failed with the
  condition DisruptionTarget (reason ``DeletionByPodGC``, message "PodGC:
  node no longer exists") and force-deletes them (grace period 0).  PDBs are
  not consulted: this is not an eviction;
* controllers replace what they own: a Deployment's ReplicaSet creates new
  pods, which the scheduler places on the remaining nodes or leaves pending;
  a naked pod, a DaemonSet pod or a static pod is simply gone.

kruleset's choice: the pod garbage collector acts in the same instant as the
deletion.  Upstream it first quarantines an unknown node name for 40 s and
runs every 20 s, so replacements appear 40 to 60 s later; nothing else
differs, and pinning a timer that depends on when the controller-manager
started would make results depend on it too.  Pods on the node that were
already terminating are force-deleted too.  Pods nominated to the node lose
their nomination.  The removal is reported as a ``node-deleted`` decision for
the node and a ``deleted`` decision (by ``pod-gc``) for every pod.

Timeline statements that name a removed node later (``cordon``, ``taint``,
``drain``, ``usage node`` …) are answered as the API answers an unknown
node: an ``ignored`` decision with reason ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..rules.scheduler.node_selection import invalidate_node_order
from ..sim.core import Simulation
from ..sim.pod_gc import POD_GC_MESSAGE, POD_GC_REASON, collect_orphans

__all__ = ["POD_GC_MESSAGE", "POD_GC_REASON", "ZONE_LABELS", "remove_nodes", "zone_of",
           "zones"]

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REMOVED = "sweep.removed-nodes"


def zone_of(labels: Any) -> str | None:
    """The node's zone label (the GA key first, then the beta one), or None."""
    for key in ZONE_LABELS:
        value = labels.get(key)
        if value is not None:
            return str(value)
    return None


def zones(nodes: Iterable[Any]) -> dict[str, list[str]]:
    """Zone -> names of its nodes, zones in the order their first node was declared."""
    out: dict[str, list[str]] = {}
    for node in nodes:
        z = zone_of(node.labels)
        if z is not None:
            out.setdefault(z, []).append(node.name)
    return out


def remove_nodes(sim: Simulation, names: Iterable[str], why: str) -> int:
    """Delete the Node objects ``names`` now; returns how many pods went with them."""
    removed = 0
    state = sim.state
    gone: set[str] = sim.extra.setdefault(REMOVED, set())
    for name in names:
        node = state.nodes.get(name)
        if node is None:
            continue
        sim.record("node-deleted", name, name, "sweep", "NodeDeleted", why, ("sweep.fail",))
        removed += collect_orphans(sim, node, "sweep.fail.pod-gc")
        state.drop_node(name)
        gone.add(name)
    invalidate_node_order(state)
    state.new_epoch()
    sim.wildcard_event("nodes failed: " + ", ".join(sorted(names)))
    sim.changed()
    return removed


def guard_removed(sim: Simulation) -> None:
    """Answer timeline statements about removed nodes with NotFound instead of running them."""
    original = sim._apply

    def apply(event: Any) -> None:
        node = getattr(event.action, "node", None)
        gone = sim.extra.get(REMOVED)
        if gone and isinstance(node, str) and node in gone and node not in sim.state.nodes:
            sim.record("ignored", node, node, "", "NotFound", f'nodes "{node}" not found')
            return
        original(event)

    sim._apply = apply  # type: ignore[method-assign]
