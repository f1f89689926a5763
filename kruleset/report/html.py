"""The HTML report: one self-contained file (inline CSS, JS and SVG, no network).

:func:`render_html` puts the data of :func:`kruleset.report.html_model.file_data`
(one entry per file) into the page in ``assets/``; the page's script draws the
summary, the per-node timeline, the scheduling-attempt tables and the
explanations in the browser, rendering only what is on screen, so a run of
5,000 nodes and 20,000 pods stays a file of a few MB that opens at once.
Source files are highlighted with kruleset's Pygments lexer.

The page reads its location's hash: ``#pod=NS/NAME`` opens the decision that
decided that pod (its preemption or eviction as a victim, the attempt that
preempted for it, its last failure when it is pending at the end, else its
scheduling) with its attempts, ``#node=NAME`` the node's allocation over time,
``#decision=N`` the N-th decision, ``#file=N`` the N-th file (docs/REPORTS.md).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from .._version import __version__
from .formats import Format, register
from .model import FileReport, Summary

__all__ = ["HtmlFormat", "file_report", "highlight_source", "render_html", "SOURCE_LIMIT"]

_MARKER = re.compile(r"/\*@CSS@\*/|/\*@JS@\*/|@DATA@|@TITLE@")

#: Sources longer than this many characters are shown plain, not highlighted.
SOURCE_LIMIT = 300_000


def _asset(name: str) -> str:
    return (resources.files(__package__) / "assets" / name).read_text(encoding="utf-8")


def highlight_source(text: str) -> str:
    """``text`` (a ``.kr`` file) as HTML, one ``<span id="L-N">`` per line."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    from ..highlight import KrLexer

    if len(text) > SOURCE_LIMIT:
        import html

        return "<pre>" + "".join(f'<span id="L-{n}">{html.escape(line)}\n</span>'
                                 for n, line in enumerate(text.splitlines(), 1)) + "</pre>"
    return highlight(text, KrLexer(), HtmlFormatter(linespans="L", cssclass="hl", wrapcode=True))


def file_report(path: str, report: FileReport, result: Any) -> dict[str, Any]:
    """The report data of one file from its :class:`FileReport` and its Result
    (None when the file did not run)."""
    from pathlib import Path

    from .html_model import file_data

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    errors = [{**p.to_json(), "text": p.text} for p in report.problems]
    return file_data(path, report.status, result, errors[0] if errors else None,
                     highlight_source(text) if text else "", errors)


@register("html")
class HtmlFormat(Format):
    """One self-contained HTML page for every file of the run (written at the end)."""

    wants_trace = True

    @staticmethod
    def extract(path: str, result: Any, report: FileReport) -> Any:
        """The page's data for this file, built where the file ran."""
        return file_report(path, report, result)

    def begin(self, total: int) -> None:
        """Nothing is written until every file is in: the page is one document."""
        self._files: list[dict[str, Any]] = []

    def file(self, report: FileReport) -> None:
        """Keep the file's data."""
        self._files.append(report.extra or file_report(report.path, report, None))

    def end(self, summary: Summary) -> None:
        """The page, over the files that finished."""
        self.out.write(render_html(self._files) + "\n")
        self.out.flush()


def _style() -> str:
    from pygments.formatters import HtmlFormatter

    return str(HtmlFormatter(style="default").get_style_defs(".hl"))


def render_html(files: list[dict[str, Any]], title: str = "kruleset report") -> str:
    """The whole page for the files' data (as :func:`file_data` builds it)."""
    payload = json.dumps({"version": __version__, "files": files}, separators=(",", ":"),
                         ensure_ascii=False)
    # Inside <script>, only "</" could end the element early; "<\/" reads the same in JSON.
    payload = payload.replace("</", "<\\/").replace("<!--", "<\\!--")
    parts = {"/*@CSS@*/": _asset("report.css") + _style(), "/*@JS@*/": _asset("report.js"),
             "@DATA@": payload, "@TITLE@": _escape(title)}
    # one pass, so nothing inserted is ever read as a marker
    return _MARKER.sub(lambda m: parts[m.group(0)], _asset("report.html"))


def _escape(text: str) -> str:
    import html

    return html.escape(text, quote=True)
