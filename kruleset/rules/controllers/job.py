"""The Job controller's decisions (``pkg/controller/job``, v1.35).

* ``controllers.job.pod-failure``: what a failed pod means
  (``pod_failure_policy.go`` ``matchPodFailurePolicy``): the first
  ``podFailurePolicy`` rule matching the pod's exit codes (a container
  ending with 0 never matches) or conditions decides FailJob, FailIndex,
  Ignore or Count; no rule matching, or no policy, counts the failure.
* ``controllers.job.finish``: whether the Job fails or succeeds now, in
  ``syncJob``'s order: a FailJob match (FailureTarget, ``PodFailurePolicy``),
  ``failed > backoffLimit`` (``BackoffLimitExceeded``), the active deadline
  (``DeadlineExceeded``), ``maxFailedIndexes`` exceeded
  (``MaxFailedIndexesExceeded``), the completions reached
  (SuccessCriteriaMet, ``CompletionsReached``), every index finished with
  some failed (``FailedIndexes``).  v1.35 adds the interim condition
  (FailureTarget or SuccessCriteriaMet) at once and the final one (Failed or
  Complete, same reason and message) once no pod of the Job is terminating.
* ``controllers.job.backoff``: how long a replacement for a failed pod waits
  (``backoff_utils.go`` ``getRemainingTimeForFailuresCount``): 10 s doubled
  for each failure since the last success, at most 10 minutes
  (``DefaultJobPodFailureBackOff``, ``MaxJobPodFailureBackOff``), counted
  from the last failure's finish time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ...model.objects import PodFailurePolicyRule
from ..context import Unread
from ..engine import Stop
from ..registry import define_ruleset, rule

__all__ = ["BACKOFF", "DEFAULT_BACKOFF", "FAILURE", "FINISH", "MANAGE", "MAX_BACKOFF",
           "FailedPod", "Finish", "JobView", "ManageView", "PodVerdict", "new_backoff_record",
           "remaining_backoff"]

DEFAULT_BACKOFF = 10_000   # ms, DefaultJobPodFailureBackOff
MAX_BACKOFF = 600_000      # ms, MaxJobPodFailureBackOff (10 minutes in v1.35's code)

MSG_BACKOFF = "Job has reached the specified backoff limit"
MSG_DEADLINE = "Job was active longer than specified deadline"
MSG_MAX_FAILED_INDEXES = "Job has exceeded the specified maximum number of failed indexes"
MSG_FAILED_INDEXES = "Job has failed indexes"
MSG_COMPLETE = "Reached expected number of succeeded pods"

FAILURE = define_ruleset(
    "controllers.job.pod-failure", "pipeline",
    "What a failed pod of a Job means under its podFailurePolicy: FailJob, FailIndex, "
    "Ignore or Count.")
FINISH = define_ruleset(
    "controllers.job.finish", "pipeline",
    "Whether a Job fails or succeeds now, and with which reason.")
BACKOFF = define_ruleset(
    "controllers.job.backoff", "pipeline",
    "How long the Job controller waits before replacing failed pods.")

MANAGE = define_ruleset(
    "controllers.job.manage", "pipeline",
    "How many pods a Job wants active now.")

_SRC = "pkg/controller/job/job_controller.go"


@attrs.frozen(slots=True)
class ManageView:
    """What ``manageJob`` reads to count the pods it wants active."""

    suspended: bool
    parallelism: int
    completions: int | None
    succeeded: int
    active: int
    terminating: int
    replace_failed_only: bool  # podReplacementPolicy Failed


@rule(MANAGE, "controllers.job.manage.suspended",
      doc="A suspended Job wants no pod active.",
      source=f"{_SRC} manageJob (jobSuspended: delete the active pods)")
def _suspended(ctx: Unread, args: Mapping[str, Any], m: ManageView) -> Any:
    if m.suspended:
        return Stop(0, "suspended")
    return None


@rule(MANAGE, "controllers.job.manage.active",
      doc="min(parallelism, completions - succeeded) pods (without completions: parallelism "
          "until one succeeds, then no new pod); under podReplacementPolicy Failed, "
          "terminating pods count too.",
      source=f"{_SRC} manageJob (wantActive; onlyReplaceFailedPods)")
def _want(ctx: Unread, args: Mapping[str, Any], m: ManageView) -> Any:
    if m.completions is None:
        want = m.active if m.succeeded > 0 else m.parallelism
    else:
        want = max(0, min(m.parallelism, m.completions - m.succeeded))
    if m.replace_failed_only:
        want -= m.terminating
    return Stop(want, f"want {want} active, {m.active} active")


@attrs.frozen(slots=True)
class FailedPod:
    """A failed pod as the policy reads it: its containers' exit codes and its conditions."""

    namespace: str
    name: str
    exit_codes: tuple[tuple[str, int], ...]        # (container, exit code), in order
    conditions: tuple[tuple[str, str], ...]        # (condition type, status)
    policy: tuple[PodFailurePolicyRule, ...] | None


