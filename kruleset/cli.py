"""The ``kruleset`` command: ``run``, ``check``, ``rules``.

Exit status (:class:`ExitCode`): 0 every expectation holds, 1 some fail, 2 a
file is refused, 3 internal error or a mechanism not simulated yet.  With
several files the status is the worst of them.
"""

from __future__ import annotations

import argparse
import enum
import json
import os
import sys
import traceback
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from .errors import KrulesetError, NotImplementedMechanism, ScenarioError
from .model.quantity import QuantityError, parse_duration

__all__ = ["ExitCode", "main"]


class ExitCode(enum.IntEnum):
    """What ``kruleset`` exits with."""

    OK = 0
    FAILED = 1
    REFUSED = 2
    ERROR = 3


def _expand(paths: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(str(f) for f in sorted(path.rglob("*.kr")))
        else:
            out.append(p)
    return out


def _run_one(path: str, opts: dict[str, Any]) -> tuple[dict[str, Any], str, int]:
    """Run one file: (JSON entry, text, exit code). Never raises."""
    from . import api
    from .report import Style, file_entry, render_explain, render_result

    style = Style(color=opts["color"])
    try:
        if not Path(path).is_file():
            raise ScenarioError(f"{path}: no such file", None,
                                suggestion="give a .kr file or a folder holding .kr files")
        scenario = api.load(path)
        if opts["check"]:
            return (file_entry(path, "passed"), f"{path}: ok", ExitCode.OK)
        result = api.run(scenario, trace=opts["explain"] is not None or opts["trace"],
                         until=opts["until"],
                         profile=opts.get("profile"))
    except ScenarioError as e:
        return (file_entry(path, "refused", error=e), style.bad(e.render()), ExitCode.REFUSED)
    except NotImplementedMechanism as e:
        return (file_entry(path, "error", message=str(e)), style.warn(f"{path}: {e}"),
                ExitCode.ERROR)
    except KrulesetError as e:
        return (file_entry(path, "error", message=str(e)), style.bad(f"{path}: {e}"),
                ExitCode.ERROR)
    except Exception as e:  # an internal error is a bug: say so, no traceback unless asked
        detail = traceback.format_exc() if os.environ.get("KRULESET_DEBUG") else ""
        msg = (f"internal error (a bug in kruleset, please report it): "
               f"{type(e).__name__}: {e}")
        return (file_entry(path, "error", message=msg),
                style.bad(f"{path}: {msg}") + (f"\n{detail}" if detail else ""), ExitCode.ERROR)
    text = render_result(path, result, style)
    if opts["explain"]:
        text += "\n" + render_explain(opts["explain"], result, style)
    if result.unsupported:
        status, code = "error", ExitCode.ERROR
        text += "\n" + style.warn(f"{path}: {len(result.unsupported)} expectation(s) need a "
                                  "mechanism not simulated yet")
    elif result.failed:
        status, code = "failed", ExitCode.FAILED
        text += "\n" + style.bad(f"FAILED: {len(result.failed)} of "
                                 f"{len(result.expectations)} expectations")
    else:
        status, code = "passed", ExitCode.OK
        text += "\n" + style.ok(f"passed: {len(result.expectations)} expectations")
    return file_entry(path, status, result=result), text, code


def _cmd_run(args: argparse.Namespace, check: bool) -> int:
    from .report import report

    color = None if not args.no_color else False
    if color is None:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    until = None
    if getattr(args, "until", None):
        try:
            until = parse_duration(args.until)
        except QuantityError as e:
            print(f"kruleset: --until: {e}", file=sys.stderr)
            return ExitCode.REFUSED
    profile = None
    if getattr(args, "profile", None):
        from .rules.profile import load_profile

        try:
            profile = load_profile(args.profile)
        except ScenarioError as e:
            print(e.render(), file=sys.stderr)
            return ExitCode.REFUSED
    opts = {"check": check, "explain": getattr(args, "explain", None), "until": until,
            "trace": bool(getattr(args, "trace", False)),
            "color": bool(color), "profile": profile}
    files = _expand(args.files)
    if not files:
        print("kruleset: no .kr files found", file=sys.stderr)
        return ExitCode.REFUSED
    jobs = getattr(args, "jobs", 1) or 1
    if jobs > 1 and len(files) > 1 and profile is None:
        with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
            outs = list(pool.map(_run_one, files, [opts] * len(files)))
    else:
        outs = [_run_one(f, opts) for f in files]
    worst = max(code for _, _, code in outs)
    if args.format == "json":
        print(json.dumps(report([e for e, _, _ in outs]), indent=2, sort_keys=False))
    else:
        print("\n\n".join(text for _, text, _ in outs))
    return int(worst)


def _cmd_rules(args: argparse.Namespace) -> int:
    from .rules.registry import rulesets

    sets = rulesets()
    if args.format == "json":
        print(json.dumps([{
            "ruleset": rs.name, "kind": rs.kind, "doc": rs.doc,
            "rules": [{"name": r.name, "doc": r.doc, "source": r.source,
                       "enabled": r.enabled, "weight": r.weight} for r in rs.rules],
        } for rs in sets], indent=2))
        return ExitCode.OK
    for rs in sets:
        print(f"{rs.name} ({rs.kind}): {rs.doc}")
        for r in rs.rules:
            off = "" if r.enabled else " (off by default)"
            w = f" weight {r.weight}" if rs.kind == "score" else ""
            print(f"  {r.name}{off}{w}\n      {r.doc}\n      source: {r.source}")
    return ExitCode.OK


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kruleset",
        description="Simulate Kubernetes scheduling, preemption and eviction decisions and "
                    "explain them by the rules that made them.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="simulate .kr files and check their expectations")
    run.add_argument("files", nargs="+", help=".kr files or folders")
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.add_argument("--explain", metavar="REF", help="show every rule applied to a pod or node")
    run.add_argument("--trace", action="store_true",
                     help="record every rule evaluation; the JSON report then lists each "
                          "scheduling attempt's feasible nodes and per-node scores")
    run.add_argument("--until", metavar="T", help="stop the simulation at time T (e.g. 90s)")
    run.add_argument("--profile", metavar="FILE", help="a kruleset profile YAML")
    run.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                     help="worker processes for several files (default: all cores)")
    run.add_argument("--no-color", action="store_true", help="never colour the output")
    check = sub.add_parser("check", help="parse and validate .kr files only")
    check.add_argument("files", nargs="+")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--no-color", action="store_true")
    rules = sub.add_parser("rules", help="list every rule with its doc and source")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kruleset`` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "rules":
            return _cmd_rules(args)
        return _cmd_run(args, check=args.command == "check")
    except KeyboardInterrupt:
        return ExitCode.ERROR
    except BrokenPipeError:
        return ExitCode.OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
