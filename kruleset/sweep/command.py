"""``kruleset sweep``: the command line of :func:`kruleset.sweep.sweep`.

Exit status: 0 every variant's expectations hold, 1 some fail, 2 the
scenario or an option is refused, 3 a variant could not run (an internal
error, or a mechanism not simulated yet).
"""

from __future__ import annotations

import argparse
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
    p.add_argument("--format", choices=("text", "json", "html"), default=None,
                   help="text (default), json, or html: one self-contained page")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the table (or the variant's report) to FILE instead of stdout")
    p.add_argument("--reports", metavar="DIR",
                   help="also write the full HTML report of the base run and of every "
                        "failing variant to DIR (the HTML page links them)")
    p.add_argument("--variant", metavar="ID",
                   help="replay one variant in full (its name as the table shows it, e.g. "
                        "node=c-1, or #INDEX, or base): every decision and expectation, "
                        "as kruleset run reports a file (in any --format)")
    p.add_argument("--explain", metavar="REF",
                   help="with --variant: every rule applied to a pod or node in that variant")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                   help="colour the table (default: auto, on a terminal; NO_COLOR and "
                        "FORCE_COLOR are honoured)")
    p.add_argument("--no-color", action="store_true", help="same as --color never")
    p.add_argument("--rules", action="append", default=[], metavar="MODULE_OR_FILE",
                   dest="rules_plugins",
                   help="load your own rules: a .py file or an importable module that "
                        "registers them with kruleset.register (repeatable; with --dask, "
                        "the workers must be able to import it too)")


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
        from .dask_address import unreachable

        why = unreachable(args.dask)
        if why:
            print(f"kruleset sweep: --dask {args.dask}: {why} "
                  "(is `dask scheduler` running there?)", file=sys.stderr)
            return ExitCode.REFUSED
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            print("kruleset sweep: --dask needs dask.distributed: "
                  "pip install 'kruleset[dask]'", file=sys.stderr)
            return ExitCode.REFUSED
    if args.jobs < 1:
        print("kruleset sweep: -j must be 1 or more", file=sys.stderr)
        return ExitCode.REFUSED
    from ..output_name import bare_format_refusal

    refusal = bare_format_refusal("kruleset sweep", args.output,
                                  args.format is not None,
                                  ("text", "json", "html"), [args.scenario])
    if refusal:
        print(refusal, file=sys.stderr)
        return ExitCode.REFUSED
    args.format = args.format or "text"
    if args.reports and args.variant:
        print("kruleset sweep: --reports writes the reports of a whole sweep; for one "
              "variant's, use --variant ID --format html -o FILE", file=sys.stderr)
        return ExitCode.REFUSED
    if args.explain and not args.variant:
        print("kruleset sweep: --explain needs --variant ID (the variant to explain)",
              file=sys.stderr)
        return ExitCode.REFUSED
    options = dict(fail_each=args.fail_each, at=at, sets=args.sets,
                   profiles=[p for group in args.profile for p in group.split(",") if p],
                   seeds=args.seeds)
    color = use_color("never" if args.no_color else args.color,
                      sys.stdout if not args.output else sys.stderr)
    style = Style(color=color and not args.output)
    err_style = Style(color=use_color("never" if args.no_color else args.color, sys.stderr))
    started = time.monotonic()
    if args.variant:
        return _replay(args, options, style)
    progress = _Progress() if not args.quiet and sys.stderr.isatty() else None
    try:
        result = sweep(args.scenario, jobs=args.jobs, dask=args.dask, progress=progress,
                       **options)
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
    from .output import stderr_line, summary_line, write_sweep

    reports = _reports(args, result)
    if reports is None:
        return ExitCode.REFUSED
    if not _written(args.output, lambda out: write_sweep(result, args.format, out, style,
                                                         reports)):
        return ExitCode.REFUSED
    code = int(result.exit_code)
    stderr_line(summary_line(result.outcomes, time.monotonic() - started), code == 0,
                err_style)
    return code


def _reports(args: argparse.Namespace, result: Any) -> dict[int, str] | None:
    """``--reports DIR``: the reports written, linked from the page's folder; None (said on
    stderr) when DIR cannot be written."""
    if not args.reports:
        return {}
    from .output import write_reports

    page_folder = (os.path.dirname(args.output) or ".") if args.output else "."
    try:
        links = write_reports(result, args.reports, page_folder)
    except OSError as e:
        print(f"kruleset sweep: --reports: cannot write {args.reports}: {e.strerror or e}",
              file=sys.stderr)
        return None
    n = len(links)
    print(f"kruleset sweep: {n} report{'s' if n != 1 else ''} written to {args.reports}",
          file=sys.stderr)
    return links


def _written(output: str | None, write: Any) -> bool:
    """Write to ``output`` (stdout when None); False, said on stderr, when it cannot be."""
    if output is None:
        write(sys.stdout)
        sys.stdout.flush()
        return True
    try:
        with open(output, "w", encoding="utf-8") as out:
            write(out)
    except OSError as e:
        print(f"kruleset sweep: --output: cannot write {output}: {e.strerror or e}",
              file=sys.stderr)
        return False
    return True


def _as_run(args: argparse.Namespace, variant: Any, at: int) -> int:
    """``--variant ID --format json|html``: the variant as ``kruleset run --set … --fail …``
    reports it in that format (a ``--profile`` variant has no such run: refused)."""
    from ..runner import RunRequest, execute
    from .axes import SweepError
    from .single import RunVariant

    if variant.profile is not None:
        raise SweepError(f"--variant {variant.name} --format {args.format}: a --profile "
                         "variant is reported as text only",
                         suggestion="leave out --format to read its full report")
    req = RunRequest(command="run", files=[args.scenario], format=args.format,
                     output=args.output, quiet=args.quiet,
                     color="never" if args.no_color else args.color, explain=args.explain,
                     variant=RunVariant.of(variant, at) if variant.index >= 0 else None)
    return execute(req)


def _replay(args: argparse.Namespace, options: dict[str, Any], style: Any) -> int:
    """``--variant ID``: that variant's full report (text), with ``--explain`` if asked."""
    from ..errors import KrulesetError, NotImplementedMechanism, ScenarioError
    from ..exitcode import ExitCode
    from . import plan
    from .executors import Job
    from .output import write_variant
    from .replay import find_variant, replay_variant

    try:
        planned = plan(args.scenario, **options)
        variant = find_variant(planned.variants, args.variant)
        if args.format != "text":
            return _as_run(args, variant, options["at"])
        replayed = replay_variant(Job(planned.scenario, planned.choices, options["at"]),
                                  variant)
    except ScenarioError as e:
        print(e.render(), file=sys.stderr)
        return ExitCode.REFUSED
    except (NotImplementedMechanism, KrulesetError) as e:
        print(f"kruleset sweep: variant {args.variant}: {e}", file=sys.stderr)
        return ExitCode.ERROR
    if not _written(args.output, lambda out: write_variant(
            args.scenario, replayed, args.explain, out, style, options["at"])):
        return ExitCode.REFUSED
    result = replayed.result
    return int(ExitCode.ERROR if result.unsupported else
               ExitCode.FAILED if result.failed else ExitCode.OK)
