"""The JSON report (DESIGN.md): stable; fields may be added, never renamed.

Its JSON Schema is ``schemas/report-v1.schema.json`` (``version`` 1).  The
report is written file by file as files finish, and the bytes are exactly
``json.dumps(report, indent=2)`` of the whole object, so a reader may parse
it with any JSON library while a person watches it grow.
"""

from __future__ import annotations

import json
from typing import Any

from .formats import Format, register
from .model import FileReport, Summary

__all__ = ["JsonFormat", "file_entry", "report"]

VERSION = 1


def file_entry(report: FileReport) -> dict[str, Any]:
    """One entry of ``files``.

    ``error`` is the first error (the one ``run`` stopped at), ``errors``
    every error found in the file.
    """
    return {
        "path": report.path,
        "status": report.status,
        "error": report.problem.to_json() if report.problem else None,
        "errors": [p.to_json() for p in report.problems],
        "expectations": [x.to_json() for x in report.expectations],
        "decisions": list(report.decisions),
    }


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
