"""The status each workload controller writes, for expectations and the JSON report."""

from __future__ import annotations

from typing import Any

__all__ = ["check_job_condition", "check_workload_status", "statuses_json", "workload_status"]


def workload_status(sim: Any, kind: str, key: str) -> dict[str, Any] | None:
    """The status of workload ``Kind/namespace/name`` now (None: no such workload)."""
    w = sim.state.workloads.get(f"{kind}/{key}")
    if w is None:
        return None
    if kind == "StatefulSet":
        from .statefulset import statefulset_status

        return statefulset_status(sim, w)
    if kind == "DaemonSet":
        from .daemonset import daemonset_status

        return daemonset_status(sim, w)
    from .job import job_status

    return job_status(sim, w)


def _show(status: dict[str, Any], keys: dict[str, int]) -> str:
    return " ".join(f"{k}={status.get(k)}" for k in keys)


def check_workload_status(sim: Any, kind: str, key: str, fields: dict[str, int]
                          ) -> tuple[bool, str]:
    """Whether each status field has its expected value."""
    status = workload_status(sim, kind, key)
    if status is None:
        return False, f"{kind.lower()} {key} does not exist"
    bad = [k for k, v in fields.items() if status.get(k) != v]
    if not bad:
        return True, ""
    return False, f"{kind.lower()} {key} has {_show(status, {k: 0 for k in bad})}"


def check_job_condition(sim: Any, key: str, condition: str, reason: str | None
                        ) -> tuple[bool, str]:
    """Whether the Job has the condition (with the reason, when given)."""
    status = workload_status(sim, "Job", key)
    if status is None:
        return False, f"job {key} does not exist"
    conds = status["conditions"]
    for c in conds:
        if c["type"] == condition and (reason is None or c["reason"] == reason):
            return True, ""
    if not conds:
        return False, (f"job {key} has no condition (active={status['active']} "
                       f"succeeded={status['succeeded']} failed={status['failed']})")
    return False, "job {} has {}".format(
        key, ", ".join(f"{c['type']} ({c['reason']}: {c['message']})" for c in conds))


def statuses_json(sim: Any) -> tuple[dict[str, Any], ...]:
    """Every workload's status, for the JSON report, in the order they were created."""
    out = []
    for w in sim.state.workloads.values():
        status = workload_status(sim, w.kind, w.key)
        if status is not None:
            out.append({"kind": w.kind, "namespace": w.namespace, "name": w.name,
                        "status": status})
    return tuple(out)
