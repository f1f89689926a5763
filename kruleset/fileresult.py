"""One file of ``kruleset run`` or ``check``, worked into a :class:`FileReport`.

:func:`report_file` runs in the parent or in a ``-j`` worker process and never
raises for a bad file: a refusal, a mechanism not simulated yet and an
internal error all become a report with a status and the errors found.
"""

from __future__ import annotations

import fnmatch
import os
import traceback
from pathlib import Path
from typing import Any

import attrs

from .errors import KrulesetError, NotImplementedMechanism, ScenarioError, did_you_mean, is_bug
from .exitcode import ExitCode
from .model.quantity import format_duration
from .report.model import ExpectationReport, FileReport, Problem

__all__ = ["FileOptions", "report_file"]

#: At most this many decisions are quoted for a failed expectation.
RELATED_DECISIONS = 5


@attrs.frozen(slots=True)
class FileOptions:
    """What every file of a run is asked (picklable, sent to the workers)."""

    check: bool = False
    explain: str | None = None
    until: int | None = None
    profile: Any = None
    color: bool = False
    text: bool = True
    decisions: bool = True
    trace: bool = False
    format: str = "text"
    allow_unknown_fields: bool = False
    inputs: Any = None   # kruleset.inputs.Inputs: stdin's copy, the --cluster files
    state: bool = False  # the text report ends with the end state's tables
    state_out: bool = False  # the report carries the end state as Kubernetes YAML
    only: Any = None   # a report.filters.DecisionFilter: the decisions listed
    variant: Any = None  # a sweep.single.RunVariant: --set, --fail, --at, --seed


def _problem(path: str, e: ScenarioError) -> Problem:
    file = path if e.file == "<text>" else e.file
    return Problem(file, e.line, e.column, str(e.to_json()["message"]), e.render())


def _failure(path: str, message: str, kind: str) -> FileReport:
    return FileReport(path, "error", ExitCode.ERROR,
                      problems=(Problem(path, 0, 0, message, f"{path}: {message}", kind),))


def _check_file(path: str) -> None:
    """Refuse a path that is no regular file (missing, a device, a FIFO) before reading it."""
    from .readfile import check_regular

    try:
        check_regular(path)
    except OSError as e:
        what = "no such file" if isinstance(e, FileNotFoundError) else e.strerror
        raise ScenarioError(f"{path}: {what}", None, suggestion=_GIVE) from None


_GIVE = ("give a .kr file, a folder holding .kr files, a kubectl get -o yaml|json dump "
         "or - for stdin")


def check_explained(ref: str, result: Any) -> None:
    """Refuse ``--explain REF`` when the run has no pod or node called REF (a typo)."""
    st = result.state
    key = ref if "/" in ref else f"default/{ref}"
    if key in st.pods or ref in st.nodes:
        return
    names = [*st.pods, *(k.removeprefix("default/") for k in st.pods), *st.nodes]
    raise ScenarioError(f"--explain {ref}: no pod or node called {ref} in this run",
                        expected="a pod (NAME or NAMESPACE/NAME) or a node of the scenario",
                        suggestion=did_you_mean(ref, names))


def report_file(path: str, opts: FileOptions) -> FileReport:
    """Load, validate and (unless ``check``) simulate ``path``; with the format's extra."""
    from .report import formats

    report, result = _report(path, opts)
    try:
        extra = formats.get(opts.format).extract(path, result, report)
    except Exception as e:  # noqa: BLE001 - a bug in a format must not stop the run
        return _failure(path, f"internal error (a bug in kruleset, please report it) while "
                              f"building the {opts.format} report: {type(e).__name__}: {e}",
                        "internal")
    return report if extra is None else attrs.evolve(report, extra=extra)


def _report(path: str, opts: FileOptions) -> tuple[FileReport, Any]:
    """The report of ``path`` and its Result (None when it did not run)."""
    from . import inputs, progress
    from .diagnose import every_error
    from .sweep.axes import SweepError

    progress.ACTIVITY.begin(path)
    try:
        if path != inputs.STDIN_LABEL:
            _check_file(path)  # missing, a device, a FIFO: refused before reading
        elif not inputs.exists(path, opts.inputs):
            raise ScenarioError(f"{path}: no such file", None, suggestion=_GIVE)
        scenario = inputs.load_input(path, opts.inputs,
                                     allow_unknown_fields=opts.allow_unknown_fields)
        if opts.check:
            return FileReport(path, "passed", ExitCode.OK, title=scenario.title,
                              notices=scenario.notices,
                              text=f"{path}: ok"), None
        from .sim.core import Simulation

        profile, variant = opts.profile, None
        if opts.variant is not None:
            from .sweep.single import prepared

            scenario, built, variant = prepared(scenario, opts.variant, opts.until)
            profile = profile or built
        sim = Simulation(scenario, profile=profile,
                         trace=opts.trace or opts.explain is not None, until=opts.until)
        progress.ACTIVITY.simulating(sim)
        if variant is None:
            result = sim.run()
        else:
            from .sweep.single import simulate

            result = simulate(sim, scenario, variant, opts.variant.at)
        if opts.explain is not None:
            check_explained(opts.explain, result)
    except SweepError as e:  # an option of the run, not the file: no other errors to look for
        return FileReport(path, "refused", ExitCode.REFUSED,
                          problems=(_problem(path, e),)), None
    except ScenarioError as e:
        if e.internal:  # a bug met while reading: not the file's fault
            return _failure(path, e.message, "internal"), None
        errors = every_error(e, path) if _kr_file(path, opts) else [e]
        return FileReport(path, "refused", ExitCode.REFUSED,
                          problems=tuple(_problem(path, x) for x in errors)), None
    except NotImplementedMechanism as e:
        return _failure(path, str(e), "not simulated"), None
    except KrulesetError as e:
        return _failure(path, str(e), "error"), None
    except BaseException as e:  # an internal error is a bug: say so, no traceback unless asked
        if not is_bug(e):
            raise
        detail = traceback.format_exc() if os.environ.get("KRULESET_DEBUG") else ""
        msg = (f"internal error (a bug in kruleset, please report it): "
               f"{type(e).__name__}: {e}")
        report = _failure(path, msg, "internal")
        if detail:
            p = report.problems[0]
            report = attrs.evolve(report, problems=(attrs.evolve(p, text=f"{p.text}\n{detail}"),))
        return report, None
    finally:
        progress.ACTIVITY.end()
    report = _simulated(path, result, opts)
    if scenario.notices:
        report = attrs.evolve(report, notices=scenario.notices)
    return report, result


