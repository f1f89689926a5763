"""With tracing on, the JSON report lists every scheduling attempt with its scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kruleset.cli import main

KR = """
node n1 cpu=4 memory=8Gi images(nginx:1.27=500Mi, busybox:latest=30Mi)
node n2 cpu=4 memory=8Gi images(nginx:1.27=700Mi)
node n3 cpu=4 memory=8Gi
pod p {
  container p image=nginx:1.27 requests(cpu=1)
  init-container i image=busybox
}
pod big requests(cpu=8)
"""


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict:
    f = tmp_path / "s.kr"
    f.write_text(KR)
    main(["run", "--format", "json", *flags, str(f)])
    return json.loads(capsys.readouterr().out)["files"][0]


def test_attempts_give_feasible_nodes_and_per_plugin_scores(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    entry = _report(tmp_path, capsys, "--trace")
    first, failed = entry["attempts"][0], entry["attempts"][1]
    assert (first["pod"], first["result"], first["node"]) == ("default/p", "scheduled", "n1")
    assert first["feasible"] == ["n1", "n2", "n3"]
    # The totals kube-scheduler v1.35.4 gives (checked with the oracle).
    assert {n: s["total"] for n, s in first["scores"].items()} == {
        "n1": 489, "n2": 488, "n3": 473}
    for s in first["scores"].values():
        assert sum(p["weighted"] for p in s["plugins"].values()) == s["total"]
        for p in s["plugins"].values():
            assert p["weighted"] == p["weight"] * p["normalized"]
    taint = first["scores"]["n1"]["plugins"]["TaintToleration"]
    assert taint == {"raw": 0, "normalized": 100, "weight": 3, "weighted": 300}
    assert first["scores"]["n1"]["plugins"]["ImageLocality"]["raw"] == 16
    assert (failed["pod"], failed["result"], failed["node"]) == ("default/big", "unschedulable",
                                                                  None)
    assert failed["feasible"] == [] and failed["scores"] == {}


def test_no_attempts_without_tracing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "attempts" not in _report(tmp_path, capsys)
