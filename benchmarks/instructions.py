"""Compare two checkouts of kruleset by instructions executed, not by seconds.

Usage::

    python -m benchmarks.instructions OLD_TREE NEW_TREE [--only NAME ...] [--out FILE]

Each tree is a checkout of kruleset (its root folder).  For each workload
(scheduler_perf's shapes at a medium size, so that a run under Valgrind
takes minutes, not hours) both trees load the same ``.kr`` file and run it
untraced, in a fresh interpreter under ``valgrind --tool=callgrind``, which
counts the instructions the process executes.  The count does not depend on
what else the machine is doing, so two trees can be compared on a busy
machine, where wall-clock rates vary by a quarter from one run to the next.

The start-up cost (interpreter, imports, compiling sources where no
bytecode is cached, the interpreter's exit) is measured on a one-pod scenario
taken the same way (loaded and run, or only loaded) and subtracted, so the
ratio compares loading and simulating the workload; it is reported apart.
The same way, because what the process does at exit depends on it: the first
simulation of a process freezes the objects the process held before it
(``kruleset.sim.setup.freeze_process``), which the collection at exit then
skips, and a load-only workload makes no simulation.
A ratio of 1.05 is "5% more work".  Results go to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import workloads as w

#: name -> (workload at a size that runs in seconds natively, whether to simulate)
SIZES: dict[str, tuple[Any, bool]] = {
    "SchedulingBasic": (lambda: w.scheduling_basic(1000, 500, 2000), True),
    "Preemption": (lambda: w.preemption(500, 4, 500), True),
    "AffinitySpread": (lambda: w.affinity_spread(300, 10, 600), True),
    "EvictionStorm": (lambda: w.eviction_storm(200, 30), True),
    "QuotaReclaim": (lambda: w.quota_reclaim(200, 20, 400), True),
    "Load": (lambda: w.load_cluster(500, 15_000), False),
    "Language": (lambda: w.language_file(2_000), False),
    # A `kubectl get -o json` dump of 500 nodes and 15,000 pods, through `include`.
    "LoadJSON": (None, False),
}

TINY = 'scenario "start-up"\nnode n cpu=1 memory=1Gi\npod p requests(cpu=100m)\n'

# Loads and (unless told "load") runs one file through the library: the calls
# exist in every version of kruleset this compares.
DRIVER = """\
import sys
import kruleset
scenario = kruleset.load(sys.argv[1])
if sys.argv[2] == "run":
    print(len(kruleset.run(scenario).decisions))
"""

_COLLECTED = re.compile(r"Collected : (\d+)")


def _write_dump(path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gen_cluster_json

    gen_cluster_json.write(path, 500, 15_000, apps=150)


def count(tree: Path, driver: Path, kr: Path, mode: str) -> tuple[int, str]:
    """Instructions of one run of ``kr`` with ``tree``'s kruleset, and what it printed."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, str(driver), str(kr), mode],
        cwd=tree, env=env, capture_output=True, text=True, check=False)
    m = _COLLECTED.search(proc.stderr)
    if proc.returncode != 0 or m is None:
        raise RuntimeError(f"{tree}: {kr.name}: {proc.stderr.strip().splitlines()[-1:]}")
    return int(m.group(1)), proc.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--only", nargs="*", choices=sorted(SIZES))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("benchmarks.instructions: valgrind not found (apt-get install valgrind)",
              file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        driver = folder / "drive.py"
        driver.write_text(DRIVER)
        (folder / "tiny.kr").write_text(TINY)
        modes = {"run" if SIZES[n][1] else "load" for n in args.only or list(SIZES)}
        start = {(t, m): count(t, driver, folder / "tiny.kr", m)[0]
                 for t in (args.old, args.new) for m in sorted(modes)}
        print("| workload | old (10⁹ instructions) | new | new / old | decisions old, new |")
        print("|---|---|---|---|---|")
        for name in args.only or list(SIZES):
            make, simulate = SIZES[name]
            kr = folder / f"{name}.kr"
            if make is None:
                dump = folder / "cluster.json"
                _write_dump(dump)
                kr.write_text(f'scenario "{name}"\ninclude "{dump}"\n')
            else:
                kr.write_text(make().text)
            mode = "run" if simulate else "load"
            (old, old_out), (new, new_out) = (count(t, driver, kr, mode)
                                              for t in (args.old, args.new))
            old -= start[args.old, mode]
            new -= start[args.new, mode]
            row = {"workload": name, "old": old, "new": new, "ratio": round(new / old, 4),
                   "decisions_old": old_out, "decisions_new": new_out}
            rows.append(row)
            print(f"| {name} | {old / 1e9:.2f} | {new / 1e9:.2f} | {new / old:.3f} | "
                  f"{old_out}, {new_out} |", flush=True)
    start_up = {f"{'old' if tree == args.old else 'new'} {mode}": n
                for (tree, mode), n in start.items()}
    result = {"old": str(args.old), "new": str(args.new), "start_up": start_up, "rows": rows}
    shown = ", ".join(f"{k} {n / 1e9:.2f}" for k, n in start_up.items())
    print(f"\nstart-up (subtracted above, the one-pod scenario taken the workload's way): "
          f"{shown} ×10⁹ instructions")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
