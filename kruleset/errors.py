"""Exceptions raised by kruleset.

Every refusal of user input is a :class:`ScenarioError` (a ``ValueError``) that
carries the place it points at, so callers can catch the built-in they expect
and still get structured fields.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from contextvars import ContextVar
from typing import TypeVar

import attrs

__all__ = [
    "NOTICES",
    "STRICT",
    "KrulesetError",
    "ManifestError",
    "NotImplementedMechanism",
    "ScenarioError",
    "Span",
    "combined",
    "did_you_mean",
    "internal",
    "is_bug",
    "notice",
]

# False: unknown fields in Kubernetes files are warnings, not errors
# (``--allow-unknown-fields``, for dumps of newer versions).
STRICT: ContextVar[bool] = ContextVar("kruleset_strict_fields", default=True)
# Where readers put what the user should know that is no error (warnings,
# summaries of files read): a scenario's notices.  None: nobody listens.
NOTICES: ContextVar[list[str] | None] = ContextVar("kruleset_notices", default=None)


def notice(message: str) -> None:
    """Tell the user something about the input that is not an error (once per message)."""
    out = NOTICES.get()
    if out is not None and message not in out:
        out.append(message)


@attrs.frozen(slots=True, weakref_slot=False)
class Span:
    """A place in a source file: 1-based line and column, and the line's text.

    No weak-reference slot: a file of a million one-line pods has a span a
    pod, and the slot would make each 80 bytes rather than 64.
    """

    file: str = "<text>"
    line: int = 0
    column: int = 0
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span()


#: The longest source line an error quotes (a caret further right quotes none).
MAX_SHOWN_LINE = 4096


def _shown_line(text: str, column: int) -> str:
    """The line an error quotes: cut after :data:`MAX_SHOWN_LINE` characters."""
    if len(text) <= MAX_SHOWN_LINE:
        return text
    if column > MAX_SHOWN_LINE - 80:
        return ""
    return text[:MAX_SHOWN_LINE] + " …"


class KrulesetError(Exception):
    """Base class of every error kruleset raises on purpose."""


class ScenarioError(KrulesetError, ValueError):
    """A scenario, manifest or profile that kruleset refuses.

    Fields: ``file``, ``line``, ``column`` (1-based; 0 when unknown), ``message``
    (what is wrong), ``expected`` (what would have been accepted, may be empty),
    ``suggestion`` (a near name or a fix, may be empty) and ``source_line``.
    ``internal`` is true for a bug met while reading (exit status 3, not 2).
    """

    internal = False

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        *,
        expected: str = "",
        suggestion: str = "",
    ) -> None:
        span = span or NO_SPAN
        self.message = message
        self.span = span
        self.file = span.file
        self.line = span.line
        self.column = span.column
        self.source_line = _shown_line(span.text, span.column)
        self.expected = expected
        self.suggestion = suggestion
        super().__init__(self.render())

    def render(self) -> str:
        """The full message: ``FILE:LINE:COL: message``, the line, a caret, hints."""
        head = f"{self.file}:{self.line}:{self.column}: " if self.line else (
            f"{self.file}: " if self.file != "<text>" else ""
        )
        parts = [head + self.message]
        if self.source_line and self.line:
            parts.append("    " + self.source_line.rstrip("\n"))
            parts.append("    " + " " * max(self.column - 1, 0) + "^")
        if self.expected:
            parts.append(f"expected: {self.expected}")
        if self.suggestion:
            parts.append(f"hint: {self.suggestion}")
        return "\n".join(parts)

    def to_json(self) -> dict[str, object]:
        """The ``error`` object of the JSON report."""
        msg = self.message
        if self.suggestion:
            msg += f" ({self.suggestion})"
        return {"line": self.line, "column": self.column, "message": msg}


class ManifestError(ScenarioError):
    """A Kubernetes YAML file kruleset refuses: names the file, document and field."""

    def __init__(
        self,
        message: str,
        *,
        file: str,
        document: int | None = None,
        field: str = "",
        span: Span | None = None,
        suggestion: str = "",
        line: int | None = None,
    ) -> None:
        self.document = document
        self.field = field
        self.manifest_file = file  # the Kubernetes file itself (the span may be an include)
        self.file_line = line
        where = file if line is None else f"{file}:{line}"
        if document is not None:
            where += f", document {document}"
        if field:
            where += f", field {field}"
        super().__init__(f"{where}: {message}", span, suggestion=suggestion)


class NotImplementedMechanism(KrulesetError, NotImplementedError):
    """A statement whose mechanism kruleset does not simulate yet (exit status 3)."""

    def __init__(self, mechanism: str, span: Span | None = None) -> None:
        self.mechanism = mechanism
        self.span = span or NO_SPAN
        where = f"{self.span}: " if self.span.line else ""
        super().__init__(f"{where}{mechanism} is not simulated yet by this version of kruleset")


def combined(errors: list[ScenarioError]) -> ScenarioError:
    """One error for several found in one run: the first, then every other one.

    The result is of the first error's class with its place and fields, its
    message followed by the others (each with its own place); ``errors``
    holds them all.
    """
    first = errors[0]
    if len(errors) == 1:
        return first
    err = ScenarioError.__new__(type(first))
    err.__dict__.update(first.__dict__)
    more = [(f"{e.file}:{e.line}:{e.column}: " if e.line and (e.file, e.line) !=
             (first.file, first.line) else "") + e.message +
            (f" ({e.suggestion})" if e.suggestion else "") for e in errors[1:]]
    err.message = (f"{first.message}\nand {len(more)} more error{'s' if len(more) > 1 else ''}:"
                   + "".join(f"\n  {m}" for m in more))
    err.errors = list(errors)  # type: ignore[attr-defined]
    err.internal = any(e.internal for e in errors)
    Exception.__init__(err, err.render())
    return err


_E = TypeVar("_E", bound=ScenarioError)


def is_bug(exc: BaseException) -> bool:
    """Whether ``exc`` caught by a broad handler is a bug to report as an internal error.

    Any ``BaseException`` is (a library's panic derives from it, not from
    ``Exception``), but Ctrl-C, ``sys.exit`` and a generator being closed.
    """
    return not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit))


def internal(err: _E) -> _E:
    """``err`` marked as a bug of kruleset met while reading (exit status 3)."""
    err.internal = True
    return err


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'?"`` for the nearest choice, or ``""`` when none is near."""
    names = sorted(set(choices))
    # A ratio of 0.6 needs the word at most 7/3 as long as the name: a longer
    # one (a stray megabyte) is near nothing, and difflib would index it all.
    if not names or len(word) * 3 > 7 * max(map(len, names)):
        return ""
    found = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return f"did you mean '{found[0]}'?" if found else ""
