"""The ``kruleset`` command: ``run``, ``check``, ``rules`` (and ``sweep``, in kruleset.sweep).

Exit status is :class:`ExitCode` (0 passed, 1 failed, 2 refused, 3 internal
error or a mechanism not simulated yet, 130 interrupted); with several files
it is the worst of them.  The work over many files is in :mod:`kruleset.runner`,
the output formats in :mod:`kruleset.report`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .errors import ScenarioError
from .exitcode import ExitCode
from .model.quantity import QuantityError, parse_duration
from .terminal import COLOR_CHOICES

__all__ = ["ExitCode", "main"]


def _cmd_run(args: argparse.Namespace) -> int:
    from .output_name import bare_format_refusal
    from .report import formats
    from .runner import RunRequest, execute

    refusal = bare_format_refusal(f"kruleset {args.command}", args.output,
                                  args.format is not None, formats.names(), args.files)
    if refusal:
        print(refusal, file=sys.stderr)
        return ExitCode.REFUSED
    until = None
    if getattr(args, "until", None):
        try:
            until = parse_duration(args.until)
        except QuantityError as e:
            print(f"kruleset: --until: {e}", file=sys.stderr)
            return ExitCode.REFUSED
    from .report.filters import FilterError, from_args

    try:
        only = from_args(args)
    except FilterError as e:
        print(f"kruleset: {e}", file=sys.stderr)
        return ExitCode.REFUSED
    from .sweep.axes import SweepError
    from .sweep.single import from_args as variant_from_args

    try:
        variant = variant_from_args(args)
    except SweepError as e:
        print(e.render(), file=sys.stderr)
        return ExitCode.REFUSED
    profile = None
    if getattr(args, "profile", None):
        from .rules.profile import load_profile

        try:
            profile = load_profile(args.profile)
        except ScenarioError as e:
            print(e.render(), file=sys.stderr)
            return ExitCode.REFUSED
    return execute(RunRequest(
        command=args.command, files=args.files, format=args.format or "text",
        output=args.output,
        quiet=args.quiet, color="never" if args.no_color else args.color, jobs=args.jobs or 1,
        explain=getattr(args, "explain", None), until=until, profile=profile,
        allow_unknown_fields=args.allow_unknown_fields,
        trace=bool(getattr(args, "trace", False)), clusters=tuple(args.cluster or ()),
        state=bool(getattr(args, "state", False)), state_out=getattr(args, "state_out", None),
        only=only, variant=variant))


def _cmd_rules(args: argparse.Namespace) -> int:
    from .rules.listing import print_plugins, print_rules

    if args.plugins:
        return print_plugins(args.format)
    return print_rules(args.pattern, args.format)


RULES_HELP = ("load your own rules: a .py file or an importable module that registers "
              "them with kruleset.register (repeatable)")


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    """``--rules MODULE_OR_FILE``, as run, check, sweep, capacity and rules take it."""
    parser.add_argument("--rules", action="append", default=[], metavar="MODULE_OR_FILE",
                        dest="rules_plugins", help=RULES_HELP)


def _load_plugins(args: argparse.Namespace) -> int | None:
    """Load installed plugins and ``--rules``; a refusal's exit status, or None."""
    from .rules.plugins import ENV, PluginError, autoload, installed, load_all
    from .rules.registry import rulesets

    specs = getattr(args, "rules_plugins", None) or ()
    if not (specs or os.environ.get(ENV) or installed()):
        return None  # nothing to load: the rules modules load when first needed
    try:
        rulesets()  # the built-in rules, then installed plugins and KRULESET_RULES
        autoload()
        load_all(specs)
    except PluginError as e:
        print(e.render(), file=sys.stderr)
        return ExitCode.REFUSED
    return None


def _version() -> str:
    from . import __version__

    return f"kruleset {__version__}"


