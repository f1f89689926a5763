"""`kruleset sweep`: one variant replayed in full (--variant, --explain), -o and the
summary line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kruleset.cli import main
from kruleset.sweep import plan, sweep
from kruleset.sweep.executors import Job, summary
from kruleset.sweep.replay import find_variant, replay_variant

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "sweep-n1.kr")


def test_a_replayed_variant_is_the_row_of_the_table() -> None:
    table = sweep(EXAMPLE, fail_each="node", jobs=1)
    planned = plan(EXAMPLE, fail_each="node")
    job = Job(planned.scenario, planned.choices, 0)
    for variant, outcome in zip(table.variants, table.outcomes, strict=True):
        replayed = replay_variant(job, find_variant(planned.variants, variant.name))
        assert replayed.result.trace is not None
        # the same decisions as the sweep's own run: the same digest and counts
        again = summary(variant, _Sim(replayed.result), replayed.result, replayed.removed)
        assert {k: again[k] for k in ("status", "failing", "pending", "removed", "digest")} \
            == {k: outcome[k] for k in ("status", "failing", "pending", "removed", "digest")}


class _Sim:
    """What :func:`summary` reads of a simulation, from a finished result."""

    def __init__(self, result: object) -> None:
        self.decisions = result.decisions  # type: ignore[attr-defined]
        self.state = result.state  # type: ignore[attr-defined]


def test_variant_prints_the_full_report_and_explains(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code = main(["sweep", EXAMPLE, "--fail-each", "node", "--variant", "node=c-1",
                 "--explain", "batch-9", "--no-color"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith(f"sweep {EXAMPLE}: variant node=c-1 (node c-1 deleted: ")
    assert f"\nas a plain run (any --format): kruleset run {EXAMPLE} --fail node=c-1\n" in out
    assert "node-deleted c-1" in out and "pending    default/batch-9" in out
    assert "✗ line 20: expect pods default/batch-* running count=8" in out
    assert "explain batch-9" in out and re.search(r"  batch-9: pending", out)
    assert "FAILED: 1 of 3 expectations" in out


@pytest.mark.parametrize(("ident", "name"), [("#0", None), ("base", "base")])
def test_variant_by_index_or_base(ident: str, name: str | None,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    planned = plan(EXAMPLE, fail_each="node")
    want = name or planned.variants[0].name
    assert main(["sweep", EXAMPLE, "--fail-each", "node", "--variant", ident]) in (0, 1)
    assert f"variant {want}" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "needle"), [
    (["--variant", "node=c-2"], "no such variant in this sweep; did you mean 'node=c-1'?"),
    (["--variant", "#99"], "the sweep has variants #0 to #4"),
    (["--explain", "web-1"], "--explain needs --variant ID"),
    (["--variant", "node=a-1", "--reports", "r"], "--reports writes the reports of a whole"),
    (["-o", "html"], "did you mean --format html?"),
])
def test_bad_replays_are_refused(args: list[str], needle: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", EXAMPLE, "--fail-each", "node", *args]) == 2
    assert needle in capsys.readouterr().err


def test_output_file_and_summary_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    out = tmp_path / "sweep.json"
    code = main(["sweep", EXAMPLE, "--fail-each", "node", "--format", "json", "-o", str(out)])
    std = capsys.readouterr()
    assert code == 1 and std.out == ""
    data = json.loads(out.read_text())
    assert len(data["variants"]) == 5
    assert re.fullmatch(r"5 variants: 4 passed, 1 failed — [0-9.]+ s\n", std.err), std.err
    assert main(["sweep", EXAMPLE, "--fail-each", "node", "-o", str(tmp_path)]) == 2
    assert "--output: cannot write" in capsys.readouterr().err


def test_text_table_ends_with_the_commands_of_the_failing_rows(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", EXAMPLE, "--fail-each", "node", "--at", "1s", "--no-color"]) == 1
    text = capsys.readouterr().out
    data = sweep(EXAMPLE, fail_each="node", at=1000, jobs=1).to_json()
    failing = [v for v in data["variants"] if v["status"] != "passed"]
    tail = text.split("replay a row with its full report", 1)[1]
    for v in failing:
        assert f"\n  {v['name']}\n    {v['replay']['run']}\n    {v['replay']['sweep']}\n" \
            in tail
    assert v["replay"]["run"] == f"kruleset run {EXAMPLE} --fail {v['name']} --at 1s"
    rest = len(data["variants"]) - len(failing)
    assert f"({rest} more rows: the same commands with that row's values" in tail


def test_reports_folder_holds_the_base_and_the_failing_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kruleset.sweep.output import report_name

    page, folder = tmp_path / "page.html", tmp_path / "reports"
    code = main(["sweep", EXAMPLE, "--fail-each", "node", "--format", "html", "-o", str(page),
                 "--reports", str(folder)])
    assert code == 1
    assert "2 reports written to" in capsys.readouterr().err
    planned = plan(EXAMPLE, fail_each="node")
    c1 = find_variant(planned.variants, "node=c-1")
    assert sorted(p.name for p in folder.iterdir()) == sorted(["base.html", report_name(c1)])
    assert "[variant node=c-1]" in (folder / report_name(c1)).read_text()
    assert f'href="reports/{report_name(c1)}"' in page.read_text()
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main(["sweep", EXAMPLE, "--fail-each", "node", "--reports", str(blocked)]) == 2
    assert "--reports: cannot write" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["json", "html"])
def test_variant_in_json_or_html_is_the_runs_report(fmt: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    via_sweep, via_run = tmp_path / f"sweep.{fmt}", tmp_path / f"run.{fmt}"
    assert main(["sweep", EXAMPLE, "--fail-each", "node", "--variant", "node=c-1",
                 "--format", fmt, "-o", str(via_sweep)]) == 1
    assert main(["run", EXAMPLE, "--fail", "node=c-1", "--format", fmt,
                 "-o", str(via_run)]) == 1
    capsys.readouterr()

    def same(text: str) -> str:  # the run's seconds aside
        return re.sub(r'"?(seconds|duration)"?[:=] ?"?[0-9.]+', "", text)

    if fmt == "html":  # the JSON report has no title
        assert "[variant node=c-1]" in via_sweep.read_text()
    assert same(via_sweep.read_text()) == same(via_run.read_text())


def test_two_axes_print_a_matrix_of_the_rows_outcomes(tmp_path: Path) -> None:
    from kruleset.report.text import Style
    from kruleset.sweep.table import result_text

    s = sweep(EXAMPLE, sets=["deployment:web:replicas=4,6"], fail_each="zone", jobs=1)
    text = s.text()
    head, *lines = text.split("deployment:web:replicas (rows) × zone (columns):\n", 1)[1] \
        .split("\n\n", 1)[0].splitlines()
    assert head.split() == ["zone-a", "zone-b", "zone-c"]
    plain = Style(color=False)
    for line, replicas in zip(lines, ["4", "6"], strict=True):
        want = [result_text(o, plain) for v, o in sorted(s.rows(), key=lambda r: r[0].index)
                if v.sets[0][1] == replicas]
        assert line.split(None, 1) == [replicas, "  ".join(want)]
    one_axis = sweep(EXAMPLE, fail_each="zone", jobs=1).text()
    assert "(rows)" not in one_axis
    wide = tmp_path / "wide.kr"
    wide.write_text(Path(EXAMPLE).read_text().replace("b-[1..2]", "b-" + "x" * 60 + "-[1..2]"))
    assert "(rows)" not in sweep(wide, sets=["deployment:web:replicas=4,6"],
                                 fail_each="node", jobs=1).text(), "too wide for 120 columns"
