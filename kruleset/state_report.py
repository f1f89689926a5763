"""The end state of a run: where every pod is, what each node holds, budgets and quotas.

Three forms, from the same data (:func:`end_state`):

* the JSON report's ``state`` of each file (``schemas/report-v1.schema.json``);
* ``kruleset run --state``: tables after the text report: pods by node (the
  pending ones last, with the scheduler's message), nodes with requests and
  limits against allocatable and the percentage of allocatable requested, as
  ``kubectl describe node`` prints "Allocated resources";
* ``--state-out FILE``: Kubernetes YAML that ``include`` reads back
  (:mod:`kruleset.state_manifest`).

Pods that are gone (deleted, evicted, preempted and past their grace
period, finished) are not in the end state; terminating pods are, with
phase ``Terminating`` as ``kubectl get pods`` shows it.
"""

from __future__ import annotations

import argparse
from typing import Any

from .model.quantity import format_duration, format_quantity
from .model.state import RUNNING, ClusterState, Tally

__all__ = ["add_state_options", "end_state", "render_state", "state_pods"]

#: Resources every node row shows, then the node's other allocatable ones.
_BASE = ("cpu", "memory", "ephemeral-storage", "pods")


def add_state_options(run: argparse.ArgumentParser) -> None:
    """``--state`` and ``--state-out`` of ``kruleset run``."""
    run.add_argument("--state", action="store_true",
                     help="end the text report with the end state: pods by node (pending "
                          "ones with why), nodes with requests/limits against allocatable")
    run.add_argument("--state-out", metavar="FILE",
                     help="write the end state as Kubernetes YAML that include reads back "
                          "(one file per run)")


def state_pods(state: ClusterState) -> list[Any]:
    """The pods of the end state (not gone), in creation order."""
    return sorted((ps for ps in state.pods.values() if not ps.gone), key=lambda ps: ps.seq)


def _phase(ps: Any) -> str:
    return "Terminating" if ps.terminating else ps.phase


def _pod_json(ps: Any) -> dict[str, Any]:
    pending = ps.node is None and ps.phase not in ("Succeeded", "Failed")
    return {"name": ps.key, "node": ps.node, "phase": _phase(ps),
            "nominatedNode": ps.nominated,
            "message": ps.schedule_message if pending else "",
            "priority": ps.pod.effective_priority}


def _limits(ns: Any) -> Tally:
    total = Tally()
    for ps in ns.pods.values():
        if ps.bound:
            total.add(ps.pod.limits)
    return total


def _resources(ns: Any) -> list[str]:
    names = list(_BASE)
    names += sorted(k for k, v in ns.allocatable.scalars if v and k not in names)
    names += sorted(k for k in ns.requested.scalars if ns.requested.scalars[k]
                    and k not in names)
    return names


def _node_json(ns: Any) -> dict[str, Any]:
    limits = _limits(ns)
    resources = {}
    for name in _resources(ns):
        alloc = ns.allocatable.get(name)
        req = ns.requested.get(name)
        lim = limits.get(name)
        if not (alloc or req or lim) and name != "pods":
            continue  # a resource the node neither has nor is asked for
        resources[name] = {
            "requests": format_quantity(name, req), "limits": format_quantity(name, lim),
            "allocatable": format_quantity(name, alloc),
            "requestsPercent": _percent(req, alloc), "limitsPercent": _percent(lim, alloc)}
    return {"name": ns.name, "ready": ns.ready, "unschedulable": ns.unschedulable,
            "pods": sum(1 for ps in ns.pods.values() if ps.bound),
            "resources": resources}


def _percent(used: int, alloc: int) -> int | None:
    """Whole percent, rounded down as ``kubectl describe node`` does; None without allocatable."""
    return None if alloc <= 0 else used * 100 // alloc


def _pdbs(state: ClusterState, now: int) -> list[dict[str, Any]]:
    from .rules.disruption.pdb import pdb_status

    out = []
    for key in sorted(state.pdbs):
        st = pdb_status(state, state.pdbs[key], now)
        out.append({"name": key, "expectedPods": st.expected_pods,
                    "currentHealthy": st.current_healthy, "desiredHealthy": st.desired_healthy,
                    "disruptionsAllowed": st.disruptions_allowed})
    return out


