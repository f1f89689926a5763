"""The reflexes users bring from kubectl and conftest: ``-o json``, warnings in the
JSON report, and a Dask address that answers nothing."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import jsonschema
import pytest
from cli_files import EXAMPLES, ROOT

from kruleset.cli import main
from kruleset.report import formats

SCHEMA = json.loads((ROOT / "schemas" / "report-v1.schema.json").read_text())


@pytest.mark.parametrize("name", formats.names())
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_bare_format_name_given_to_o_is_refused_with_the_command_meant(
        name: str, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    example = str(ROOT / EXAMPLES[0])
    assert main([command, example, "-o", name]) == 2
    err = capsys.readouterr().err
    assert f"did you mean --format {name}?" in err
    assert f"kruleset {command} {example} --format {name} -o report." in err
    assert not (tmp_path / name).exists()


def test_a_format_name_is_a_file_name_with_format_or_a_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    example = str(ROOT / EXAMPLES[0])
    assert main(["run", example, "--format", "json", "-o", "json"]) == 0
    assert json.loads((tmp_path / "json").read_text())["version"] == 1
    assert main(["run", example, "-o", "./text"]) == 0
    assert "passed" in (tmp_path / "text").read_text()
    capsys.readouterr()


def test_warnings_are_in_the_json_report(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "n.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    (tmp_path / "w.kr").write_text('include "n.yaml"\npod a\nexpect pod a running on n1\n')
    main(["run", "--format", "json", str(tmp_path / "w.kr")])
    out, err = capsys.readouterr()
    data = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    notices = data["files"][0]["notices"]
    assert notices == [{"level": "warning", "message": line} for line in err.splitlines()
                       if ": warning: " in line]
    assert "Node n1 has no status.capacity" in notices[0]["message"]


def test_a_report_without_warnings_has_no_notices_field(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    main(["run", "--format", "json", str(ROOT / EXAMPLES[0])])
    assert "notices" not in json.loads(capsys.readouterr().out)["files"][0]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("form", ["tcp://127.0.0.1:{port}", "127.0.0.1:{port}"])
def test_an_unreachable_dask_scheduler_fails_fast_with_its_address(
        form: str, capsys: pytest.CaptureFixture[str]) -> None:
    address = form.format(port=_closed_port())
    started = time.monotonic()
    code = main(["sweep", str(ROOT / EXAMPLES[0]), "--fail-each", "node", "--dask", address])
    assert time.monotonic() - started <= 10
    assert code == 2
    err = capsys.readouterr().err
    assert address in err and "no Dask scheduler" in err


def test_an_unresolvable_dask_host_fails_with_its_address(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sweep", str(ROOT / EXAMPLES[0]), "--dask", "tcp://no-such-host.invalid:8786"])
    assert code == 2
    assert "tcp://no-such-host.invalid:8786" in capsys.readouterr().err
