"""The HTML report at real size, in a real browser: layout measured, clicks followed.

A cluster of 300 nodes with 60-character EKS-like names and about 3,500 pods
(``bigcluster.py``) is run once; its page is opened in headless Chromium at
1280, 1440 and 1920 px.  At each width no two panes overlap (their bounding
boxes are measured), nothing inside a pane spills out of it, the page does
not scroll sideways, and every text cut with an ellipsis carries its whole
text as a tooltip.  Clicking a decision, a pod, a node, a timeline bar and a
mark shows what it says.  Expected values come from the run (its decisions,
attempts and end state), never from the page's own data.

With ``KRULESET_WRITE_SCREENSHOTS=1`` the screenshots at the three widths are
written to ``docs/screenshots/`` (as committed); otherwise to a temporary folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from bigcluster import NAME_LENGTH, scenario_text
from browser import needs_browser, open_page
from png_pixels import read_png

import kruleset
from kruleset.model.quantity import format_duration
from kruleset.report.html import highlight_source, render_html
from kruleset.report.html_model import file_data

ROOT = Path(__file__).resolve().parent.parent
WIDTHS = (1280, 1440, 1920)
PANES = ("summary", "problems-section", "expectations-section", "timeline-section",
         "decisions-section", "detail-section", "endstate-section", "source-section")


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("big")
    scenario = folder / "eks-300.kr"
    text = scenario_text()
    scenario.write_text(text, encoding="utf-8")
    result = kruleset.run(kruleset.load(scenario), trace=True)
    status = "failed" if result.failed else "passed"
    page = folder / "eks-300.html"
    page.write_text(render_html([file_data(str(scenario.name), status, result,
                                           source=highlight_source(text))]) + "\n",
                    encoding="utf-8")
    return page, result


def test_big_report_is_a_few_mb(big: tuple[Path, Any]) -> None:
    page, result = big
    assert len(result.state.nodes) == 300
    assert 3400 <= len(result.state.pods) <= 3600
    assert all(len(n) == NAME_LENGTH for n in result.state.nodes)
    size = page.stat().st_size
    # docs/REPORTS.md gives this size; the page is one file, so it must stay small
    assert size < 6_000_000, f"{size} bytes"


_SPILL = """(ids) => {
  // a pane's descendants must stay inside it, unless a scrolling box holds them
  const out = [];
  for (const id of ids) {
    const pane = document.getElementById(id), box = pane.getBoundingClientRect();
    for (const e of pane.querySelectorAll('*')) {
      let scrolled = false;
      for (let a = e.parentElement; a && a !== pane; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) { scrolled = true; break; }
      }
      if (scrolled) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1)
        out.push(id + ' > ' + e.tagName + '#' + e.id + '.' + e.className + ' ' +
                 Math.round(r.left) + '-' + Math.round(r.right) + ' outside ' +
                 Math.round(box.left) + '-' + Math.round(box.right));
    }
  }
  return out.slice(0, 10);
}"""

_CUT = """() => {
  // HTML text cut with an ellipsis, and SVG labels shortened with "…", without a tooltip
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    const s = getComputedStyle(e);
    if (s.textOverflow !== 'ellipsis' || e.scrollWidth <= e.clientWidth) continue;
    const tip = e.closest('[title]');
    if (!tip || !tip.getAttribute('title')) out.push(e.outerHTML.slice(0, 120));
  }
  for (const t of document.querySelectorAll('svg text')) {
    const own = [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('');
    if (own.includes('…') && !t.querySelector('title')) out.push('svg: ' + own);
  }
  return out.slice(0, 10);
}"""


def _overlaps(boxes: dict[str, dict[str, float]]) -> list[str]:
    out = []
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p, q = boxes[a], boxes[b]
            w = min(p["x"] + p["width"], q["x"] + q["width"]) - max(p["x"], q["x"])
            h = min(p["y"] + p["height"], q["y"] + q["height"]) - max(p["y"], q["y"])
            if w > 0.5 and h > 0.5:
                out.append(f"{a} and {b} overlap by {w:.0f}×{h:.0f}")
    return out


@needs_browser
@pytest.mark.parametrize("width", WIDTHS)
def test_panes_do_not_overlap(browser: Any, big: tuple[Path, Any], width: int,
                              tmp_path: Path) -> None:
    page, result = big
    watched = open_page(browser, f"{page.as_uri()}#pod=default/big-3", width, 1000)
    view = watched.page
    assert view.get_attribute("body", "data-ready") == "yes"
    # a node opened too, so every pane holds its long names
    view.locator("#timeline-svg text.label").first.click()
    boxes = {p: view.locator(f"#{p}").bounding_box() for p in PANES}
    assert all(b is not None and b["width"] > 100 for b in boxes.values()), boxes
    assert _overlaps(boxes) == []  # type: ignore[arg-type]
    assert view.evaluate(_SPILL, list(PANES)) == []
    assert view.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert view.evaluate(_CUT) == []
    # the side by side panes really are side by side at these widths
    left, right = boxes["decisions-section"], boxes["detail-section"]
    assert left is not None and right is not None
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2
    # the timeline draws the rows on screen only, each labelled
    labels = view.locator("#timeline-svg text.label")
    assert 0 < labels.count() <= 40 < len(result.state.nodes)
    title = labels.first.locator("title").text_content() or ""
    assert title.split(" ")[0] in result.state.nodes
    folder = ROOT / "docs" / "screenshots" if os.environ.get(
        "KRULESET_WRITE_SCREENSHOTS") else tmp_path
    folder.mkdir(exist_ok=True)
    shot = folder / f"report-{width}.png"
    # the timeline, then the decisions beside the pod, its attempt and the node
    view.evaluate("document.getElementById('timeline').scrollIntoView()")
    view.screenshot(path=str(shot), clip={"x": 0, "y": 0, "width": width, "height": 640})
    w, h, _, _ = read_png(shot)
    assert (w, h) == (width, 640)
    assert not watched.console, watched.console
    view.close()


@pytest.fixture
def view(browser: Any, big: tuple[Path, Any]) -> Any:
    watched = open_page(browser, big[0].as_uri(), 1280, 1000)
    yield watched.page
    assert not watched.console, watched.console
    watched.page.close()


@needs_browser
def test_clicking_a_decision_explains_it(view: Any, big: tuple[Path, Any]) -> None:
    result = big[1]
    row = view.locator("#decisions tbody tr").nth(3)
    index = int(row.get_attribute("data-decision"))
    row.locator("td").first.click()
    d = result.decisions[index]
    assert view.inner_text("#explain-head").startswith(
        f"{format_duration(d.time)} {d.kind} {d.pod}")
    assert "selected" in (view.locator(f'#decisions tr[data-decision="{index}"]')
                          .get_attribute("class") or "")


@needs_browser
def test_clicking_a_pod_lists_its_attempts(view: Any, big: tuple[Path, Any]) -> None:
    result = big[1]
    link = view.locator('#problem-list li[data-problem="pending"] a.pod').first
    pod = link.get_attribute("data-pod-name")
    link.click()
    assert view.get_attribute("#pod", "data-pod") == pod
    assert view.evaluate("decodeURIComponent(location.hash)") == f"#pod={pod}"
    attempts = [a for a in result.attempts if a.pod == pod]
    rows = view.locator("#pod-attempts tbody tr")
    assert rows.count() == len(attempts) > 0
    last = rows.nth(rows.count() - 1).locator("td").all_inner_texts()
    assert last[0] == format_duration(attempts[-1].time) and last[3] == attempts[-1].why
    # the pod is pending at the end: its last failure is the decision opened
    last_pending = max(i for i, d in enumerate(result.decisions)
                       if d.pod == pod and d.kind == "pending")
    d = result.decisions[last_pending]
    assert view.inner_text("#explain-head").startswith(
        f"{format_duration(d.time)} pending {pod}")
    assert "needs 3 cpu" in view.inner_text("#attempt-table")


@needs_browser
def test_clicking_a_node_charts_its_allocation(view: Any, big: tuple[Path, Any]) -> None:
    result = big[1]
    label = view.locator("#timeline-svg text.label").nth(2)
    full = (label.locator("title").text_content() or "").split(" ")[0]
    label.click()
    assert view.get_attribute("#node", "data-node") == full
    alloc = result.state.nodes[full].allocatable
    cpu = view.locator('#node svg.chart[data-resource="cpu"] text').first.text_content() or ""
    m = re.match(r"cpu: peak ([\d.]+) allocated of ([\d.]+) allocatable", cpu)
    assert m is not None, cpu
    assert float(m.group(2)) * 1000 == alloc.cpu and 0 < float(m.group(1)) * 1000 <= alloc.cpu
    mem = view.locator('#node svg.chart[data-resource="memory"] text').first.text_content()
    assert mem is not None and mem.endswith(f"of {alloc.memory // (1 << 30)}Gi allocatable")
    on_node = [ps.key for ps in result.state.pods.values() if ps.node == full and not ps.gone]
    assert view.inner_text("#node .node-pods").startswith(f"{len(on_node)} pod(s) at the end")


_CLEAR = """(selector) => {
  // the first of the timeline's SELECTOR well inside its box and on top where it is clicked
  const box = document.getElementById('timeline').getBoundingClientRect();
  const all = [...document.querySelectorAll('#timeline-svg ' + selector)];
  const i = all.findIndex(m => {
    const r = m.getBoundingClientRect();
    if (!(r.top > box.top + 30 && r.bottom < box.bottom - 30 && r.left > box.left
          && r.right < box.right - 20)) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit === m || (hit && hit.parentNode === m);
  });
  if (i < 0) throw new Error('no clickable ' + selector);
  return i;
}"""


@needs_browser
def test_clicking_a_bar_opens_its_pod(view: Any, big: tuple[Path, Any]) -> None:
    view.locator("#timeline").scroll_into_view_if_needed()
    bar = view.locator("#timeline-svg rect.bar").nth(view.evaluate(_CLEAR, "rect.bar"))
    pod = (bar.locator("title").text_content() or "").split(" ")[0]
    bar.click()
    assert view.get_attribute("#pod", "data-pod") == pod
    assert pod in big[1].state.pods


@needs_browser
def test_clicking_a_mark_opens_its_decision(view: Any, big: tuple[Path, Any]) -> None:
    result = big[1]
    view.locator("#timeline").scroll_into_view_if_needed()
    # a mark well inside the timeline's box (the last row drawn may be half hidden)
    nth = view.evaluate(_CLEAR, ".mark")
    mark = view.locator("#timeline-svg .mark").nth(nth)
    index = int(mark.get_attribute("data-decision"))
    # one mark per kind and instant names every pod it stands for
    count = int(mark.get_attribute("data-count"))
    tip = mark.locator("title").text_content() or ""
    same = [i for i, d in enumerate(result.decisions)
            if d.time == result.decisions[index].time and d.kind == result.decisions[index].kind
            and d.node == result.decisions[index].node]
    assert count == len(same)
    assert all(result.decisions[i].pod in tip for i in same[:20])
    mark.click()
    d = result.decisions[index]
    assert view.inner_text("#explain-head").startswith(
        f"{format_duration(d.time)} {d.kind} {d.pod}")
    assert view.get_attribute("#pod", "data-pod") == d.pod


@needs_browser
def test_pod_address_opens_the_preemption(browser: Any, big: tuple[Path, Any]) -> None:
    page, result = big
    watched = open_page(browser, f"{page.as_uri()}#pod=default/big-3")
    nominated = next(d for d in result.decisions
                     if d.kind == "nominated" and d.pod == "default/big-3")
    assert watched.page.inner_text("#explain-head").startswith(
        f"{format_duration(nominated.time)} nominated default/big-3")
    assert watched.page.locator("#candidates tr.chosen").count() == 1
    watched.page.close()


@needs_browser
def test_nodes_with_problems_first(view: Any, big: tuple[Path, Any]) -> None:
    result = big[1]
    view.select_option("#node-order", "problems")
    rows = view.locator("#timeline-svg g[data-node]")
    first = rows.first.get_attribute("data-node")
    marked = {d.node for d in result.decisions if d.kind in ("preempted", "evicted")}
    assert first in marked
    view.select_option("#node-order", "")
    assert rows.first.get_attribute("data-node") == next(iter(result.state.nodes))


@needs_browser
def test_a_hidden_decision_opened_shows_in_the_list(view: Any, big: tuple[Path, Any]) -> None:
    result = big[1]
    assert view.input_value("#kind-filter") == "@problems"
    index = next(i for i, d in enumerate(result.decisions) if d.kind == "scheduled")
    view.evaluate(f"location.hash = 'decision={index}'")
    row = view.locator(f'#decisions tr[data-decision="{index}"]')
    row.wait_for()
    assert "selected" in (row.get_attribute("class") or "")
    assert view.input_value("#kind-filter") == ""
