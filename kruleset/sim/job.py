"""The Job controller's sync (``syncJob``, ``manageJob``), deciding through
:mod:`kruleset.rules.controllers.job`.

A pod counts as failed when it reaches phase Failed (``fail pod``, a kubelet
rejection, an eviction or preemption), or, under podReplacementPolicy
TerminatingOrFailed (the default without a podFailurePolicy), as soon as it
is deleted before succeeding; its failure time is that instant (upstream's
``getFinishedTime``).  Pods are named ``NAME-N`` (N counting up, never
reused) or, for an Indexed Job, ``NAME-INDEX-ATTEMPT``.  The Job's start
time, for ``activeDeadlineSeconds``, is its first sync.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..model.objects import JobSpec, Workload
from ..model.state import FAILED, SUCCEEDED, PodState
from ..rules.controllers import job as rules
from ..rules.controllers.outcome import outcome
from .view import SimulationView as Simulation
from .workload_pods import active, create, owned

__all__ = ["JobState", "job_state", "sync_job"]


@attrs.define
class JobState:
    """What the Job's status and the controller's backoff store hold."""

    started: int
    failed: int = 0
    succeeded: int = 0
    counted: set[str] = attrs.field(factory=set)
    failures_since_success: int = 0
    last_failure: int | None = None
    conditions: list[tuple[str, str, str, int]] = attrs.field(factory=list)
    fail_job_message: str | None = None
    finishing: rules.Finish | None = None
    index_failures: dict[int, int] = attrs.field(factory=dict)
    index_last_failure: dict[int, int] = attrs.field(factory=dict)
    failed_indexes: set[int] = attrs.field(factory=set)
    succeeded_indexes: set[int] = attrs.field(factory=set)
    attempts: dict[int, int] = attrs.field(factory=dict)
    wake: int | None = None

    def condition(self, ctype: str) -> tuple[str, str, str, int] | None:
        """The condition of this type, if the Job has it."""
        return next((c for c in self.conditions if c[0] == ctype), None)


def job_state(sim: Simulation, w: Workload) -> JobState:
    """The Job's state, made at its first sync."""
    table: dict[str, JobState] = sim.extra.setdefault("job_states", {})
    st = table.get(w.key)
    if st is None:
        st = table[w.key] = JobState(sim.now)
    return st


def _spec(w: Workload) -> JobSpec:
    return w.job if w.job is not None else JobSpec()


def _index(ps: PodState) -> int:
    v = ps.pod.labels.get("batch.kubernetes.io/job-completion-index", "")
    return int(v) if v.isdigit() else -1


def _every_pod(sim: Simulation, w: Workload, st: JobState) -> list[PodState]:
    """The Job's pods not counted yet, gone ones too (a pod deleted at once is a failure)."""
    # A pod made before the Job was (a deleted Job's, under the same name) is not its own.
    return [ps for ps in sim.state.by_namespace.get(w.namespace, {}).values()
            if ps.pod.owner_kind == "Job" and ps.pod.owner_name == w.name
            and ps.key not in st.counted and ps.created >= st.started]


def _failed_pod(ps: PodState, spec: JobSpec) -> rules.FailedPod:
    codes = ps.extra.get("exit_codes")
    if codes is None:
        # Ended by the system (eviction, preemption, rejection): its containers were killed.
        codes = tuple((c.name, 137) for c in ps.pod.containers)
    conds = tuple((c, "True") for c in ps.conditions)  # the model keeps True conditions
    return rules.FailedPod(ps.pod.namespace, ps.pod.name, codes, conds,  # type: ignore[arg-type]
                           spec.pod_failure_policy)