def _kr_file(path: str, opts: FileOptions) -> bool:
    """A .kr file on disk read alone, whose statements can be blanked to find more errors."""
    from .inputs import is_dump

    return (Path(path).is_file() and not is_dump(path)
            and not (opts.inputs is not None and opts.inputs.clusters))


def _simulated(path: str, result: Any, opts: FileOptions) -> FileReport:
    from .report.text import Style, render_explain, render_result

    if result.unsupported:
        status, code = "error", ExitCode.ERROR
    elif result.failed:
        status, code = "failed", ExitCode.FAILED
    else:
        status, code = "passed", ExitCode.OK
    from .inputs import runs_as_dump
    from .state_report import end_state, pending_lines, render_state

    # Built only when shown: the end state of a million pods takes seconds.
    dump = opts.text and runs_as_dump(path, opts.inputs)
    state = end_state(result) if (opts.decisions or opts.state or dump) else None
    state_yaml = None
    if opts.state_out:
        from .state_manifest import state_yaml as to_yaml

        state_yaml = to_yaml(result)
    text = quiet = ""
    if opts.text:
        style = Style(color=opts.color)
        if result.unsupported:
            tail = style.warn(f"{path}: {len(result.unsupported)} expectation(s) need a "
                              "mechanism not simulated yet")
        elif result.failed:
            tail = style.bad(f"FAILED: {len(result.failed)} of "
                             f"{len(result.expectations)} expectations")
        else:
            tail = style.ok(f"passed: {len(result.expectations)} expectations")
        text = render_result(path, result, style, only=opts.only)
        if state is not None and opts.state:
            text += "\n" + render_state(state)
        elif state is not None and dump:
            text += "\n" + pending_lines(state)
        if opts.explain:
            text += "\n" + render_explain(opts.explain, result, style)
        text += "\n" + tail
        if status != "passed":
            quiet = render_result(path, result, style, quiet=True) + "\n" + tail
    expectations = tuple(
        ExpectationReport(r.line, r.expectation.text, r.passed, r.message, r.unsupported,
                          r.expectation.span.column,
                          () if r.passed else _related(result, r.expectation))
        for r in result.expectations)
    shown = opts.only.apply(result.decisions) if opts.only is not None else result.decisions
    decisions = tuple(d.to_json() for d in shown) if opts.decisions else ()
    attempts = None
    if opts.decisions and result.trace is not None:
        from .report.json import attempt_json

        attempts = tuple(attempt_json(a) for a in getattr(result.trace, "attempts", ()))
    claims: tuple[dict[str, Any], ...] = ()
    if opts.decisions and getattr(result.state, "dra", None) is not None:
        from .rules.dra.checks import claims_json

        claims = tuple(claims_json(result.state))
    pdbs: tuple[dict[str, Any], ...] = ()
    if opts.decisions and result.state.pdbs:
        from .rules.disruption.pdb import pdbs_json

        pdbs = tuple(pdbs_json(result.state, result.end_time))
    workloads = result.workloads if opts.decisions else ()
    queue: tuple[dict[str, Any], ...] = ()
    if opts.decisions:
        queue = _queue_json(result)
    return FileReport(path, status, code, title=result.scenario.title,
                      expectations=expectations, decisions=decisions, text=text,
                      quiet_text=quiet, attempts=attempts, claims=claims, pdbs=pdbs,
                      state=state if opts.decisions else None, state_yaml=state_yaml,
                      workloads=workloads, queue=queue)


def _queue_json(result: Any) -> tuple[dict[str, Any], ...]:
    """Per pod, in the order pods were first tried, every attempt with its simulated
    time, outcome and why the queue let the pod be tried then."""
    from .model.quantity import format_duration

    per: dict[str, list[dict[str, Any]]] = {}
    for a in getattr(result, "attempts", ()):
        row = a.as_json()
        row["time"] = format_duration(a.time)
        per.setdefault(a.pod, []).append(row)
    return tuple({"pod": pod, "attempts": rows} for pod, rows in per.items())


def _related(result: Any, expectation: Any) -> tuple[str, ...]:
    """The last decisions about what a failed expectation names: what broke it."""
    ref = expectation.ref or ""
    pattern = ref if "/" in ref else f"default/{ref}"
    hits = [d for d in result.decisions
            if ref and (fnmatch.fnmatchcase(d.pod, pattern) or d.node == ref or d.by == pattern)]
    return tuple(_decision_line(d) for d in hits[-RELATED_DECISIONS:])


def _decision_line(d: Any) -> str:
    node = f" on {d.node}" if d.node else ""
    by = f" by {d.by}" if d.by else ""
    reason = f" {d.reason}" if d.reason else ""
    msg = f": {d.message}" if d.message else ""
    rules = f" [{', '.join(d.rules)}]" if d.rules else ""
    return f"{format_duration(d.time)} {d.kind} {d.pod}{node}{by}{reason}{msg}{rules}"
