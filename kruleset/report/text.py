"""The human-readable report of a run."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING, Any

from ..model.quantity import format_duration
from ..terminal import use_color
from .formats import Format, register
from .model import FileReport

if TYPE_CHECKING:
    from ..sim.result import Result

__all__ = ["Style", "TextFormat", "render_result", "render_explain"]


class Style:
    """ANSI colour: as ``--color auto`` decides for ``stream`` unless ``color`` is given."""

    def __init__(self, stream: IO[str] | None = None, *, color: bool | None = None) -> None:
        if color is None:
            color = use_color("auto", stream or sys.stdout)
        self.color = color

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def ok(self, text: str) -> str:
        """Green."""
        return self._wrap("32", text)

    def bad(self, text: str) -> str:
        """Red."""
        return self._wrap("31", text)

    def warn(self, text: str) -> str:
        """Yellow."""
        return self._wrap("33", text)

    def dim(self, text: str) -> str:
        """Faint."""
        return self._wrap("2", text)

    def bold(self, text: str) -> str:
        """Bold."""
        return self._wrap("1", text)


def render_result(path: str, result: Result, style: Style, *, quiet: bool = False) -> str:
    """Decisions in time order, then every expectation with its line and outcome.

    ``quiet``: only the title and the expectations that did not hold.
    """
    out: list[str] = []
    title = f" — {result.scenario.title}" if result.scenario.title else ""
    out.append(style.bold(f"{path}{title}"))
    for d in () if quiet else result.decisions:
        node = f" on {d.node}" if d.node else ""
        by = f" by {d.by}" if d.by and d.kind in ("preempted", "evicted", "deleted") else ""
        reason = f" {d.reason}" if d.reason else ""
        msg = f": {d.message}" if d.message else ""
        rules = style.dim(f"  [{', '.join(d.rules)}]") if d.rules else ""
        out.append(f"  {format_duration(d.time):>7}  {d.kind:<10} {d.pod}{node}{by}"
                   f"{reason}{msg}{rules}")
    if result.expectations:
        out.append("  expectations:")
    for r in result.expectations:
        if quiet and r.passed:
            continue
        if r.unsupported:
            mark = style.warn("?")
        elif r.passed:
            mark = style.ok("✓")
        else:
            mark = style.bad("✗")
        tail = f"  — {r.message}" if r.message else ""
        out.append(f"    {mark} line {r.line}: {r.expectation.text}{tail}")
    return "\n".join(out)


@register("text")
class TextFormat(Format):
    """The human report on stdout: each file's decisions and expectations, a blank
    line between files; with ``--quiet`` only the files and expectations that
    failed.  Refusals and errors go to stderr, with the run's other messages."""

    wants_text = True

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self._first = True

    def file(self, report: FileReport) -> None:
        """Write the file's block, if it has one (a refused file has none here)."""
        text = report.quiet_text if self.options.quiet else report.text
        if not text:
            return
        self.out.write(text + "\n" if self._first else "\n" + text + "\n")
        self._first = False
        self.out.flush()


def render_explain(ref: str, result: Result, style: Style) -> str:
    """Everything the trace says about ``ref``: each rule, its result and why."""
    out = [style.bold(f"explain {ref}")]
    kind, slash, rest = ref.partition("/")
    if slash and kind in _WORKLOADS:
        return _explain_workload(out, _WORKLOADS[kind], rest, result, style)
    key = ref if "/" in ref else f"default/{ref}"
    ps = result.state.pods.get(key)
    if ps is None:
        node = result.state.nodes.get(ref)
        if node is None:
            return style.bad(f"no pod or node called {ref} in this run")
    for d in result.decisions:
        if d.pod == key or d.by == key or d.pod == ref:
            out.append(f"  {format_duration(d.time):>7}  {d.kind} {d.pod}"
                       f"{' on ' + d.node if d.node else ''}: {d.reason} {d.message}".rstrip())
    if result.trace is not None:
        _trace_lines(out, result.trace.entries, lambda e: key in e.subject or (
            ps is None and ref in e.subject) or key in e.why)
    return "\n".join(out)


def _trace_lines(out: list[str], entries: Any, keep: Any) -> None:
    """The trace entries ``keep`` accepts, grouped by time, under ``rules:``."""
    out.append("  rules:")
    last_time = None
    for e in entries:
        if keep(e):
            if e.time != last_time:
                out.append(f"   at {format_duration(e.time)}:")
                last_time = e.time
            why = f": {e.why}" if e.why else ""
            out.append(f"    {e.rule} [{e.subject}] {e.result}{why}")


_WORKLOADS = {"statefulset": "StatefulSet", "daemonset": "DaemonSet", "job": "Job"}


def _explain_workload(out: list[str], kind: str, rest: str, result: Result,
                      style: Style) -> str:
    """``--explain job/NAME`` (statefulset/…, daemonset/…): the controller's decisions."""
    key = rest if "/" in rest else f"default/{rest}"
    if f"{kind}/{key}" not in result.state.workloads:
        return style.bad(f"no {kind} called {key} in this run")
    by = f"{kind.lower()}/{key.split('/', 1)[1]}"
    for d in result.decisions:
        if d.by == by:
            out.append(f"  {format_duration(d.time):>7}  {d.kind} {d.pod}"
                       f"{' on ' + d.node if d.node else ''}: {d.reason} {d.message}".rstrip())
    if result.trace is not None:
        prefix = f"controllers.{kind.lower()}."
        _trace_lines(out, result.trace.entries,
                     lambda e: e.rule.startswith(prefix) and e.subject.startswith(key))
    return "\n".join(out)
