"""The human-readable report of a run."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING

from ..terminal import use_color
from .compact import NodeNames, decision_lines
from .explain import render_explain
from .filters import DecisionFilter
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


def render_result(path: str, result: Result, style: Style, *, quiet: bool = False,
                  only: DecisionFilter | None = None) -> str:
    """Decisions in time order, then every expectation with its line and outcome.

    ``quiet``: only the title and the expectations that did not hold;
    ``only``: the decisions shown (see :mod:`kruleset.report.filters`).
    Lines are kept short as :mod:`kruleset.report.compact` says.
    """
    out: list[str] = []
    title = f" — {result.scenario.title}" if result.scenario.title else ""
    out.append(style.bold(f"{path}{title}"))
    if not quiet:
        decisions = result.decisions
        if only is not None and only.active:
            decisions = only.apply(decisions)
            out.append(style.dim(f"  showing {len(decisions):,} of {len(result.decisions):,} "
                                 f"decisions ({only.options})"))
        names = NodeNames(result.state.nodes)
        lines = decision_lines(decisions, names, style)
        if lines and names.legend():
            out.append(style.dim(names.legend()))
        out.extend(lines)
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