def _quotas(state: ClusterState) -> list[dict[str, Any]]:
    from .rules.quota.accounting import quota_used

    out = []
    for ns in sorted(state.quotas):
        q = state.quotas[ns]
        used = quota_used(state, ns)

        def show(r: Any) -> dict[str, str] | None:
            return None if r is None else {k: format_quantity(k, v) for k, v in r.items()}

        out.append({"namespace": ns, "name": q.name or ns, "min": show(q.min),
                    "max": show(q.max), "used": show(used)})
    return out


def end_state(result: Any) -> dict[str, Any]:
    """The end state of a run, as the JSON report's ``state``."""
    state = result.state
    return {"time": format_duration(result.end_time),
            "pods": [_pod_json(ps) for ps in state_pods(state)],
            "nodes": [_node_json(ns) for ns in state.node_list()],
            "pdbs": _pdbs(state, result.end_time),
            "quotas": _quotas(state)}


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


def render_state(state: dict[str, Any]) -> str:
    """``--state``: the end state as tables (pods by node, pending ones, nodes)."""
    lines = [f"end state at {state['time']}:"]
    by_node: dict[str, list[dict[str, Any]]] = {}
    pending = []
    for p in state["pods"]:
        if p["node"] is None:
            pending.append(p)
        else:
            by_node.setdefault(p["node"], []).append(p)
    rows = [["NODE", "POD", "PHASE", "PRIORITY"]]
    for n in state["nodes"]:
        for p in by_node.get(n["name"], []):
            rows.append([n["name"], p["name"], p["phase"], str(p["priority"])])
    if len(rows) > 1:
        lines += ["pods by node:", *_table(rows)]
    if pending:
        lines.append(f"pending ({len(pending)}):")
        for p in pending:
            nom = f" (nominated {p['nominatedNode']})" if p["nominatedNode"] else ""
            why = p["message"] or "not scheduled yet"
            lines.append(f"  {p['name']}{nom}: {why}")
    rows = [["NODE", "PODS", "RESOURCE", "REQUESTS", "LIMITS", "ALLOCATABLE", "REQ%", "LIM%"]]
    for n in state["nodes"]:
        first = True
        for name, r in n["resources"].items():
            if name == "pods":
                continue
            rows.append([n["name"] if first else "", str(n["pods"]) if first else "", name,
                         r["requests"], r["limits"], r["allocatable"],
                         _pct(r["requestsPercent"]), _pct(r["limitsPercent"])])
            first = False
    if len(rows) > 1:
        lines += ["nodes:", *_table(rows)]
    for b in state["pdbs"]:
        lines.append(f"pdb {b['name']}: {b['currentHealthy']} healthy of {b['expectedPods']} "
                     f"expected, {b['desiredHealthy']} desired, disruptions allowed "
                     f"{b['disruptionsAllowed']}")
    for q in state["quotas"]:
        used = ", ".join(f"{k}={v}" for k, v in (q["used"] or {}).items()) or "nothing"
        lines.append(f"quota {q['namespace']}: used {used}")
    return "\n".join(lines)


def _pct(v: int | None) -> str:
    return "-" if v is None else f"{v}%"


def pending_lines(state: dict[str, Any]) -> str:
    """What a dump run ends with: how many pods run, and each pending pod with why."""
    pods = state["pods"]
    running = sum(1 for p in pods if p["phase"] == RUNNING)
    pending = [p for p in pods if p["node"] is None and p["phase"] == "Pending"]
    lines = [f"end state at {state['time']}: {running} pod(s) running on "
             f"{len(state['nodes'])} node(s), {len(pending)} pending"]
    for p in pending:
        nom = f" (nominated {p['nominatedNode']})" if p["nominatedNode"] else ""
        lines.append(f"  pending {p['name']}{nom}: {p['message'] or 'not scheduled yet'}")
    return "\n".join(lines)
