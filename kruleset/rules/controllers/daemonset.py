"""The DaemonSet controller's rolling update (``pkg/controller/daemon/update.go``, v1.35).

``updatedDesiredNodeCounts`` turns ``maxSurge`` and ``maxUnavailable`` into
numbers of nodes (percentages of the nodes that should run the daemon,
rounded up; both 0 makes maxUnavailable 1).  ``rollingUpdate`` then walks the
nodes (upstream's map order is random; kruleset walks them in the cluster's
node order) with each node's old and new pod (``findUpdatedPodsOnNode``):

* without surge, an old pod that is not available is replaced at once and
  counts as unavailable; an available old pod is a candidate while fewer
  than maxUnavailable nodes are unavailable; the first
  ``maxUnavailable - unavailable`` candidates are deleted, and the manage
  loop creates the new pod once the old one is gone;
* with surge, a new pod is created beside an old pod that is not available,
  and beside up to ``maxSurge - surging`` available old pods; an old pod is
  deleted once the new pod on its node is available.

OnDelete replaces nothing: the manage loop creates the new template's pod on
a node whose pod was deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..context import Unread
from ..engine import Stop
from ..registry import define_ruleset, rule

__all__ = ["MANAGE", "ROLLING", "NodeManage", "NodePods", "RollingView", "Plan",
           "backoff_left", "desired_node_counts", "next_backoff", "scaled"]

MANAGE = define_ruleset(
    "controllers.daemonset.manage", "pipeline",
    "What the DaemonSet controller does on one node: create its pod, delete a failed or "
    "misscheduled one, or wait.")

ROLLING = define_ruleset(
    "controllers.daemonset.rolling-update", "pipeline",
    "Which old daemon pods a DaemonSet's update deletes now and on which nodes it surges.")

_SRC = "pkg/controller/daemon/update.go"
_DAEMON = "pkg/controller/daemon/daemon_controller.go"


@attrs.frozen(slots=True)
class NodeManage:
    """One node as ``podsShouldBeOnNode`` sees it."""

    should_run: bool       # NodeShouldRunDaemonPod: fits and tolerates NoSchedule/NoExecute
    may_stay: bool         # shouldContinueRunning: tolerates the NoExecute taints
    live: int              # pods not terminating and not Failed
    terminating: int
    failed: int
    backoff_left: int = 0  # ms left of the node's failed-pod backoff


FAILED_BACKOFF = 1_000          # ms: the controller's failedPodsBackoff starts at 1 s …
MAX_FAILED_BACKOFF = 900_000    # … and doubles up to 15 minutes


def backoff_left(record: tuple[int, int] | None, now: int) -> int:
    """``IsInBackOffSinceUpdate``: ms left of a (last update, backoff) record, 0 when none."""
    if record is None:
        return 0
    last, backoff = record
    return backoff - (now - last) if now - last < backoff else 0


def next_backoff(record: tuple[int, int] | None, now: int) -> tuple[int, int]:
    """``Backoff.Next`` (without jitter): 1 s, doubled while failures keep coming, at most
    15 minutes; a record older than twice the maximum starts again."""
    if record is None or now - record[0] > 2 * MAX_FAILED_BACKOFF:
        return now, FAILED_BACKOFF
    return now, min(2 * record[1], MAX_FAILED_BACKOFF)


@rule(MANAGE, "controllers.daemonset.manage.misscheduled",
      doc="Pods on a node the daemon may no longer run on (affinity, untolerated NoExecute "
          "taint) are deleted.",
      source=f"{_DAEMON} podsShouldBeOnNode (!shouldContinueRunning && exists)")
def _misscheduled(ctx: Unread, args: Mapping[str, Any], n: NodeManage) -> Any:
    if not n.should_run and not n.may_stay and n.live:
        return Stop("delete-all", "misscheduled")
    return None


@rule(MANAGE, "controllers.daemonset.manage.failed",
      doc="A Failed daemon pod is deleted, to be replaced, unless the node's failed-pod "
          "backoff (1 s doubling to 15 min) is still running.",
      source=f"{_DAEMON} podsShouldBeOnNode (pod.Status.Phase == PodFailed, "
             "failedPodsBackoff.IsInBackOffSinceUpdate, Next)")
def _failed(ctx: Unread, args: Mapping[str, Any], n: NodeManage) -> Any:
    if n.should_run and n.failed:
        if n.backoff_left > 0:
            return Stop("wait", f"failed pod: backoff, {n.backoff_left} ms left")
        return Stop("delete-failed", "failed pod")
    return None


@rule(MANAGE, "controllers.daemonset.manage.create",
      doc="A node that should run the daemon and has no pod (none terminating) gets one.",
      source=f"{_DAEMON} podsShouldBeOnNode (shouldRun && !exists), syncNodes")
def _create(ctx: Unread, args: Mapping[str, Any], n: NodeManage) -> Any:
    if n.should_run and n.live == 0:
        return Stop("wait" if n.terminating else "create",
                    "old pod terminating" if n.terminating else "no pod")
    return None


@attrs.frozen(slots=True)
class NodePods:
    """One node's daemon pods by revision: ``old``/``new`` exist, and whether available."""

    node: str
    old: bool
    old_available: bool
    new: bool
    new_available: bool
    ok: bool = True  # findUpdatedPodsOnNode: at most one old and one new pod


