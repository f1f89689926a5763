"""``kruleset run`` and ``kruleset check`` over many files: the streams and the summary.

stdout (or ``--output FILE``) carries the chosen format's report and nothing
else.  stderr carries what is for people: every error of a refused file (with
its position, line and caret), the progress line on a terminal, and the
summary line at the end.  Ctrl-C stops the run: the report is closed over the
files that finished, the summary says how many did not run, and the exit
status is 130.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import attrs

from .batch import parallel, reports_in_order
from .exitcode import ExitCode, worst
from .fileresult import FileOptions
from .report import formats
from .report.model import FileReport, Summary
from .report.text import Style
from .terminal import use_color

__all__ = ["RunRequest", "execute", "expand"]


def expand(paths: Sequence[str]) -> list[str]:
    """Files as given, folders as every ``.kr`` file under them, sorted."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(str(f) for f in sorted(path.rglob("*.kr")))
        else:
            out.append(p)
    return out


@attrs.frozen(slots=True, kw_only=True)
class RunRequest:
    """The parsed command line of ``run`` or ``check`` that :func:`execute` needs."""

    command: str
    files: Sequence[str]
    format: str = "text"
    output: str | None = None
    quiet: bool = False
    color: str = "auto"
    jobs: int = 1
    explain: str | None = None
    until: int | None = None
    profile: Any = None
    trace: bool = False
    allow_unknown_fields: bool = False
    clusters: Sequence[str] = ()
    state: bool = False
    state_out: str | None = None
    only: Any = None
    variant: Any = None  # kruleset.sweep.single.RunVariant: a sweep's row, run alone


class _Run:
    def __init__(self, req: RunRequest, out: IO[str], err: IO[str]) -> None:
        self.req = req
        self.out = out
        self.err = err
        self.err_style = Style(color=use_color(req.color, err))
        self.progress: Any = None
        self.blocks = 0

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        if self.progress is None:
            yield
        else:
            with self.progress.hidden():
                yield

    def problems(self, report: FileReport) -> None:
        """The warnings and every error of a file, for people, on stderr."""
        style = self.err_style
        if report.notices:
            self.out.flush()
            self.err.write("".join(f"{style.warn(n)}\n" for n in report.notices))
            self.err.flush()
        if not report.problems:
            return
        paint = style.warn if report.problems[0].kind == "not simulated" else style.bad
        text = "\n\n".join(paint(p.text) for p in report.problems)
        if len(report.problems) > 1:
            text += "\n" + style.bad(f"{report.path}: {len(report.problems)} errors")
        self.out.flush()
        self.err.write(("\n" if self.blocks else "") + text + "\n")
        self.err.flush()

    def summary(self, summary: Summary) -> None:
        style = self.err_style
        bad = summary.interrupted or summary.counts["passed"] != summary.total
        self.err.write((style.bad if bad else style.ok)(summary.line()) + "\n")
        self.err.flush()


def execute(req: RunRequest) -> int:
    """Run or check every file and write the report; the exit status."""
    from .errors import ScenarioError
    from .inputs import prepare_inputs

    files = expand(req.files)
    if not files:
        print("kruleset: no .kr files found", file=sys.stderr)
        return ExitCode.REFUSED
    try:
        with prepare_inputs(files, req.clusters) as (shown, inputs):
            return _execute_to(req, shown, inputs)
    except ScenarioError as e:
        print(f"kruleset: {e.message}" + (f"\n  hint: {e.suggestion}" if e.suggestion else ""),
              file=sys.stderr)
        return ExitCode.REFUSED


def _execute_to(req: RunRequest, files: list[str], inputs: Any) -> int:
    if req.variant is not None and len(files) != 1:
        print(f"kruleset: --set, --fail and --seed run one file's variant; {len(files)} files "
              "were given", file=sys.stderr)
        return ExitCode.REFUSED
    if req.state_out is not None and len(files) != 1:
        print(f"kruleset: --state-out writes the end state of one file; {len(files)} files "
              "were given", file=sys.stderr)
        return ExitCode.REFUSED
    fmt_cls = formats.get(req.format)
    try:
        out: IO[str] = (open(req.output, "w", encoding="utf-8")  # noqa: SIM115
                        if req.output else sys.stdout)
    except OSError as e:
        print(f"kruleset: --output: cannot write {req.output}: {e.strerror or e}",
              file=sys.stderr)
        return ExitCode.REFUSED
    try:
        code = _execute(req, files, fmt_cls, out, inputs)
        if out is not sys.stdout:
            out.close()  # flushes: a full disk shows here
        return code
    except OSError as e:
        if out is sys.stdout:
            raise
        print(f"kruleset: --output: cannot write {req.output}: {e.strerror or e}",
              file=sys.stderr)
        return ExitCode.REFUSED
    finally:
        if out is not sys.stdout and not out.closed:
            with contextlib.suppress(OSError):
                out.close()


def _execute(req: RunRequest, files: list[str], fmt_cls: type[formats.Format],
             out: IO[str], inputs: Any) -> int:
    from .progress import ProgressLine

    color = use_color(req.color, out)
    opts = FileOptions(check=req.command == "check", explain=req.explain, until=req.until,
                       profile=req.profile, color=color, text=fmt_cls.wants_text,
                       decisions=fmt_cls.wants_decisions, trace=fmt_cls.wants_trace or req.trace,
                       format=req.format, allow_unknown_fields=req.allow_unknown_fields,
                       inputs=inputs, state=req.state, state_out=req.state_out is not None,
                       only=req.only, variant=req.variant)
    fmt = fmt_cls(out, formats.FormatOptions(req.command, req.quiet, color))
    run = _Run(req, out, sys.stderr)
    summary = Summary(total=len(files))
    queue: Any = None
    if not req.quiet and _is_tty(sys.stderr):
        if parallel(files, opts, req.jobs):
            queue = multiprocessing.Queue()
        run.progress = ProgressLine(sys.stderr, len(files), queue)
    started = time.monotonic()
    codes: list[int] = []
    fmt.begin(len(files))
    reports = reports_in_order(files, opts, req.jobs, progress_queue=queue,
                               on_finish=run.progress.file_done if run.progress else None)
    try:
        if run.progress is not None:
            run.progress.start()
        for report in reports:
            summary.add(report)
            codes.append(report.code)
            with run.writing():
                run.problems(report)
                fmt.file(report)
            if req.state_out is not None and not _write_state(req.state_out, report):
                codes.append(ExitCode.REFUSED)
            run.blocks += 1
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        reports.close()
        if run.progress is not None:
            run.progress.stop()
    summary.seconds = time.monotonic() - started
    fmt.end(summary)
    run.summary(summary)
    return ExitCode.INTERRUPTED if summary.interrupted else worst(codes)


def _write_state(path: str, report: FileReport) -> bool:
    """``--state-out``: the file's end state as YAML; False (said on stderr) if it cannot be."""
    if report.state_yaml is None:
        print(f"kruleset: --state-out: {report.path} did not run, no end state written",
              file=sys.stderr)
        return False
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(report.state_yaml)
    except OSError as e:
        print(f"kruleset: --state-out: cannot write {path}: {e.strerror or e}", file=sys.stderr)
        return False
    return True


def _is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
