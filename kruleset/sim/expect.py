"""Checking ``expect`` lines against the simulated cluster (LANGUAGE.md §4).

Pod states: ``running`` (bound, not terminating), ``pending`` (waiting for a
node), ``nominated NODE``, ``preempted``/``evicted``/``deleted`` (from the
instant of the decision on), ``rejected`` (refused by kubelet admission),
``terminating``, ``succeeded``, ``failed``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from typing import Any

from ..model.scenario import Expectation
from ..model.selectors import Taint
from ..model.state import FAILED, RUNNING, SUCCEEDED, PodState
from .result import NOT_SIMULATED, ExpectationResult
from .view import SimulationView

__all__ = ["check_expectations", "pod_in_state"]


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


def check(sim: SimulationView, x: Expectation) -> ExpectationResult:
    """Evaluate one expectation now."""
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
            bad.append(f"{ps.key} is {now}")
    return (not bad), "; ".join(bad)


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
    n = sum(1 for ps in pods if _is_in(ps, x.state, x.args))
    want = x.args["count"]
    if n == want:
        return True, ""
    detail = ", ".join(f"{ps.key}: {_describe(ps)}" for ps in pods)
    return False, f"{n} pod(s) {x.state}, expected {want} ({detail or 'no pods match'})"


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
    return got == x.args["status"], f"status was {got}"


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


def _pdb_allowed(sim: SimulationView, x: Expectation) -> tuple[bool, str]:
    pdb_mod = _require("disruption.pdb", "PodDisruptionBudget status")
    pdb = sim.state.pdbs.get(_norm(x.ref))
    if pdb is None:
        return False, f"no PodDisruptionBudget {_norm(x.ref)}"
    status = pdb_mod.pdb_status(sim.state, pdb, sim.now, sim.fast)
    got = status.disruptions_allowed
    return got == x.args["value"], f"disruptionsAllowed is {got}"


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


_CHECKS = {
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
    "pdb-allowed": _pdb_allowed,
    "qos": _qos,
    "priority": _priority,
    "critical": _critical,
    "oom-score-adj": _oom,
}