def _count_finished(sim: Simulation, w: Workload, st: JobState, spec: JobSpec,
                    pods: list[PodState]) -> None:
    """Count pods newly Succeeded or failed, as ``trackJobStatusAndRemoveFinalizers``."""
    failures: list[int] = []
    successes: list[int] = []
    for ps in pods:
        if ps.key in st.counted:
            continue
        if ps.phase == SUCCEEDED:
            st.counted.add(ps.key)
            st.succeeded += 1
            successes.append(ps.extra.setdefault("finished_at", sim.now))  # type: ignore[arg-type]
            if spec.indexed and _index(ps) >= 0:
                st.succeeded_indexes.add(_index(ps))
            continue
        # A pod gone before it succeeded (deleted with no grace, collected) failed too.
        failed = ps.phase == FAILED or ps.gone or (
            ps.terminating and spec.pod_replacement_policy == "TerminatingOrFailed")
        if not failed:
            continue
        st.counted.add(ps.key)
        at = ps.extra.setdefault("finished_at", sim.now)
        failures.append(at)  # type: ignore[arg-type]
        v = _decide_failure(sim, ps, spec)
        if v.action == "FailJob" and st.fail_job_message is None:
            st.fail_job_message = v.message
        if v.action == "Ignore":
            continue
        if spec.indexed and spec.backoff_limit_per_index is not None:
            i = _index(ps)
            n = st.index_failures.get(i, 0) + 1
            st.index_failures[i] = n
            st.index_last_failure[i] = at  # type: ignore[assignment]
            if v.action == "FailIndex" or n > spec.backoff_limit_per_index:
                st.failed_indexes.add(i)
        st.failed += 1
    _backoff_record(st, successes, failures)


def _backoff_record(st: JobState, successes: list[int], failures: list[int]) -> None:
    st.failures_since_success, st.last_failure = rules.new_backoff_record(
        st.failures_since_success, st.last_failure, successes, failures)


def _decide_failure(sim: Simulation, ps: PodState, spec: JobSpec) -> rules.PodVerdict:
    if ps.phase != FAILED or spec.pod_failure_policy is None:
        return rules.PodVerdict("Count")
    return outcome(sim, rules.FAILURE, _failed_pod(ps, spec), ps.key, rules.PodVerdict("Count"))


def _finish(sim: Simulation, w: Workload, st: JobState, spec: JobSpec, n_active: int
            ) -> rules.Finish:
    succeeded = len(st.succeeded_indexes) if spec.indexed else st.succeeded
    view = rules.JobView(
        st.fail_job_message, st.failed, spec.backoff_limit, st.started, spec.active_deadline,
        sim.now, spec.indexed, w.completions, succeeded, n_active, len(st.failed_indexes),
        spec.max_failed_indexes, spec.backoff_limit_per_index is not None)
    return outcome(sim, rules.FINISH, view, w.key, rules.Finish(None))


def _remaining(sim: Simulation, failures: int, last: int | None, subject: str) -> int:
    return outcome(sim, rules.BACKOFF, (failures, last, sim.now), subject, 0)


def sync_job(ctl: Any, sim: Simulation, w: Workload) -> bool:
    """One sync of the Job ``w``."""
    st = job_state(sim, w)
    spec = _spec(w)
    if st.condition("Complete") or st.condition("Failed"):
        return False
    _count_finished(sim, w, st, spec, _every_pod(sim, w, st))
    pods = [ps for ps in owned(sim, w) if ps.created >= st.started]
    live = [ps for ps in pods if active(ps)]
    changed = False
    if st.finishing is None:
        fin = _finish(sim, w, st, spec, len(live))
        if fin.kind is not None:
            st.finishing = fin
            changed = True
            interim = "FailureTarget" if fin.kind == "Failed" else "SuccessCriteriaMet"
            st.conditions.append((interim, fin.reason, fin.message, sim.now))
            sim.record(_KIND_OF[interim], w.key, None, f"job/{w.name}", fin.reason,
                       fin.message, (f"controllers.job.finish.{_RULE_OF[fin.reason]}",))
    if st.finishing is not None:
        return _wind_down(sim, w, st, live, pods) or changed
    if spec.active_deadline is not None:
        sim.wake(st.started + spec.active_deadline)
    return _manage(ctl, sim, w, st, spec, live, pods) or changed


# The report's decision kinds for a Job's conditions (the decision names the Job, ns/name).
_KIND_OF = {"FailureTarget": "job-failure-target", "SuccessCriteriaMet": "job-success-criteria-met",
            "Failed": "job-failed", "Complete": "job-complete"}
_RULE_OF = {"PodFailurePolicy": "pod-failure-policy", "BackoffLimitExceeded": "backoff-limit",
            "DeadlineExceeded": "deadline", "MaxFailedIndexesExceeded": "max-failed-indexes",
            "CompletionsReached": "completions", "FailedIndexes": "failed-indexes"}


