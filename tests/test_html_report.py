"""The HTML report: self-contained, deterministic, and rendered by a real browser.

The browser tests run headless Chromium (Debian's ``chromium``; ``.ci/run``
installs it) on the report of the quickstart with one expectation added that
fails, and read the DOM the page's script built: the counts, the failing
expectation, the node × plugin table of the preemptor's attempt and its
preemption candidates.  Expected values come from the run itself (decisions,
expectation results), never from the report's own data.  A screenshot must not
be blank, and the page must log nothing to the console.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, Dom, all_of, chromium, console, needs_browser, one_of, text_of
from png_pixels import read_png

import kruleset
from kruleset.cli import main
from kruleset.report.html_model import file_data

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "examples" / "quickstart.kr"
FAILING = "expect pod web running on node-2\n"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "quickstart-failing.kr"
    path.write_text(QUICKSTART.read_text(encoding="utf-8") + FAILING, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def report(scenario: Path) -> Path:
    out = scenario.with_suffix(".html")
    assert main(["run", str(scenario), "--format", "html", "--output", str(out)]) == 1
    return out


@pytest.fixture(scope="module")
def result(scenario: Path) -> Any:
    return kruleset.run(kruleset.load(scenario))


def _reasons(message: str) -> list[tuple[str, str]]:
    """(count, reason) of upstream's '0/3 nodes are available: 3 Insufficient cpu.'"""
    counts = message.split(" preemption:")[0].split("nodes are available: ", 1)[1]
    return re.findall(r"(\d+) ([^,.]+)", counts)


