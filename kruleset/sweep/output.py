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


def write_sweep(result: Any, fmt: str, out: IO[str], style: Any,
                reports: dict[int, str] | None = None) -> None:
    """The sweep's table in ``fmt`` (text, json or html; the page links ``reports``)."""
    if fmt == "json":
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
    elif fmt == "html":
        out.write(result.html(reports))
    else:
        out.write(result.text(style) + "\n")


def write_variant(path: str, replayed: Any, explain: str | None, out: IO[str],
                  style: Any, at: int = 0) -> None:
    """A replayed variant as ``kruleset run`` reports a file, with ``--explain`` if asked;
    its second line is the ``kruleset run`` command that gives the same report in any
    format (none for a ``--profile`` variant)."""
    from ..model.quantity import format_duration
    from ..report.text import render_explain, render_result
    from .single import run_command

    v = replayed.variant
    failure = ""
    if v.failure is not None:
        failure = (f" ({v.failure.kind} {v.failure.name} deleted: "
                   f"{replayed.removed} pod{'s' if replayed.removed != 1 else ''} removed)")
    out.write(style.bold(f"sweep {path}: variant {v.name}{failure}") + "\n")
    command = run_command(path, format_duration(at), v.axes())
    if command and v.index >= 0:
        out.write(f"as a plain run (any --format): {command}\n")
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


def report_name(variant: Any) -> str:
    """The file of a variant's report in ``--reports DIR``: ``3-node=c-1.html``, ``base.html``."""
    import re

    if variant.index < 0:
        return "base.html"
    return f"{variant.index}-" + re.sub(r"[^A-Za-z0-9=._-]+", "_", variant.name)[:120] + ".html"


def write_reports(result: Any, folder: str, link_from: str) -> dict[int, str]:
    """``--reports DIR``: the full HTML report (``kruleset run --format html``) of the base
    run and of every variant that fails or could not run, each written to DIR; returns
    each one's address relative to ``link_from`` (the folder the sweep's page is in).

    A variant of a ``--profile`` axis has no report (``kruleset run`` cannot express it:
    see :mod:`kruleset.sweep.single`); its row keeps its ``sweep --variant`` command.
    """
    import os
    from pathlib import Path

    from ..fileresult import FileOptions, report_file
    from ..report import formats
    from ..report.model import Summary
    from .axes import Variant
    from .single import RunVariant

    fmt_cls = formats.get("html")
    Path(folder).mkdir(parents=True, exist_ok=True)
    wanted = [Variant(-1)] + [v for v, o in result.rows()
                              if o["status"] != "passed" and v.profile is None]
    links: dict[int, str] = {}
    for v in wanted:
        opts = FileOptions(text=fmt_cls.wants_text, decisions=fmt_cls.wants_decisions,
                           trace=fmt_cls.wants_trace, format="html",
                           variant=RunVariant.of(v, result.at) if v.index >= 0 else None)
        report = report_file(result.path, opts)
        target = Path(folder) / report_name(v)
        with target.open("w", encoding="utf-8") as out:
            fmt = fmt_cls(out, formats.FormatOptions("run", False, False))
            summary = Summary(total=1)
            fmt.begin(1)
            fmt.file(report)
            summary.add(report)
            fmt.end(summary)
        links[v.index] = Path(os.path.relpath(target, link_from)).as_posix()
    return links
