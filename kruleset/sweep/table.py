"""The sweep's table: one row per variant, worst first, differences from the base run.

Order (stated, and the same whatever ran the variants): variants that could
not run (``error``) first, then those whose expectations fail, most failing
expectations first; then the most pods left pending, the most evictions, the
most preemptions; ties keep the grid order (see :mod:`kruleset.sweep.axes`).

In the text table a cell equal to the base run's is a ``·``; a different one
shows its value and the difference (``3 (+3)``).  The first failing
expectation says ``(as in base)`` when the base run fails it too.  The JSON
form has every value and a ``diff`` object per variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.quantity import format_duration
from ..report.text import Style
from .axes import Variant
from .executors import Outcome

__all__ = ["COLUMNS", "ORDER", "cell_text", "exit_code", "first_failing", "matrix",
           "matrix_lines", "render_json", "render_text", "replay", "replay_lines",
           "result_text", "sort_rows"]

ORDER = ("worst first: errors, then failing expectations (most first), pods left pending, "
         "evictions, preemptions (most first); ties in grid order")
COLUMNS = ("pending", "evictions", "preemptions")
_RANK = {"error": 0, "failed": 1, "passed": 2}


def _key(row: tuple[Variant, Outcome]) -> tuple[int, ...]:
    v, o = row
    return (_RANK[o["status"]], -len(o["failing"]), -o["pending"], -o["evictions"],
            -o["preemptions"], v.index)


def sort_rows(variants: Sequence[Variant], outcomes: Sequence[Outcome]
              ) -> list[tuple[Variant, Outcome]]:
    """The rows in the table's order."""
    return sorted(zip(variants, outcomes, strict=True), key=_key)


def exit_code(outcomes: Sequence[Outcome]) -> int:
    """0 every variant passes, 1 some fail, 3 some could not run."""
    statuses = {o["status"] for o in outcomes}
    return 3 if "error" in statuses else 1 if "failed" in statuses else 0


def _diff(o: Outcome, base: Outcome) -> dict[str, Any]:
    failing = {f["line"] for f in o["failing"]}
    was = {f["line"] for f in base["failing"]}
    out: dict[str, Any] = {c: o[c] - base[c] for c in COLUMNS}
    out["newly_failing"] = sorted(failing - was)
    out["newly_passing"] = sorted(was - failing)
    out["newly_pending"] = sorted(set(o["pending_pods"]) - set(base["pending_pods"]))
    return out


def replay(path: str, at: int, axes: dict[str, Any], variant: Variant) -> dict[str, Any]:
    """The commands that run ``variant`` again with the full report: ``sweep --variant``
    always, ``run --set … --fail …`` unless the variant has a ``--profile`` (see
    :mod:`kruleset.sweep.single`)."""
    from .single import run_command, sweep_command

    when = format_duration(at)
    return {"sweep": sweep_command(path, when, axes, variant.name),
            "run": run_command(path, when, variant.axes())}


def render_json(path: str, at: int, axes: dict[str, Any], base: Outcome,
                rows: Sequence[tuple[Variant, Outcome]]) -> dict[str, Any]:
    """The sweep as one JSON object (fields may be added, never renamed)."""
    return {
        "version": 1, "scenario": path, "at": format_duration(at), "axes": axes,
        "order": ORDER,
        "base": {"name": "base", **base, "replay": replay(path, at, axes, Variant(-1))},
        "variants": [{"name": v.name, "axes": v.axes(), **o, "diff": _diff(o, base),
                      "replay": replay(path, at, axes, v)}
                     for v, o in rows],
    }


def cell_text(value: int, base: int) -> str:
    """``·`` when as in the base run, else the value and the difference: ``3 (+3)``."""
    if value == base:
        return "·"
    return f"{value} ({value - base:+d})"


def result_text(o: Outcome, style: Style) -> str:
    """The expectations cell: ``✓ pass``, ``✗ 2 of 3`` or ``! error``."""
    if o["status"] == "error":
        return style.warn("! error")
    if o["failing"]:
        return style.bad(f"✗ {len(o['failing'])} of {o['expectations']}")
    return style.ok("✓ pass")


def first_failing(o: Outcome, base: Outcome, width: int) -> str:
    """The first failing expectation (or the error), cut to ``width`` characters."""
    if o["status"] == "error" and o["error"]:
        text = o["error"].splitlines()[0]
    elif o["failing"]:
        f = o["failing"][0]
        text = f"line {f['line']}: {f['text']}"
        if f["message"]:
            text += f" — {f['message']}"
        if any(b["line"] == f["line"] for b in base["failing"]):
            text += " (as in base)"
    else:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


Grid = tuple[list[str], list[str], list[str], dict[tuple[str, str], Any]]


