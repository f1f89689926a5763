"""The sweep as one self-contained HTML page (``kruleset sweep --format html``).

The table is written into the page as HTML (it reads without script); a
small inline script (``page.js``) adds filters by result and by variant
name, which a 1,001-row N-1 sweep needs, and opens rows.  The page has its
own stylesheet (``page.css``) and needs no network.

Rows come in the table's order (:data:`kruleset.sweep.table.ORDER`); a cell
equal to the base run's is a ``·``, a different one shows its value and the
difference, as in the text table.  Clicking a variant's name opens a detail
row *below* it, spanning the table (the layout is fixed: no column changes
width): what differs from the base run (each failing expectation with its
message, newly failing or as in the base run, those newly passing, pods
newly pending, the variant's error when it could not run) and the two
commands that replay the variant with its full report
(:func:`kruleset.sweep.table.replay`).  The last column links the variant's
own HTML report when the sweep wrote one (``--reports DIR``), and copies its
command.

A sweep of exactly two axes (two ``--set`` paths, or one and ``--fail-each``,
…) also shows as a matrix: the first axis down, the second across, each cell
the variant's outcome, linked to its row.
"""

from __future__ import annotations

import html
import string
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from .._version import __version__
from ..report.text import Style
from .table import cell_text, first_failing, matrix, result_text

__all__ = ["render_html"]

_FIRST = 160  # characters of the first failing expectation shown in its cell


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: int, base: int) -> str:
    """A number cell as the text table writes it; more than the base run is worse."""
    cls = "same" if value == base else "worse" if value > base else "better"
    return f'<td class="num {cls}">{cell_text(value, base)}</td>'


def _result(o: dict[str, Any]) -> str:
    return result_text(o, Style(color=False))


def _first(o: dict[str, Any], base: dict[str, Any]) -> str:
    # the whole message is in the row's details; the cell keeps the table scannable
    return _e(first_failing(o, base, _FIRST))


def _expectation(f: dict[str, Any]) -> str:
    return f"line {f['line']}: {f['text']}" + (f" — {f['message']}" if f["message"] else "")


def _commands(v: dict[str, Any]) -> str:
    lines = []
    for label, cmd in (("run", v["replay"]["run"]), ("sweep", v["replay"]["sweep"])):
        if cmd:
            lines.append(f'<div><span class="label">{label}</span><code class="cmd" '
                         f'title="click to copy">{_e(cmd)}</code></div>')
    lines.append('<div><span class="label"></span><span class="copied" '
                 'aria-live="polite"></span></div>')
    return '<div class="commands">' + "".join(lines) + "</div>"


def _details(v: dict[str, Any], base: dict[str, Any], report: str | None) -> str:
    """What differs from the base run, and how to replay the variant: its detail row."""
    diff = v["diff"]
    error = (f"<pre>{_e(v['error'])}</pre>"
             if v["status"] == "error" and v.get("error") else "")
    items: list[str] = []
    newly, now_passing = set(diff["newly_failing"]), set(diff["newly_passing"])
    items += [f"newly failing: {_expectation(f)}" for f in v["failing"] if f["line"] in newly]
    items += [f"failing as in base: {_expectation(f)}"
              for f in v["failing"] if f["line"] not in newly]
    items += [f"newly passing: line {f['line']}: {f['text']}"
              for f in base["failing"] if f["line"] in now_passing]
    if diff["newly_pending"]:
        items.append(f"pods newly pending: {', '.join(diff['newly_pending'])}")
    if v.get("removed"):
        items.append(f"pods deleted with the failed nodes: {v['removed']}")
    axes = ", ".join(f"{k}={x}" for k, x in v["axes"].items())
    items.append(f"axes: {axes}; decisions digest {v['digest'] or '-'}")
    listed = "".join(f"<li>{_e(i)}</li>" for i in items)
    link = (f'<p>full report: <a href="{_e(report)}">{_e(report)}</a></p>' if report else "")
    return (f"<b>{_e(v['name'])}</b>{error}<ul>{listed}</ul>{link}"
            "<div>replay it with its full report (add --explain POD, or --format html):</div>"
            + _commands(v))


def _replay_cell(v: dict[str, Any], report: str | None) -> str:
    link = f'<a class="report" href="{_e(report)}">report</a>' if report else ""
    return (f'<td class="replay">{link}<button type="button" class="copy" '
            f'title="{_e(v["replay"]["run"] or v["replay"]["sweep"])}">command</button></td>')


