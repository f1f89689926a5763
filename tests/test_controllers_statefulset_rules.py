"""The StatefulSet controller's rules (pkg/controller/statefulset/stateful_set_control.go, v1.35).

``updateStatefulSetAfterInvariantEstablished`` and ``getStatefulSetMaxUnavailable``
one sync at a time, and ``processReplica`` / ``processCondemned`` for one pod.
"""

from __future__ import annotations

import pytest

from kruleset.rules.controllers import statefulset as rules
from kruleset.rules.profile import Profile


@pytest.mark.parametrize(("value", "replicas", "want"), [
    (None, 5, 1),      # RollingUpdate without maxUnavailable: one at a time
    (2, 5, 2),
    ("50%", 5, 2),     # a percentage rounds down
    ("10%", 5, 1),     # ... and never below 1
    ("100%", 3, 3),
])
def test_get_statefulset_max_unavailable(value: int | str | None, replicas: int,
                                         want: int) -> None:
    assert rules.max_unavailable(value, replicas) == want


def _update(revisions: str, *, unavailable: str = "", terminating: str = "",
            partition: int = 0, max_unavailable: int = 1, strategy: str = "RollingUpdate",
            start: int = 0) -> rules.Verdict:
    """``revisions``: one letter per ordinal, ``n`` at the update revision, ``o`` not."""
    n = len(revisions)
    view = rules.UpdateView(
        strategy, partition, max_unavailable, "n", tuple(revisions),
        tuple(i in {int(c) for c in terminating} for i in range(n)),
        tuple(i in {int(c) for c in unavailable} for i in range(n)), start)
    return rules.decide(None, rules.UPDATE, view, "default/db")


def test_the_highest_ordinal_not_updated_goes_first() -> None:
    assert _update("ooo").targets == (2,)
    assert _update("oon").targets == (1,)


def test_an_unavailable_pod_uses_the_budget() -> None:
    # a pod being replaced (unavailable) blocks the next with maxUnavailable 1
    assert _update("oon", unavailable="2").targets == ()
    # more unavailable than the budget: nothing at all
    assert _update("ooo", unavailable="01").action == "wait"


def test_max_unavailable_deletes_several_from_the_top() -> None:
    assert _update("oooo", max_unavailable=2).targets == (3, 2)
    assert _update("oooo", max_unavailable=3, unavailable="3").targets == (3, 2)


def test_the_partition_keeps_lower_ordinals() -> None:
    assert _update("oon", partition=2).targets == ()
    assert _update("ooo", partition=2).targets == (2,)
    assert _update("ooo", partition=5).targets == ()  # above replicas: nothing


def test_terminating_pods_are_not_deleted_again() -> None:
    # a terminating pod is unavailable too (isUnavailable: !isHealthy)
    assert _update("ooo", terminating="2", unavailable="2", max_unavailable=2).targets == (1,)


def test_ordinals_start_shifts_the_targets_not_the_partition() -> None:
    # partition counts from the start ordinal: index 2 of db-5.. is db-7
    assert _update("ooo", partition=2, start=5).targets == (7,)


def test_on_delete_deletes_nothing() -> None:
    assert _update("ooo", strategy="OnDelete").targets == ()


def _replica(**kw: bool) -> rules.Verdict:
    base = dict(exists=True, terminal=False, terminating=False, running_ready=True,
                available=True, monotonic=True)
    base.update(kw)
    return rules.decide(None, rules.REPLICA, rules.Replica(0, **base), "default/db-0")


def test_process_replica() -> None:
    assert _replica(exists=False) == rules.Verdict("create", True, "missing ordinal")
    assert not _replica(exists=False, monotonic=False).block  # Parallel goes on
    assert _replica(terminal=True).action == "delete"
    assert _replica(terminal=True).block
    assert not _replica(terminal=True, monotonic=False).block
    assert _replica(terminating=True).action == "wait"
    assert _replica(terminating=True, monotonic=False).action == "none"
    assert _replica(running_ready=False).block
    assert _replica(available=False).block
    assert _replica() == rules.Verdict("none")


def test_process_condemned() -> None:
    def cond(**kw: bool) -> rules.Verdict:
        base = dict(exists=True, terminal=False, terminating=False, running_ready=True,
                    available=True, monotonic=True, first_unhealthy=False)
        base.update(kw)
        return rules.decide(None, rules.CONDEMNED, rules.Replica(3, **base), "default/db-3")

    assert cond() == rules.Verdict("delete", True, "scale down")
    assert cond(running_ready=False).action == "wait"
    assert cond(running_ready=False, first_unhealthy=True).action == "delete"
    assert cond(terminating=True).block
    assert not cond(terminating=True, monotonic=False).block


def test_every_rule_is_in_the_default_profile() -> None:
    names = {r.rule.name for rs in (rules.REPLICA, rules.CONDEMNED, rules.UPDATE)
             for r in Profile.default().active(rs.name).rules}
    assert "controllers.statefulset.update.max-unavailable" in names
    assert "controllers.statefulset.replica.wait-available" in names
