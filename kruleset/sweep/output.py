"""What ``kruleset sweep`` writes: the table (or a replayed variant) to stdout or ``-o FILE``,
and the summary line on stderr, worded as ``kruleset run``'s."""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from ..report.model import format_seconds

__all__ = ["summary_line", "write_sweep", "write_variant"]


def summary_line(outcomes: list[dict[str, Any]], seconds: float) -> str:
    """``5 variants: 4 passed, 1 failed — 2.3 s`` (errors counted when there are any)."""
    counts = {s: sum(o["status"] == s for o in outcomes) for s in ("passed", "failed", "error")}
    n = len(outcomes)
    parts = [f"{counts['passed']} passed", f"{counts['failed']} failed"]
    if counts["error"]:
        parts.append(f"{counts['error']} error{'s' if counts['error'] != 1 else ''}")
    return f"{n} variant{'s' if n != 1 else ''}: {', '.join(parts)} — {format_seconds(seconds)}"


def write_sweep(result: Any, fmt: str, out: IO[str], style: Any) -> None:
    """The sweep's table in ``fmt`` (text, json or html)."""
    if fmt == "json":
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
    elif fmt == "html":
        out.write(result.html())
    else:
        out.write(result.text(style) + "\n")


def write_variant(path: str, replayed: Any, explain: str | None, out: IO[str],
                  style: Any) -> None:
    """A replayed variant as ``kruleset run`` reports a file, with ``--explain`` if asked."""
    from ..report.text import render_explain, render_result

    v = replayed.variant
    failure = ""
    if v.failure is not None:
        failure = (f" ({v.failure.kind} {v.failure.name} deleted: "
                   f"{replayed.removed} pod{'s' if replayed.removed != 1 else ''} removed)")
    out.write(style.bold(f"sweep {path}: variant {v.name}{failure}") + "\n")
    out.write(render_result(path, replayed.result, style) + "\n")
    if explain:
        out.write(render_explain(explain, replayed.result, style) + "\n")
    result = replayed.result
    if result.unsupported:
        tail = style.warn(f"{len(result.unsupported)} expectation(s) need a mechanism not "
                          "simulated yet")
    elif result.failed:
        tail = style.bad(f"FAILED: {len(result.failed)} of {len(result.expectations)} "
                         "expectations")
    else:
        tail = style.ok(f"passed: {len(result.expectations)} expectations")
    out.write(tail + "\n")


def stderr_line(text: str, ok: bool, style: Any) -> None:
    """The summary line, for people, on stderr."""
    sys.stderr.write((style.ok if ok else style.bad)(text) + "\n")
    sys.stderr.flush()
