"""Files as kubectl users pass them (issue 28): dumps run as scenarios, ``-`` for stdin,
``--cluster`` under every ``.kr`` file, and the end state (JSON, ``--state``, ``--state-out``).

Every test runs the command line on files, as a user would.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from kruleset.cli import main
from kruleset.inputs import sniff

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / "examples" / "dump" / "cluster.json"
MANIFESTS = ROOT / "examples" / "manifests" / "cluster.yaml"
WHATIFS = sorted((ROOT / "examples" / "whatifs").glob("*.kr"))
SCHEMA = json.loads((ROOT / "schemas" / "report-v1.schema.json").read_text(encoding="utf-8"))


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([*argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("text,kind", [
    ('{"apiVersion": "v1", "kind": "List", "items": []}', "json"),
    ("  [\n]", "json"),
    ("# a dump\napiVersion: v1\nkind: Node\n", "yaml"),
    ("---\n- a\n", "yaml"),
    ('# kr\nscenario "x"\nnode n1 cpu=4 memory=8Gi\n', "kr"),
    ('node n1 cpu=4 memory=8Gi labels(a=b)\nexpect pod a running\n', "kr"),
])
def test_stdin_is_told_apart_by_content(text: str, kind: str) -> None:
    assert sniff(text) == kind


def test_a_dump_runs_as_a_scenario_with_its_pending_pods_and_why(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "run", "--no-color", "-j", "1", str(DUMP))
    assert code == 0
    # the queue retries the pending pods every 5 minutes until an hour after the
    # last event, so the end state is told at that time; what it holds is what settled
    assert ": 4 pod(s) running on 3 node(s), 2 pending" in out and "end state at " in out
    assert ("pending shop/web-1: 0/3 nodes are available: 1 node(s) had untolerated "
            "taint(s), 2 node(s) didn't match pod anti-affinity rules.") in out
    # what was read, once, on stderr
    assert err.count("cluster.json: loaded 3 nodes, 4 pods, 1 deployment") == 1
    assert "Traceback" not in out + err


def test_a_yaml_dump_runs_and_check_validates_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "run", "--no-color", "-j", "1", str(MANIFESTS))
    assert code == 0 and "shop/checkout-1 on node-a" in out
    code, out, _ = _run(capsys, "check", "--no-color", "-j", "1", str(MANIFESTS), str(DUMP))
    assert code == 0 and f"{MANIFESTS}: ok" in out and f"{DUMP}: ok" in out


@pytest.mark.parametrize("source", [DUMP, MANIFESTS, ROOT / "examples" / "quickstart.kr"],
                         ids=lambda p: p.name)
def test_stdin_runs_json_yaml_and_kr_alike(source: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, from_file, _ = _run(capsys, "run", "--no-color", "--format", "json", str(source))
    _stdin(monkeypatch, source.read_text(encoding="utf-8"))
    code2, from_stdin, _ = _run(capsys, "run", "--no-color", "--format", "json", "-")
    assert code == code2 == 0
    a, b = json.loads(from_file)["files"][0], json.loads(from_stdin)["files"][0]
    assert b["path"] == "<stdin>"
    assert a["decisions"] == b["decisions"] and a["state"] == b["state"]


def test_check_reads_stdin(monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, DUMP.read_text(encoding="utf-8"))
    code, out, _ = _run(capsys, "check", "--no-color", "-")
    assert code == 0 and "<stdin>: ok" in out


def test_a_bad_dump_on_stdin_is_refused_naming_stdin(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                        "status: {allocatable: {cpu: lots}}\n")
    code, _, err = _run(capsys, "run", "--no-color", "-")
    assert code == 2
    assert "<stdin>" in err and "cpu" in err
    assert "stdin.yaml" not in err and "Traceback" not in err


def test_the_whatifs_run_against_the_cluster_from_a_file_and_from_stdin(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in WHATIFS]
    assert len(files) >= 2
    code, out, err = _run(capsys, "run", "--no-color", "-j", "1", "--format", "json",
                          "--cluster", str(DUMP), *files)
    assert code == 0, err
    report = json.loads(out)
    assert report["summary"]["passed"] == len(files)
    assert report["summary"]["expectations"]["passed"] >= 5
    _stdin(monkeypatch, DUMP.read_text(encoding="utf-8"))
    code, out2, err = _run(capsys, "run", "--no-color", "-j", "1", "--format", "json",
                           "--cluster", "-", *files)
    assert code == 0, err
    assert "<stdin>: loaded 3 nodes" in err
    # The notices name where the cluster came from (the file, or <stdin>); the rest is equal.
    def _without_notices(files: list[dict]) -> list[dict]:
        return [{k: v for k, v in f.items() if k != "notices"} for f in files]

    assert _without_notices(json.loads(out2)["files"]) == _without_notices(report["files"])
    # without the cluster, the what-ifs name pods that do not exist
    code, _, _ = _run(capsys, "run", "--no-color", "-j", "1", *files)
    assert code == 2


def test_cluster_files_are_declared_under_every_kr_file_with_j(
        capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in WHATIFS]
    code, out, err = _run(capsys, "run", "--no-color", "-j", "2", "--cluster", str(DUMP),
                          *files)
    assert code == 0, err


def test_stdin_twice_and_a_missing_cluster_are_refused(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, "")
    code, _, err = _run(capsys, "run", "--cluster", "-", "-")
    assert code == 2 and "stdin can be read once" in err
    code, _, err = _run(capsys, "run", "--cluster", "nowhere.json", str(WHATIFS[0]))
    assert code == 2 and "--cluster nowhere.json: no such file" in err
    _stdin(monkeypatch, 'scenario "x"\n')
    code, _, err = _run(capsys, "run", "--cluster", "-", str(WHATIFS[0]))
    assert code == 2 and "neither YAML nor JSON" in err


def test_the_json_report_carries_the_end_state(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "run", "--format", "json", "-j", "1", str(DUMP),
                        str(ROOT / "examples" / "tenant-quota-reclaim.kr"))
    assert code == 0
    data = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    state = data["files"][0]["state"]
    pods = {p["name"]: p for p in state["pods"]}
    assert pods["shop/redis-0"]["node"] == "node-1"
    assert pods["shop/web-1"]["node"] is None and pods["shop/web-1"]["phase"] == "Pending"
    assert pods["shop/web-1"]["message"].startswith("0/3 nodes are available")
    node1 = next(n for n in state["nodes"] if n["name"] == "node-1")
    # web (1500m, 2Gi limited) and redis (500m, 4Gi limited) against 3800m / 15Gi
    assert node1["resources"]["cpu"] == {"requests": "2", "limits": "0",
                                         "allocatable": "3800m", "requestsPercent": 52,
                                         "limitsPercent": 0}
    assert node1["resources"]["memory"]["limits"] == "6Gi"
    assert state["pdbs"] == [{"name": "shop/web", "expectedPods": 4, "currentHealthy": 2,
                              "desiredHealthy": 1, "disruptionsAllowed": 1}]
    quotas = data["files"][1]["state"]["quotas"]
    assert quotas and all(q["used"] is not None for q in quotas)


def test_state_prints_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "run", "--no-color", "--state", str(DUMP))
    assert code == 0
    assert "pods by node:" in out and "pending (2):" in out
    nodes = out[out.index("\nnodes:"):]
    line = next(x for x in nodes.splitlines() if x.strip().startswith("node-1"))
    assert line.split() == ["node-1", "2", "cpu", "2", "0", "3800m", "52%", "0%"]


def _placements(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, object]:
    code, out, err = _run(capsys, "run", "--format", "json", "-j", "1", str(path))
    assert code == 0, err
    return {p["name"]: (p["node"], p["nominatedNode"])
            for p in json.loads(out)["files"][0]["state"]["pods"]
            if p["phase"] in ("Running", "Pending")}


@pytest.mark.parametrize("source", [
    DUMP, MANIFESTS, *(ROOT / "examples" / n for n in (
        "quickstart.kr", "from-manifests.kr", "rollout-surge.kr", "tenant-quota-reclaim.kr",
        "drain-under-pdb.kr"))], ids=lambda p: p.name)
def test_state_out_reads_back_to_the_same_placements(
        source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "state.yaml"
    code, _, err = _run(capsys, "run", "-q", "--state-out", str(out), str(source))
    assert code == 0, err
    docs = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert docs["kind"] == "List" and docs["items"]
    before = _placements(capsys, source)
    after = _placements(capsys, out)
    assert after == before
    # and once more: the written state is a fixed point
    again = tmp_path / "again.yaml"
    assert main(["run", "-q", "--state-out", str(again), str(out)]) == 0
    capsys.readouterr()
    assert _placements(capsys, again) == before


def test_state_out_takes_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "run", "--state-out", str(tmp_path / "s.yaml"), str(DUMP),
                        str(MANIFESTS))
    assert code == 2 and "--state-out writes the end state of one file" in err


def test_the_readme_kubectl_path_commands_pass(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- kubectl-path -->\n```sh\n(.*?)```", readme, flags=re.S)
    assert block is not None
    lines = [x for x in block.group(1).splitlines() if x.strip()]
    assert len(lines) >= 3
    monkeypatch.chdir(ROOT)
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "kruleset"
        code = main(argv[1:])
        out = capsys.readouterr()
        assert code == 0, f"{line}\n{out.err}"
