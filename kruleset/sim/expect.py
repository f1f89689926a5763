"""Checking ``expect`` lines against the simulated cluster (LANGUAGE.md §4).

Pod states: ``running`` (bound, not terminating), ``pending`` (waiting for a
node), ``nominated NODE``, ``preempted``/``evicted``/``deleted`` (from the
instant of the decision on), ``rejected`` (refused by kubelet admission),
``terminating``, ``succeeded``, ``failed``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..lang.expect_disruption import compare
from ..model.quantity import format_duration
from ..model.scenario import Expectation
from ..model.selectors import Taint
from ..model.state import FAILED, RUNNING, SUCCEEDED, PodState
from .result import NOT_SIMULATED, ExpectationResult
from .view import SimulationView

__all__ = ["check_expectations", "check_windows", "pod_in_state", "window_bounds"]


def _norm(ref: str) -> str:
    return ref if "/" in ref else f"default/{ref}"


def _matching(sim: SimulationView, ref: str) -> list[PodState]:
    ref = _norm(ref)
    if "*" not in ref and "?" not in ref:
        ps = sim.state.pods.get(ref)
        return [ps] if ps is not None else []
    match = re.compile(fnmatch.translate(ref)).match  # fnmatchcase, compiled once per call
    return [ps for k, ps in sim.state.pods.items() if match(k)]


def pod_in_state(ps: PodState, state: str, args: Any = None) -> tuple[bool, str]:
    """Whether ``ps`` is in ``state`` (with its options); and what it is instead."""
    args = args or {}
    now = _describe(ps)
    if state == "running":
        ok = ps.bound and not ps.terminating and ps.phase == RUNNING
        node = args.get("node")
        if ok and node and ps.node != node:
            return False, f"running on {ps.node}, not {node}"
        return ok, now
    if state == "pending":
        ok = (ps.node is None or "dra.waiting" in ps.extra) and not ps.gone and \
            ps.phase == "Pending"
        reason = args.get("reason")
        if ok and reason and reason not in ps.schedule_message:
            return False, f"pending with message {ps.schedule_message!r}"
        return ok, now
    if state == "nominated":
        return ps.nominated == args.get("node"), now
    if state in ("preempted", "evicted", "deleted"):
        ok = ps.outcome == state
        if ok and state == "preempted" and args.get("by") and _norm(args["by"]) != ps.by:
            return False, f"preempted by {ps.by}"
        if ok and state == "evicted" and args.get("reason"):
            kind = ps.extra.get("eviction_kind") or ("API" if ps.by == "API" else ps.reason)
            if kind != args["reason"]:
                return False, f"evicted ({kind})"
        return ok, now
    if state == "rejected":
        ok = ps.outcome == "rejected"
        reason = args.get("reason")
        if ok and reason and reason not in ps.reason and reason not in ps.message:
            return False, f"rejected: {ps.reason}: {ps.message}"
        return ok, now
    if state == "ready":
        # Ready=True and not terminating: what a PDB counts as currentHealthy
        # and an EndpointSlice as ready.
        return (ps.ready and ps.phase == RUNNING and ps.node is not None and not ps.gone
                and ps.deletion_time is None), now
    if state == "terminating":
        return ps.terminating, now
    if state == "succeeded":
        return ps.phase == SUCCEEDED, now
    if state == "failed":
        return ps.phase == FAILED, now
    raise ValueError(f"unknown pod state {state!r}")


def _describe(ps: PodState) -> str:
    if ps.outcome:
        extra = " (terminating)" if ps.terminating else ""
        by = f" by {ps.by}" if ps.by else ""
        return f"{ps.outcome}{by}{extra}"
    if ps.phase == "Pending" and (ps.node is None or "dra.waiting" in ps.extra):
        nom = f", nominated to {ps.nominated}" if ps.nominated else ""
        msg = f": {ps.schedule_message}" if ps.schedule_message else ""
        return f"pending{nom}{msg}"
    if ps.phase == RUNNING:
        return f"running on {ps.node}"
    return ps.phase.lower()


def check_expectations(sim: SimulationView, at: int | None
                       ) -> Iterator[tuple[Expectation, ExpectationResult]]:
    """Evaluate the expectations written for instant ``at`` (``None``: end of run)."""
    for x in sim.scenario.expectations:
        if x.time == at:
            yield x, check(sim, x)


def window_bounds(expectations: Iterable[Expectation]) -> set[int]:
    """The instants the simulation must stop at for its ``always``/``never`` windows."""
    out: set[int] = set()
    for x in expectations:
        w = x.args.get("window")
        if w is not None:
            out.update((w[1], w[2]))
    return out


def check_windows(sim: SimulationView, windows: list[Expectation]) -> None:
    """Check every window open now; remember each window's first violation."""
    seen: dict[int, list[Any]] = sim.extra.setdefault("windows", {})
    now = sim.now
    for x in windows:
        mode, start, end = x.args["window"]
        if not start <= now <= end:
            continue
        rec = seen.setdefault(id(x), [0, None])
        rec[0] += 1
        if rec[1] is not None:
            continue
        try:
            passed, message = _CHECKS[x.form](sim, x)
        except _Unsupported:
            continue  # reported when the verdict is read
        if mode == "always" and not passed:
            rec[1] = f"at {format_duration(now)}: {message}"
        elif mode == "never" and passed:
            rec[1] = f"at {format_duration(now)}: it held"


