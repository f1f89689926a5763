"""The Job controller's rules against upstream's unit-test tables (pkg/controller/job, v1.35).

Transcribed: ``TestGetRemainingBackoffTime`` and ``TestNewBackoffRecord``
(backoff_utils_test.go), ``TestMatchPodFailurePolicy`` (pod_failure_policy_test.go).
Times are in ms; upstream's "defaultTestTime" is 1,000,000 here.
"""

from __future__ import annotations

import pytest

from kruleset.model.objects import PodFailurePolicyRule
from kruleset.rules.controllers import job as rules
from kruleset.rules.engine import Stop
from kruleset.rules.profile import Profile

T = 1_000_000


# --- TestGetRemainingBackoffTime: default 5s, max 700s ----------------------------------------
@pytest.mark.parametrize(("name", "failures", "last", "now", "want"), [
    ("no failures", 0, None, T, 0),
    ("one failure; current time and failure time are same", 1, T, T, 5_000),
    ("one failure; current time == 1 second + failure time", 1, T, T + 1_000, 4_000),
    ("one failure; current time == expected backoff time", 1, T, T + 5_000, 0),
    ("one failure; current time == expected backoff time + 1 Second", 1, T, T + 6_000, 0),
    ("three failures; current time and failure time are same", 3, T, T, 20_000),
    ("eight failures; backoff not exceeding maxBackoff", 8, T, T, 640_000),
    ("nine failures; backoff exceeding maxBackoff", 9, T, T, 700_000),
])
def test_get_remaining_backoff_time(name: str, failures: int, last: int | None, now: int,
                                    want: int) -> None:
    assert rules.remaining_backoff(failures, last, now, 5_000, 700_000) == want


def test_v135_defaults_are_10s_doubling_to_10_minutes() -> None:
    assert [rules.remaining_backoff(n, 0, 0) for n in (1, 2, 3, 6, 7, 8)] == [
        10_000, 20_000, 40_000, 320_000, 600_000, 600_000]


# --- TestNewBackoffRecord ---------------------------------------------------------------------
@pytest.mark.parametrize(("name", "store", "succeeded", "failed", "want"), [
    ("Empty backoff store and one new failure", (0, None), [], [T], (1, T)),
    ("Empty backoff store and two new failures", (0, None), [], [T, T - 1], (2, T)),
    ("Empty backoff store, two failures followed by success", (0, None), [T], [T - 2, T - 1],
     (0, None)),
    ("Empty backoff store, two failures, one success and two more failures", (0, None), [T - 2],
     [T, T - 4, T - 3, T - 1], (2, T)),
    ("Backoff store having failure count 2 and one new failure", (2, None), [], [T], (3, T)),
    ("Empty backoff store with success and failure at same timestamp", (0, None), [T], [T],
     (0, None)),
    ("Empty backoff store with no success/failure", (0, None), [], [], (0, None)),
    ("Empty backoff store with one success", (0, None), [T], [], (0, None)),
])
def test_new_backoff_record(name: str, store: tuple[int, int | None], succeeded: list[int],
                            failed: list[int], want: tuple[int, int | None]) -> None:
    assert rules.new_backoff_record(store[0], store[1], succeeded, failed) == want


# --- TestMatchPodFailurePolicy ----------------------------------------------------------------
def _codes(action: str, op: str, *values: int, container: str | None = None
           ) -> PodFailurePolicyRule:
    return PodFailurePolicyRule(action, on_exit_codes=(container, op, values))


def _conds(action: str, status: str = "True") -> PodFailurePolicyRule:
    return PodFailurePolicyRule(action, on_conditions=(("DisruptionTarget", status),))


def _match(policy: tuple[PodFailurePolicyRule, ...] | None,
           codes: tuple[tuple[str, int], ...] = (),
           conditions: tuple[tuple[str, str], ...] = ()) -> rules.PodVerdict:
    pod = rules.FailedPod("default", "mypod", codes, conditions, policy)
    out = Profile.default().active(rules.FAILURE.name).run(None, pod)
    assert isinstance(out, Stop)
    return out.result  # type: ignore[no-any-return]


MAIN_2 = (("main-container", 2),)