@attrs.frozen(slots=True)
class PodVerdict:
    """``action``: FailJob, FailIndex, Ignore or Count; ``message`` for FailJob."""

    action: str
    message: str = ""


@attrs.frozen(slots=True)
class JobView:
    """What ``syncJob`` reads to decide whether the Job finishes."""

    fail_job_message: str | None
    failed: int
    backoff_limit: int
    started: int | None
    deadline: int | None
    now: int
    indexed: bool
    completions: int | None
    succeeded: int
    active: int
    failed_indexes: int
    max_failed_indexes: int | None
    per_index: bool


@attrs.frozen(slots=True)
class Finish:
    """``kind``: Failed or Complete (None: the Job goes on); its reason and message."""

    kind: str | None
    reason: str = ""
    message: str = ""


# --- matchPodFailurePolicy ---------------------------------------------------------------


def _exit_match(r: PodFailurePolicyRule, pod: FailedPod) -> tuple[str, int] | None:
    assert r.on_exit_codes is not None
    container, op, values = r.on_exit_codes
    for name, code in pod.exit_codes:
        if code == 0 or (container is not None and name != container):
            continue
        if (code in values) == (op == "In"):
            return name, code
    return None


@rule(FAILURE, "controllers.job.pod-failure.policy",
      doc="The first podFailurePolicy rule matching the pod's exit codes or conditions "
          "decides.",
      source="pkg/controller/job/pod_failure_policy.go matchPodFailurePolicy, "
             "matchOnExitCodes, matchOnPodConditions")
def _policy(ctx: Unread, args: Mapping[str, Any], pod: FailedPod) -> Any:
    for i, r in enumerate(pod.policy or ()):
        if r.on_exit_codes is not None:
            hit = _exit_match(r, pod)
            if hit is None:
                continue
            msg = (f"Container {hit[0]} for pod {pod.namespace}/{pod.name} failed with exit "
                   f"code {hit[1]} matching {r.action} rule at index {i}")
        else:
            ctype = next((c for c, status in r.on_conditions
                          if (c, status) in pod.conditions), None)
            if ctype is None:
                continue
            msg = (f"Pod {pod.namespace}/{pod.name} has condition {ctype} matching "
                   f"{r.action} rule at index {i}")
        return Stop(PodVerdict(r.action, msg if r.action == "FailJob" else ""),
                    f"rule {i}: {r.action}")
    return None


@rule(FAILURE, "controllers.job.pod-failure.count",
      doc="No podFailurePolicy rule matching (or no policy): the failure counts toward "
          "backoffLimit.",
      source="pkg/controller/job/pod_failure_policy.go matchPodFailurePolicy (no match)")
def _count(ctx: Unread, args: Mapping[str, Any], pod: FailedPod) -> Any:
    return Stop(PodVerdict("Count"), "counted")


# --- syncJob's finish ---------------------------------------------------------------------


@rule(FINISH, "controllers.job.finish.pod-failure-policy",
      doc="A failed pod matching a FailJob rule fails the Job (reason PodFailurePolicy).",
      source=f"{_SRC} syncJob (getFailJobMessage, newFailedConditionForFailureTarget)")
def _fail_job(ctx: Unread, args: Mapping[str, Any], j: JobView) -> Any:
    if j.fail_job_message is not None:
        return Stop(Finish("Failed", "PodFailurePolicy", j.fail_job_message), "FailJob")
    return None


@rule(FINISH, "controllers.job.finish.backoff-limit",
      doc="More failed pods than backoffLimit fail the Job (BackoffLimitExceeded).",
      source=f"{_SRC} syncJob (exceedsBackoffLimit: failed > backoffLimit)")