def _window(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    mode, start, end = x.args["window"]
    rec = sim.extra.get("windows", {}).get(id(x))
    if rec is None:
        _CHECKS[x.form](sim, x)  # raises _Unsupported for a mechanism not simulated
        return False, (f"the simulation never reached the window "
                       f"{format_duration(start)}..{format_duration(end)}")
    return rec[1] is None, rec[1] or ""


def check(sim: SimulationView, x: Expectation) -> ExpectationResult:
    """Evaluate one expectation now (a window's: its verdict over the window)."""
    if "window" in x.args:
        try:
            passed, message = _window(sim, x)
        except _Unsupported as e:
            return ExpectationResult(x, False, f"{NOT_SIMULATED}: {e}", unsupported=True)
        return ExpectationResult(x, passed, "" if passed else message)
    try:
        passed, message = _CHECKS[x.form](sim, x)
    except _Unsupported as e:
        return ExpectationResult(x, False, f"{NOT_SIMULATED}: {e}", unsupported=True)
    return ExpectationResult(x, passed, "" if passed else message)


class _Unsupported(Exception):
    pass


def _pod(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pods = _matching(sim, x.ref)
    if not pods:
        return False, f"no pod matches {x.ref}"
    bad = []
    for ps in pods:
        ok, now = pod_in_state(ps, x.state, x.args)
        if ok == x.negated:
            bad.append((ps.key, now))
    if len(bad) > LIST_AT_MOST:
        return False, _grouped(bad)
    return (not bad), "; ".join(f"{key} is {now}" for key, now in bad)


def _attempts(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pods = _matching(sim, x.ref)
    if not pods:
        return False, f"no pod matches {x.ref}"
    want = x.args["value"]
    keys = {ps.key for ps in pods}
    counts = dict.fromkeys(sorted(keys), 0)
    for a in sim.attempts:
        if a.pod in keys:
            counts[a.pod] += 1
    bad = [f"{k} had {n} scheduling attempt(s)" for k, n in counts.items() if n != want]
    return (not bad), "; ".join(bad)


def _is_in(ps: PodState, state: str, args: Any) -> bool:
    """``pod_in_state(…)[0]`` without describing the pod (counts run over whole clusters)."""
    if state == "running" and not args.get("node"):
        # bound, not terminating, Running: the properties spelled out
        return (ps.phase == RUNNING and ps.node is not None and not ps.gone
                and ps.deletion_time is None)
    return pod_in_state(ps, state, args)[0]


def _pods_count(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pods = _matching(sim, x.ref)
    labels = x.args.get("labels")
    if labels:
        pods = [ps for ps in pods if all(ps.pod.labels.get(k) == v for k, v in labels.items())]
    n = sum(1 for ps in pods if _is_in(ps, x.state, x.args))
    want = x.args["count"]
    op = x.args.get("op", "=")
    if compare(op, n, want):
        return True, ""
    if len(pods) > LIST_AT_MOST:
        detail = _summary(pods)
    else:
        detail = ", ".join(f"{ps.key}: {_describe(ps)}" for ps in pods)
    shown = f"{want}" if op == "=" else f"{op}{want}"
    return False, f"{n} pod(s) {x.state}, expected {shown} ({detail or 'no pods match'})"


#: A count over more pods than this says each state once, with how many pods are in it.
LIST_AT_MOST = 10


def _summary(pods: list[PodState]) -> str:
    """``default/big-1, default/big-2 and 3,118 more pods pending: 0/300 nodes … (×3,120)``.

    One part per distinct state (running pods are not told apart by node), in
    the order of their first pod, so a count over thousands of pods stays a line.
    """
    return _grouped([(ps.key, _describe(ps)) for ps in pods])


def _grouped(pods: list[tuple[str, str]]) -> str:
    """(pod, state) pairs said once per state, the first pods named, the rest counted."""
    groups: dict[str, list[str]] = {}
    for key, now in pods:
        # running pods are not told apart by node: thousands of them are one part
        groups.setdefault("running" if now.startswith("running on ") else now, []).append(key)
    parts = []
    for now, keys in groups.items():
        if len(keys) == 1:
            parts.append(f"{keys[0]}: {now}")
        elif len(keys) <= 3:
            parts.append(f"{', '.join(keys)}: {now}")
        else:
            parts.append(f"{keys[0]}, {keys[1]} and {len(keys) - 2:,} more pods {now} "
                         f"(×{len(keys):,})")
    return "; ".join(parts)


def _victims(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    got = sorted(set(sim.victims.get(_norm(x.ref), [])))
    want = sorted({_norm(r) for r in x.args["refs"]})
    return got == want, f"victims were [{', '.join(got)}]"


def _evictions(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    if not _has("kubelet.admission") and not sim.kubelet_evictions:
        _require("kubelet.eviction.manager", "kubelet node-pressure eviction")
    want = [_norm(r) for r in x.args["refs"]]
    return sim.kubelet_evictions == want, f"evictions were [{', '.join(sim.kubelet_evictions)}]"


def _eviction_status(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    got = sim.eviction_status.get(_norm(x.ref))
    if got is None:
        return False, f"no eviction of {_norm(x.ref)} was requested"
    if got != x.args["status"]:
        return False, f"status was {got}"
    want = x.args.get("message")
    if want is not None:
        text = sim.extra.get("eviction_text", {}).get(_norm(x.ref), "")
        if want not in text:
            return False, f"the answer was {text!r}" if text else "the answer had no message"
    return True, ""


def _node_condition(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    node = sim.state.nodes.get(x.ref)
    if node is None:  # deleted (a sweep's node failure)
        return False, f"node {x.ref} does not exist"
    cond = x.args["condition"]
    has = cond in node.conditions
    want = not x.negated
    return has == want, f"{x.ref} {'has' if has else 'does not have'} {cond}"


def _node_taint(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    node = sim.state.nodes.get(x.ref)
    if node is None:  # deleted (a sweep's node failure)
        return False, f"node {x.ref} does not exist"
    t: Taint = x.args["taint"]
    has = any(o.key == t.key and o.effect == t.effect and (not t.value or o.value == t.value)
              for o in node.taints)
    want = not x.args.get("absent", False)
    shown = ", ".join(str(o) for o in node.taints) or "none"
    return has == want, f"{x.ref} taints: {shown}"


def _quota_used(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    from ..model.quantity import format_quantity
    from ..rules.quota.accounting import quota_used

    get = quota_used(sim.state, x.ref).get
    bad = []
    for name, want in x.args["used"].items():
        have = get(name)
        if have != want:
            bad.append(f"{name}={format_quantity(name, have)} (expected "
                       f"{format_quantity(name, want)})")
    return not bad, "used " + ", ".join(bad)


_PDB_FIELDS = {"disruptions-allowed": "disruptions_allowed", "current-healthy": "current_healthy",
               "desired-healthy": "desired_healthy", "expected-pods": "expected_pods"}


def _pdb_status(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pdb_mod = _require("disruption.pdb", "PodDisruptionBudget status")
    pdb = sim.state.pdbs.get(_norm(x.ref))
    if pdb is None:
        return False, f"no PodDisruptionBudget {_norm(x.ref)}"
    status = pdb_mod.pdb_status(sim.state, pdb, sim.now, sim.fast)
    bad = []
    for name, want in x.args.get("fields", {}).items():
        got = len(status.disrupted_pods) if name == "disrupted-pods" else \
            getattr(status, _PDB_FIELDS[name])
        if got != want:
            bad.append(f"{name} is {got}")
    cond = x.args.get("condition")
    if cond is not None and status.condition_reason != cond:
        bad.append(f"condition is {status.condition_reason}")
    msg = x.args.get("message")
    if msg is not None and msg not in status.condition_message:
        bad.append(f"condition message is {status.condition_message!r}")
    return not bad, "; ".join(bad)


def _drain(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    ctl = sim.extra.get("drain_controller")  # sim.drain's, if any drain ran
    if ctl is None:
        return False, f"no drain of node {x.ref} was started"
    verdict: tuple[bool, str] = ctl.verdict(sim, x.ref, x.args["verdict"], x.args.get("by"))
    return verdict


def _deployment_status(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    # The deployment controller answers (kruleset.sim.workloads.status_of), found
    # through the simulation so that expectations do not import the controllers.
    ctl = sim.extra.get("deployment_controller")
    status = ctl.status_of(sim, _norm(x.ref)) if ctl is not None else None
    if status is None:
        return False, f"no Deployment {_norm(x.ref)}"
    got = {"replicas": status.replicas, "updated": status.updated, "ready": status.ready,
           "available": status.available, "unavailable": status.unavailable}
    bad = [f"{k} is {got[k]}" for k, want in x.args.items() if got[k] != want]
    return not bad, ", ".join(bad)


def _one_pod(sim: SimulationView, x: Expectation) -> list[PodState]:
    return _matching(sim, x.ref)


def _qos(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pods = _one_pod(sim, x)
    bad = [f"{ps.key} is {ps.pod.qos}" for ps in pods if ps.pod.qos != x.args["value"]]
    return bool(pods) and not bad, "; ".join(bad) or f"no pod matches {x.ref}"


def _priority(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pods = _one_pod(sim, x)
    bad = []
    for ps in pods:
        p = ps.pod
        if p.effective_priority != x.args["value"]:
            bad.append(f"{ps.key} has priority {p.effective_priority}")
        pol = x.args.get("preemption")
        if pol and p.effective_preemption_policy != pol:
            bad.append(f"{ps.key} has preemptionPolicy {p.effective_preemption_policy}")
    return bool(pods) and not bad, "; ".join(bad) or f"no pod matches {x.ref}"


def _critical(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pods = _one_pod(sim, x)
    want = not x.negated
    bad = [f"{ps.key} is {'' if ps.pod.critical else 'not '}critical"
           for ps in pods if ps.pod.critical != want]
    return bool(pods) and not bad, "; ".join(bad) or f"no pod matches {x.ref}"


def _oom(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    oom = _require("kubelet.eviction.oom", "OOM score adjust")
    pods = _one_pod(sim, x)
    bad = []
    for ps in pods:
        node = sim.state.nodes.get(ps.node or ps.pod.node_name or "")
        capacity = node.node.capacity.memory if node is not None else 0
        name = x.args.get("container")
        if name is not None and all(c.name != name for c in
                                    (*ps.pod.containers, *ps.pod.init_containers)):
            bad.append(f"{ps.key} has no container {name!r}")
            continue
        got = oom.oom_score_adj(ps.pod, name, capacity)
        if got != x.args["value"]:
            bad.append(f"{ps.key} has oom_score_adj {got}")
    return bool(pods) and not bad, "; ".join(bad) or f"no pod matches {x.ref}"


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(f"kruleset.rules.{module}") is not None


def _require(module: str, what: str) -> Any:
    import importlib

    try:
        return importlib.import_module(f"kruleset.rules.{module}")
    except ModuleNotFoundError:
        raise _Unsupported(what) from None


def _claim(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    from ..rules.dra.checks import check_claim

    return check_claim(sim.state, x.ref, x.state, x.args)


def _claims_count(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    from ..rules.dra.checks import check_claims_count

    return check_claims_count(sim.state, x.ref, x.state, x.args["count"])


def _device(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    from ..rules.dra.checks import check_device

    return check_device(sim.state, x.ref, x.state, x.args)


def _workload_status(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    from .workload_status import check_workload_status

    return check_workload_status(sim, x.args["kind"], x.ref, x.args["fields"])


def _job_condition(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    from .workload_status import check_job_condition

    return check_job_condition(sim, x.ref, x.args["condition"], x.args.get("reason"))


_CHECKS = {
    "workload-status": _workload_status,
    "job-condition": _job_condition,
    "attempts": _attempts,
    "claim": _claim,  # DRA
    "claims-count": _claims_count,
    "device": _device,
    "pod": _pod,
    "pods-count": _pods_count,
    "victims": _victims,
    "evictions": _evictions,
    "eviction-status": _eviction_status,
    "node-condition": _node_condition,
    "node-taint": _node_taint,
    "quota-used": _quota_used,
    "pdb-status": _pdb_status,
    "drain": _drain,
    "deployment-status": _deployment_status,
    "qos": _qos,
    "priority": _priority,
    "critical": _critical,
    "oom-score-adj": _oom,
}