@pytest.mark.parametrize(("name", "policy", "codes", "conditions", "action", "message"), [
    ("no policy rules", None, MAIN_2, (), "Count", ""),
    ("ignore rule matched for exit codes", (_codes("Ignore", "In", 1, 2, 3),), MAIN_2, (),
     "Ignore", ""),
    ("ignore rule matched on negative exit codes - needed for Windows support",
     (_codes("Ignore", "In", -1073741676, -1073741510),), (("c", -1073741510),), (),
     "Ignore", ""),
    ("FailJob rule matched for exit codes", (_codes("FailJob", "In", 1, 2, 3),), MAIN_2, (),
     "FailJob", "Container main-container for pod default/mypod failed with exit code 2 "
                "matching FailJob rule at index 0"),
    ("successful containers are skipped by the rules", (_codes("FailJob", "NotIn", 111),),
     (("main-container", 111), ("suppport-container", 0)), (), "Count", ""),
    ("FailIndex rule matched for exit codes", (_codes("FailIndex", "In", 1, 2, 3),), MAIN_2,
     (), "FailIndex", ""),
    ("pod failure policy with NotIn operator and value 0", (_codes("FailJob", "NotIn", 0),),
     (("main-container", 1), ("suppport-container", 0)), (), "FailJob",
     "Container main-container for pod default/mypod failed with exit code 1 matching "
     "FailJob rule at index 0"),
    ("second jobfail rule matched for exit codes",
     (_codes("Count", "In", 1, 2, 3), _codes("FailJob", "In", 4, 5, 6)),
     (("main-container", 6),), (), "FailJob",
     "Container main-container for pod default/mypod failed with exit code 6 matching "
     "FailJob rule at index 1"),
    ("count rule matched for exit codes", (_codes("Count", "In", 1, 2, 3),),
     (("bar", 2),), (), "Count", ""),
    ("FailIndex rule matched for pod conditions", (_conds("FailIndex"),), (),
     (("DisruptionTarget", "True"),), "FailIndex", ""),
    ("ignore rule matched for pod conditions", (_conds("Ignore"),), (),
     (("DisruptionTarget", "True"),), "Ignore", ""),
    ("ignore rule matches by the status=False", (_conds("Ignore", "False"),), (),
     (("DisruptionTarget", "False"),), "Ignore", ""),
    ("ignore rule matches by the status=Unknown", (_conds("Ignore", "Unknown"),), (),
     (("DisruptionTarget", "Unknown"),), "Ignore", ""),
    ("ignore rule does not match when status for pattern is False, but actual True",
     (_conds("Ignore", "False"),), (), (("DisruptionTarget", "True"),), "Count", ""),
])
def test_match_pod_failure_policy(name: str, policy: tuple[PodFailurePolicyRule, ...] | None,
                                  codes: tuple[tuple[str, int], ...],
                                  conditions: tuple[tuple[str, str], ...], action: str,
                                  message: str) -> None:
    got = _match(policy, codes, conditions)
    assert (got.action, got.message) == (action, message)


def test_fail_job_on_a_pod_condition_names_the_condition() -> None:
    got = _match((_conds("FailJob"),), (), (("DisruptionTarget", "True"),))
    assert got.message == ("Pod default/mypod has condition DisruptionTarget matching FailJob "
                           "rule at index 0")


def test_a_container_name_restricts_the_exit_code_rule() -> None:
    policy = (_codes("FailJob", "In", 42, container="main"),)
    assert _match(policy, (("sidecar", 42), ("main", 1))).action == "Count"
    assert _match(policy, (("sidecar", 1), ("main", 42))).action == "FailJob"


# --- syncJob's finish, in order ---------------------------------------------------------------
def _finish(**kw: object) -> rules.Finish:
    base: dict[str, object] = dict(
        fail_job_message=None, failed=0, backoff_limit=6, started=0, deadline=None, now=0,
        indexed=False, completions=1, succeeded=0, active=1, failed_indexes=0,
        max_failed_indexes=None, per_index=False)
    base.update(kw)
    out = Profile.default().active(rules.FINISH.name).run(None, rules.JobView(**base))
    return out.result if isinstance(out, Stop) else rules.Finish(None)  # type: ignore[arg-type]


def test_finish_reasons_and_messages_in_sync_jobs_order() -> None:
    assert _finish() == rules.Finish(None)
    assert _finish(failed=7) == rules.Finish(
        "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    assert _finish(failed=6).kind is None  # failed > backoffLimit, not >=
    # A FailJob match comes before the backoff limit.
    assert _finish(failed=7, fail_job_message="m").reason == "PodFailurePolicy"
    assert _finish(deadline=30_000, now=30_000) == rules.Finish(
        "Failed", "DeadlineExceeded", "Job was active longer than specified deadline")
    assert _finish(deadline=30_000, now=29_999).kind is None
    assert _finish(succeeded=1) == rules.Finish(
        "Complete", "CompletionsReached", "Reached expected number of succeeded pods")
    assert _finish(completions=None, succeeded=1, active=1).kind is None
    assert _finish(completions=None, succeeded=1, active=0).kind == "Complete"
    assert _finish(per_index=True, max_failed_indexes=0, failed_indexes=1).reason == \
        "MaxFailedIndexesExceeded"
    assert _finish(per_index=True, completions=2, succeeded=1, failed_indexes=1).reason == \
        "FailedIndexes"