def _backoff_limit(ctx: Unread, args: Mapping[str, Any], j: JobView) -> Any:
    if j.failed > j.backoff_limit:
        return Stop(Finish("Failed", "BackoffLimitExceeded", MSG_BACKOFF),
                    f"failed {j.failed} > backoffLimit {j.backoff_limit}")
    return None


@rule(FINISH, "controllers.job.finish.deadline",
      doc="A Job active for activeDeadlineSeconds fails (DeadlineExceeded).",
      source=f"{_SRC} syncJob, pastActiveDeadline")
def _deadline(ctx: Unread, args: Mapping[str, Any], j: JobView) -> Any:
    if j.deadline is not None and j.started is not None and j.now - j.started >= j.deadline:
        return Stop(Finish("Failed", "DeadlineExceeded", MSG_DEADLINE), "deadline")
    return None


@rule(FINISH, "controllers.job.finish.max-failed-indexes",
      doc="More failed indexes than maxFailedIndexes fail the Job (MaxFailedIndexesExceeded).",
      source=f"{_SRC} syncJob (exceedsMaxFailedIndexes)")
def _max_failed(ctx: Unread, args: Mapping[str, Any], j: JobView) -> Any:
    if j.max_failed_indexes is not None and j.failed_indexes > j.max_failed_indexes:
        return Stop(Finish("Failed", "MaxFailedIndexesExceeded", MSG_MAX_FAILED_INDEXES),
                    "max failed indexes")
    return None


@rule(FINISH, "controllers.job.finish.completions",
      doc="The completions reached (without completions: one success and no pod active) "
          "complete the Job (CompletionsReached).",
      source=f"{_SRC} syncJob (complete: succeeded >= completions; "
             "succeeded > 0 && active == 0 without completions)")
def _complete(ctx: Unread, args: Mapping[str, Any], j: JobView) -> Any:
    if j.completions is None:
        done = j.succeeded > 0 and j.active == 0
    else:
        done = j.succeeded >= j.completions
    if done:
        return Stop(Finish("Complete", "CompletionsReached", MSG_COMPLETE), "complete")
    return None


@rule(FINISH, "controllers.job.finish.failed-indexes",
      doc="Every index finished and some failed: the Job fails (FailedIndexes).",
      source=f"{_SRC} syncJob (backoffLimitPerIndex: all indexes finished, some failed)")
def _failed_indexes(ctx: Unread, args: Mapping[str, Any], j: JobView) -> Any:
    if j.per_index and j.failed_indexes and j.completions is not None and \
            j.succeeded + j.failed_indexes >= j.completions:
        return Stop(Finish("Failed", "FailedIndexes", MSG_FAILED_INDEXES), "failed indexes")
    return None


# --- the pod failure backoff -------------------------------------------------------------


def new_backoff_record(failures: int, last_failure: int | None, successes: list[int],
                       new_failures: list[int]) -> tuple[int, int | None]:
    """``newBackoffRecord``: failures after the last success and the last failure's time,
    from the record so far and the pods newly finished (their finish times)."""
    if not successes:
        if not new_failures:
            return failures, last_failure
        return failures + len(new_failures), max(new_failures)
    last_success = max(successes)
    after = sorted(f for f in new_failures if f > last_success)
    return len(after), (after[-1] if after else None)


def remaining_backoff(failures: int, last_failure: int | None, now: int,
                      default: int = DEFAULT_BACKOFF, maximum: int = MAX_BACKOFF) -> int:
    """``getRemainingTimeForFailuresCount``: ms left before a replacement, 0 when none."""
    if failures == 0 or last_failure is None:
        return 0
    backoff = default
    for _ in range(1, failures):
        backoff *= 2
        if backoff >= maximum:
            backoff = maximum
            break
    elapsed = now - last_failure
    return 0 if backoff < elapsed else backoff - elapsed


@rule(BACKOFF, "controllers.job.backoff.remaining",
      doc="A replacement waits 10s doubled per failure since the last success (at most "
          "10m), from the last failure.",
      source="pkg/controller/job/backoff_utils.go getRemainingTime, "
             "getRemainingTimePerIndex, getRemainingTimeForFailuresCount")
def _remaining(ctx: Unread, args: Mapping[str, Any], data: tuple[int, int | None, int]) -> Any:
    failures, last, now = data
    left = remaining_backoff(failures, last, now)
    return Stop(left, f"{failures} failure(s): wait {left} ms")
