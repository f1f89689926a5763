"""Every output format, produced by real runs on the shipped examples and on a
failing and a refused file, and validated: JSON against its JSON Schema,
JUnit against the JUnit XSD, TAP by a TAP 14 parser, GitHub annotations by
their documented syntax."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from cli_files import EXAMPLES, FAILING, REFUSED, ROOT, kruleset, write
from lxml import etree
from tap14 import parse

from kruleset.cli import main

SCHEMA = json.loads((ROOT / "schemas" / "report-v1.schema.json").read_text())
XSD = etree.XMLSchema(etree.parse(str(ROOT / "schemas" / "junit.xsd")))


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    """The shipped examples, then a failing and a refused file."""
    return [*EXAMPLES, write(tmp_path, "failing.kr", FAILING),
            write(tmp_path, "refused.kr", REFUSED)]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_examples_ship_and_pass() -> None:
    assert len(EXAMPLES) >= 2
    done = kruleset("run", "-j", "1", *EXAMPLES)
    assert done.returncode == 0, done.stderr


def test_json_report_is_valid_against_its_schema(capsys: pytest.CaptureFixture[str],
                                                 files: list[str]) -> None:
    code, out, _ = _run(capsys, "run", "-j", "1", "--format", "json", *files)
    assert code == 2
    data = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    statuses = [f["status"] for f in data["files"]]
    assert statuses == ["passed"] * len(EXAMPLES) + ["failed", "refused"]
    assert data["summary"] == {
        "files": len(files), "passed": len(EXAMPLES), "failed": 1, "refused": 1, "error": 0,
        "not_run": 0, "interrupted": False,
        "expectations": {"passed": sum(len(f["expectations"]) for f in data["files"]) - 1,
                         "failed": 1, "unsupported": 0}}
    refused = data["files"][-1]
    assert [e["line"] for e in refused["errors"]] == [2, 3]
    assert refused["error"] == refused["errors"][0]
    # streamed file by file, yet exactly what json.dumps writes for the whole object
    assert out == json.dumps(data, indent=2) + "\n"


def test_the_schema_rejects_what_it_should(capsys: pytest.CaptureFixture[str],
                                           files: list[str]) -> None:
    _run(capsys, "run", "-j", "1", "--format", "json", *files)
    # (the report itself is validated above; here the schema must not accept anything)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert not validator.is_valid({"version": 2, "files": [], "summary": {}})
    good = {"version": 1, "files": [{
        "path": "a.kr", "status": "refused", "error": None, "errors": [],
        "expectations": [], "decisions": []}], "summary": {
        "files": 1, "passed": 0, "failed": 0, "refused": 1, "error": 0, "not_run": 0,
        "interrupted": False, "expectations": {"passed": 0, "failed": 0, "unsupported": 0}}}
    assert not validator.is_valid(good)  # a refused file must carry its error


def test_junit_is_valid_and_says_what_failed(capsys: pytest.CaptureFixture[str],
                                             files: list[str]) -> None:
    code, out, _ = _run(capsys, "run", "-j", "1", "--format", "junit", *files)
    assert code == 2
    doc = etree.fromstring(out.encode())
    XSD.assertValid(doc)
    suites = doc.findall("testsuite")
    assert [s.get("name") for s in suites] == files
    quick = suites[EXAMPLES.index("examples/quickstart.kr")]
    assert [c.get("name") for c in quick.findall("testcase")][:2] == [
        "expect pods default/batch-* running count=2", "expect pod default/web running"]
    assert {c.get("classname") for c in quick.findall("testcase")} == {"examples/quickstart.kr"}
    failing, refused = suites[-2], suites[-1]
    assert (failing.get("tests"), failing.get("failures")) == ("2", "1")
    failure = failing.find("testcase/failure")
    assert failure is not None and "default/a is pending" in failure.get("message", "")
    assert f"{files[-2]}:4: expect pod a running" in (failure.text or "")
    assert "pending    " not in (failure.text or "") and "FailedScheduling" in failure.text
    errors = refused.findall("testcase/error")
    assert [e.get("message", "").split(": ")[0] for e in errors] == [
        f"{files[-1]}:2:21", f"{files[-1]}:3:16"]
    assert doc.get("tests") == str(sum(int(s.get("tests")) for s in suites))


def test_junit_stays_valid_with_control_characters(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    kr = write(tmp_path, "ctl.kr", 'scenario "bell\x07 and escape\x1b"\nnode n1 cpu=1 memory=1Gi\n'
               'pod a requests(cpu=2)\nexpect pod a running\n')
    code, out, _ = _run(capsys, "run", "--format", "junit", kr)
    assert code == 1
    doc = etree.fromstring(out.encode())
    XSD.assertValid(doc)
    assert doc.find("testsuite/properties/property").get("value") == "bell and escape"


def test_tap_is_tap14_with_one_point_per_expectation(capsys: pytest.CaptureFixture[str],
                                                     files: list[str]) -> None:
    code, out, _ = _run(capsys, "run", "-j", "1", "--format", "tap", *files)
    assert code == 2
    tap = parse(out)
    json_code, json_out, _ = _run(capsys, "run", "-j", "1", "--format", "json", *files)
    expectations = sum(len(f["expectations"]) for f in json.loads(json_out)["files"])
    assert len(tap.points) == expectations + 2  # + one point per refusal error
    bad = [p for p in tap.points if not p.ok]
    assert [p.description for p in bad] == [f"{files[-2]}:4: expect pod a running",
                                            files[-1], files[-1]]
    assert bad[0].diagnostic is not None
    assert bad[0].diagnostic["at"] == {"file": files[-2], "line": 4, "column": 1}
    assert "Insufficient cpu" in bad[0].diagnostic["message"]
    assert bad[1].diagnostic["at"]["line"] == 2 and bad[1].diagnostic["severity"] == "refused"


def test_tap_parser_rejects_broken_streams() -> None:
    from tap14 import TapError

    for broken in ("ok 1 - a\n1..1\n", "TAP version 14\nok 1 - a\n1..2\n",
                   "TAP version 14\nok 2 - a\n1..1\n", "TAP version 14\nok 1\nnoise\n1..1\n",
                   "TAP version 14\nnot ok 1\n  ---\n  message: x\n1..1\n"):
        with pytest.raises(TapError):
            parse(broken)
    assert parse("TAP version 14\nok 1 - a \\# b # SKIP c\n1..1\n").points[0].description == \
        "a # b"


def test_github_annotations_point_at_the_failing_line(capsys: pytest.CaptureFixture[str],
                                                      files: list[str]) -> None:
    code, out, _ = _run(capsys, "run", "-j", "1", "--format", "github", *files)
    assert code == 2
    lines = out.splitlines()
    syntax = re.compile(r"^::(error|warning) file=[^,:]+(,line=\d+(,col=\d+)?)?"
                        r"(,title=[^,:]+)?::.+$")
    assert lines and all(syntax.match(line) for line in lines), lines
    failing, refused = files[-2], files[-1]
    assert lines[0].startswith(f"::error file={failing},line=4,col=1,title=kruleset%3A "
                               "expectation failed::expect pod a running: default/a is pending")
    assert lines[1].startswith(f"::error file={refused},line=2,col=21,")
    assert lines[2].startswith(f"::error file={refused},line=3,col=16,")
    assert len(lines) == 3  # passing examples print nothing


def test_check_formats(capsys: pytest.CaptureFixture[str], files: list[str]) -> None:
    code, out, _ = _run(capsys, "check", "-j", "1", "--format", "junit", *files)
    assert code == 2
    XSD.assertValid(etree.fromstring(out.encode()))
    code, out, _ = _run(capsys, "check", "-j", "1", "--format", "tap", *files)
    tap = parse(out)
    assert [p.ok for p in tap.points] == [True] * (len(files) - 1) + [False, False]
    code, out, _ = _run(capsys, "check", "-j", "1", "--format", "json", *files)
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(out))


def test_output_file_holds_the_report_and_stdout_stays_empty(tmp_path: Path,
                                                             files: list[str]) -> None:
    report = tmp_path / "report.xml"
    done = kruleset("run", "-j", "1", "--format", "junit", "--output", str(report), *files)
    assert done.returncode == 2
    assert done.stdout == ""
    XSD.assertValid(etree.parse(str(report)))
    assert "refused.kr:2:21: unknown priority class 'hgh'" in done.stderr


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "tap", "github"])
def test_same_bytes_whatever_jobs(fmt: str, files: list[str]) -> None:
    one = kruleset("run", "-j", "1", "--format", fmt, *files)
    two = kruleset("run", "-j", "2", "--format", fmt, *files)
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout


def test_a_format_is_added_by_registering_it(capsys: pytest.CaptureFixture[str],
                                             files: list[str]) -> None:
    from kruleset.report import formats
    from kruleset.report.formats import Format, register

    @register("count-test")
    class Count(Format):
        def file(self, report: object) -> None:
            self.out.write(f"{report.path} {report.status}\n")  # type: ignore[attr-defined]

    try:
        code, out, _ = _run(capsys, "run", "-j", "1", "--format", "count-test", *files)
        assert code == 2
        assert out.splitlines() == [f"{f} {s}" for f, s in zip(
            files, ["passed"] * len(EXAMPLES) + ["failed", "refused"], strict=True)]
    finally:
        del formats._REGISTRY["count-test"]
