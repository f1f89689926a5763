"""The language reference's one-line summaries (docs/LANGUAGE.md), for hovers.

The reference's ``kr-fragment`` blocks give each statement and attribute a
line of syntax with its comment (``grace-period=DURATION  # …, default
30s``); a hover on a keyword shows the first line it starts, on an attribute
the first line that writes it ``NAME=`` or ``NAME(``.  Installed from a
wheel, without the docs beside the package, hovers fall back to the words
the parser accepts.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["attribute_line", "keyword_line", "reference_path"]

_FENCE = re.compile(r"^```(\S*)")
_AT = re.compile(r"^at\s+\S+\s+")


def reference_path() -> Path:
    return Path(__file__).resolve().parents[2] / "docs" / "LANGUAGE.md"


@functools.cache
def _fragments() -> tuple[str, ...]:
    try:
        text = reference_path().read_text(encoding="utf-8")
    except OSError:
        return ()
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if m:
            inside = not inside and m.group(1) == "kr-fragment"
            continue
        if inside and line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return tuple(out)


def keyword_line(word: str) -> str:
    """The reference's line for statement ``word`` ('' when it has none)."""
    for line in _fragments():
        bare = _AT.sub("", line)
        if bare.split(" ", 1)[0] == word:
            return line
    return ""


def attribute_line(word: str) -> str:
    """The reference's line that writes attribute ``word`` ('' when none does)."""
    pattern = re.compile(rf"(?<![\w\-]){re.escape(word)}(?:=|\()")
    for line in _fragments():
        if pattern.search(line):
            return line
    bare = re.compile(rf"(?<![\w\-=]){re.escape(word)}(?![\w\-=(])")
    for line in _fragments():
        if bare.match(line.split("#", 1)[0]) or f"[{word}]" in line:
            return line
    return ""
