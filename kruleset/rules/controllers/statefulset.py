"""The StatefulSet controller's decisions (``pkg/controller/statefulset``, v1.35).

``stateful_set_control.go`` ``updateStatefulSet`` decides in three passes,
each a rule set here:

* ``controllers.statefulset.replica``: each ordinal of ``[start, start +
  replicas)`` in turn (``processReplica``): a Failed or Succeeded pod is
  deleted to be made again, a missing pod is created; under OrderedReady
  (``monotonic``) the pass stops at a pod just created, terminating, not
  Running and Ready, or not available for ``minReadySeconds``.
* ``controllers.statefulset.condemned``: pods outside the range, highest
  ordinal first (``processCondemned``): under OrderedReady one at a time,
  and only while every other pod is healthy.
* ``controllers.statefulset.update``: RollingUpdate only
  (``updateStatefulSetAfterInvariantEstablished``, taken because v1.35's
  MaxUnavailableStatefulSet gate is beta and on by default): with more
  pods unavailable than ``maxUnavailable`` nothing is deleted; otherwise up
  to ``maxUnavailable - unavailable`` pods whose revision is not the update
  revision are deleted, from the highest ordinal down to ``partition``.
  OnDelete deletes nothing: a pod takes the new template when it is deleted.

A new pod takes the update revision unless RollingUpdate's partition keeps
its ordinal (``newVersionedStatefulSetPod``: ordinal < start + partition).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..context import Profiled, Unread
from ..engine import RuleSet, Stop
from ..registry import define_ruleset, rule
from .outcome import outcome

__all__ = ["REPLICA", "CONDEMNED", "UPDATE", "Replica", "UpdateView", "Verdict",
           "max_unavailable", "decide"]

REPLICA = define_ruleset(
    "controllers.statefulset.replica", "pipeline",
    "What the StatefulSet controller does with one ordinal of its range, and whether it goes on.")
CONDEMNED = define_ruleset(
    "controllers.statefulset.condemned", "pipeline",
    "Whether the StatefulSet controller deletes a pod outside its ordinal range now.")
UPDATE = define_ruleset(
    "controllers.statefulset.update", "pipeline",
    "Which pods a StatefulSet's update strategy deletes so they come back at the update "
    "revision.")

_SRC = "pkg/controller/statefulset/stateful_set_control.go"


@attrs.frozen(slots=True)
class Verdict:
    """``action``: create, delete, wait or none; ``block``: the pass stops here."""

    action: str
    block: bool = False
    why: str = ""
    targets: tuple[int, ...] = ()  # update: the ordinals to delete


@attrs.frozen(slots=True)
class Replica:
    """One ordinal as the controller sees it."""

    ordinal: int
    exists: bool
    terminal: bool          # phase Failed or Succeeded
    terminating: bool
    running_ready: bool     # isRunningAndReady
    available: bool         # isRunningAndAvailable(minReadySeconds)
    monotonic: bool         # OrderedReady
    first_unhealthy: bool = False  # condemned: the first unavailable pod of the set


@attrs.frozen(slots=True)
class UpdateView:
    """What the update step reads: per replica index, its revision and health."""

    strategy: str
    partition: int
    max_unavailable: int
    update_revision: str
    revisions: tuple[str, ...]
    terminating: tuple[bool, ...]
    unavailable: tuple[bool, ...]
    start: int


def decide(ctx: Profiled | None, ruleset: RuleSet, data: Any, subject: str) -> Verdict:
    """Run the rule set ``ruleset`` on ``data``; its stopping rule's verdict."""
    return outcome(ctx, ruleset, data, subject, Verdict("none"))


def max_unavailable(value: int | str | None, replicas: int) -> int:
    """``getStatefulSetMaxUnavailable``: a percentage of replicas rounded down, at least 1."""
    if value is None:
        return 1
    # Integer arithmetic: a percentage of replicas, rounded down.
    n = int(value[:-1]) * replicas // 100 if isinstance(value, str) else value
    return max(n, 1)


# --- processReplica -------------------------------------------------------------------


@rule(REPLICA, "controllers.statefulset.replica.recreate-terminal",
      doc="A Failed or Succeeded pod is deleted, to be created again once it is gone.",
      source=f"{_SRC} processReplica (isFailed || isSucceeded)")
