"""The JSON report (DESIGN.md): stable; fields may be added, never renamed.

Its JSON Schema is ``schemas/report-v1.schema.json`` (``version`` 1).  The
report is written file by file as files finish, and the bytes are exactly
``json.dumps(report, indent=2)`` of the whole object, so a reader may parse
it with any JSON library while a person watches it grow.
"""

from __future__ import annotations

import json
from typing import Any

from ..model.quantity import format_duration
from .formats import Format, register
from .model import FileReport, Summary

__all__ = ["JsonFormat", "attempt_json", "file_entry", "notice_json", "report"]

VERSION = 1


def file_entry(report: FileReport) -> dict[str, Any]:
    """One entry of ``files``.

    ``error`` is the first error (the one ``run`` stopped at), ``errors``
    every error found in the file.
    """
    entry = {
        "path": report.path,
        "status": report.status,
        "error": report.problem.to_json() if report.problem else None,
        "errors": [p.to_json() for p in report.problems],
        "expectations": [x.to_json() for x in report.expectations],
        "decisions": list(report.decisions),
        "claims": list(report.claims),
        "queue": list(report.queue),
    }
    if report.pdbs:  # only files with budgets, so other reports keep their bytes
        entry["pdbs"] = list(report.pdbs)
    if report.workloads:
        entry["workloads"] = list(report.workloads)
    if report.attempts is not None:  # a traced run
        entry["attempts"] = list(report.attempts)
    if report.state is not None:
        entry["state"] = report.state
    if report.notices:
        entry["notices"] = [notice_json(n) for n in report.notices]
    return entry


def notice_json(text: str) -> dict[str, str]:
    """A notice of reading the file (stderr's line): ``level`` and the whole ``message``.

    Readers write ``FILE: warning: TEXT`` for what is read but not simulated
    or not understood (``warning``); anything else (a summary of what a dump
    held) is a ``notice``.
    """
    return {"level": "warning" if ": warning: " in text or text.startswith("warning: ")
            else "notice", "message": text}


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


def report(files: list[FileReport], summary: Summary) -> dict[str, Any]:
    """The whole report, as one object."""
    return {"version": VERSION, "files": [file_entry(f) for f in files],
            "summary": summary.to_json()}


def _indented(value: Any, depth: int) -> str:
    """``json.dumps(value, indent=2)`` as it reads nested ``depth`` levels down."""
    return json.dumps(value, indent=2).replace("\n", "\n" + "  " * depth)


@register("json")
class JsonFormat(Format):
    """One JSON object: ``version``, ``files`` (one entry per file), ``summary``."""

    wants_decisions = True

    def begin(self, total: int) -> None:
        """The object's head, up to the opening of ``files``."""
        self._count = 0
        self.out.write(f'{{\n  "version": {VERSION},\n  "files": [')

    def file(self, report: FileReport) -> None:
        """One entry of ``files``."""
        sep = "," if self._count else ""
        self.out.write(f"{sep}\n    {_indented(file_entry(report), 2)}")
        self._count += 1
        self.out.flush()

    def end(self, summary: Summary) -> None:
        """Close ``files``; the summary counts."""
        close = "\n  ]" if self._count else "]"
        self.out.write(f'{close},\n  "summary": {_indented(summary.to_json(), 1)}\n}}\n')
        self.out.flush()