@attrs.frozen(slots=True)
class RollingView:
    """The nodes that should run the daemon, with the resolved budgets."""

    strategy: str
    max_surge: int
    max_unavailable: int
    nodes: tuple[NodePods, ...]


@attrs.frozen(slots=True)
class Plan:
    """Nodes whose old pod is deleted, and nodes that get a new (surge) pod."""

    delete_old: tuple[str, ...] = ()
    create_new: tuple[str, ...] = ()


def desired_node_counts(max_surge: int | str, max_unavailable: int | str, desired: int
                        ) -> tuple[int, int]:
    """``updatedDesiredNodeCounts``: (maxSurge, maxUnavailable) as numbers of nodes.

    Both 0 with nodes to run on makes maxUnavailable 1, so an update can progress.
    """
    surge = scaled(max_surge, desired)
    unavailable = scaled(max_unavailable, desired)
    if desired > 0 and surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def scaled(value: int | str, total: int) -> int:
    """``GetScaledValueFromIntOrPercent`` rounding up: a percentage of ``total``."""
    if isinstance(value, str):
        return -(-int(value[:-1]) * total // 100)
    return value


@rule(ROLLING, "controllers.daemonset.rolling-update.on-delete",
      doc="OnDelete replaces nothing: a node gets the new template when its pod is deleted.",
      source="pkg/controller/daemon/daemon_controller.go rollingUpdate only for "
             "RollingUpdateDaemonSetStrategyType")
def _on_delete(ctx: Unread, args: Mapping[str, Any], v: RollingView) -> Any:
    if v.strategy == "OnDelete":
        return Stop(Plan(), "OnDelete")
    return None


@rule(ROLLING, "controllers.daemonset.rolling-update.max-unavailable",
      doc="Without surge: unavailable old pods are replaced, and available ones while fewer "
          "than maxUnavailable nodes are unavailable.",
      source=f"{_SRC} rollingUpdate (maxSurge == 0)")
def _no_surge(ctx: Unread, args: Mapping[str, Any], v: RollingView) -> Any:
    if v.max_surge != 0:
        return None
    unavailable = 0
    replace: list[str] = []
    candidates: list[str] = []
    for n in v.nodes:
        if not n.ok or n.old == n.new:
            unavailable += 1  # the manage loop creates or prunes here
        elif n.new:
            unavailable += not n.new_available
        elif not n.old_available:
            replace.append(n.node)
            unavailable += 1
        elif unavailable < v.max_unavailable:
            candidates.append(n.node)
    room = min(max(v.max_unavailable - unavailable, 0), len(candidates))
    plan = Plan(tuple(replace + candidates[:room]))
    return Stop(plan, f"{unavailable} unavailable, maxUnavailable {v.max_unavailable}: "
                      f"delete {len(plan.delete_old)}")


@rule(ROLLING, "controllers.daemonset.rolling-update.max-surge",
      doc="With surge: a new pod beside each unavailable old pod and beside up to maxSurge "
          "available ones; an old pod goes once its node's new pod is available.",
      source=f"{_SRC} rollingUpdate (surge)")
def _surge(ctx: Unread, args: Mapping[str, Any], v: RollingView) -> Any:
    delete: list[str] = []
    allowed: list[str] = []
    candidates: list[str] = []
    surging = 0
    for n in v.nodes:
        if not n.ok:
            surging += 1
        elif not n.old:
            continue
        elif not n.new:
            if not n.old_available:
                allowed.append(n.node)
            elif surging < v.max_surge:
                candidates.append(n.node)
        elif not n.new_available:
            surging += 1
        else:
            delete.append(n.node)
    room = min(max(v.max_surge - surging, 0), len(candidates))
    plan = Plan(tuple(delete), tuple(allowed + candidates[:room]))
    return Stop(plan, f"{surging} surging, maxSurge {v.max_surge}: create "
                      f"{len(plan.create_new)}, delete {len(plan.delete_old)}")
