"""The HTML report: self-contained, deterministic, and rendered by a real browser.

The browser tests drive headless Chromium (Debian's ``chromium``; ``.ci/run``
installs it) with Playwright on the report of the quickstart with one
expectation added that fails, and read what the page's script drew: the chips
counting pods, the problems listed first, the node × plugin table of the
preemptor's attempt with the amounts in its why-not cells, its preemption
candidates, the pod's attempts, and every error of a refused file.  Expected
values come from the run itself (decisions, expectation results), never from
the report's own data.  A screenshot must not be blank, and the page must log
nothing to the console.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from browser import Watched, needs_browser, open_page
from png_pixels import read_png

import kruleset
from kruleset.cli import main
from kruleset.model.quantity import format_duration
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
    first = next(a for a in data["attempts"] if a["p"] == web and a.get("cand"))
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


def _open(browser: Any, report: Path, fragment: str, width: int = 1280) -> Watched:
    watched = open_page(browser, f"{report.as_uri()}#{fragment}", width)
    assert watched.page.get_attribute("body", "data-ready") == "yes"
    assert watched.page.is_hidden("#js-errors")
    return watched


@pytest.fixture
def web(browser: Any, report: Path, result: Any) -> Any:
    """The report opened at the decision that left web pending and nominated it."""
    index = next(i for i, d in enumerate(result.decisions)
                 if d.kind == "pending" and d.pod == "default/web")
    watched = _open(browser, report, f"decision={index}")
    yield watched.page
    assert not watched.console, watched.console
    watched.page.close()


def _count(page: Any, key: str) -> int:
    return int(page.inner_text(f'[data-count="{key}"] b'))


@needs_browser
def test_browser_renders_the_summary(web: Any, result: Any) -> None:
    passed = sum(r.passed for r in result.expectations)
    assert _count(web, "passed") == passed
    assert _count(web, "failed") == len(result.failed) == 1
    assert _count(web, "nodes") == len(result.state.nodes)
    # chips count pods, not decisions
    pods = {d.pod for d in result.decisions if "/" in d.pod}
    assert _count(web, "pods") == len(pods)
    alive = [ps for ps in result.state.pods.values() if not ps.gone]
    assert _count(web, "running-end") == sum(1 for ps in alive if ps.node is not None)
    assert _count(web, "pending-end") == sum(
        1 for ps in alive if ps.node is None and ps.phase not in ("Succeeded", "Failed"))
    preempted = {d.pod for d in result.decisions if d.kind == "preempted"}
    assert _count(web, "pods-preempted") == len(preempted)
    assert web.inner_text("#status") == "failed"


@needs_browser
def test_browser_shows_problems_first(web: Any, result: Any) -> None:
    (failed,) = result.failed
    li = web.locator("#expectations li.failed")
    assert li.get_attribute("data-line") == str(failed.line)
    assert FAILING.strip() in li.inner_text() and failed.message in li.inner_text()
    problems = web.locator("#problem-list li")
    kinds = [problems.nth(i).get_attribute("data-problem") for i in range(problems.count())]
    assert kinds[0] == "expectation"  # the failed expectation comes first
    assert "pending" in kinds and "preempted" in kinds
    # opened at a decision that is no problem (web pending at 30s, running at the
    # end), the list shows every decision; opened plainly, it opens on the problems
    assert web.input_value("#kind-filter") == ""


@needs_browser
def test_decision_list_opens_on_the_problems(browser: Any, report: Path) -> None:
    watched = _open(browser, report, "")
    page = watched.page
    assert page.input_value("#kind-filter") == "@problems"
    shown = page.locator("#decisions tbody tr td:nth-child(2)").all_inner_texts()
    assert shown and "scheduled" not in shown and "running" not in shown
    assert not watched.console, watched.console
    page.close()


@needs_browser
def test_browser_shows_the_attempt_table(web: Any, result: Any) -> None:
    table = web.locator("#attempt-table")
    assert table.get_attribute("data-pod") == "default/web"
    rows = table.locator("tbody tr")
    names = [rows.nth(i).get_attribute("data-node") for i in range(rows.count())]
    assert sorted(names) == sorted(result.state.nodes)
    pending = next(d for d in result.decisions if d.kind == "pending" and d.pod == "default/web")
    cells = table.locator("td.fail").all_inner_texts()
    for count, reason in _reasons(pending.message):
        assert sum(reason in c for c in cells) == int(count)
    # every why-not cell has the amounts: what the pod needs, what the node had free
    need = result.state.pods["default/web"].pod.requests.cpu
    for cell in cells:
        m = re.search(r"needs ([\d.]+) cpu, ([\d.]+) free of ([\d.]+)", cell)
        assert m is not None, cell
        assert float(m.group(1)) * 1000 == need and float(m.group(2)) < float(m.group(1))
    header = table.locator("th").all_inner_texts()
    assert "NodeResourcesFit" in header and "total" in header
    nominated = next(d for d in result.decisions
                     if d.kind == "nominated" and d.pod == "default/web")
    victims = [d.pod for d in result.decisions if d.kind == "preempted" and d.by == "default/web"]
    chosen = web.locator("#candidates tr.chosen td").all_inner_texts()
    assert chosen[0] == nominated.node and chosen[1] == ", ".join(victims)
    assert chosen[3] == "chosen"
    assert "scheduler.postfilter.DefaultPreemption" in web.inner_text("#chain")


@needs_browser
def test_browser_draws_the_timeline(web: Any, result: Any) -> None:
    rows = web.locator("#timeline-svg g[data-node]")
    assert [rows.nth(i).get_attribute("data-node") for i in range(rows.count())] == list(
        result.state.nodes)
    assert web.locator("#timeline-svg .bar").count() > 0
    marks = web.locator("#timeline-svg .mark")
    kinds = {result.decisions[int(marks.nth(i).get_attribute("data-decision"))].kind
             for i in range(marks.count())}
    assert {"preempted", "nominated"} <= kinds


@needs_browser
def test_pod_address_opens_the_attempt_that_decided(browser: Any, report: Path,
                                                    result: Any) -> None:
    """web was nominated after preempting at 30s and bound later: its preemption decided."""
    watched = _open(browser, report, "pod=default/web")
    page = watched.page
    nominated = next(d for d in result.decisions
                     if d.kind == "nominated" and d.pod == "default/web")
    assert page.inner_text("#explain-head").startswith(
        f"{format_duration(nominated.time)} nominated default/web")
    assert page.locator("#candidates tr.chosen").count() == 1
    # every attempt of the pod, with its simulated time and why it was tried then
    attempts = [a for a in result.attempts if a.pod == "default/web"]
    rows = page.locator("#pod-attempts tbody tr")
    assert rows.count() == len(attempts) >= 2
    for i, a in enumerate(attempts):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[0] == format_duration(a.time) and cells[1] == str(a.attempt)
        assert cells[2].startswith(a.result) and cells[3] == a.why
    assert not watched.console, watched.console
    watched.page.close()


@needs_browser
def test_browser_screenshot_is_not_blank(browser: Any, report: Path, tmp_path: Path) -> None:
    watched = _open(browser, report, "pod=default/web", 1200)
    shot = tmp_path / "report.png"
    watched.page.screenshot(path=str(shot))
    width, height, bpp, rows = read_png(shot)
    assert (width, height) == (1200, 900)
    luminance = [sum(row[i:i + 3]) // 3
                 for row in rows[::6] for i in range(0, width * bpp, bpp * 6)]
    assert statistics.pvariance(luminance) > 100
    assert len(set(luminance)) > 32
    assert not watched.console, watched.console
    watched.page.close()


@needs_browser
def test_refused_file_shows_every_error(browser: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.kr"
    bad.write_text("node n1 cpu=4\npod web priorityclass=hgh\npod db cpu=lots\n",
                   encoding="utf-8")
    out = tmp_path / "bad.html"
    assert main(["run", str(bad), "--format", "html", "-o", str(out)]) == 2
    errors = _payload(out.read_text(encoding="utf-8"))["files"][0]["errors"]
    assert [e["line"] for e in errors] == [2, 3]
    watched = _open(browser, out, "file=0")
    shown = watched.page.locator("#refusal .error")
    assert [shown.nth(i).get_attribute("data-line") for i in range(shown.count())] == ["2", "3"]
    assert "unknown priority class" in shown.nth(0).inner_text()
    assert not watched.console, watched.console
    watched.page.close()


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
    rows = sum(len(a.get("rows", ())) for a in data["attempts"])
    assert rows <= data["budgets"]["rows"] + 5 * len(data["attempts"])


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
