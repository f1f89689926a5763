"""The DaemonSet rolling update against upstream's tables (pkg/controller/daemon/update_test.go).

``TestGetUnavailableNumbers`` is transcribed as it is; the ``TestDaemonSetUpdates…``
tests (several syncs on 5 nodes) as the plan one sync makes for the nodes' state.
"""

from __future__ import annotations

import pytest

from kruleset.rules.controllers import daemonset as rules
from kruleset.rules.engine import Stop
from kruleset.rules.profile import Profile


@pytest.mark.parametrize(("name", "surge", "unavailable", "desired", "want"), [
    ("No nodes", 0, 0, 0, (0, 0)),
    ("Two nodes with ready pods", 0, 1, 2, (0, 1)),
    ("Two nodes, one node without pods", 0, 0, 2, (0, 1)),
    ("Two nodes, one node without pods, surge", 0, 0, 2, (0, 1)),
    ("Two nodes with pods, MaxUnavailable in percents", 0, "50%", 2, (0, 1)),
    ("Two nodes with pods, MaxUnavailable in percents, surge", "50%", 0, 2, (1, 0)),
    ("Two nodes with pods, MaxUnavailable is 100%, surge", "100%", 0, 2, (2, 0)),
    ("Two nodes with pods, MaxUnavailable in percents, pod terminating", 0, "50%", 3, (0, 2)),
])
def test_get_unavailable_numbers(name: str, surge: int | str, unavailable: int | str,
                                 desired: int, want: tuple[int, int]) -> None:
    assert rules.desired_node_counts(surge, unavailable, desired) == want


def _plan(nodes: list[rules.NodePods], surge: int = 0, unavailable: int = 1,
          strategy: str = "RollingUpdate") -> rules.Plan:
    view = rules.RollingView(strategy, surge, unavailable, tuple(nodes))
    out = Profile.default().active(rules.ROLLING.name).run(None, view)
    assert isinstance(out, Stop)
    return out.result  # type: ignore[no-any-return]


def _old(n: int, available: bool = True) -> list[rules.NodePods]:
    return [rules.NodePods(f"node-{i}", True, available, False, False) for i in range(n)]


def test_updates_pods_max_unavailable_2_deletes_two_old_pods() -> None:
    # TestDaemonSetUpdatesPods: 5 nodes, maxUnavailable 2 -> 2 deletions on the first sync
    assert _plan(_old(5), unavailable=2) == rules.Plan(("node-0", "node-1"))


def test_updates_wait_while_new_pods_are_not_ready() -> None:
    # TestDaemonSetUpdatesWhenNewPodIsNotReady: 3 new pods not ready, maxUnavailable 3
    nodes = [rules.NodePods(f"node-{i}", False, False, True, False) for i in range(3)]
    assert _plan(nodes + _old(2)[:2], unavailable=3) == rules.Plan()


def test_updates_all_old_pods_not_ready_are_replaced_at_once() -> None:
    # TestDaemonSetUpdatesAllOldPodsNotReady: every unavailable old pod is a replacement
    assert _plan(_old(5, available=False), unavailable=3).delete_old == tuple(
        f"node-{i}" for i in range(5))


def test_updates_with_max_surge_create_beside_old_pods() -> None:
    # TestDaemonSetUpdatesPodsWithMaxSurge: maxSurge 2 -> 2 new pods, nothing deleted
    assert _plan(_old(5), surge=2, unavailable=0) == rules.Plan((), ("node-0", "node-1"))


def test_with_max_surge_an_old_pod_goes_once_the_new_one_is_available() -> None:
    nodes = [rules.NodePods("node-0", True, True, True, True),
             rules.NodePods("node-1", True, True, True, False), *_old(5)[2:]]
    # node-1 still surging: 1 of maxSurge 2 used, so one more candidate
    assert _plan(nodes, surge=2, unavailable=0) == rules.Plan(("node-0",), ("node-2",))


def test_updates_all_old_pods_not_ready_max_surge() -> None:
    # TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: every unavailable old pod gets a new one
    assert _plan(_old(5, available=False), surge=3, unavailable=0).create_new == tuple(
        f"node-{i}" for i in range(5))


def test_on_delete_replaces_nothing() -> None:
    assert _plan(_old(5), unavailable=5, strategy="OnDelete") == rules.Plan()


def test_failed_pods_backoff_doubles_from_one_second_to_fifteen_minutes() -> None:
    rec = rules.next_backoff(None, 0)
    assert rec == (0, 1_000)
    assert rules.backoff_left(rec, 400) == 600
    assert rules.backoff_left(rec, 1_000) == 0
    rec = rules.next_backoff(rec, 1_500)
    assert rec == (1_500, 2_000)
    for _ in range(12):
        rec = rules.next_backoff(rec, rec[0] + 1)
    assert rec[1] == 900_000
    # a record older than twice the maximum starts again at 1 s
    assert rules.next_backoff(rec, rec[0] + 1_800_001) == (rec[0] + 1_800_001, 1_000)


def test_a_failed_pod_waits_for_the_backoff() -> None:
    def verdict(left: int) -> str:
        view = rules.NodeManage(True, True, 0, 0, 1, left)
        out = Profile.default().active(rules.MANAGE.name).run(None, view)
        assert isinstance(out, Stop)
        return out.result  # type: ignore[no-any-return]

    assert verdict(0) == "delete-failed"
    assert verdict(500) == "wait"
