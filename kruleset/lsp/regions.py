"""The ``.kr`` text of a document: a whole ``.kr`` file, or each Gherkin scenario of a ``.feature``.

A ``.feature`` scenario's ``.kr`` text is what the step library
(:mod:`kruleset.bdd.steps`) builds: the Background's statements, then its
own, in order — ``Given the scenario:`` docstrings (their indentation, the
column of the opening delimiter, removed, as Gherkin does) and the steps
that are statements (``Given node n1 cpu=4``, ``When at 10s …``,
``Then expect …``).  A :class:`Region` keeps, for each of its lines, the
document line and the column it starts at, so a diagnostic found in the
text is placed on the ``.feature`` line.

A scenario that ends ``Then the scenario is refused with "…"`` is refused on
purpose: its errors are shown as information, not errors.  A Scenario Outline
(``<placeholders>`` filled from Examples) is not checked.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["Region", "regions"]

_STEP = re.compile(r"^(\s*)(Given|When|Then|And|But|\*)\s+(.*?)\s*$")
_HEADER = re.compile(r"^\s*(Background|Scenario Outline|Scenario Template|Scenario|Example"
                     r"|Rule|Feature|Examples|Scenarios)\s*:")
_NOT_STATEMENTS = {
    "Given": re.compile(r"the scenario:$"),
    "When": re.compile(r"the scenario runs$"),
}
_REFUSED = re.compile(r'the scenario is refused with ".*"$')


@attrs.define
class Region:
    """``.kr`` text cut from a document, with where each of its lines came from."""

    name: str
    lines: list[str] = attrs.Factory(list)
    origins: list[tuple[int, int]] = attrs.Factory(list)  # (document line, column), 0-based
    refused: bool = False   # the scenario expects its refusal
    outline: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def add(self, text: str, line: int, column: int) -> None:
        self.lines.append(text)
        self.origins.append((line, column))

    def place(self, line: int, column: int) -> tuple[int, int]:
        """The document position of a 0-based position of the text."""
        if not self.origins:
            return 0, 0
        doc_line, start = self.origins[min(line, len(self.origins) - 1)]
        return doc_line, start + column


def regions(text: str, feature: bool) -> list[Region]:
    """The regions of a document (one for a ``.kr`` file)."""
    lines = text.split("\n")
    if not feature:
        return [Region("", lines, [(n, 0) for n in range(len(lines))])]
    return _feature_regions(lines)


def _docstring(lines: list[str], start: int) -> tuple[list[tuple[str, int, int]], int]:
    """The docstring opening at line ``start``: its lines (text, line, column) and its end."""
    opening = lines[start]
    indent = len(opening) - len(opening.lstrip())
    fence = opening.strip()[:3]
    out = []
    n = start + 1
    while n < len(lines) and not lines[n].strip().startswith(fence):
        raw = lines[n]
        cut = min(indent, len(raw) - len(raw.lstrip()))
        out.append((raw[cut:], n, cut))
        n += 1
    return out, n


def _feature_regions(lines: list[str]) -> list[Region]:
    background: list[tuple[str, int, int]] = []
    found: list[Region] = []
    current: Region | None = None
    in_background = False
    keyword = "Given"
    n = 0
    while n < len(lines):
        line = lines[n]
        header = _HEADER.match(line)
        if header:
            what = header.group(1)
            in_background = what == "Background"
            current = None
            if what.startswith("Scenario") or what == "Example":
                current = Region(line.split(":", 1)[1].strip(),
                                 outline=what in ("Scenario Outline", "Scenario Template"))
                for t, ln, col in background:
                    current.add(t, ln, col)
                found.append(current)
            n += 1
            continue
        step = _STEP.match(line)
        if step and (current is not None or in_background):
            word = step.group(2)
            if word in ("Given", "When", "Then"):
                keyword = word
            body = step.group(3)
            column = len(line) - len(line.lstrip()) + len(word) + 1
            column = line.index(body, column) if body else column
            taken = _statement(keyword, body)
            if _REFUSED.match(body) and current is not None:
                current.refused = True
            if n + 1 < len(lines) and lines[n + 1].strip()[:3] in ('"""', "```"):
                block, n = _docstring(lines, n + 1)
                if keyword == "Given" and body == "the scenario:":
                    _add(current, background, in_background, block)
            elif taken:
                _add(current, background, in_background, [(body, n, column)])
        n += 1
    return found


def _statement(keyword: str, body: str) -> bool:
    if keyword == "Then":
        return body.startswith("expect ")
    not_one = _NOT_STATEMENTS.get(keyword)
    return bool(body) and not (not_one and not_one.match(body))


def _add(current: Region | None, background: list[tuple[str, int, int]], in_background: bool,
         block: list[tuple[str, int, int]]) -> None:
    if in_background:
        background.extend(block)
    elif current is not None:
        for t, ln, col in block:
            current.add(t, ln, col)
