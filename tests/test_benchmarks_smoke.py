"""The benchmark runner's ``--quick`` mode works: decisions happen and are deterministic.

Correctness only: timings are printed by the runner but never asserted here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def test_quick_gke_workloads_decide_and_drain(tmp_path: Path) -> None:
    """The GKE-size shapes at 1/100 of their size: the drain ends, all runs agree."""
    assert run.main(["--quick", "--scale", "gke", "--no-growth", "--out", str(tmp_path),
                     "--only", "GKESchedulingBasic", "GKEDrain"]) == 0
    rows = {p.stem: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    assert set(rows) == {"GKESchedulingBasic", "GKEDrain"}
    for name, row in rows.items():
        assert row["deterministic"] is True, name
    sched = rows["GKESchedulingBasic"]
    assert sched["first_decision_seconds"] is not None and sched["ready_seconds"] > 0
    assert all(r["measured_placed"] == 300 for r in sched["runs"])
    drain = rows["GKEDrain"]
    assert all(r["drained"] and r["measured"] == 110 for r in drain["runs"])
    assert drain["value"] > 0


def test_measured_rows_replace_their_own_row_in_the_readmes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench, top = tmp_path / "bench.md", tmp_path / "top.md"
    bench.write_text("x\n\n| workload | nodes | initial pods | m |\n|---|---|---|---|\n"
                     "| Load | old |\n| Language | kept |\n\nafter\n\n"
                     "| nodes | measured pods | pods/s |\n|---|---|---|\n| 1 | 2 | 3 |\n")
    top.write_text("| workload | size | result | target | trace on/off |\n|---|---|---|---|---|\n"
                   "| Load | old |\n\ntail\n")
    monkeypatch.setattr(run, "README", bench)
    monkeypatch.setattr(run, "TOP_README", top)
    row = {"name": "Load", "nodes": 5000, "initial_pods": 150_000, "measured_pods": 0,
           "unit": "s", "target": 3.0, "value": 2.5, "met": True, "peak_memory_mib": 300.0,
           "runs": [{}], "best_run": 0, "deterministic": True}
    new = dict(row, name="GKELoad", nodes=65_000, value=30.0, met=False, target=20.0,
               memory_target_mib=6144)
    growth = [{"nodes": 500, "measured_pods": 3000, "rate": 2000.0, "ms_per_pod": 0.5,
               "peak_memory_mib": 80.0, "kib_per_node": 3.5, "kib_per_pod": 2.0}]
    run.update_readmes([row, new], growth)
    lines = bench.read_text().splitlines()
    assert lines[4].startswith("| Load | 5,000 | 150,000 |") and "2.50 s" in lines[4]
    assert lines[5] == "| Language | kept |"
    assert lines[6].startswith("| GKELoad | 65,000 |") and "| NO |" in lines[6]
    assert "| 500 | 3,000 | 2,000 | 0.50 | 80 | 3.5 | 2.0 |" in lines
    assert "| 1 | 2 | 3 |" not in lines
    top_lines = top.read_text().splitlines()
    assert top_lines[2].startswith("| Load | 5,000 nodes, 150,000 running pods | 2.50 s |")
    assert top_lines[3].startswith("| GKELoad |") and "(target not met)" in top_lines[3]
    assert top_lines[-1] == "tail"


def test_generated_dump_pod_names_do_not_repeat() -> None:
    """A cluster dump of a million pods names each once (random suffixes repeated)."""
    from benchmarks import gen_cluster_json

    suffixes = [gen_cluster_json._suffix(i) for i in range(1_000_000)]
    assert len(set(suffixes)) == len(suffixes)
    assert all(len(s) == 5 and set(s) <= set(gen_cluster_json._ALPHABET) for s in suffixes[:1000])
    names = [o["metadata"]["name"] for o in gen_cluster_json.items(10, 3000, apps=7)
             if o["kind"] == "Pod"]
    assert len(set(names)) == 3000
