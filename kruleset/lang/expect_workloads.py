"""``expect statefulset|daemonset|job REF …`` (LANGUAGE.md §4): a workload's status.

=====================  ====================================================
form                   args
=====================  ====================================================
``workload-status``    ``kind``, ``fields`` (status key -> expected int)
``job-condition``      ``condition`` (Complete, Failed, SuccessCriteriaMet,
                       FailureTarget), ``reason`` (or absent)
=====================  ====================================================

``expect job J complete`` and ``expect job J failed [reason=R]`` name the
final conditions; ``expect job J condition TYPE [reason=R]`` any of them.
"""

from __future__ import annotations

from typing import Any

from .cursor import Cursor
from .errors import Source
from .expect_words import Check, keyed_value
from .values import integer, pod_ref

__all__ = ["JOB_CONDITIONS", "STATUS_KEYS", "parse_expect_workload"]

KINDS = {"statefulset": "StatefulSet", "daemonset": "DaemonSet", "job": "Job"}
# The words of each kind's status fields, and the status field each names.
STATUS_KEYS: dict[str, dict[str, str]] = {
    "StatefulSet": {"replicas": "replicas", "ready": "readyReplicas",
                    "available": "availableReplicas", "current": "currentReplicas",
                    "updated": "updatedReplicas"},
    "DaemonSet": {"desired": "desiredNumberScheduled", "current": "currentNumberScheduled",
                  "ready": "numberReady", "available": "numberAvailable",
                  "updated": "updatedNumberScheduled", "misscheduled": "numberMisscheduled",
                  "unavailable": "numberUnavailable"},
    "Job": {"active": "active", "succeeded": "succeeded", "failed": "failed",
            "terminating": "terminating"},
}
JOB_CONDITIONS = ("Complete", "Failed", "SuccessCriteriaMet", "FailureTarget")
JOB_REASONS = ("CompletionsReached", "BackoffLimitExceeded", "DeadlineExceeded",
               "PodFailurePolicy", "MaxFailedIndexesExceeded", "FailedIndexes")


def parse_expect_workload(src: Source, subject: str, cur: Cursor, args: dict[str, Any],
                          checks: list[Check]) -> tuple[str, str]:
    """The rest of ``expect statefulset|daemonset|job REF …``; returns (form, ref)."""
    kind = KINDS[subject]
    ref_w = cur.word(f"a {subject} reference")
    ns, name = pod_ref(src, ref_w, what=subject)
    ref = f"{ns}/{name}"
    checks.append(("workload", f"{kind}/{ref}", ref_w))
    args["kind"] = kind
    keys = STATUS_KEYS[kind]
    nxt = cur.peek_word() or ""
    if kind == "Job" and "=" not in nxt:
        w = cur.keyword("complete", "failed", "condition")
        if w.value == "condition":
            cw = cur.word("a condition type")
            if cw.value not in JOB_CONDITIONS:
                raise src.unknown("job condition", cw.value, cw, JOB_CONDITIONS,
                                  expected=" | ".join(JOB_CONDITIONS))
            args["condition"] = cw.value
        else:
            args["condition"] = "Complete" if w.value == "complete" else "Failed"
        if not cur.at_end():
            rw = keyed_value(cur, "reason")
            if rw.value not in JOB_REASONS:
                raise src.unknown("job condition reason", rw.value, rw, JOB_REASONS,
                                  expected=" | ".join(JOB_REASONS))
            args["reason"] = rw.value
        return "job-condition", ref
    fields: dict[str, int] = {}
    if cur.at_end():
        raise cur.error(f"expected a status field such as {next(iter(keys))}=N",
                        expected=", ".join(f"{k}=N" for k in keys))
    while not cur.at_end():
        w = cur.word("FIELD=N")
        key, eq, value = w.value.partition("=")
        if not eq or key not in keys:
            raise src.unknown(f"{subject} status field", key, w.at(0, key), tuple(keys),
                              expected=", ".join(f"{k}=N" for k in keys))
        if keys[key] in fields:
            raise src.error(f"'{key}' is given twice", w)
        fields[keys[key]] = integer(src, w.at(len(key) + 1, value), key, minimum=0)
    args["fields"] = fields
    return "workload-status", ref
