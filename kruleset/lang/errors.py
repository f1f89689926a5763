"""Error reporting helpers: turn tokens and items into spans and ScenarioErrors."""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable
from typing import Any

from ..errors import ScenarioError, Span, did_you_mean
from .syntax import Item, first_word

__all__ = ["LazySpan", "Source", "fail"]

_NEWLINE = re.compile("\n")
# Line offsets in 4 bytes where the platform's unsigned int has them (a text
# under 2 GiB), else in 8.
_OFFSET = "I" if array("I").itemsize >= 4 else "q"
_OFFSET_MAX = 2 ** (8 * array(_OFFSET).itemsize - 1) - 1


class Source:
    """The text being parsed, to give every error its line text.

    ``base_line`` shifts line numbers when the text is a fragment of a larger
    file (the Gherkin steps use it).  Lines are kept as the offsets where
    they start (4 bytes a line), not as strings of their own: a file of
    millions of short lines would otherwise hold a second copy of itself in
    millions of string objects, about 60 bytes a line.
    """

    __slots__ = ("file", "text", "starts", "base_line", "folder")

    def __init__(self, text: str, file: str, base_line: int = 0, folder: str | None = None) -> None:
        self.file = file
        self.text = text
        starts = array(_OFFSET if len(text) <= _OFFSET_MAX else "q", [0])
        starts.extend(m.end() for m in _NEWLINE.finditer(text))
        self.starts = starts
        self.base_line = base_line
        self.folder = folder

    @property
    def line_count(self) -> int:
        """How many lines the text has (as ``text.split("\\n")`` counts them)."""
        return len(self.starts)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line of this source (without its newline)."""
        starts = self.starts
        if 1 <= line <= len(starts):
            end = starts[line] - 1 if line < len(starts) else len(self.text)
            return self.text[starts[line - 1]:end].rstrip("\r")
        return ""

    def span_at(self, line: int, column: int) -> Span:
        """A span at a line and column of this source."""
        return Span(self.file, line + self.base_line, column, self.line_text(line))

    def span(self, item: Item) -> Span:
        """The span of an item's first token."""
        word = first_word(item)
        return self.span_at(word.line, word.column)

    def kept_span(self, item: Item) -> Span:
        """:meth:`span`, for what the scenario keeps: its line's text is read
        from this source when asked for (see :class:`LazySpan`)."""
        word = first_word(item)
        span = object.__new__(LazySpan)
        _PUT_FILE(span, self.file)
        _PUT_LINE(span, word.line + self.base_line)
        _PUT_COLUMN(span, word.column)
        _PUT_SOURCE(span, self)
        return span

    def error(
        self,
        message: str,
        item: Item,
        *,
        expected: str = "",
        suggestion: str = "",
    ) -> ScenarioError:
        """A ScenarioError pointing at ``item``."""
        return ScenarioError(message, self.span(item), expected=expected, suggestion=suggestion)

    def unknown(
        self,
        what: str,
        name: str,
        item: Item,
        choices: Iterable[str],
        *,
        expected: str = "",
    ) -> ScenarioError:
        """``unknown WHAT 'NAME', did you mean 'X'?`` pointing at ``item``."""
        names = sorted(set(choices))
        hint = did_you_mean(name, names)
        message = f"unknown {what} '{name}'"
        if hint:
            message += ", " + hint
        known = ""
        if names and not expected:
            shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
            known = f"known: {shown}"
        return self.error(message, item, expected=expected, suggestion=known)


def fail(source: Source, message: str, item: Item, **kw: str) -> ScenarioError:
    """Shorthand for :meth:`Source.error`."""
    return source.error(message, item, **kw)


class LazySpan(Span):
    """A :class:`Span` whose line text is read from its :class:`Source` when asked for.

    Every object, event and expectation of a ``.kr`` file keeps a span; with
    the text of its line in a string of its own, a file of a million
    one-line pods held a second copy of itself, about 100 bytes a line.
    The source's text is kept by the scenario anyway.  The ``text`` slot
    holds the source.  Equal to, and hashed as, the :class:`Span` it
    stands for; copied and pickled as that span.
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # attrs.evolve and other callers of the class build a plain Span.
        return Span(*args, **kwargs)

    @property  # type: ignore[override]
    def text(self) -> str:  # noqa: D102 - Span.text
        src: Source = _GET_SOURCE(self)
        return src.line_text(self.line - src.base_line)

    def plain(self) -> Span:
        """The :class:`Span` this one stands for."""
        return Span(self.file, self.line, self.column, self.text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Span):
            return (self.file, self.line, self.column, self.text) == (
                other.file, other.line, other.column, other.text)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self.plain())

    def __reduce__(self) -> tuple[Any, ...]:
        return (Span, (self.file, self.line, self.column, self.text))

    def __repr__(self) -> str:
        return repr(self.plain())


_SLOTS = {name: Span.__dict__[name] for name in ("file", "line", "column", "text")}
_PUT_FILE = _SLOTS["file"].__set__
_PUT_LINE = _SLOTS["line"].__set__
_PUT_COLUMN = _SLOTS["column"].__set__
_PUT_SOURCE = _SLOTS["text"].__set__
_GET_SOURCE = _SLOTS["text"].__get__