def _payload(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="kr-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_report_is_one_self_contained_file(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in page  # the page may load nothing from anywhere
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", page)
    assert not re.search(r"url\(\s*['\"]?(?!data:|#)", page)
    assert not re.search(r"\b(?:fetch|XMLHttpRequest|import\()", page)
    data = _payload(page)
    assert [f["path"] for f in data["files"]] == [str(report.with_suffix(".kr"))]
    # the source, highlighted line by line
    assert '<span id="L-13">' in data["files"][0]["source"]


def test_report_is_deterministic(scenario: Path, tmp_path: Path) -> None:
    outs = []
    for n in (1, 2):
        out = tmp_path / f"r{n}.html"
        main(["run", str(scenario), "--format", "html", "-o", str(out)])
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_refused_file_shows_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.kr"
    bad.write_text("node n1 cpu=4\npod web priorityclass=hgh\n", encoding="utf-8")
    out = tmp_path / "bad.html"
    assert main(["run", str(bad), str(QUICKSTART), "--format", "html", "-o", str(out)]) == 2
    files = _payload(out.read_text(encoding="utf-8"))["files"]
    assert [f["status"] for f in files] == ["refused", "passed"]
    err = files[0]["error"]
    assert (err["line"], err["column"]) == (2, 23)
    assert "pod web priorityclass=hgh" in err["text"] and "unknown priority class" in err["text"]


def test_attempt_model_follows_the_trace(scenario: Path) -> None:
    res = kruleset.run(kruleset.load(scenario), trace=True)
    data = file_data(str(scenario), "failed", res)
    nodes, pods, strings = data["nodes"], data["pods"], data["S"]
    web = pods.index("default/web")
    first = next(a for a in data["attempts"] if a["p"] == web and a["cand"])
    nominated = next(d for d in res.decisions if d.kind == "nominated" and d.pod == "default/web")
    victims = [d.pod for d in res.decisions if d.kind == "preempted" and d.by == "default/web"]
    chosen = [c for c in first["cand"] if c[4] == 1]
    assert [nodes[c[0]] for c in chosen] == [nominated.node]
    assert [pods[v] for v in chosen[0][1]] == victims
    # every node failed one filter, and the reasons count as the pending message says
    pending = next(d for d in res.decisions if d.kind == "pending" and d.pod == "default/web")
    reasons = [strings[r[2]] for r in first["rows"]]
    for count, reason in _reasons(pending.message):
        assert reasons.count(reason) == int(count)


@pytest.fixture(scope="module")
def dom(report: Path, result: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if CHROMIUM is None:
        pytest.skip("headless Chromium not found")
    # open the decision that left web pending and nominated it: its attempt has the table
    index = next(i for i, d in enumerate(result.decisions)
                 if d.kind == "pending" and d.pod == "default/web")
    done = chromium(tmp_path_factory.mktemp("chromium"), "--dump-dom",
                     f"{report.as_uri()}#decision={index}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert not console(done.stderr), console(done.stderr)
    parser = Dom()
    parser.feed(done.stdout)
    return parser.root


@needs_browser
def test_browser_renders_the_summary(dom: dict[str, Any], result: Any) -> None:
    body = one_of(dom, tag="body")
    assert body["attrs"].get("data-ready") == "yes"
    assert "hidden" in one_of(dom, id="js-errors")["attrs"]
    passed = sum(r.passed for r in result.expectations)
    assert text_of(one_of(dom, data_count="passed")).split()[0] == str(passed)
    assert text_of(one_of(dom, data_count="failed")).split()[0] == str(len(result.failed)) == "1"
    assert text_of(one_of(dom, data_count="decisions")).split()[0] == str(len(result.decisions))
    assert text_of(one_of(dom, data_count="nodes")).split()[0] == str(len(result.state.nodes))
    assert text_of(one_of(dom, id="status")) == "failed"


@needs_browser
def test_browser_shows_the_failing_expectation(dom: dict[str, Any], result: Any) -> None:
    (failed,) = result.failed
    li = one_of(dom, tag="li", cls="failed")
    assert li["attrs"]["data-line"] == str(failed.line)
    assert FAILING.strip() in text_of(li) and failed.message in text_of(li)


@needs_browser
def test_browser_shows_the_attempt_table(dom: dict[str, Any], result: Any) -> None:
    table = one_of(dom, id="attempt-table")
    assert table["attrs"]["data-pod"] == "default/web"
    rows = [r for r in all_of(table, tag="tr") if "data-node" in r["attrs"]]
    assert sorted(r["attrs"]["data-node"] for r in rows) == sorted(result.state.nodes)
    pending = next(d for d in result.decisions if d.kind == "pending" and d.pod == "default/web")
    for count, reason in _reasons(pending.message):
        failing = [r for r in rows if reason in "".join(text_of(c) for c in all_of(r, cls="fail"))]
        assert len(failing) == int(count)
    header = [text_of(th) for th in all_of(table, tag="th")]
    assert "NodeResourcesFit" in header and "total" in header
    nominated = next(d for d in result.decisions
                     if d.kind == "nominated" and d.pod == "default/web")
    victims = [d.pod for d in result.decisions if d.kind == "preempted" and d.by == "default/web"]
    chosen = one_of(one_of(dom, id="candidates"), tag="tr", cls="chosen")
    cells = [text_of(td) for td in all_of(chosen, tag="td")]
    assert cells[0] == nominated.node and cells[1] == ", ".join(victims) and cells[3] == "chosen"
    chain = text_of(one_of(dom, id="chain"))
    assert "scheduler.postfilter.DefaultPreemption" in chain


@needs_browser
def test_browser_draws_the_timeline(dom: dict[str, Any], result: Any) -> None:
    svg = one_of(dom, id="timeline-svg")
    rows = [g["attrs"]["data-node"] for g in all_of(svg, tag="g") if "data-node" in g["attrs"]]
    assert rows == list(result.state.nodes)
    bars = all_of(svg, cls="bar")
    assert {int(b["attrs"]["data-pod"]) for b in bars}  # pods ran somewhere
    marks = [m["attrs"]["data-decision"] for m in all_of(svg, cls="mark")]
    kinds = {result.decisions[int(i)].kind for i in marks}
    assert {"preempted", "nominated"} <= kinds


@needs_browser
def test_browser_screenshot_is_not_blank(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,900",
                     f"{report.as_uri()}#pod=default/web")
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    assert not console(done.stderr), console(done.stderr)
    width, height, bpp, rows = read_png(shot)
    assert (width, height) == (1200, 900)
    luminance = [sum(row[i:i + 3]) // 3
                 for row in rows[::6] for i in range(0, width * bpp, bpp * 6)]
    assert statistics.pvariance(luminance) > 100
    assert len(set(luminance)) > 32


def _large_scenario(path: Path, nodes: int = 5000, per_node: int = 4) -> None:
    """5,000 nodes running 20,000 pods, then 300 pods scheduled and 20 preempting."""
    lines = ['scenario "5,000 nodes, 20,000 pods"', "priorityclass high value=1000",
             f"nodes n-[1..{nodes}] cpu=8 memory=32Gi"]
    lines += [f"pods n{i}-p[1..{per_node}] on n-{i} cpu=1500m memory=1Gi started=-{i}s"
              for i in range(1, nodes + 1)]
    lines += ["at 10s create pods web-[1..300] cpu=1 memory=1Gi",
              "at 20s create pods big-[1..20] priorityclass=high cpu=6 memory=1Gi",
              "expect pods default/web-* running count=300",
              "expect pods default/big-* running count=20", "run until 1m"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_report_at_5000_nodes_and_20000_pods(tmp_path: Path) -> None:
    scenario = tmp_path / "large.kr"
    _large_scenario(scenario)
    out = tmp_path / "large.html"
    assert main(["run", str(scenario), "--format", "html", "-o", str(out)]) == 0
    size = out.stat().st_size
    assert size < 8_000_000, f"{size} bytes"
    data = _payload(out.read_text(encoding="utf-8"))["files"][0]
    assert len(data["nodes"]) == 5000 and len(data["pods"]) == 20_320
    assert sum(len(a["rows"]) for a in data["attempts"]) <= data["budgets"]["rows"] + 5 * len(
        data["attempts"])
    if CHROMIUM is None:
        pytest.skip("headless Chromium not found: the page was not opened")
    done = chromium(tmp_path, "--dump-dom", f"{out.as_uri()}#pod=default/big-1")
    assert done.returncode == 0 and not console(done.stderr), done.stderr[-2000:]
    dom = Dom()
    dom.feed(done.stdout)
    assert one_of(dom.root, tag="body")["attrs"].get("data-ready") == "yes"
    svg = one_of(dom.root, id="timeline-svg")
    drawn = [g for g in all_of(svg, tag="g") if "data-node" in g["attrs"]]
    assert 0 < len(drawn) <= 40  # rows are drawn as they scroll into view
    assert len(all_of(one_of(dom.root, id="decisions"), tag="tr")) <= 201  # a page at a time
    assert one_of(dom.root, id="attempt-table")["attrs"]["data-pod"] == "default/big-1"


def test_trace_walk_streams_and_skips_groups() -> None:
    from kruleset.rules.engine import Trace

    trace = Trace()
    trace.add("a", "p", "pass")
    trace.now = 5
    calls: list[int] = []

    def group() -> list[tuple[str, str, str, str]]:
        calls.append(1)
        return [("g", "p on n1", "pass", ""), ("g", "p on n2", "fail", "why")]

    trace.defer(2, group)
    trace.add("b", "p", "done")
    assert list(trace.walk(lambda count: False)) == [("a", "p", "pass", "", 0),
                                                   ("b", "p", "done", "", 5)]
    assert calls == []  # a skipped group is never built
    everything = list(trace.walk(lambda count: count == 2))
    assert everything == [(e.rule, e.subject, e.result, e.why, e.time) for e in trace.entries]
    assert len(everything) == len(trace) == 4
    # once the entries are built, walking reads them (a group is not built twice)
    assert list(trace.walk(lambda count: False)) == everything and len(calls) == 2
