"""The JSON report's ``pdbs``: each budget's status and DisruptionAllowed condition at the end."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kruleset.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "schemas" / "report-v1.schema.json").read_text())


def test_pdbs_in_the_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kr = tmp_path / "s.kr"
    kr.write_text(f'include "{ROOT / "features/disruption/redis-statefulset.yaml"}"\n'
                  f'include "{ROOT / "features/disruption/agent-daemonset.yaml"}"\n'
                  "at 10s evict pod shop/redis-0\n"
                  "at 10s expect pdb shop/redis disruptions-allowed=0\n")
    assert main(["run", "--format", "json", str(kr)]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["files"][0]["pdbs"] == [
        {"pdb": "ops/agent", "expectedPods": 0, "desiredHealthy": 0, "currentHealthy": 0,
         "disruptionsAllowed": 0, "disruptedPods": {}, "observedGeneration": 0,
         "conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "SyncFailed",
                         "message": "daemonsets.apps does not implement the scale subresource"}]},
        # redis-0 was recreated at 40s (its grace period) and is Ready again
        {"pdb": "shop/redis", "expectedPods": 2, "desiredHealthy": 1, "currentHealthy": 2,
         "disruptionsAllowed": 1, "disruptedPods": {}, "observedGeneration": 1,
         "conditions": [{"type": "DisruptionAllowed", "status": "True",
                         "reason": "SufficientPods"}]},
    ]


def test_no_pdbs_no_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kr = tmp_path / "s.kr"
    kr.write_text("node n1 cpu=2 memory=1Gi\npod a cpu=1\nexpect pod a running\n")
    assert main(["run", "--format", "json", str(kr)]) == 0
    assert "pdbs" not in json.loads(capsys.readouterr().out)["files"][0]