def _parser() -> argparse.ArgumentParser:
    from .report import formats

    p = argparse.ArgumentParser(
        prog="kruleset",
        description="Simulate Kubernetes scheduling, preemption and eviction decisions and "
                    "explain them by the rules that made them.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)

    files = argparse.ArgumentParser(add_help=False)
    files.add_argument("files", nargs="+",
                       help=".kr files or folders, Kubernetes dumps (.yaml, .json) run as "
                            "scenarios, or - for stdin (.kr, YAML or JSON)")
    files.add_argument("--cluster", action="append", metavar="FILE",
                       help="a kubectl get -A -o yaml|json dump declared under every .kr "
                            "file (repeatable; - for stdin)")
    files.add_argument("--format", choices=formats.names(), default=None,
                       help="the report on stdout (default: text)")
    files.add_argument("-o", "--output", metavar="FILE",
                       help="write the report to FILE instead of stdout")
    files.add_argument("-q", "--quiet", action="store_true",
                       help="text: only failures and the summary; no progress line")
    files.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                       help="colour the text report and messages (default: auto, on a "
                            "terminal; NO_COLOR and FORCE_COLOR are honoured)")
    files.add_argument("--no-color", action="store_true", help="same as --color never")
    files.add_argument("--allow-unknown-fields", action="store_true",
                       help="unknown fields in Kubernetes files are warnings, not errors "
                            "(for dumps from newer versions)")
    files.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                       help="worker processes for several files (default: all cores)")
    add_rules_option(files)

    run = sub.add_parser("run", parents=[files],
                         help="simulate .kr files and check their expectations")
    run.add_argument("--explain", metavar="REF",
                     help="show every rule applied to a pod, a node or deployment/NAME")
    run.add_argument("--trace", action="store_true",
                     help="record every rule evaluation; the JSON report then lists each "
                          "scheduling attempt's feasible nodes and per-node scores")
    run.add_argument("--until", metavar="T", help="stop the simulation at time T (e.g. 90s)")
    run.add_argument("--profile", metavar="FILE", help="a kruleset profile YAML")
    from .state_report import add_state_options  # the end state's options, in their module

    add_state_options(run)
    from .report.filters import add_arguments as add_filters

    add_filters(run)
    from .sweep.single import add_arguments as add_variant  # a sweep's row, run alone

    add_variant(run)
    sub.add_parser("check", parents=[files],
                   help="parse and validate .kr files only, reporting every error found")
    sub.add_parser("lsp", help="a language server for .kr and .feature files on stdin/stdout "
                               "(needs the lsp extra: pip install 'kruleset[lsp]')")
    rules = sub.add_parser("rules", help="list the rules with their doc and source")
    rules.add_argument("pattern", nargs="?", default=None,
                       help="only rules whose name contains PATTERN, or matches it as a "
                            "glob (scheduler.filter.*); case-insensitive")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--plugins", action="store_true",
                       help="list the rules plugins: installed ones (entry-point group "
                            "kruleset.rules) and those given with --rules")
    add_rules_option(rules)
    from .sweep import command as sweep_command  # `kruleset sweep` lives in its own package

    sweep_command.add_parser(sub)
    from .capacity import add_parser as add_capacity  # `kruleset capacity`, in its module

    add_capacity(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kruleset`` console script."""
    from .guard import guarded

    args = _parser().parse_args(argv)
    return guarded(lambda: _dispatch(args))


def _dispatch(args: argparse.Namespace) -> int:
    refused = _load_plugins(args)
    if refused is not None:
        return refused
    try:
        if args.command == "rules":
            return _cmd_rules(args)
        if args.command == "lsp":
            from .lsp import main as lsp_main

            return lsp_main()
        if args.command == "capacity":
            from .capacity import main as capacity_main

            return capacity_main(args)
        if args.command == "sweep":
            from .sweep.command import main as sweep_main

            return sweep_main(args)
        return _cmd_run(args)
    except KeyboardInterrupt:  # outside a run (a run reports its own)
        print("kruleset: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from
        # complaining when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
