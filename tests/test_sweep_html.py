"""`kruleset sweep --format html`: one self-contained page, the table's rows, their details.

The expected rows come from the sweep's own outcomes (the JSON form the text
table is also drawn from) and from what the scenario must do (losing a-1
loses the naked pod ``solo``).  What the page does in a browser (filters,
rows that open, the matrix, the replay links) is tested in
``test_sweep_page_browser.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lxml.html
import pytest
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
    """The variants' rows (each is followed by its detail row)."""
    return [r for r in dom.get_element_by_id("variants").iter("tr")
            if "variant" in (r.get("class") or "").split()]


def _detail(dom: Any, row: Any) -> Any:
    return dom.get_element_by_id(row.get("data-detail"))


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
        assert row.get("data-status") == outcome["status"]
        cells = [text_of(c).strip() for c in row.iter("td")]
        for cell, column in zip(cells[2:5], ("pending", "evictions", "preemptions"),
                                strict=True):
            value, was = outcome[column], base[column]
            assert cell == ("·" if value == was else f"{value} ({value - was:+d})")


def test_losing_a1_shows_solo_and_what_differs(page: Path) -> None:
    dom = parse(page.read_text())
    rows = {r.get("data-name"): r for r in _rows(dom)}
    assert "✗" in text_of(rows["node=a-1"])
    a1 = text_of(_detail(dom, rows["node=a-1"]))
    assert "expect pod solo running" in a1
    assert "newly failing: line 15: expect pod solo running" in a1
    assert "pods deleted with the failed nodes" in a1


def test_text_is_escaped() -> None:
    outcome = {"status": "failed", "expectations": 1, "pending": 0, "evictions": 0,
               "preemptions": 0, "removed": 0, "digest": "", "pending_pods": [],
               "failing": [{"line": 3, "text": "expect pod <b>x</b> running", "message": ""}]}
    data = {"scenario": "s.kr", "order": "worst first", "base": {**outcome, "failing": []},
            "variants": [{**outcome, "name": "x=<script>", "axes": {"x": "<script>"},
                          "index": 0, "replay": {"sweep": "kruleset sweep '<s>'", "run": None},
                          "diff": {"newly_failing": [3], "newly_passing": [],
                                   "newly_pending": []}}]}
    text = render_html(data, "x=<script>")
    assert "newly failing: line 3" in text
    assert "<script>alert" not in text and "x=&lt;script&gt;" in text
    assert "expect pod &lt;b&gt;x&lt;/b&gt; running" in text
    assert "kruleset sweep &#x27;&lt;s&gt;&#x27;" in text


def parse(text: str) -> Any:
    """The page as written, read by lxml's HTML parser."""
    return lxml.html.document_fromstring(text)


def text_of(node: Any) -> str:
    return str(node.text_content())