def _wind_down(sim: Simulation, w: Workload, st: JobState, live: list[PodState],
               pods: list[PodState]) -> bool:
    """A finishing Job deletes its active pods; the final condition once none terminates."""
    fin = st.finishing
    assert fin is not None and fin.kind is not None
    for ps in live:
        sim.terminate(ps, "deleted", by=f"job/{w.name}", reason=fin.reason,
                      rules=(f"controllers.job.finish.{_RULE_OF[fin.reason]}",))
    if any(ps.terminating for ps in pods):
        return bool(live)
    st.conditions.append((fin.kind, fin.reason, fin.message, sim.now))
    sim.record(_KIND_OF[fin.kind], w.key, None, f"job/{w.name}", fin.reason, fin.message,
               (f"controllers.job.finish.{_RULE_OF[fin.reason]}",))
    return True


def _manage(ctl: Any, sim: Simulation, w: Workload, st: JobState, spec: JobSpec,
            live: list[PodState], pods: list[PodState]) -> bool:
    """``manageJob``: create pods up to the active count the Job wants."""
    n_active = len(live)
    done = len(st.succeeded_indexes) if spec.indexed else st.succeeded
    view = rules.ManageView(spec.suspended, w.replicas, w.completions, done, n_active,
                            sum(1 for ps in pods if ps.terminating),
                            spec.pod_replacement_policy == "Failed")
    want = outcome(sim, rules.MANAGE, view, w.key, 0)
    if want < n_active and spec.suspended:
        for ps in live:
            sim.terminate(ps, "deleted", by=f"job/{w.name}", reason="JobSuspended",
                          rules=("controllers.job.manage.suspended",))
        return True
    diff = want - n_active
    if diff <= 0:
        return False
    if spec.indexed:
        return _create_indexed(ctl, sim, w, st, spec, live, diff)
    left = _remaining(sim, st.failures_since_success, st.last_failure, w.key)
    if left > 0:
        sim.wake(sim.now + left)
        return False
    return _create_numbered(ctl, sim, w, diff)


def _create_numbered(ctl: Any, sim: Simulation, w: Workload, diff: int) -> bool:
    counters = sim.extra.setdefault("job_counter", {})
    key = w.key
    changed = False
    for _ in range(diff):
        n = counters.get(key, 0) + 1
        while f"{w.namespace}/{w.name}-{n}" in sim.state.pods:
            n += 1
        counters[key] = n
        labels = {**w.template.labels, "batch.kubernetes.io/job-name": w.name}
        changed = True
        if create(sim, w, attrs.evolve(w.template, name=f"{w.name}-{n}", labels=labels),
                  "controllers.job.manage.active") is None:
            ctl.refused = True
            break
    return changed


def _create_indexed(ctl: Any, sim: Simulation, w: Workload, st: JobState, spec: JobSpec,
                    live: list[PodState], diff: int) -> bool:
    assert w.completions is not None
    busy = {_index(ps) for ps in live} | st.succeeded_indexes | st.failed_indexes
    changed = False
    for i in range(w.completions):
        if diff <= 0:
            break
        if i in busy:
            continue
        if spec.backoff_limit_per_index is not None:
            left = _remaining(sim, st.index_failures.get(i, 0), st.index_last_failure.get(i),
                              f"{w.key}[{i}]")
        else:
            left = _remaining(sim, st.failures_since_success, st.last_failure, w.key)
        if left > 0:
            sim.wake(sim.now + left)
            continue
        attempt = st.attempts.get(i, 0) + 1
        st.attempts[i] = attempt
        labels = {**w.template.labels, "batch.kubernetes.io/job-name": w.name,
                  "batch.kubernetes.io/job-completion-index": str(i)}
        diff -= 1
        changed = True
        if create(sim, w, attrs.evolve(w.template, name=f"{w.name}-{i}-{attempt}",
                                       labels=labels), "controllers.job.manage.active") is None:
            ctl.refused = True
            break
    return changed


def job_status(sim: Simulation, w: Workload) -> dict[str, Any]:
    """The Job's status as the controller writes it: counts and conditions."""
    st = job_state(sim, w)
    pods = [ps for ps in owned(sim, w) if ps.created >= st.started]
    return {"active": sum(1 for ps in pods if active(ps)), "succeeded": st.succeeded,
            "failed": st.failed, "terminating": sum(1 for ps in pods if ps.terminating),
            "conditions": [{"type": c[0], "reason": c[1], "message": c[2], "time": c[3]}
                           for c in st.conditions],
            "failedIndexes": sorted(st.failed_indexes)}