def _terminal(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if r.exists and r.terminal:
        # Parallel (runForAll's slowStartBatch) ignores the "stop here" and goes on.
        return Stop(Verdict("delete", r.monotonic,
                            "pod Failed or Succeeded: delete and recreate"), "terminal pod")
    return None


@rule(REPLICA, "controllers.statefulset.replica.create",
      doc="A missing ordinal is created; OrderedReady then waits for it.",
      source=f"{_SRC} processReplica (!isCreated: CreateStatefulPod; monotonic returns)")
def _create(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if not r.exists:
        return Stop(Verdict("create", r.monotonic, "missing ordinal"), "create")
    return None


@rule(REPLICA, "controllers.statefulset.replica.wait-terminating",
      doc="OrderedReady waits while a pod of the range terminates.",
      source=f"{_SRC} processReplica (isTerminating && monotonic)")
def _terminating(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if r.terminating and r.monotonic:
        return Stop(Verdict("wait", True, "waiting for the pod to terminate"), "terminating")
    return None


@rule(REPLICA, "controllers.statefulset.replica.wait-ready",
      doc="OrderedReady goes past an ordinal only once it is Running and Ready.",
      source=f"{_SRC} processReplica (!isRunningAndReady && monotonic)")
def _ready(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if not r.running_ready and r.monotonic:
        return Stop(Verdict("wait", True, "waiting for the pod to be Running and Ready"),
                    "not running and ready")
    return None


@rule(REPLICA, "controllers.statefulset.replica.wait-available",
      doc="OrderedReady goes past an ordinal only once it has been Ready for minReadySeconds.",
      source=f"{_SRC} processReplica (!isRunningAndAvailable(minReadySeconds) && monotonic)")
def _available(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if not r.available and r.monotonic:
        return Stop(Verdict("wait", True, "waiting for the pod to be available"),
                    "not available")
    return None


# --- processCondemned -----------------------------------------------------------------


@rule(CONDEMNED, "controllers.statefulset.condemned.wait-terminating",
      doc="A condemned pod already terminating: OrderedReady waits for it, Parallel goes on.",
      source=f"{_SRC} processCondemned (isTerminating)")
def _c_terminating(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if r.terminating:
        return Stop(Verdict("wait", r.monotonic, "already terminating"), "terminating")
    return None


@rule(CONDEMNED, "controllers.statefulset.condemned.wait-healthy",
      doc="OrderedReady scales down only while every pod but the first unavailable one is "
          "Running, Ready and available.",
      source=f"{_SRC} processCondemned (!isRunningAndReady / !isRunningAndAvailable && "
             "monotonic && not firstUnhealthyPod)")
def _c_healthy(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    if r.monotonic and not r.first_unhealthy and not (r.running_ready and r.available):
        return Stop(Verdict("wait", True, "waiting for the pod to be healthy before scaling "
                                          "down"), "unhealthy")
    return None


@rule(CONDEMNED, "controllers.statefulset.condemned.delete",
      doc="Otherwise the condemned pod is deleted (OrderedReady: one per sync).",
      source=f"{_SRC} processCondemned (DeleteStatefulPod)")
def _c_delete(ctx: Unread, args: Mapping[str, Any], r: Replica) -> Any:
    return Stop(Verdict("delete", r.monotonic, "scale down"), "delete")


# --- the update strategy --------------------------------------------------------------


@rule(UPDATE, "controllers.statefulset.update.on-delete",
      doc="OnDelete replaces nothing: a pod takes the new template when it is deleted.",
      source=f"{_SRC} updateStatefulSet (OnDeleteStatefulSetStrategyType short circuit)")
def _on_delete(ctx: Unread, args: Mapping[str, Any], u: UpdateView) -> Any:
    if u.strategy == "OnDelete":
        return Stop(Verdict("none", why="OnDelete"), "OnDelete")
    return None


@rule(UPDATE, "controllers.statefulset.update.max-unavailable",
      doc="More pods unavailable than maxUnavailable (default 1): nothing is deleted.",
      source=f"{_SRC} updateStatefulSetAfterInvariantEstablished (unavailablePods > "
             "maxUnavailable); getStatefulSetMaxUnavailable")
def _budget(ctx: Unread, args: Mapping[str, Any], u: UpdateView) -> Any:
    unavailable = sum(u.unavailable)
    if unavailable > u.max_unavailable:
        return Stop(Verdict("wait", why=f"{unavailable} unavailable > maxUnavailable "
                                        f"{u.max_unavailable}"), "over budget")
    return None


@rule(UPDATE, "controllers.statefulset.update.replace",
      doc="Up to maxUnavailable - unavailable pods not at the update revision are deleted, "
          "from the highest ordinal down to the partition.",
      source=f"{_SRC} updateStatefulSetAfterInvariantEstablished (podsToDelete loop)")
def _replace(ctx: Unread, args: Mapping[str, Any], u: UpdateView) -> Any:
    budget = u.max_unavailable - sum(u.unavailable)
    targets: list[int] = []
    for i in range(len(u.revisions) - 1, u.partition - 1, -1):
        if len(targets) >= budget:
            break
        if u.revisions[i] != u.update_revision and not u.terminating[i]:
            targets.append(i + u.start)
    if not targets:
        return Stop(Verdict("none", why="nothing to replace now"), "none")
    return Stop(Verdict("delete", why="rolling update", targets=tuple(targets)),
                f"delete {len(targets)}")
