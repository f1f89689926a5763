"""The benchmark runner's ``--quick`` mode works: decisions happen and are deterministic.

Correctness only: timings are printed by the runner but never asserted here.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import run


def test_quick_benchmarks_decide_and_are_deterministic(tmp_path: Path) -> None:
    assert run.main(["--quick", "--no-growth", "--out", str(tmp_path)]) == 0
    rows = {p.stem: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    assert set(rows) == set(run.suite(quick=True))
    for name, row in rows.items():
        assert row["machine"]["cores"], name
        for res in row["runs"]:
            assert "error" not in res, (name, res)
        # Every run of a workload (tracing off, on, off, on) decides exactly the same.
        assert row["deterministic"] is True, name
        assert len({res.get("digest") for res in row["runs"]}) == 1, name
    for name in ("SchedulingBasic", "AffinitySpread"):
        runs = rows[name]["runs"]
        assert len(runs) == 4, name
        for off, on in zip(runs[0::2], runs[1::2], strict=True):
            assert off["measured"] == rows[name]["measured_pods"], name
            assert off["measured_placed"] > 0, name
            assert off["trace_entries"] == 0, name
            assert on["trace_entries"] > 0, name  # the traced runs really traced
    assert rows["EvictionStorm"]["runs"][0]["decision_kinds"].get("evicted", 0) > 0
    assert rows["Load"]["runs"][0]["pods_bound"] == rows["Load"]["initial_pods"]
    assert rows["Language"]["runs"][0]["expectations"] > 0


def test_quick_sweep_benchmark_agrees_across_executors(tmp_path: Path) -> None:
    from benchmarks import sweep

    assert sweep.main(["--quick", "--only", "local-1,local-2", "--out", str(tmp_path)]) == 0
    row = json.loads((tmp_path / "SweepN1-quick.json").read_text())
    assert row["deterministic"] is True
    assert [r["variants"] for r in row["runs"]] == [50, 50]
    assert all(r["failing"] == 0 for r in row["runs"])  # 49 nodes hold every replica
