"""The JSON report (DESIGN.md): stable; fields may be added, never renamed."""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError
from ..model.quantity import format_duration
from ..sim.result import Result

__all__ = ["attempt_json", "file_entry", "report"]

VERSION = 1


def file_entry(path: str, status: str, *, result: Result | None = None,
               error: ScenarioError | None = None, message: str = "") -> dict[str, Any]:
    """One entry of ``files``."""
    err: dict[str, Any] | None = None
    if error is not None:
        err = error.to_json()
    elif message:
        err = {"line": 0, "column": 0, "message": message}
    entry = {
        "path": path,
        "status": status,
        "error": err,
        "expectations": [r.to_json() for r in result.expectations] if result else [],
        "decisions": [d.to_json() for d in result.decisions] if result else [],
    }
    if result is not None and result.trace is not None:
        entry["attempts"] = [attempt_json(a) for a in getattr(result.trace, "attempts", ())]
    return entry


_SCORE_PREFIX = "scheduler.score."


def attempt_json(attempt: tuple[Any, ...]) -> dict[str, Any]:
    """One scheduling attempt, as kube-scheduler-simulator users read them.

    ``scores`` has, per feasible node (when more than one was feasible: upstream
    scores nothing otherwise), the ``total`` and per plugin the ``raw`` score,
    the ``normalized`` one (0-100), its ``weight`` and the ``weighted`` score
    that adds to the total.  Plugins are named as in a scheduler configuration
    (a rule outside ``scheduler.score.*`` by its rule name).
    """
    time, pod, node, feasible, scored = attempt
    scores: dict[str, Any] = {}
    if scored is not None:
        names, totals, rules = scored
        at = {name: i for i, name in enumerate(names)}
        for name in feasible:
            i = at[name]
            plugins = {}
            for rule, weight, raw, norm in rules:
                plugin = rule[len(_SCORE_PREFIX):] if rule.startswith(_SCORE_PREFIX) else rule
                plugins[plugin] = {"raw": raw[i], "normalized": norm[i], "weight": weight,
                                   "weighted": weight * norm[i]}
            scores[name] = {"total": totals[i], "plugins": plugins}
    return {"time": format_duration(time), "pod": pod,
            "result": "scheduled" if node is not None else "unschedulable",
            "node": node, "feasible": list(feasible), "scores": scores}


def report(files: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole report."""
    return {"version": VERSION, "files": files}
