"""Every error of a refused file, not only the first (``kruleset check``).

The loader stops at the first error.  To find the next, the statement that
error points at is blanked out (its lines kept, empty, so later line numbers
do not move) and the file is read again, until it reads cleanly, an error
points somewhere it cannot blank (another file, no line),
:data:`MAX_ERRORS` are found, or the re-reading has taken :data:`MAX_SECONDS`
(a refused file of 150,000 pods takes seconds to read).  An error that only follows from an earlier
one (a pod on a node whose declaration was refused) is reported too, as
compilers do; each names its own line.

A statement is a top-level line plus the lines its open ``( [ {`` carry it
over; an error on a line inside a ``{ }`` block blanks that line alone when
the line is a whole statement of the block, so every bad flag of a kubelet
block is found.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from .errors import ScenarioError

__all__ = ["MAX_ERRORS", "MAX_SECONDS", "every_error", "statement_lines"]

#: Stop after this many errors (each costs a read of the whole file)...
MAX_ERRORS = 20
#: ... or after re-reading for this long.
MAX_SECONDS = 10.0

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def _brackets(line: str) -> list[str]:
    """The brackets of a line, outside strings and comments."""
    out: list[str] = []
    in_string = False
    escaped = False
    for ch in line:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            break
        elif ch in _OPEN or ch in _CLOSE:
            out.append(ch)
    return out


def _balanced(brackets: list[str]) -> bool:
    """No braces, and every ( [ closed on the line."""
    depth = 0
    for b in brackets:
        if b in "{}":
            return False
        depth += 1 if b in _OPEN else -1
        if depth < 0:
            return False
    return depth == 0


def statement_lines(lines: list[str], line: int) -> range:
    """The 1-based lines of the statement that holds ``line`` (see the module doc)."""
    stack: list[str] = []
    start = line
    for number, text in enumerate(lines, 1):
        if not stack:
            start = number
        own = _brackets(text)
        if number == line and stack and all(b == "{" for b in stack) and _balanced(own):
            return range(line, line + 1)
        for b in own:
            if b in _OPEN:
                stack.append(b)
            elif stack and stack[-1] == _CLOSE[b]:
                stack.pop()
        if number >= line and not stack:
            return range(start, number + 1)
    return range(start, len(lines) + 1)  # an open bracket runs to the end of the file


def every_error(first: ScenarioError, path: str, limit: int = MAX_ERRORS, *,
                text: str | None = None, folder: str | Path | None = None,
                seconds: float = MAX_SECONDS,
                stop: Callable[[], bool] | None = None) -> list[ScenarioError]:
    """``first`` and the errors after it in the file at ``path``, in line order.

    ``text`` is the file's text when the caller already has it (an editor's
    unsaved buffer, read by the language server), ``folder`` where its
    ``include`` paths are looked up (default: the file's folder); ``stop``
    ends the search before the next re-reading when it returns true (the
    editor's text has changed since).
    """
    from . import api
    from .lang import parse_text

    # The loader itself goes on after a refused statement and gathers what it
    # can (``errors`` on the error it raises); re-reading with the refused
    # statements blanked finds what it cannot (syntax errors, later passes).
    found = list(getattr(first, "errors", None) or [first])
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return found
    lines = text.split("\n")
    folder = Path(path).resolve().parent if folder is None else Path(folder)
    seen = {(e.line, e.column, e.message) for e in found}
    batch = list(found)
    deadline = time.monotonic() + seconds
    while len(found) < limit and time.monotonic() < deadline and not (stop and stop()):
        blank = [n for err in batch if err.file == path and 1 <= err.line <= len(lines)
                 for n in statement_lines(lines, err.line)]
        if all(not lines[n - 1].strip() for n in blank):
            break  # nothing left to take away: no progress possible
        for n in blank:
            lines[n - 1] = ""
        try:
            api.validate(parse_text("\n".join(lines), path, folder=folder))
        except ScenarioError as e:
            batch = [x for x in getattr(e, "errors", None) or [e]
                     if (x.line, x.column, x.message) not in seen]
            if not batch:
                break
            seen.update((x.line, x.column, x.message) for x in batch)
            found.extend(batch)
            continue
        except Exception:  # noqa: BLE001 - the first error is reported whatever happens here
            break
        break
    found = found[:limit]
    head, rest = found[0], found[1:]
    rest.sort(key=lambda e: (e.file != path, e.line, e.column))
    return [head, *rest]
