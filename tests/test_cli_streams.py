"""What goes where: the report alone on stdout, people's messages on stderr, the
summary, --quiet, colour, --version, exit codes, rules PATTERN and check's
every-error report, run as a user would."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from cli_files import EXAMPLES, FAILING, REFUSED, ROOT, kruleset, write

import kruleset as kruleset_pkg
from kruleset.cli import ExitCode, main

SUMMARY = re.compile(r"^(\d+) files?: (\d+) passed, (\d+) failed, (\d+) refused"
                     r"(, \d+ errors?)?(, \d+ not run \(interrupted\))? — [\d.]+ s$")


def test_exit_codes_are_a_documented_enum() -> None:
    assert {c.name: int(c) for c in ExitCode} == {
        "OK": 0, "FAILED": 1, "REFUSED": 2, "ERROR": 3, "INTERRUPTED": 130}
    assert ExitCode.PASSED is ExitCode.OK


def test_report_on_stdout_errors_and_summary_on_stderr(tmp_path: Path) -> None:
    failing = write(tmp_path, "failing.kr", FAILING)
    refused = write(tmp_path, "refused.kr", REFUSED)
    done = kruleset("run", "-j", "1", *EXAMPLES, failing, refused)
    assert done.returncode == ExitCode.REFUSED
    assert "examples/quickstart.kr — quickstart" in done.stdout
    assert "✗ line 4: expect pod a running" in done.stdout
    assert "hgh" not in done.stdout  # a refusal is an error: stderr
    assert f"{refused}:2:21: unknown priority class 'hgh', did you mean 'high'?" in done.stderr
    assert f"{refused}:3:16: unknown resource 'cpuu'" in done.stderr
    assert f"{refused}: 2 errors" in done.stderr
    last = done.stderr.rstrip("\n").split("\n")[-1]
    assert SUMMARY.match(last), last
    assert last.startswith(f"{len(EXAMPLES) + 2} files: {len(EXAMPLES)} passed, 1 failed, "
                           "1 refused — ")
    for fmt in ("json", "junit", "tap", "github"):
        machine = kruleset("run", "-j", "1", "--format", fmt, *EXAMPLES, failing, refused)
        assert "hgh', did you mean" in machine.stderr  # people still see the errors
        assert SUMMARY.match(machine.stderr.rstrip("\n").split("\n")[-1])
        assert "files:" not in machine.stdout and "\x1b[" not in machine.stdout


def test_quiet_prints_only_failures_and_the_summary(tmp_path: Path) -> None:
    failing = write(tmp_path, "failing.kr", FAILING)
    done = kruleset("run", "-q", "-j", "1", *EXAMPLES, failing)
    assert done.returncode == ExitCode.FAILED
    assert done.stdout == (f"{failing} — too big\n  expectations:\n"
                           "    ✗ line 4: expect pod a running  — default/a is pending: 0/1 nodes "
                           "are available: 1 Insufficient cpu. no new claims to deallocate, "
                           "preemption: 0/1 nodes are "
                           "available: 1 Preemption is not helpful for scheduling.\n"
                           "FAILED: 1 of 2 expectations\n")
    assert SUMMARY.match(done.stderr.strip())
    ok = kruleset("run", "--quiet", *EXAMPLES)
    assert ok.stdout == "" and SUMMARY.match(ok.stderr.strip())


def test_text_report_is_unchanged_by_the_summary(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    ok = write(tmp_path, "ok.kr", "node n1 cpu=1 memory=1Gi\npod a\nexpect pod a running\n")
    assert main(["run", "-j", "1", ok, ok]) == 0
    out = capsys.readouterr().out
    block = (f"{ok}\n       0s  scheduled  default/a on n1\n  expectations:\n"
             "    ✓ line 3: expect pod a running\npassed: 1 expectations")
    assert out == f"{block}\n\n{block}\n"


@pytest.mark.parametrize(("args", "env", "colored"), [
    ((), {}, False),                                  # a pipe is no terminal
    (("--color", "always"), {}, True),
    (("--color", "never"), {"FORCE_COLOR": "1"}, False),
    ((), {"FORCE_COLOR": "1"}, True),                 # CI logs render colour
    ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    (("--color", "always"), {"NO_COLOR": "1"}, True),  # the command line wins
    (("--no-color",), {"FORCE_COLOR": "1"}, False),
])
def test_color(tmp_path: Path, args: tuple[str, ...], env: dict[str, str],
               colored: bool) -> None:
    failing = write(tmp_path, "failing.kr", FAILING)
    done = kruleset("run", *args, failing, **env)
    assert done.returncode == ExitCode.FAILED
    assert ("\x1b[31m✗\x1b[0m" in done.stdout) is colored
    assert ("\x1b[" in done.stderr) is colored


def test_version_matches_the_package() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert kruleset_pkg.__version__ == version
    done = kruleset("--version")
    assert done.returncode == 0 and done.stdout == f"kruleset {version}\n"


def test_output_to_an_unwritable_place_is_refused(tmp_path: Path) -> None:
    done = kruleset("run", "--format", "json", "--output", str(tmp_path / "no" / "r.json"),
                    *EXAMPLES)
    assert done.returncode == ExitCode.REFUSED
    assert "--output: cannot write" in done.stderr and "Traceback" not in done.stderr


def test_rules_pattern_filters_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["rules", "taint", "--format", "json"]) == 0
    names = [r["name"] for rs in json.loads(capsys.readouterr().out) for r in rs["rules"]]
    assert "scheduler.filter.TaintToleration" in names
    assert all("taint" in n.lower() for n in names)
    assert main(["rules", "scheduler.filter.*"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scheduler.filter (predicate)")
    assert "scheduler.score" not in out and "  scheduler.filter.NodeResourcesFit\n" in out
    assert main(["rules", "scheduler.filter.NodeResourcesFitt"]) == ExitCode.REFUSED
    err = capsys.readouterr().err
    assert "no rule matches" in err and "did you mean 'scheduler.filter.NodeResourcesFit'" in err


def test_check_prints_every_error_it_can_find(tmp_path: Path) -> None:
    kr = write(tmp_path, "many.kr", """\
priorityclass high value=1000
node n1 cpu=4 memory=8Gi
kubelet n1 {
  eviction-hard memory.available<100Mi
  eviction-hardd nodefs.available<10%
  eviction-soft memory.available<1Gi
}
pod a priorityclass=hgh
pod b requests(cpu=1,
   memry=1Gi)
pod ok requests(cpu=1)
at 10s create pod c on n2
expect pod zz running
expect pod ok running
""")
    done = kruleset("check", kr)
    assert done.returncode == ExitCode.REFUSED
    found = re.findall(rf"^{re.escape(kr)}:(\d+):(\d+): (.*)$", done.stderr, flags=re.M)
    assert [(int(line), msg.split(",")[0]) for line, _, msg in found] == [
        (5, "unknown kubelet flag 'eviction-hardd'"),
        (6, "grace period must be specified for the soft eviction threshold memory.available"),
        (8, "unknown priority class 'hgh'"),
        (10, "unknown resource 'memry'"),
        (12, "unknown node 'n2'"),
        (13, "unknown pod 'default/zz'"),
    ]
    assert f"{kr}: 6 errors" in done.stderr
    assert done.stdout == ""


def test_check_of_a_valid_file_finds_nothing(tmp_path: Path) -> None:
    done = kruleset("check", "-j", "1", *EXAMPLES)
    assert done.returncode == 0
    assert done.stdout == "\n\n".join(f"{e}: ok" for e in EXAMPLES) + "\n"