def matrix(axes: Sequence[dict[str, Any]], items: Sequence[Any]) -> Grid | None:
    """A two-axis sweep as a matrix: its two axes, the first's values (rows) and the
    second's (columns) in grid order, and each cell's item; None unless every variant
    has the same two axes.  ``axes[i]`` is ``items[i]``'s values (``Variant.axes()``)."""
    if not axes:
        return None
    keys = list(axes[0])
    if len(keys) != 2 or any(list(a) != keys for a in axes):
        return None
    # grid order: the first axis varies slowest, so the values appear in the order given
    order = sorted(range(len(items)), key=lambda i: _index(items[i]))
    down = list(dict.fromkeys(str(axes[i][keys[0]]) for i in order))
    across = list(dict.fromkeys(str(axes[i][keys[1]]) for i in order))
    cells = {(str(axes[i][keys[0]]), str(axes[i][keys[1]])): items[i] for i in order}
    return keys, down, across, cells


def _index(item: Any) -> int:
    return int(item["index"] if isinstance(item, dict) else item[0].index)


MATRIX_WIDTH = 120  # the text matrix is printed when it fits in this many columns


def matrix_lines(rows: Sequence[tuple[Variant, Outcome]], style: Style) -> list[str]:
    """The text form of :func:`matrix`, when it fits in :data:`MATRIX_WIDTH` columns."""
    grid = matrix([v.axes() for v, _ in rows], rows)
    if grid is None:
        return []
    keys, down, across, cells = grid
    plain = Style(color=False)
    first = max(len(d) for d in down)
    widths = [max(len(a), *(len(result_text(cells[(d, a)][1], plain)) for d in down
                            if (d, a) in cells)) for a in across]
    if 2 + first + sum(w + 2 for w in widths) > MATRIX_WIDTH:
        return []
    out = ["", style.bold(f"{keys[0]} (rows) × {keys[1]} (columns):"),
           ("  " + " " * first + "".join("  " + a.ljust(w) for a, w in zip(across, widths,
                                                                           strict=True))
            ).rstrip()]
    for d in down:
        line = "  " + d.ljust(first)
        for a, w in zip(across, widths, strict=True):
            o = cells[(d, a)][1] if (d, a) in cells else None
            shown = result_text(o, style) if o else ""
            pad = w - (len(result_text(o, plain)) if o else 0)
            line += "  " + shown + " " * pad
        out.append(line.rstrip())
    return out


REPLAYS = 10  # rows whose commands the text table lists (the JSON form has every row's)


def replay_lines(path: str, at: int, axes: dict[str, Any],
                 rows: Sequence[tuple[Variant, Outcome]], style: Style) -> list[str]:
    """How to run a row again in full: both commands for the first failing rows (or, when
    every row passes, for the first row), and how many more there are."""
    chosen = [v for v, o in rows if o["status"] != "passed"] or [v for v, _ in rows[:1]]
    out = ["", style.bold("replay a row with its full report (add --explain POD, or run it "
                          "with --format html -o FILE):")]
    for v in chosen[:REPLAYS]:
        cmds = replay(path, at, axes, v)
        out.append(f"  {v.name}")
        if cmds["run"]:
            out.append(f"    {cmds['run']}")
        out.append(f"    {cmds['sweep']}")
    rest = len(rows) - min(len(chosen), REPLAYS)
    if rest:
        out.append(f"  ({rest} more row{'s' if rest != 1 else ''}: the same commands with "
                   "that row's values; --format json lists each row's)")
    return out


def render_text(path: str, at: int, description: str, base: Outcome,
                rows: Sequence[tuple[Variant, Outcome]], style: Style,
                width: int = 72, axes: dict[str, Any] | None = None) -> str:
    """The table for people, then (given the sweep's ``axes``) how to replay its rows."""
    out = [style.bold(f"sweep {path}: {description} — {len(rows)} variants, worst first")]
    if base["status"] == "error":
        out.append(style.warn(f"base run: error: {base['error']}"))
    else:
        failing = len(base["failing"])
        n = base["expectations"]
        verdict = (f"{failing} of {n} expectations fail" if failing
                   else f"{n} expectation{'s' if n != 1 else ''} pass{'es' if n == 1 else ''}")
        out.append(f"base run: {verdict}, {base['pending']} pending, {base['evictions']} "
                   f"evictions, {base['preemptions']} preemptions "
                   f"(· below: same as base)")
    head = ["variant", "expectations", "pending", "evictions", "preemptions",
            "first failing expectation"]
    table = [[v.name, result_text(o, style), cell_text(o["pending"], base["pending"]),
              cell_text(o["evictions"], base["evictions"]),
              cell_text(o["preemptions"], base["preemptions"]), first_failing(o, base, width)]
             for v, o in rows]
    plain = [[v.name, result_text(o, Style(color=False))] for v, o in rows]
    widths = [max([len(head[i])] + [len(p[i]) for p in plain]) if i < 2 else
              max([len(head[i])] + [len(r[i]) for r in table]) for i in range(5)]
    out.append("")
    out.append("  ".join(h.ljust(widths[i]) if i < 5 else h for i, h in enumerate(head)))
    for r, p in zip(table, plain, strict=True):
        cells = [r[0].ljust(widths[0]), r[1] + " " * (widths[1] - len(p[1]))]
        cells += [r[i].ljust(widths[i]) for i in (2, 3, 4)]
        out.append("  ".join(cells + [r[5]]).rstrip())
    out += matrix_lines(rows, style)
    if axes is not None and rows:
        out += replay_lines(path, at, axes, rows, style)
    return "\n".join(out)
