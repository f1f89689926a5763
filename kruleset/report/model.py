"""What a run of many files hands to the output formats.

A :class:`FileReport` is plain data (it crosses from ``-j`` worker processes
to the parent by pickling), built once per file whatever the format; each
format reads the fields it needs.  :class:`Summary` holds the counts of the
summary line and of the JSON ``summary`` object.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["ExpectationReport", "FileReport", "Problem", "Summary", "STATUSES"]

#: A file's status, as in the JSON report.
STATUSES = ("passed", "failed", "refused", "error")


@attrs.frozen(slots=True)
class Problem:
    """An error about a file: where it points and what it says.

    ``file`` is where the error points (an included YAML file may be another
    file than the scenario); ``line`` and ``column`` are 0 when unknown;
    ``message`` is one line for machines, ``text`` the full rendering for
    people (the line, a caret, what was expected, a hint).
    """

    file: str
    line: int
    column: int
    message: str
    text: str
    kind: str = "refused"   # or "not simulated", "error", "internal"

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of the JSON report."""
        return {"line": self.line, "column": self.column, "message": self.message}


@attrs.frozen(slots=True)
class ExpectationReport:
    """One ``expect`` line's outcome; ``decisions`` say what broke a failed one."""

    line: int
    text: str
    passed: bool
    message: str
    unsupported: bool = False
    column: int = 0
    decisions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """As in the JSON report."""
        return {"line": self.line, "text": self.text, "passed": self.passed,
                "message": self.message}


@attrs.frozen(slots=True)
class FileReport:
    """Everything the formats may show about one file.

    ``text`` and ``quiet_text`` are the human report (empty when the chosen
    format does not want it); ``decisions`` are the JSON decisions (empty when
    the format does not want them); ``extra`` is what the format's
    ``extract`` took from the run; ``attempts`` every scheduling attempt of a
    traced run as the JSON report lists them (None when not traced);
    ``problems`` are every error found in a
    refused file (the first is the one ``run`` stopped at), or the one error
    of a file that could not be simulated; ``notices`` the warnings of
    reading it (settings read but not simulated, unknown fields allowed, what
    a dump held that does not matter), shown on stderr.
    """

    path: str
    status: str
    code: int
    title: str = ""
    problems: tuple[Problem, ...] = ()
    expectations: tuple[ExpectationReport, ...] = ()
    decisions: tuple[dict[str, Any], ...] = ()
    text: str = ""
    quiet_text: str = ""
    extra: Any = None
    attempts: tuple[dict[str, Any], ...] | None = None
    notices: tuple[str, ...] = ()
    # DRA: each ResourceClaim's allocation and reservations at the end of the run.
    claims: tuple[dict[str, Any], ...] = ()
    # Each PodDisruptionBudget's status at the end of the run (none: no PDB).
    pdbs: tuple[dict[str, Any], ...] = ()
    # The end state (kruleset.state_report.end_state); None when not simulated.
    state: dict[str, Any] | None = None
    # ``--state-out``: the end state as Kubernetes YAML.
    state_yaml: str | None = None
    # StatefulSets, DaemonSets and Jobs: each one's status at the end of the run.
    workloads: tuple[dict[str, Any], ...] = ()
    # Each pod's scheduling attempts, with why each was made (the queue's reason).
    queue: tuple[dict[str, Any], ...] = ()

    @property
    def problem(self) -> Problem | None:
        """The first error, or None."""
        return self.problems[0] if self.problems else None


@attrs.define(slots=True)
class Summary:
    """Counts over the files finished so far, and how long the run took."""

    total: int
    counts: dict[str, int] = attrs.field(factory=lambda: dict.fromkeys(STATUSES, 0))
    expectations: dict[str, int] = attrs.field(
        factory=lambda: {"passed": 0, "failed": 0, "unsupported": 0})
    seconds: float = 0.0
    interrupted: bool = False

    def add(self, report: FileReport) -> None:
        """Count one finished file."""
        self.counts[report.status] += 1
        for x in report.expectations:
            key = "unsupported" if x.unsupported else "passed" if x.passed else "failed"
            self.expectations[key] += 1

    @property
    def done(self) -> int:
        """Files finished."""
        return sum(self.counts.values())

    def line(self) -> str:
        """``312 files: 309 passed, 2 failed, 1 refused — 41.2 s``."""
        files = f"{self.total} file{'s' if self.total != 1 else ''}"
        parts = [f"{self.counts[s]} {s}" for s in ("passed", "failed", "refused")]
        if self.counts["error"]:
            n = self.counts["error"]
            parts.append(f"{n} error{'s' if n != 1 else ''}")
        if self.interrupted:
            parts.append(f"{self.total - self.done} not run (interrupted)")
        return f"{files}: {', '.join(parts)} — {format_seconds(self.seconds)}"

    def to_json(self) -> dict[str, Any]:
        """The JSON report's ``summary``: counts only, so the report stays byte-stable."""
        return {"files": self.total, **self.counts, "not_run": self.total - self.done,
                "interrupted": self.interrupted, "expectations": dict(self.expectations)}


def format_seconds(seconds: float) -> str:
    """``41.2 s``, ``10 min 25 s``, ``2 h 03 min``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    s = int(seconds)
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"
