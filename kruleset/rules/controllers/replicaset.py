"""The ReplicaSet controller's decisions: how many pods to create or delete, and which go.

Upstream: ``pkg/controller/replicaset/replica_set.go`` (``manageReplicas``,
``getPodsToDelete``, ``getPodsRankedByRelatedPodsOnSameNode``) and
``pkg/controller/controller_utils.go`` (``ActivePodsWithRanks.Less``,
``logarithmicRankDiff``, ``compareMaxContainerRestarts``), with the
PodDeletionCost and LogarithmicScaleDown feature gates on, as in v1.35.

The delete order (``controllers.replicaset.delete-order``) is an ordering
rule set whose rules compare two pods, each answering -1 (the first goes
first), 1, 0 (a tie that ends the comparison) or None (no opinion: the next
rule decides); upstream's ``Less`` is no key order (inside one log2 bucket it
compares UIDs and stops).  Upstream's UIDs are random; kruleset takes them as
equal, as upstream's unit tests' pods have them, and pods that tie keep their
creation order (upstream sorts with Go's unstable sort, which leaves them in
no defined order), so the choice is deterministic.

Example: of two running ready pods, the one that has been Ready for less time
(a smaller log2 bucket of nanoseconds) is deleted first::

    >>> from kruleset.model.objects import Pod
    >>> from kruleset.model.state import PodState
    >>> a, b = PodState(Pod("ns", "a"), 1, 0), PodState(Pod("ns", "b"), 2, 0)
    >>> for ps, since in ((a, 3_600_000), (b, 0)):
    ...     ps.node, ps.phase, ps.ready_since = "n1", "Running", since
    >>> ctx = RankContext(now=7_200_000, ranks={"ns/a": 1, "ns/b": 1})
    >>> [ps.pod.name for ps in rank_for_deletion(ctx, [b, a])]
    ['a', 'b']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.state import PENDING, RUNNING, PodState
from kruleset.rules.context import Unread
from kruleset.rules.engine import Trace
from kruleset.rules.profile import Profile
from kruleset.rules.registry import define_ruleset, rule

__all__ = [
    "DELETE_ORDER",
    "RankContext",
    "colocated_ranks",
    "is_active",
    "is_available",
    "is_ready",
    "log2_bucket",
    "pods_to_delete",
    "rank_for_deletion",
    "replicas_diff",
]

DELETE_ORDER = define_ruleset(
    "controllers.replicaset.delete-order", "ordering",
    "Which pods a ReplicaSet deletes first when it has more than its replicas "
    "(ActivePodsWithRanks.Less; each rule compares two pods).",
)
SYNC = define_ruleset(
    "controllers.replicaset.sync", "pipeline",
    "How many pods a ReplicaSet creates or deletes (manageReplicas).",
)

# podPhaseToOrdinal: Pending < Unknown < Running.
_PHASE_ORDINAL = {PENDING: 0, "Unknown": 1, RUNNING: 2}


@attrs.define(slots=True)
class RankContext:
    """What the ranking reads besides the pods: the clock and each pod's colocation rank."""

    now: int
    ranks: Mapping[str, int] = attrs.field(factory=dict)
    trace: Trace | None = None
    profile: Profile | None = None


def is_active(ps: PodState) -> bool:
    """controller.IsPodActive: not Succeeded or Failed and not being deleted."""
    return (not ps.gone and ps.deletion_time is None and ps.outcome is None
            and ps.phase in (PENDING, RUNNING))


def is_ready(ps: PodState) -> bool:
    """podutil.IsPodReady: the Ready condition is True (a running pod)."""
    return ps.ready and ps.phase == RUNNING


def is_available(ps: PodState, min_ready_ms: int, now: int) -> bool:
    """podutil.IsPodAvailable: Ready for at least minReadySeconds.

    Upstream compares ``lastTransitionTime + minReadySeconds`` strictly before
    now and re-syncs the ReplicaSet after exactly minReadySeconds, so the
    pod counts as available at that instant; kruleset counts it from then.
    """
    if not is_ready(ps):
        return False
    if min_ready_ms == 0:
        return True
    since = ps.ready_since
    return since is not None and since + min_ready_ms <= now


