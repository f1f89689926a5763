"""The ReplicaSet controller's delete order, transcribed from upstream's unit tests.

``TestSortingActivePodsWithRanks`` (pkg/controller/controller_utils_test.go) and the
getPodsToDelete cases of ``TestGetPodsToDelete`` (pkg/controller/replicaset/
replica_set_test.go), with LogarithmicScaleDown and PodDeletionCost on as in v1.35.
"""

from __future__ import annotations

import pytest

from kruleset.model.objects import Pod
from kruleset.model.state import PodState
from kruleset.rules.controllers.replicaset import (
    RankContext,
    colocated_ranks,
    log2_bucket,
    pods_to_delete,
    rank_for_deletion,
)

HOUR = 3_600_000
NOW = 40 * 24 * HOUR
THEN_1_MONTH = NOW - 30 * 24 * HOUR  # AddDate(0, -1, 0) is 30 or 31 days: one bucket either way
THEN_2H, THEN_5H, THEN_8H = NOW - 2 * HOUR, NOW - 5 * HOUR, NOW - 8 * HOUR
ZERO = None
_seq = [0]


def pod(name: str, node: str, phase: str, ready: bool, restarts: int, ready_since: int | None,
        created: int | None, cost: int = 0) -> PodState:
    """The test's pod(): name, node, phase, Ready (with its transition time), restarts,
    creation time, pod-deletion-cost."""
    _seq[0] += 1
    ps = PodState(Pod("ns", name, restarts=restarts if ready else 0, deletion_cost=cost,
                      created_at=created), _seq[0], 0 if created is None else created)
    ps.node = node or None
    ps.phase = phase
    ps.ready = ready
    ps.ready_since = ready_since if ready else None
    return ps


UNSCHEDULED = pod("unscheduled", "", "Pending", False, 0, ZERO, ZERO)
SCHEDULED_PENDING = pod("pending", "node", "Pending", False, 0, ZERO, ZERO)
UNKNOWN_PHASE = pod("unknown-phase", "node", "Unknown", False, 0, ZERO, ZERO)
NOT_READY = pod("not-ready", "node", "Running", False, 0, ZERO, ZERO)
READY_NO_TRANSITION = pod("ready-no-last-transition-time", "node", "Running", True, 0, ZERO,
                          ZERO)
READY_NOW = pod("ready-now", "node", "Running", True, 0, NOW, NOW)
READY_THEN = pod("ready-then", "node", "Running", True, 0, THEN_1_MONTH, THEN_1_MONTH)
READY_HIGH_RESTARTS = pod("ready-high-restarts", "node", "Running", True, 9001, NOW, NOW)
READY_NOW_CREATED_THEN = pod("ready-now-created-then", "node", "Running", True, 0, NOW,
                            THEN_1_MONTH)
LOW_COST = pod("low-deletion-cost", "node", "Running", True, 0, NOW, THEN_1_MONTH, 10)
HIGH_COST = pod("high-deletion-cost", "node", "Running", True, 0, NOW, THEN_1_MONTH, 100)
UNSCHEDULED_5H = pod("unscheduled-5-hours", "", "Pending", False, 0, THEN_5H, THEN_5H)
UNSCHEDULED_8H = pod("unscheduled-10-hours", "", "Pending", False, 0, THEN_8H, THEN_8H)
READY_2H = pod("ready-2-hours", "", "Running", True, 0, THEN_2H, THEN_1_MONTH)
READY_5H = pod("ready-5-hours", "", "Running", True, 0, THEN_5H, THEN_1_MONTH)
READY_10H = pod("ready-10-hours", "", "Running", True, 0, THEN_8H, THEN_1_MONTH)


def _less(a: PodState, ra: int, b: PodState, rb: int) -> bool:
    """ActivePodsWithRanks.Less(0, 1) for [a, b] with ranks [ra, rb]."""
    ctx = RankContext(NOW, {a.key: ra, b.key: rb} if a is not b else {a.key: ra})
    if a is b:
        return False
    return rank_for_deletion(ctx, [b, a])[0] is a and rank_for_deletion(ctx, [a, b])[0] is a


