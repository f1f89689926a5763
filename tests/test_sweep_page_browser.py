"""The sweep's HTML page in a real browser (Playwright on the system's Chromium).

At 1280, 1440 and 1920 px, with 60-character node names in the variants'
names: opening a row puts its details in a row below it and moves no column
(every cell's box measured before and after); nothing in a row overlaps and a
name wraps whole in its column and a message cut short carries all of it as
its tooltip; a two-axis sweep shows
a matrix whose cells are the variants' outcomes and open their row; a row's
"report" link opens that variant's own report; clicking a command selects
exactly the command the row's JSON gives, and running that command ends as
the row says.  The expected values come from the sweep's JSON form, never
from the page itself.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pw import WIDTHS, page_at  # noqa: F401 - a fixture

from kruleset.cli import main
from kruleset.sweep import Sweep, sweep

NODES = [f"ip-10-0-1-{17 + i}.eu-west-1.compute.internal-{c * 19}" for i, c in enumerate("abc")]
LONG = "\n".join([
    'scenario "N-1 with long node names"',
    *(f"node {n} cpu=4 memory=8Gi" for n in NODES),
    "deployment web replicas=3 requests(cpu=2, memory=1Gi) labels(app=web)",
    f"pod solo on {NODES[0]} requests(cpu=1, memory=1Gi)",
    "expect pods default/web-* running count=3",
    "expect pod solo running",
    "",
])
TWO_AXES = ["--set", "deployment:web:replicas=3,5", "--fail-each", "node"]


@contextlib.contextmanager
def _in(folder: Path) -> Iterator[None]:
    """Run from ``folder``: the page names the scenario as a user in its folder would."""
    was = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(was)


def _sweep_page(folder: Path, args: list[str], reports: bool) -> Path:
    (folder / "long.kr").write_text(LONG)
    (folder / "out").mkdir()
    extra = ["--reports", "out/reports"] if reports else []
    with _in(folder), contextlib.redirect_stderr(io.StringIO()):
        code = main(["sweep", "long.kr", *args, "-j", "1", "--format", "html", "-q",
                     "-o", "out/sweep.html", *extra])
    assert code == 1, "losing the first node loses solo: some variants fail"
    return folder / "out" / "sweep.html"


@pytest.fixture(scope="module")
def two_axes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Sweep]:
    folder = tmp_path_factory.mktemp("sweep-two-axes")
    page = _sweep_page(folder, TWO_AXES, reports=True)
    with _in(folder):
        return page, sweep("long.kr", sets=[TWO_AXES[1]], fail_each="node", jobs=1)


@pytest.fixture(scope="module")
def one_axis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _sweep_page(tmp_path_factory.mktemp("sweep-one-axis"), ["--fail-each", "node"],
                       reports=False)


def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return [page.locator(selector).nth(i).bounding_box()
            for i in range(page.locator(selector).count())]


def _same(a: list[dict[str, float]], b: list[dict[str, float]], keys: str = "xw") -> bool:
    names = {"x": "x", "y": "y", "w": "width", "h": "height"}
    return len(a) == len(b) and all(abs(p[names[k]] - q[names[k]]) < 0.5
                                    for p, q in zip(a, b, strict=True) for k in keys)


def _open(url: str, page_at: Any, width: int) -> Any:  # noqa: F811
    page = page_at(width)
    page.goto(url)
    page.wait_for_selector("body[data-ready=yes]")
    return page


@pytest.mark.parametrize("width", WIDTHS)
def test_opening_a_row_moves_no_column(two_axes: tuple[Path, Sweep], page_at: Any,  # noqa: F811
                                       width: int) -> None:
    page = _open(two_axes[0].as_uri(), page_at, width)
    table = page.locator("#variants").bounding_box()
    assert table["x"] + table["width"] <= width, "the table fits the window"
    heads, first = _boxes(page, "#variants thead th"), _boxes(page, "#v0 td")
    rows = page.locator("#variants tr.variant")
    for i in range(rows.count()):
        row = rows.nth(i)
        row.locator("button.toggle").click()
        detail = page.locator("#" + row.get_attribute("data-detail"))
        assert detail.is_visible()
        assert row.locator("button.toggle").get_attribute("aria-expanded") == "true"
        r, d = row.bounding_box(), detail.bounding_box()
        assert abs(d["y"] - (r["y"] + r["height"])) < 1, "the details open right below the row"
        assert abs(d["width"] - table["width"]) < 1, "the details span the whole table"
        assert _same(_boxes(page, "#variants thead th"), heads), "a column moved or widened"
        assert _same(_boxes(page, "#v0 td"), first), "the first row's cells moved"
    assert not page.script_errors, page.script_errors


@pytest.mark.parametrize("width", WIDTHS)
def test_cells_do_not_overlap_and_nothing_is_cut_without_a_tooltip(
        two_axes: tuple[Path, Sweep], page_at: Any, width: int) -> None:  # noqa: F811
    page = _open(two_axes[0].as_uri(), page_at, width)
    rows = page.locator("#variants tr.variant")
    for i in range(rows.count()):
        cells = _boxes(page, f"#{rows.nth(i).get_attribute('id')} td")
        for left, right in zip(cells, cells[1:], strict=False):
            assert left["x"] + left["width"] <= right["x"] + 0.5
        name = rows.nth(i).locator("button.toggle")
        assert name.inner_text() == rows.nth(i).get_attribute("data-name")
        assert not name.evaluate("b => b.scrollWidth > b.clientWidth"), "a name wraps whole"
        first = rows.nth(i).locator("td.first")
        if first.evaluate("c => c.scrollWidth > c.clientWidth"):
            assert first.get_attribute("title").startswith(first.inner_text().rstrip("…"))


@pytest.mark.parametrize("width", WIDTHS)
def test_two_axes_show_a_matrix_whose_cells_open_their_row(
        two_axes: tuple[Path, Sweep], page_at: Any, width: int) -> None:  # noqa: F811
    path, swept = two_axes
    page = _open(path.as_uri(), page_at, width)
    matrix = page.locator("#matrix")
    assert matrix.is_visible()
    box = matrix.bounding_box()
    assert box["x"] + box["width"] <= width, "three 60-character columns fit: headers wrap"
    assert page.locator("#matrix thead th[scope=col]").all_text_contents() == NODES
    assert page.locator("#matrix tbody th[scope=row]").all_text_contents() == ["3", "5"]
    data = swept.to_json()
    want = {v["name"]: ("✓ pass" if v["status"] == "passed" else
                        f"✗ {len(v['failing'])} of {v['expectations']}")
            for v in data["variants"]}
    cells = page.locator("#matrix td[data-name]")
    assert cells.count() == len(want) == 6
    for i in range(cells.count()):
        cell = cells.nth(i)
        assert cell.inner_text().strip() == want[cell.get_attribute("data-name")]
    failing = next(v for v in data["variants"] if v["status"] == "failed")
    page.locator(f'#matrix td[data-name="{failing["name"]}"] a').click()
    if width == WIDTHS[0] and os.environ.get("KRULESET_SCREENSHOTS"):
        # KRULESET_SCREENSHOTS=docs pytest … refreshes docs/sweep-page.png
        page.screenshot(path=str(Path(os.environ["KRULESET_SCREENSHOTS"]) / "sweep-page.png"),
                        full_page=True)
    row = page.locator(f"#v{failing['index']}")
    assert row.locator("button.toggle").get_attribute("aria-expanded") == "true"
    assert page.locator(f"#d{failing['index']}").is_visible()
    assert row.is_visible()
    assert not page.script_errors, page.script_errors


def test_one_axis_is_a_list_without_matrix(one_axis: Path, page_at: Any) -> None:  # noqa: F811
    page = _open(one_axis.as_uri(), page_at, 1280)
    assert page.locator("#matrix").count() == 0
    assert page.locator("#variants tr.variant").count() == len(NODES)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_rows_report_link_opens_that_variants_report(
        two_axes: tuple[Path, Sweep], page_at: Any, width: int) -> None:  # noqa: F811
    path, swept = two_axes
    page = _open(path.as_uri(), page_at, width)
    failing = [v for v in swept.to_json()["variants"] if v["status"] != "passed"]
    assert page.locator("#variants a.report").count() == len(failing)
    v = failing[-1]
    page.locator(f"#v{v['index']} a.report").click()
    page.wait_for_load_state()
    assert page.url.startswith((path.parent / "reports").as_uri() + "/")
    assert f"[variant {v['name']}]" in page.content()


@pytest.mark.parametrize("width", WIDTHS)
def test_clicking_a_command_selects_it_and_it_replays_the_row(
        two_axes: tuple[Path, Sweep], page_at: Any, width: int) -> None:  # noqa: F811
    path, swept = two_axes
    page = _open(path.as_uri(), page_at, width)
    for v in swept.to_json()["variants"][:2]:
        row = page.locator(f"#v{v['index']}")
        row.locator("button.copy").click()
        assert page.locator(f"#d{v['index']}").is_visible()
        assert page.evaluate("window.getSelection().toString()") == v["replay"]["run"]
        page.locator(f"#d{v['index']} code.cmd").nth(1).click()
        assert page.evaluate("window.getSelection().toString()") == v["replay"]["sweep"]
    assert not page.script_errors, page.script_errors


def test_the_commands_on_the_page_replay_their_row(two_axes: tuple[Path, Sweep],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path, swept = two_axes
    monkeypatch.chdir(path.parent.parent)  # where the sweep ran
    for v in swept.to_json()["variants"]:
        for command in (v["replay"]["run"], v["replay"]["sweep"]):
            words = shlex.split(command)
            assert words[0] == "kruleset"
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main([*words[1:], "--no-color"])
            assert code == (1 if v["status"] == "failed" else 0), (command, err.getvalue())
            for f in v["failing"]:
                assert f"✗ line {f['line']}: {f['text']}" in out.getvalue()


def test_filters_preset_in_the_address(one_axis: Path, page_at: Any) -> None:  # noqa: F811
    page = _open(one_axis.as_uri() + "#status=failed", page_at, 1280)
    shown = [r.get_attribute("data-name")
             for r in page.locator("#variants tr.variant:not([hidden])").all()]
    statuses = {r.get_attribute("data-name"): r.get_attribute("data-status")
                for r in page.locator("#variants tr.variant").all()}
    assert shown and shown == [n for n, s in statuses.items() if s == "failed"]
    total = len(statuses)
    assert page.locator("#shown").inner_text() == f"{len(shown)} of {total} variants shown"


def test_the_address_opens_a_row_by_name_or_index(two_axes: tuple[Path, Sweep],
                                                  page_at: Any) -> None:  # noqa: F811
    from urllib.parse import quote

    path, swept = two_axes
    for v in swept.to_json()["variants"][-2:]:
        for anchor in (f"#variant={quote(v['name'])}", f"#v{v['index']}"):
            page = _open(path.as_uri() + anchor, page_at, 1280)
            assert page.locator(f"#d{v['index']}").is_visible(), anchor
            opened = page.locator("#variants tr.variant.open")
            assert opened.count() == 1 and opened.get_attribute("data-name") == v["name"]
            assert not page.script_errors, page.script_errors
