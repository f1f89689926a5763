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
import time
from typing import Any

from ..terminal import COLOR_CHOICES

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
    p.add_argument("--format", choices=("text", "json", "html"), default="text",
                   help="text (default), json, or html: one self-contained page")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                   help="colour the table (default: auto, on a terminal; NO_COLOR and "
                        "FORCE_COLOR are honoured)")
    p.add_argument("--no-color", action="store_true", help="same as --color never")


class _Progress:
    """``12/1001 variants · 41.2 s elapsed · about 10 min 25 s left`` on a terminal's stderr.

    Redrawn as variants finish (the same line and wording as ``kruleset run``'s).
    """

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        from ..report.model import format_seconds

        elapsed = time.monotonic() - self.started
        parts = [f"{done}/{total} variants", f"{format_seconds(elapsed)} elapsed"]
        if 0 < done < total:
            parts.append(f"about {format_seconds(elapsed / done * (total - done))} left")
        sys.stderr.write("\r" + " · ".join(parts) + "\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        """Take the line away before the table is printed."""
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def main(args: argparse.Namespace) -> int:
    """Run ``kruleset sweep`` with parsed arguments; returns the exit status."""

    from ..errors import ScenarioError
    from ..exitcode import ExitCode
    from ..model.quantity import QuantityError, parse_duration
    from ..readfile import check_regular
    from ..report.text import Style
    from ..terminal import use_color
    from . import sweep

    try:
        check_regular(args.scenario)
    except OSError as e:
        what = "no such file" if isinstance(e, FileNotFoundError) else e.strerror
        print(f"kruleset sweep: {args.scenario}: {what}", file=sys.stderr)
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
    progress = _Progress() if not args.quiet and sys.stderr.isatty() else None
    try:
        result = sweep(args.scenario, fail_each=args.fail_each, at=at, sets=args.sets,
                       profiles=[p for group in args.profile for p in group.split(",") if p],
                       seeds=args.seeds, jobs=args.jobs, dask=args.dask, progress=progress)
    except ScenarioError as e:
        print(e.render(), file=sys.stderr)
        return ExitCode.REFUSED
    except OSError as e:
        print(f"kruleset sweep: {args.dask or args.scenario}: {e}", file=sys.stderr)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        print("kruleset sweep: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    finally:
        if progress is not None:
            progress.clear()
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
    elif args.format == "html":
        sys.stdout.write(result.html())
    else:
        color = use_color("never" if args.no_color else args.color, sys.stdout)
        print(result.text(Style(color=color)))
    return int(result.exit_code)
