"""Where each line of a Gherkin-built scenario came from in its ``.feature`` file.

The steps join statements into one ``.kr`` text, so the loader's errors name
a line of that text.  Each added line remembers the ``.feature`` file, line
and indentation it came from (a step's own line, or a line of its docstring),
so an error or a failed expectation can point at the ``.feature`` line a
user edits instead of the generated text.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import attrs

from ..errors import ScenarioError, Span

__all__ = ["Origin", "feature_lines", "located", "shown_path", "with_offset"]


@attrs.frozen(slots=True)
class Origin:
    """A ``.feature`` line: file (relative to the current folder when inside it),
    1-based line, the column offset of the statement's text in it, the line's text."""

    file: str
    line: int
    offset: int
    text: str


@lru_cache(maxsize=64)
def _read(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8").split("\n"))
    except (OSError, UnicodeDecodeError):
        return ()


def shown_path(path: str) -> str:
    """``path`` relative to the current folder when it is inside it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def feature_lines(path: str, step_line: int, docstring: bool, count: int) -> list[Origin]:
    """The origins of ``count`` statement lines added by the step at ``step_line``."""
    lines = _read(path)
    first = step_line
    if docstring:
        # The docstring's text starts on the line after its opening delimiter.
        first = next((n + 1 for n in range(step_line + 1, len(lines) + 1)
                      if lines[n - 1].strip().startswith(('"""', "```"))), step_line + 2)
    shown = shown_path(path)
    out = []
    for i in range(count):
        number = first + i
        text = lines[number - 1] if 1 <= number <= len(lines) else ""
        out.append(Origin(shown, number, 0, text))
    return out


def with_offset(origin: Origin, kr_text: str) -> Origin:
    """``origin`` with the column where ``kr_text`` starts in the feature line."""
    found = origin.text.find(kr_text.strip()) if kr_text.strip() else -1
    lead = len(kr_text) - len(kr_text.lstrip())
    return attrs.evolve(origin, offset=max(found - lead, 0))


def located(error: ScenarioError, origin: Origin | None) -> ScenarioError:
    """``error`` pointing at ``origin``'s ``.feature`` line (unchanged without one)."""
    if origin is None:
        return error
    column = error.column + origin.offset if error.column else 0
    return ScenarioError(error.message, Span(origin.file, origin.line, column, origin.text),
                         expected=error.expected, suggestion=error.suggestion)
