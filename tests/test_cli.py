"""The `kruleset` command run on real files, as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kruleset.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent

PASSING = """\
scenario "two pods"
nodes n[1..2] cpu=4 memory=8Gi
pod a requests(cpu=3)
pod b requests(cpu=3)
expect pod a running on n1
expect pod b running on n2
"""

FAILING = """\
node n1 cpu=1 memory=1Gi
pod a requests(cpu=2)
expect pod a running
"""

REFUSED = """\
priorityclass high value=1000
pod a priorityclass=hgh
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = _write(tmp_path, "ok.kr", PASSING)
    bad = _write(tmp_path, "bad.kr", FAILING)
    refused = _write(tmp_path, "refused.kr", REFUSED)
    assert main(["run", str(ok)]) == ExitCode.OK
    assert main(["run", str(bad)]) == ExitCode.FAILED
    assert main(["run", str(refused)]) == ExitCode.REFUSED
    # several files: the worst status wins
    assert main(["run", "-j", "1", str(ok), str(bad), str(refused)]) == ExitCode.REFUSED
    assert main(["check", str(ok)]) == ExitCode.OK
    assert main(["run", str(tmp_path / "missing.kr")]) == ExitCode.REFUSED


def test_refusal_points_at_the_line_with_a_suggestion(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    refused = _write(tmp_path, "refused.kr", REFUSED)
    assert main(["run", "--no-color", str(refused)]) == 2
    out = capsys.readouterr().err  # an error, for people: on stderr
    assert f"{refused}:2:" in out
    assert "did you mean 'high'?" in out
    assert "^" in out and "pod a priorityclass=hgh" in out
    assert "Traceback" not in out


def test_json_report_has_the_documented_shape(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    ok = _write(tmp_path, "ok.kr", PASSING)
    refused = _write(tmp_path, "refused.kr", REFUSED)
    code = main(["run", "-j", "1", "--format", "json", str(ok), str(refused)])
    assert code == 2
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1
    first, second = data["files"]
    assert set(first) == {"path", "status", "error", "errors", "expectations", "decisions",
                          "claims", "state", "queue"}
    assert "state" not in second  # a refused file has no end state
    assert first["claims"] == []  # DRA claims: none in this scenario
    # Each pod's scheduling attempts, with why the queue made each.
    assert all(set(q) == {"pod", "attempts"} and q["attempts"] for q in first["queue"])
    assert first["queue"][0]["attempts"][0]["why"] == "it was created"
    assert first["status"] == "passed" and first["error"] is None
    assert first["expectations"][0] == {"line": 5, "text": "expect pod a running on n1",
                                        "passed": True, "message": ""}
    d = first["decisions"][0]
    assert set(d) == {"time", "kind", "pod", "node", "by", "reason", "message", "rules"}
    assert d["time"] == "0s" and d["kind"] == "scheduled" and d["pod"] == "default/a"
    assert second["status"] == "refused"
    assert second["error"]["line"] == 2 and second["error"]["column"] > 0
    assert "hgh" in second["error"]["message"]


def test_folders_run_every_kr_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "a.kr", PASSING)
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", "b.kr", PASSING)
    assert main(["run", "-j", "1", "--format", "json", str(tmp_path)]) == 0
    paths = [f["path"] for f in json.loads(capsys.readouterr().out)["files"]]
    assert [Path(p).name for p in paths] == ["a.kr", "b.kr"]


def test_output_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = _write(tmp_path, "ok.kr", PASSING)
    main(["run", "--format", "json", str(ok)])
    one = capsys.readouterr().out
    main(["run", "--format", "json", str(ok)])
    assert capsys.readouterr().out == one


def test_explain_shows_the_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _write(tmp_path, "bad.kr", FAILING)
    main(["run", "--no-color", "--explain", "a", str(bad)])
    out = capsys.readouterr().out
    assert "explain a" in out
    assert "scheduler.filter.NodeResourcesFit" in out and "Insufficient cpu" in out


def test_rules_lists_every_rule_with_doc_and_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = {r["name"]: r for rs in data for r in rs["rules"]}
    assert "scheduler.filter.NodeResourcesFit" in rules
    assert all(r["doc"] and r["source"] for r in rules.values())


def test_no_color_unless_terminal(tmp_path: Path) -> None:
    ok = _write(tmp_path, "ok.kr", PASSING)
    out = subprocess.run([sys.executable, "-m", "kruleset.cli", "run", str(ok)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0
    assert "\033[" not in out.stdout


def test_shipped_example_runs() -> None:
    # The what-ifs of examples/whatifs are checked against the example dump they are for.
    whatifs = ROOT / "examples" / "whatifs"
    alone = [str(p) for p in sorted((ROOT / "examples").rglob("*.kr")) if p.parent != whatifs]
    for args in (alone, ["--cluster", str(ROOT / "examples" / "dump" / "cluster.json"),
                         str(whatifs)]):
        out = subprocess.run([sys.executable, "-m", "kruleset.cli", "check", *args],
                             capture_output=True, text=True, cwd=ROOT, check=False)
        assert out.returncode == 0, out.stdout + out.stderr


def test_a_bad_scheduler_config_is_refused_by_check(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n"
        "      enabled:\n      - name: NodeResourcesFitt\n")
    kr = _write(tmp_path, "s.kr", 'node n1 cpu=1 memory=1Gi\nconfig scheduler "s.yaml"\n')
    assert main(["check", "--no-color", str(kr)]) == ExitCode.REFUSED
    out = capsys.readouterr().err
    assert f"{kr}:2:1:" in out and "did you mean 'NodeResourcesFit'?" in out


def test_explain_shows_the_eviction_ranking(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    kr = _write(tmp_path, "e.kr", """\
node n1 cpu=4 memory=8Gi
kubelet n1 {
  eviction-hard memory.available<500Mi
}
pod a requests(memory=1Gi) usage(memory=2Gi) priority=10
pod b requests(memory=1Gi) usage(memory=1Gi) priority=5
pod c usage(memory=500Mi)
at 20s usage node n1 memory.available=400Mi
expect evictions = [c]
""")
    assert main(["run", "--no-color", "--explain", "a", str(kr)]) == 0
    out = capsys.readouterr().out
    assert "ranked: memory.available: default/c, default/a, default/b" in out
    assert "default/a] #2 before default/b" in out and "exceeds" in out


def test_a_statement_whose_mechanism_is_missing_stops_with_exit_3(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from kruleset.model.scenario import DrainNode
    from kruleset.sim import core

    core._load()
    monkeypatch.delitem(core.ACTIONS, DrainNode)
    kr = _write(tmp_path, "d.kr", "node n1 cpu=1 memory=1Gi\nat 5s drain node n1\n")
    assert main(["run", "--no-color", str(kr)]) == ExitCode.ERROR
    out = capsys.readouterr().err
    assert f"{kr}: <" not in out and ":2:" in out
    assert "node drain (`drain node`) is not simulated yet" in out
