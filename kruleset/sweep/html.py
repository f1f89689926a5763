"""The sweep as one self-contained HTML page (``kruleset sweep --format html``).

The table is written into the page as HTML (it reads without script); a
small inline script adds filters by result and by variant name, which a
1,001-row N-1 sweep needs.  The page uses the run report's stylesheet, so
both look alike, and like that report it needs no network.

Rows come in the table's order (:data:`kruleset.sweep.table.ORDER`); a cell
equal to the base run's is a ``·``, a different one shows its value and the
difference, as in the text table.  Each row opens to show what differs from
the base run: each failing expectation with its message (newly failing, or
as in the base run), those newly passing, pods newly pending, and the
variant's error when it could not run.
"""

from __future__ import annotations

import html
import string
from collections.abc import Sequence
from importlib import resources
from typing import Any

from .._version import __version__
from ..report.text import Style
from .table import cell_text, first_failing, result_text

__all__ = ["render_html"]

_CSS = """
.sweep { width: 100%; }
.sweep td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.sweep td.same { color: var(--muted); }
.sweep td.worse { color: var(--bad); font-weight: 600; }
.sweep td.better { color: var(--ok); font-weight: 600; }
.sweep tr.passed td.result { color: var(--ok); }
.sweep tr.failed td.result { color: var(--bad); font-weight: 600; }
.sweep tr.error td.result { color: var(--warn); font-weight: 600; }
.sweep details { margin: 0; }
.sweep td:first-child { white-space: nowrap; }
.sweep details summary { cursor: pointer; }
.sweep details ul { margin: .2em 0 .2em 1.2em; padding: 0; }
.sweep pre { margin: .2em 0; white-space: pre-wrap; }
.base { padding: .6em 0; }
#shown { color: var(--muted); }
"""

_SCRIPT = """
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#variants tbody tr"));
  var status = document.getElementById("status-filter");
  var text = document.getElementById("name-filter");
  var shown = document.getElementById("shown");
  function apply() {
    var want = status.value, needle = text.value.toLowerCase(), n = 0;
    rows.forEach(function (r) {
      var ok = (want === "all" || r.className === want) &&
               r.getAttribute("data-name").toLowerCase().indexOf(needle) >= 0;
      r.hidden = !ok;
      if (ok) n += 1;
    });
    shown.textContent = n + " of " + rows.length + " variants shown";
  }
  // "#status=failed&name=a-" in the address presets the filters (a link to a view)
  location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var kv = part.split("="), value = decodeURIComponent(kv[1] || "");
    if (kv[0] === "status") status.value = value;
    if (kv[0] === "name") text.value = value;
  });
  status.addEventListener("change", apply);
  text.addEventListener("input", apply);
  apply();
  document.body.setAttribute("data-ready", "yes");
})();
"""


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


def _details(v: dict[str, Any], base: dict[str, Any]) -> str:
    """What differs from the base run, as a disclosure under the variant's name."""
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
    return f"<details><summary>{_e(v['name'])}</summary>{error}<ul>{listed}</ul></details>"


def _rows(variants: Sequence[dict[str, Any]], base: dict[str, Any]) -> str:
    out = []
    for v in variants:
        out.append(
            f'<tr class="{_e(v["status"])}" data-name="{_e(v["name"])}">'
            f"<td>{_details(v, base)}</td><td class=\"result\">{_e(_result(v))}</td>"
            + _cell(v["pending"], base["pending"])
            + _cell(v["evictions"], base["evictions"])
            + _cell(v["preemptions"], base["preemptions"])
            + f"<td>{_first(v, base)}</td></tr>")
    return "\n".join(out)


def _base(base: dict[str, Any]) -> str:
    if base["status"] == "error":
        return f'<p class="base refusal">base run: error: {_e(base.get("error") or "")}</p>'
    n, failing = base["expectations"], len(base["failing"])
    verdict = (f"{failing} of {n} expectations fail" if failing
               else f"{n} expectation{'s' if n != 1 else ''} pass{'es' if n == 1 else ''}")
    return (f'<p class="base">base run: <span class="status {_e(base["status"])}">'
            f"{_e(verdict)}</span> {base['pending']} pending, {base['evictions']} evictions, "
            f"{base['preemptions']} preemptions (· below: same as base)</p>")


def render_html(data: dict[str, Any], description: str) -> str:
    """The page for a sweep's JSON form (:meth:`kruleset.sweep.Sweep.to_json`)."""
    css = (resources.files("kruleset.report") / "assets" / "report.css").read_text("utf-8")
    base = data["base"]
    variants = data["variants"]
    counts = {s: sum(1 for v in variants if v["status"] == s)
              for s in ("error", "failed", "passed")}
    title = f"sweep {data['scenario']}"
    options = "".join(f'<option value="{s}">{s} ({counts[s]})</option>'
                      for s in ("failed", "error", "passed"))
    page = string.Template(
        (resources.files(__package__) / "page.html").read_text("utf-8"))
    # one pass: nothing substituted is read again as a placeholder
    return page.substitute(
        title=_e(title), css=css + _CSS, description=_e(description),
        variants=len(variants), failed=counts["failed"], error=counts["error"],
        passed=counts["passed"], base=_base(base), options=options, order=_e(data["order"]),
        rows=_rows(variants, base), version=_e(__version__), script=_SCRIPT)
