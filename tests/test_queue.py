"""The scheduling queue's clock and error path (kruleset.rules.scheduler.queue).

Upstream ``backoff_queue.go`` (calculateBackoffDuration, the 1 s ordering
window) and ``scheduling_queue.go`` (flushUnschedulablePodsLeftover); the
scenario values were measured on the timeline oracle (the real v1.35.4
scheduler with its queue), which has no input for them in the random
timelines (no binding failures, no empty clusters).
"""

from __future__ import annotations

import pytest

from kruleset import api
from kruleset.rules.scheduler.queue.backoff import backing_off, backoff_expiry, leftover_due


@pytest.mark.parametrize(("attempts", "failed", "expiry"), [
    (0, 0, None),          # never tried: no backoff at all
    (1, 0, 1000), (2, 0, 2000), (3, 0, 4000), (4, 0, 8000), (5, 0, 10000), (9, 0, 10000),
    (1, 2500, 3000),       # 3.5s truncated to the second
    (2, 2999, 4000), (1, 59_400, 60_000),
])
def test_backoff_doubles_to_the_maximum_and_is_truncated_to_the_second(
        attempts: int, failed: int, expiry: int | None) -> None:
    assert backoff_expiry(None, {}, attempts, failed, 1000, 10_000) == expiry


def test_configured_backoff() -> None:
    assert backoff_expiry(None, {}, 1, 0, 2000, 5000) == 2000
    assert backoff_expiry(None, {}, 3, 0, 2000, 5000) == 5000


@pytest.mark.parametrize(("expiry", "now", "backing"), [
    (3000, 3200, True),    # b2's high at 3.2s: its expiry is not before now's second
    (1000, 3200, False),   # b2's low
    (1000, 1000, True), (1000, 1999, True), (1000, 2000, False), (None, 0, False),
])
def test_a_pod_backs_off_until_the_second_after_its_expiry(
        expiry: int | None, now: int, backing: bool) -> None:
    assert backing_off(expiry, now) is backing


@pytest.mark.parametrize(("failed", "due"), [
    (0, 330_000), (1, 330_000), (30_000, 360_000), (29_999, 330_000), (45_500, 360_000),
])
def test_the_leftover_flush_moves_a_pod_after_more_than_five_minutes(failed: int,
                                                                      due: int) -> None:
    assert leftover_due(None, {}, failed) == due


def _attempt_times(text: str, pod: str = "default/p") -> list[tuple[int, str, str]]:
    result = api.run(api.load(text))
    return [(a.time, a.result, a.node) for a in result.attempts if a.pod == pod]


def test_no_nodes_sends_the_pod_to_the_error_backoff() -> None:
    # The oracle: attempts at 0, 2, 5, 10s ("no nodes available to schedule pods",
    # error backoffQ); a node added at 12.5s does not move a pod there: the
    # whole-second flush after its backoff (9s + 10s... the 19s flush) does.
    text = """\
pod p requests(cpu=1)
at 12500ms create node n1 cpu=2 memory=4Gi
run until 40s
"""
    assert _attempt_times(text) == [(0, "unschedulable", ""), (2000, "unschedulable", ""),
                                    (5000, "unschedulable", ""), (10000, "unschedulable", ""),
                                    (19000, "scheduled", "n1")]
    result = api.run(api.load(text))
    assert {a.message for a in result.attempts if a.result != "scheduled"} == {
        "no nodes available to schedule pods"}


def test_the_configured_backoff_is_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "scheduler.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\n"
                   "podInitialBackoffSeconds: 4\npodMaxBackoffSeconds: 8\n")
    text = f'config scheduler "{cfg}"\npod p requests(cpu=1)\nrun until 40s\n'
    # Error backoff 4, 8, 8 s from each failure, released at the next whole second.
    assert [t for t, _, _ in _attempt_times(text)] == [0, 5000, 14000, 23000, 32000]


def test_a_bad_backoff_configuration_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "scheduler.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\n"
                   "podInitialBackoffSeconds: 20\npodMaxBackoffSeconds: 8\n")
    with pytest.raises(Exception, match="podMaxBackoffSeconds"):
        api.load(f'config scheduler "{cfg}"\npod p\n')