def log2_bucket(duration_ms: int) -> int:
    """int64(math.Log2(ns)) of a positive duration, -1 otherwise (logarithmicRankDiff).

    Exact on integers: float64's Log2 gives the same answer for every
    duration below 2^49 ns (6.5 days), more than a simulation lasts.
    """
    if duration_ms <= 0:
        return -1
    return (duration_ms * 1_000_000).bit_length() - 1


def colocated_ranks(pods: Sequence[PodState], related: Sequence[PodState]) -> dict[str, int]:
    """getPodsRankedByRelatedPodsOnSameNode: per pod, the active related pods on its node."""
    on_node: dict[str | None, int] = {}
    for ps in related:
        if is_active(ps):
            on_node[ps.node] = on_node.get(ps.node, 0) + 1
    return {ps.key: on_node.get(ps.node, 0) for ps in pods}


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.unassigned",
      doc="A pod not assigned to a node is deleted before an assigned one.",
      source="controller_utils.go ActivePodsWithRanks.Less (1. Unassigned < assigned)")
def _unassigned(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    if (a.node is None) != (b.node is None):
        return -1 if a.node is None else 1
    return None


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.phase",
      doc="Pending before Unknown before Running.",
      source="controller_utils.go ActivePodsWithRanks.Less (2. PodPending < PodUnknown < "
             "PodRunning), podPhaseToOrdinal")
def _phase(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    return _sign(_PHASE_ORDINAL.get(a.phase, 0) - _PHASE_ORDINAL.get(b.phase, 0)) or None


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.not-ready",
      doc="A pod that is not Ready before a Ready one.",
      source="controller_utils.go ActivePodsWithRanks.Less (3. Not ready < ready)")
def _not_ready(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    ra, rb = is_ready(a), is_ready(b)
    if ra != rb:
        return 1 if ra else -1
    return None


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.deletion-cost",
      doc="A lower controller.kubernetes.io/pod-deletion-cost first (PodDeletionCost, on).",
      source="controller_utils.go ActivePodsWithRanks.Less (4. lower pod-deletion-cost < "
             "higher); helper.GetDeletionCostFromPodAnnotations")
def _deletion_cost(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
                   ) -> int | None:
    return _sign(a.pod.deletion_cost - b.pod.deletion_cost) or None


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.colocated",
      doc="A pod sharing its node with more active pods of the same controller first.",
      source="controller_utils.go ActivePodsWithRanks.Less (5. Doubled up < not doubled "
             "up); replica_set.go getPodsRankedByRelatedPodsOnSameNode")
def _colocated(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    return _sign(ctx.ranks.get(b.key, 0) - ctx.ranks.get(a.key, 0)) or None


def _time_order(now: int, ta: int | None, tb: int | None) -> int:
    """Two different times as upstream orders them: a zero time first, then the more
    recent log2 bucket of ``now - t``; inside one bucket the UIDs decide, which
    kruleset takes as equal (0: the order is settled, no later rule is asked)."""
    if ta is None or tb is None:
        # afterOrZero: a zero time is "after" everything.
        return -1 if ta is None else 1
    return _sign(log2_bucket(now - ta) - log2_bucket(now - tb))


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.ready-time",
      doc="Of two Ready pods, the one Ready for less time first, in log2 buckets of "
          "nanoseconds (LogarithmicScaleDown, on); in one bucket the UID decides.",
      source="controller_utils.go ActivePodsWithRanks.Less (6. Been ready for empty time < "
             "less time < more time), podReadyTime, logarithmicRankDiff")
def _ready_time(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    if not (is_ready(a) and is_ready(b)):
        return None
    ta, tb = a.ready_since, b.ready_since
    if ta == tb:
        return None
    return _time_order(ctx.now, ta, tb)


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.restarts",
      doc="A pod whose containers restarted more first (regular containers, then sidecars).",
      source="controller_utils.go ActivePodsWithRanks.Less (7. higher restart counts < "
             "lower), compareMaxContainerRestarts")
