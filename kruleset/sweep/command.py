"""``kruleset sweep``: the command line of :func:`kruleset.sweep.sweep`.

Exit status: 0 every variant's expectations hold, 1 some fail, 2 the
scenario or an option is refused, 3 a variant could not run (an internal
error, or a mechanism not simulated yet).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

__all__ = ["add_parser", "main"]


def add_parser(sub: Any) -> None:
    """Add ``sweep`` to the ``kruleset`` command's subparsers."""
    p = sub.add_parser(
        "sweep", help="run a scenario under many variations and tabulate the outcomes",
        description="Run SCENARIO under every combination of the axes given (a grid), "
                    "locally or on a Dask cluster, and print one row per variant, worst "
                    "first, showing what differs from the base run.")
    p.add_argument("scenario", help="a .kr file")
    p.add_argument("--fail-each", choices=("node", "zone"),
                   help="delete each node (or each zone's nodes) in turn")
    p.add_argument("--at", default="0s", metavar="T",
                   help="when the failure happens (default 0s: once the cluster is built)")
    p.add_argument("--set", action="append", default=[], metavar="PATH=V1,V2",
                   dest="sets", help="vary a value: priorityclass:NAME:value, "
                                     "pdb:REF:min-available, quota:NS:max.cpu, "
                                     "deployment:REF:replicas, "
                                     "kubelet:NODE|*:eviction-hard.SIGNAL (repeatable)")
    p.add_argument("--profile", action="append", default=[], metavar="A.yaml,B.yaml",
                   help="kruleset profiles, KubeSchedulerConfiguration or "
                        "KubeletConfiguration files, one variant each")
    p.add_argument("--seeds", type=int, default=0, metavar="N",
                   help="arrival orders 1..N of the pods created at one instant")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="local worker processes (default: all cores)")
    p.add_argument("--dask", metavar="tcp://HOST:8786",
                   help="run the variants on this Dask scheduler (pip install 'kruleset[dask]')")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--no-color", action="store_true", help="never colour the output")


def _progress() -> Any:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\rsweep: {done}/{total} variants", end=end, file=sys.stderr, flush=True)

    return show


def main(args: argparse.Namespace) -> int:
    """Run ``kruleset sweep`` with parsed arguments; returns the exit status."""
    from pathlib import Path

    from ..cli import ExitCode
    from ..errors import ScenarioError
    from ..model.quantity import QuantityError, parse_duration
    from ..report.text import Style
    from . import sweep

    if not Path(args.scenario).is_file():
        print(f"kruleset sweep: {args.scenario}: no such file", file=sys.stderr)
        return ExitCode.REFUSED
    try:
        at = parse_duration(args.at)
    except QuantityError as e:
        print(f"kruleset sweep: --at: {e}", file=sys.stderr)
        return ExitCode.REFUSED
    if args.dask:
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            print("kruleset sweep: --dask needs dask.distributed: "
                  "pip install 'kruleset[dask]'", file=sys.stderr)
            return ExitCode.REFUSED
    if args.jobs < 1:
        print("kruleset sweep: -j must be 1 or more", file=sys.stderr)
        return ExitCode.REFUSED
    try:
        result = sweep(args.scenario, fail_each=args.fail_each, at=at, sets=args.sets,
                       profiles=[p for group in args.profile for p in group.split(",") if p],
                       seeds=args.seeds, jobs=args.jobs, dask=args.dask,
                       progress=_progress())
    except ScenarioError as e:
        print(e.render(), file=sys.stderr)
        return ExitCode.REFUSED
    except OSError as e:
        print(f"kruleset sweep: {args.dask or args.scenario}: {e}", file=sys.stderr)
        return ExitCode.ERROR
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
    else:
        color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print(result.text(Style(color=color)))
    return result.exit_code
