"""Time ``kruleset sweep --fail-each node`` on the SweepN1 workload, per executor.

Usage::

    python -m benchmarks.sweep [--quick] [--out DIR] [--only local-1,local-2,dask]

Executors: ``local-1`` and ``local-2`` (``-j 1``, ``-j 2``) and ``dask``: a
``dask.distributed.LocalCluster`` of two single-threaded worker processes
started first (its start-up is reported apart, not timed with the sweep).
Each row is one sweep over every node of the workload (1,000 nodes, 20,000
pods; ``--quick``: 50 nodes, 1,000 pods), timed from loading the scenario
to the last variant's outcome, plus the CPU time of the process and its
children.  Every executor must give the same outcomes (digest of the JSON).
Results go to ``DIR/SweepN1.json`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import workloads as w
from benchmarks.run import machine

EXECUTORS = ("local-1", "local-2", "dask")


def write_workload(folder: Path, quick: bool) -> tuple[w.Workload, Path]:
    """Write the scenario and its cluster dump into ``folder``."""
    size: dict[str, int] = ({"nodes": 50, "pods": 1000, "deployments": 10} if quick else {})
    wl = w.sweep_n1(**size)
    (folder / w.SWEEP_CLUSTER).write_text(json.dumps(w.sweep_cluster(**size)))
    path = folder / "sweep-n1.kr"
    path.write_text(wl.text)
    return wl, path


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(path: Path, executor: str) -> dict[str, Any]:
    """One sweep with ``executor``; wall and CPU seconds, outcome digest."""
    from kruleset.sweep import sweep

    cluster = None
    started = 0.0
    if executor == "dask":
        from dask.distributed import LocalCluster

        t = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        started = time.perf_counter() - t
    try:
        cpu, t = _cpu(), time.perf_counter()
        s = sweep(path, fail_each="node",
                  jobs=2 if executor == "local-2" else 1,
                  dask=cluster.scheduler_address if cluster is not None else None)
        wall = time.perf_counter() - t
    finally:
        if cluster is not None:
            cluster.close()  # its worker processes' CPU time counts once they are reaped
    cpu = _cpu() - cpu
    # the scenario's path (a temporary folder per invocation) is left out, so that
    # digests compare across invocations, not only across one invocation's executors
    out = json.dumps({**s.to_json(), "scenario": ""}, sort_keys=True).encode()
    return {
        "executor": executor, "wall_seconds": round(wall, 2),
        "cpu_seconds_this_process_and_children": round(cpu, 2),
        "cluster_start_seconds": round(started, 2) if cluster is not None else None,
        "variants": len(s.variants), "failing": sum(o["status"] != "passed" for o in s.outcomes),
        "load_avg_1m": os.getloadavg()[0], "digest": hashlib.sha256(out).hexdigest()[:16],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the chosen executors; print a Markdown table; write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="50 nodes, 1,000 pods")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results"))
    ap.add_argument("--only", default=",".join(EXECUTORS))
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        wl, path = write_workload(Path(tmp), args.quick)
        for ex in args.only.split(","):
            rows.append(measure(path, ex))
            print(json.dumps(rows[-1]), flush=True)
    same = len({r["digest"] for r in rows}) == 1
    print(f"\n{wl.name}: {wl.nodes} nodes, {wl.initial_pods} pods, one variant per node; "
          f"every executor gives the same outcomes: {same}\n")
    print("| executor | wall | CPU (all processes) | load average |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['executor']} | {r['wall_seconds']:.0f} s | "
              f"{r['cpu_seconds_this_process_and_children']:.0f} s | {r['load_avg_1m']:.1f} |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{wl.name}{'-quick' if args.quick else ''}.json").write_text(json.dumps(
        {"workload": wl.name, "nodes": wl.nodes, "pods": wl.initial_pods,
         "target_seconds": wl.target, "machine": machine(), "deterministic": same,
         "runs": rows}, indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