# Equality: neither is less than the other (upstream's equalityTests, ranks 1 and 1).
@pytest.mark.parametrize("p1, p2", [
    (UNSCHEDULED, None), (SCHEDULED_PENDING, None), (UNKNOWN_PHASE, None), (NOT_READY, None),
    (READY_NOW_CREATED_THEN, None), (READY_NOW, None), (READY_THEN, None),
    (READY_HIGH_RESTARTS, None), (UNSCHEDULED_5H, UNSCHEDULED_8H), (READY_5H, READY_10H),
], ids=lambda p: p.pod.name if isinstance(p, PodState) else "self")
def test_equal(p1: PodState, p2: PodState | None) -> None:
    p2 = p2 or p1
    if p1 is p2:
        return  # a pod is never less than itself: nothing to sort
    ctx = RankContext(NOW, {p1.key: 1, p2.key: 1})
    # Equal pods keep their input order, whichever comes first.
    assert [p.key for p in rank_for_deletion(ctx, [p1, p2])] == [p1.key, p2.key]
    assert [p.key for p in rank_for_deletion(ctx, [p2, p1])] == [p2.key, p1.key]


@pytest.mark.parametrize("lesser, lrank, greater, grank", [
    (UNSCHEDULED, 1, SCHEDULED_PENDING, 2),
    (UNSCHEDULED, 2, SCHEDULED_PENDING, 1),
    (SCHEDULED_PENDING, 1, UNKNOWN_PHASE, 2),
    (UNKNOWN_PHASE, 1, NOT_READY, 2),
    (NOT_READY, 1, READY_NO_TRANSITION, 1),
    (READY_NO_TRANSITION, 1, READY_NOW, 1),
    (READY_NOW, 2, READY_NO_TRANSITION, 1),
    (READY_NOW, 1, READY_THEN, 1),
    (READY_NOW, 2, READY_THEN, 1),
    (READY_HIGH_RESTARTS, 1, READY_NOW, 1),
    (READY_NOW, 2, READY_HIGH_RESTARTS, 1),
    (READY_NOW, 1, READY_NOW_CREATED_THEN, 1),
    (READY_NOW_CREATED_THEN, 2, READY_NOW, 1),
    (LOW_COST, 2, HIGH_COST, 1),
    (READY_2H, 1, READY_5H, 1),
])
def test_less(lesser: PodState, lrank: int, greater: PodState, grank: int) -> None:
    assert _less(lesser, lrank, greater, grank)
    assert not _less(greater, grank, lesser, lrank)


def test_log2_buckets_are_nanoseconds() -> None:
    # 5 h and 8 h are both in bucket 44 (2^44 ns is 4.9 h, 2^45 ns 9.8 h).
    assert log2_bucket(5 * HOUR) == log2_bucket(8 * HOUR) == 44
    assert log2_bucket(2 * HOUR) == 42
    assert log2_bucket(0) == log2_bucket(-5) == -1


def _running(name: str, node: str, ready_since: int = 0, created: int = 0) -> PodState:
    _seq[0] += 1
    ps = PodState(Pod("ns", name, created_at=created), _seq[0], created)
    ps.node, ps.phase, ps.ready_since = node, "Running", ready_since
    return ps


# TestGetPodsToDelete (replica_set_test.go): the ranks come from the related pods.
def test_doubled_up_pods_go_first() -> None:
    # "various pod phases and conditions, diff = len(pods)": all go, unsorted.
    a, b, c = _running("a", "n1"), _running("b", "n2"), _running("c", "n3")
    assert pods_to_delete(RankContext(10), [a, b, c], [a, b, c], 3) == [a, b, c]
    # "ready and colocated with another ready pod vs not colocated, diff < len(pods)":
    # the pod sharing its node with a related pod goes.
    lone, shared = _running("lone", "n1"), _running("shared", "n2")
    related = [lone, shared, _running("other-rs", "n2")]
    assert colocated_ranks([lone, shared], related) == {"ns/lone": 1, "ns/shared": 2}
    assert pods_to_delete(RankContext(10), [lone, shared], related, 1) == [shared]


def test_related_pods_that_are_not_active_do_not_count() -> None:
    lone, shared = _running("lone2", "n1"), _running("shared2", "n2")
    gone = _running("terminating", "n2")
    gone.deletion_time = 5
    assert pods_to_delete(RankContext(10), [lone, shared], [lone, shared, gone], 1) == [lone]


def test_unassigned_before_not_ready_before_ready() -> None:
    ready = _running("ready", "n1")
    not_ready = _running("not-ready", "n1")
    not_ready.ready = False
    not_ready.ready_since = None
    pending = PodState(Pod("ns", "pending"), 999, 0)
    order = rank_for_deletion(RankContext(10, {}), [ready, not_ready, pending])
    assert [p.pod.name for p in order] == ["pending", "not-ready", "ready"]