def _restarts(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    pa, pb = a.pod, b.pod
    if pa.restarts != pb.restarts:
        return -1 if pa.restarts > pb.restarts else 1
    if pa.sidecar_restarts != pb.sidecar_restarts:
        return -1 if pa.sidecar_restarts > pb.sidecar_restarts else 1
    return None


def created_at(ps: PodState) -> int:
    """metadata.creationTimestamp on the simulation clock."""
    return ps.pod.created_at if ps.pod.created_at is not None else ps.created


@rule(DELETE_ORDER, "controllers.replicaset.delete-order.creation",
      doc="The newer pod first, in log2 buckets of nanoseconds since creation "
          "(LogarithmicScaleDown, on); in one bucket the UID decides.",
      source="controller_utils.go ActivePodsWithRanks.Less (8. Empty creation time pods < "
             "newer pods < older pods), logarithmicRankDiff")
def _creation(ctx: RankContext, args: Mapping[str, Any], a: PodState, b: PodState
        ) -> int | None:
    ta, tb = created_at(a), created_at(b)
    if ta == tb:
        return None
    return _time_order(ctx.now, ta, tb)


def _rules(ctx: RankContext) -> list[tuple[str, Callable[..., int], Mapping[str, Any]]]:
    profile = ctx.profile or Profile.default()
    return [(a.rule.name, a.rule.fn, a.args) for a in profile.active(DELETE_ORDER.name).rules]


def rank_for_deletion(ctx: RankContext, pods: Sequence[PodState]) -> list[PodState]:
    """``pods`` in the order the ReplicaSet deletes them (a stable sort by the rules)."""
    rules = _rules(ctx)

    def cmp(a: PodState, b: PodState) -> int:
        for _, fn, args in rules:
            out = fn(ctx, args, a, b)
            if out is not None:
                return int(out)
        return 0

    return sorted(pods, key=functools.cmp_to_key(cmp))


def decider(ctx: RankContext, a: PodState, b: PodState) -> tuple[str, str]:
    """The rule that put ``a`` before ``b``, and how (``"tie: creation order"`` if none)."""
    for name, fn, args in _rules(ctx):
        out = fn(ctx, args, a, b)
        if out is not None:
            how = {-1: "goes before", 0: "ties with (same log2 bucket)", 1: "goes after"}
            return name, f"{a.pod.name} {how[out]} {b.pod.name}"
    return "", "tie: creation order"


def pods_to_delete(ctx: RankContext, filtered: Sequence[PodState],
                   related: Sequence[PodState], diff: int, subject: str = "") -> list[PodState]:
    """getPodsToDelete: the ``diff`` pods of ``filtered`` to delete (all when diff covers them).

    ``related`` are the active pods of every ReplicaSet of the same
    Deployment (getIndirectlyRelatedPods), which the colocation rank counts.
    """
    if diff >= len(filtered):
        return list(filtered)
    ctx.ranks = colocated_ranks(filtered, related)
    ranked = rank_for_deletion(ctx, filtered)
    chosen = ranked[:diff]
    trace = ctx.trace
    if trace is not None:
        kept = ranked[diff]
        for ps in chosen:
            name, why = decider(ctx, ps, kept)
            trace.add(name or DELETE_ORDER.name, ps.key, "delete",
                      f"{why} (first pod kept: {kept.pod.name})" if name else why)
    return chosen


@rule(SYNC, "controllers.replicaset.manage-replicas",
      doc="A ReplicaSet creates the pods it lacks (at most burstReplicas=500 a sync) and "
          "deletes the pods it has beyond spec.replicas; terminating pods do not count.",
      source="replica_set.go manageReplicas, controller.FilterActivePods")
def replicas_diff(ctx: Unread, args: Mapping[str, Any], subject: tuple[int, int]) -> int:
    """``len(active pods) - spec.replicas``, capped at burstReplicas either way."""
    active, wanted = subject
    return max(min(active - wanted, BURST_REPLICAS), -BURST_REPLICAS)


# replicaset.BurstReplicas: the most pods one sync creates or deletes.
BURST_REPLICAS = 500
