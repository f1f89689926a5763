"""`kruleset sweep --format html`: one self-contained page, the table's rows, its filters.

The expected rows come from the sweep's own outcomes (the JSON form the text
table is also drawn from) and from what the scenario must do (losing a-1
loses the naked pod ``solo``); the browser test opens the page in headless
Chromium with a filter preset in the address and reads which rows it hid.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from browser import needs_browser, open_page
from test_sweep import SMALL

from kruleset.cli import main
from kruleset.sweep import Sweep, sweep
from kruleset.sweep.html import render_html


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("sweep-html") / "small.kr"
    p.write_text(SMALL)
    return p


@pytest.fixture(scope="module")
def swept(small: Path) -> Sweep:
    return sweep(small, fail_each="node", jobs=1)


@pytest.fixture(scope="module")
def page(small: Path) -> Path:
    out = small.with_suffix(".html")
    with out.open("w") as f:
        import contextlib

        with contextlib.redirect_stdout(f):
            code = main(["sweep", str(small), "--fail-each", "node", "-j", "1",
                         "--format", "html", "-q"])
    assert code == 1  # a-1's loss fails an expectation
    return out


def _rows(dom: Any) -> list[Any]:
    """The table's rows in the page as written (lxml's HTML parser reads it)."""
    (body,) = dom.iter("tbody")
    return list(body.iter("tr"))


def parse(text: str) -> Any:
    return lxml.html.document_fromstring(text)


def text_of(node: Any) -> str:
    return str(node.text_content())


def test_page_is_one_self_contained_file(page: Path, swept: Sweep) -> None:
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r'(src|href)="(?!data:)', text), "the page loads nothing"
    assert text == swept.html(), "the command and the library give the same page"


def test_rows_follow_the_tables_order_and_values(page: Path, swept: Sweep) -> None:
    dom = parse(page.read_text())
    rows = _rows(dom)
    ordered = swept.rows()
    assert [r.get("data-name") for r in rows] == [v.name for v, _ in ordered]
    base = swept.base
    for row, (_, outcome) in zip(rows, ordered, strict=True):
        assert row.get("class") == outcome["status"]
        cells = [text_of(c).strip() for c in row.iter("td")]
        for cell, column in zip(cells[2:5], ("pending", "evictions", "preemptions"),
                                strict=True):
            value, was = outcome[column], base[column]
            assert cell == ("·" if value == was else f"{value} ({value - was:+d})")


def test_losing_a1_shows_solo_and_what_differs(page: Path) -> None:
    rows = {r.get("data-name"): r for r in _rows(parse(page.read_text()))}
    a1 = text_of(rows["node=a-1"])
    assert "✗" in a1
    assert "expect pod solo running" in a1
    assert "newly failing: line 15: expect pod solo running" in a1
    assert "pods deleted with the failed nodes" in a1


def test_text_is_escaped() -> None:
    outcome = {"status": "failed", "expectations": 1, "pending": 0, "evictions": 0,
               "preemptions": 0, "removed": 0, "digest": "", "pending_pods": [],
               "failing": [{"line": 3, "text": "expect pod <b>x</b> running", "message": ""}]}
    data = {"scenario": "s.kr", "order": "worst first", "base": {**outcome, "failing": []},
            "variants": [{**outcome, "name": "x=<script>", "axes": {"x": "<script>"},
                          "diff": {"newly_failing": [3], "newly_passing": [],
                                   "newly_pending": []}}]}
    text = render_html(data, "x=<script>")
    assert "newly failing: line 3" in text
    assert "<script>alert" not in text and "x=&lt;script&gt;" in text
    assert "expect pod &lt;b&gt;x&lt;/b&gt; running" in text


@needs_browser
def test_browser_filters_by_result(page: Path, swept: Sweep, browser: Any) -> None:
    watched = open_page(browser, f"{page.as_uri()}#status=failed")
    view = watched.page
    assert view.get_attribute("body", "data-ready") == "yes"
    failed = [v.name for v, o in swept.rows() if o["status"] == "failed"]
    rows = view.locator("tbody tr")
    shown = [rows.nth(i).get_attribute("data-name") for i in range(rows.count())
             if rows.nth(i).is_visible()]
    assert failed and shown == failed
    total = len(swept.variants)
    assert view.inner_text("#shown") == f"{len(failed)} of {total} variants shown"
    assert not watched.console, watched.console
    view.close()
