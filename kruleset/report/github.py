"""GitHub Actions workflow commands: annotations on the pull request's diff.

Each failed expectation and each error of a refused file is an
``::error file=F,line=L,col=C,title=T::message`` line (an expectation whose
mechanism is not simulated yet a ``::warning``), which GitHub shows on that
line of the changed file.  Paths are written as given: run kruleset from the
repository's root with relative paths so they match the diff.  Passing
files print nothing.
"""

from __future__ import annotations

from .formats import Format, register
from .model import FileReport

__all__ = ["GithubFormat", "command"]


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, *, file: str, line: int = 0, col: int = 0,
            title: str = "") -> str:
    """One workflow command line, escaped as GitHub asks."""
    props = [f"file={_prop(file)}"]
    if line:
        props.append(f"line={line}")
        if col:
            props.append(f"col={col}")
    if title:
        props.append(f"title={_prop(title)}")
    return f"::{kind} {','.join(props)}::{_data(message)}\n"


@register("github")
class GithubFormat(Format):
    """``::error`` / ``::warning`` lines for what failed."""

    def file(self, report: FileReport) -> None:
        """The file's annotations."""
        for p in report.problems:
            kind = "warning" if p.kind == "not simulated" else "error"
            self.out.write(command(kind, p.message, file=p.file, line=p.line, col=p.column,
                                   title=f"kruleset: {p.kind}"))
        for x in report.expectations:
            if x.passed:
                continue
            kind = "warning" if x.unsupported else "error"
            title = "kruleset: not simulated yet" if x.unsupported else \
                "kruleset: expectation failed"
            self.out.write(command(kind, f"{x.text}: {x.message}", file=report.path,
                                   line=x.line, col=x.column, title=title))
        self.out.flush()
