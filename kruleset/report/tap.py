"""TAP version 14 (testanything.org): one test point per expectation.

A file with no expectations (and every file under ``check``) is one test
point of its own; a refused file is one ``not ok`` point.  A point that is
not ok carries a YAML block (``message``, ``severity``, ``at`` with file,
line and column, and for a failed expectation the decisions about what it
names).  Points stream as files finish and the plan ``1..N`` comes last, as
TAP 14 allows; an interrupted run ends with ``Bail out!``.  An expectation
whose mechanism is not simulated yet is ``not ok`` (the run exits 3).
"""

from __future__ import annotations

from typing import Any

import yaml

from .formats import Format, register
from .model import FileReport, Summary

__all__ = ["TapFormat"]


def _description(text: str) -> str:
    """A description: one line, with ``\\`` and ``#`` escaped as TAP 14 asks."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("#", "\\#")


def _diagnostic(data: dict[str, Any]) -> str:
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1 << 16)
    lines = ["---", *body.rstrip("\n").split("\n"), "..."]
    return "".join(f"  {line}\n" for line in lines)


@register("tap")
class TapFormat(Format):
    """``TAP version 14``, a point per expectation, the plan at the end."""

    def begin(self, total: int) -> None:
        """The version line."""
        self.count = 0
        self.out.write("TAP version 14\n")

    def _point(self, ok: bool, description: str, diagnostic: dict[str, Any] | None) -> None:
        self.count += 1
        self.out.write(f"{'ok' if ok else 'not ok'} {self.count} - {_description(description)}\n")
        if diagnostic is not None:
            self.out.write(_diagnostic(diagnostic))

    def file(self, report: FileReport) -> None:
        """The file's points."""
        for p in report.problems:
            self._point(False, report.path, {
                "message": p.message, "severity": p.kind,
                "at": {"file": p.file, "line": p.line, "column": p.column}})
        if not report.problems and (self.options.command == "check"
                                    or not report.expectations):
            self._point(True, report.path, None)
        for x in report.expectations:
            diag: dict[str, Any] | None = None
            if not x.passed:
                diag = {"message": x.message,
                        "severity": "not simulated" if x.unsupported else "fail",
                        "at": {"file": report.path, "line": x.line, "column": x.column}}
                if x.decisions:
                    diag["decisions"] = list(x.decisions)
            self._point(x.passed, f"{report.path}:{x.line}: {x.text}", diag)
        self.out.flush()

    def end(self, summary: Summary) -> None:
        """The plan, or ``Bail out!`` when interrupted."""
        if summary.interrupted:
            self.out.write("Bail out! interrupted\n")
        else:
            self.out.write(f"1..{self.count}\n")
        self.out.flush()
