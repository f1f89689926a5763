"""`kruleset run FILE --set … --fail … --at … --seed …`: a sweep's row as a plain run.

Every row's ``run`` command (from the sweep's JSON) is run and must make the
decisions the sweep's own replay of that row makes, one by one, and end as
the row says; the options are refused with the sweep's words, since one
validation serves both commands.
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from pathlib import Path

import pytest
from test_sweep import SMALL

from kruleset.cli import main
from kruleset.sweep import plan, sweep
from kruleset.sweep.executors import Job
from kruleset.sweep.replay import find_variant, replay_variant


def _main(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("run-variant") / "small.kr"
    p.write_text(SMALL)
    return p


AXES = dict(sets=["priorityclass:high:value=1000,5"], seeds=2, fail_each="node", at=1000)


def test_every_rows_run_command_makes_the_rows_decisions(small: Path) -> None:
    swept = sweep(small, jobs=1, **AXES)  # type: ignore[arg-type]
    planned = plan(small, **AXES)  # type: ignore[arg-type]
    job = Job(planned.scenario, planned.choices, AXES["at"])  # type: ignore[arg-type]
    rows = swept.to_json()["variants"]
    assert len(rows) == 2 * 2 * 4  # values × seeds × nodes
    assert len({r["digest"] for r in rows}) > 4, "the rows differ: the options reach the run"
    for row in rows:
        words = shlex.split(row["replay"]["run"])
        assert words[:3] == ["kruleset", "run", str(small)] and "--at" in words
        code, out, err = _main([*words[1:], "--format", "json"])
        assert code == (1 if row["status"] == "failed" else 0), err
        report = json.loads(out)["files"][0]
        replayed = replay_variant(job, find_variant(planned.variants, row["name"]))
        assert report["decisions"] == [d.to_json() for d in replayed.result.decisions]
        failing = [x["line"] for x in report["expectations"] if not x["passed"]]
        assert failing == [f["line"] for f in row["failing"]]


def test_run_reports_the_variant_in_every_format(small: Path) -> None:
    args = ["run", str(small), "--fail", "node=a-1", "--no-color"]
    code, text, _ = _main([*args, "--explain", "solo"])
    assert code == 1
    assert "[variant node=a-1]" in text
    assert "node-deleted a-1" in text and "explain solo" in text
    code, html, _ = _main([*args, "--format", "html"])
    assert code == 1 and html.startswith("<!DOCTYPE html>") and "[variant node=a-1]" in html


def test_without_variant_options_a_run_is_unchanged(small: Path) -> None:
    plain = _main(["run", str(small), "--format", "json"])
    again = _main(["run", str(small), "--format", "json", "--set",
                   "priorityclass:high:value=1000"])
    assert plain[0] == again[0]
    assert json.loads(plain[1])["files"][0]["decisions"] == \
        json.loads(again[1])["files"][0]["decisions"]


@pytest.mark.parametrize("bad", [
    "pdb:nope:min-available=1", "quota:x:cpu=1", "priorityclass:high:value=abc",
    "deployment:web:replicas=-1", "kubelet:zz:eviction-hard.memory.available=1Gi",
])
def test_a_bad_value_is_refused_with_the_sweeps_words(small: Path, bad: str) -> None:
    code, _, err = _main(["run", str(small), "--set", bad])
    swept = _main(["sweep", str(small), "--set", bad])
    assert code == swept[0] == 2
    assert swept[2].strip() and swept[2].strip() in err


@pytest.mark.parametrize(("args", "needle"), [
    (["--set", "priorityclass:high:value=1,2"], "kruleset run takes one value per path"),
    (["--set", "priorityclass:high:value=1", "--set", "priorityclass:high:value=2"],
     "the same path is given twice"),
    (["--at", "5s"], "--at needs --fail"),
    (["--fail", "rack=r1"], "--fail rack: expected node or zone"),
    (["--fail", "a-1"], "expected node=NAME or zone=NAME"),
    (["--fail", "node=a-9"], "the scenario has no node a-9 at 0s"),
    (["--fail", "node=c-1"], "did you mean"),
    (["--fail", "zone=z"], "the scenario has no zone z at 0s"),
    (["--fail", "node=a-1", "--at", "2h"], "is after the scenario ends"),
    (["--seed", "0"], "--seed 0: must be from 1 to"),
])
def test_bad_options_are_refused(small: Path, args: list[str], needle: str) -> None:
    code, _, err = _main(["run", str(small), *args])
    assert code == 2
    assert needle in err


def test_a_variant_runs_one_file(small: Path) -> None:
    code, _, err = _main(["run", str(small), str(small), "--fail", "node=a-1"])
    assert code == 2 and "run one file's variant; 2 files were given" in err


def test_a_profile_row_is_replayed_by_sweep_variant_only(small: Path, tmp_path: Path) -> None:
    prof = tmp_path / "no-fit.yaml"
    prof.write_text("rulesets:\n  scheduler.filter:\n"
                    "    disable: [scheduler.filter.NodeResourcesFit]\n")
    data = sweep(small, profiles=[str(prof)], seeds=2, jobs=1).to_json()
    for row in data["variants"]:
        assert row["replay"]["run"] is None
        words = shlex.split(row["replay"]["sweep"])
        assert words[words.index("--profile") + 1] == str(prof)
        code, out, _ = _main([*words[1:], "--no-color"])
        assert code == (1 if row["status"] == "failed" else 0)
        assert f"variant {row['name']}" in out
        refused = _main([*words[1:], "--format", "json"])
        assert refused[0] == 2 and "a --profile variant is reported as text only" in refused[2]
    assert data["base"]["replay"]["run"] == f"kruleset run {small}"