def _rows(variants: Sequence[dict[str, Any]], base: dict[str, Any],
          reports: Mapping[int, str]) -> str:
    out = []
    for v in variants:
        i, name, report = v["index"], _e(v["name"]), reports.get(v["index"])
        first = first_failing(v, base, 100_000)
        out.append(
            f'<tr class="variant {_e(v["status"])}" id="v{i}" data-status="{_e(v["status"])}" '
            f'data-name="{name}" data-detail="d{i}">'
            f'<td class="name"><button type="button" class="toggle" aria-expanded="false" '
            f'aria-controls="d{i}" title="{name}">{name}</button></td>'
            f'<td class="result">{_e(_result(v))}</td>'
            + _cell(v["pending"], base["pending"])
            + _cell(v["evictions"], base["evictions"])
            + _cell(v["preemptions"], base["preemptions"])
            + f'<td class="first" title="{_e(first)}">{_first(v, base)}</td>'
            + _replay_cell(v, report) + "</tr>")
        out.append(f'<tr class="detail" id="d{i}" hidden><td colspan="7">'
                   f"{_details(v, base, report)}</td></tr>")
    return "\n".join(out)


def _matrix(variants: Sequence[dict[str, Any]]) -> str:
    grid = matrix([v["axes"] for v in variants], variants)
    if grid is None:
        return ""
    keys, down, across, cells = grid
    head = (f'<tr><th class="corner">{_e(keys[0])} ↓ · {_e(keys[1])} →</th>'
            + "".join(f'<th scope="col">{_e(a)}</th>' for a in across) + "</tr>")
    body = []
    for d in down:
        tds = []
        for a in across:
            v = cells.get((d, a))
            if v is None:
                tds.append("<td></td>")
                continue
            tds.append(f'<td class="{_e(v["status"])}" data-name="{_e(v["name"])}">'
                       f'<a href="#v{v["index"]}" title="{_e(v["name"])}">'
                       f"{_e(_result(v))}</a></td>")
        body.append(f'<tr><th class="row" scope="row">{_e(d)}</th>{"".join(tds)}</tr>')
    return ('<h2>Outcomes by ' + _e(keys[0]) + " and " + _e(keys[1]) + "</h2>"
            '<div class="matrix-wrap"><table class="matrix" id="matrix"><thead>' + head
            + "</thead><tbody>" + "".join(body) + "</tbody></table></div>")


def _base(base: dict[str, Any]) -> str:
    if base["status"] == "error":
        return f'<p class="base refusal">base run: error: {_e(base.get("error") or "")}</p>'
    n, failing = base["expectations"], len(base["failing"])
    verdict = (f"{failing} of {n} expectations fail" if failing
               else f"{n} expectation{'s' if n != 1 else ''} pass{'es' if n == 1 else ''}")
    return (f'<p class="base">base run: <span class="status {_e(base["status"])}">'
            f"{_e(verdict)}</span> {base['pending']} pending, {base['evictions']} evictions, "
            f"{base['preemptions']} preemptions (· below: same as base)</p>")


def render_html(data: dict[str, Any], description: str,
                reports: Mapping[int, str] | None = None) -> str:
    """The page for a sweep's JSON form (:meth:`kruleset.sweep.Sweep.to_json`).

    ``reports`` maps a variant's index (-1 for the base run) to the address of
    its own HTML report, as the page should link it.
    """
    here = resources.files(__package__)
    css = (here / "page.css").read_text("utf-8")
    script = (here / "page.js").read_text("utf-8")
    base = data["base"]
    variants = data["variants"]
    reports = reports or {}
    counts = {s: sum(1 for v in variants if v["status"] == s)
              for s in ("error", "failed", "passed")}
    title = f"sweep {data['scenario']}"
    options = "".join(f'<option value="{s}">{s} ({counts[s]})</option>'
                      for s in ("failed", "error", "passed"))
    base_report = reports.get(-1)
    base_html = _base(base) + (f'<p>base run\'s full report: <a href="{_e(base_report)}">'
                               f"{_e(base_report)}</a></p>" if base_report else "")
    page = string.Template((here / "page.html").read_text("utf-8"))
    # one pass: nothing substituted is read again as a placeholder
    return page.substitute(
        title=_e(title), css=css, description=_e(description),
        variants=len(variants), failed=counts["failed"], error=counts["error"],
        passed=counts["passed"], base=base_html, options=options, order=_e(data["order"]),
        matrix=_matrix(variants), rows=_rows(variants, base, reports),
        version=_e(__version__), script=script)
