"""Hover: a keyword's or attribute's reference line, a rule's doc and source, a declaration."""

from __future__ import annotations

import re

from . import words
from .check import WORD
from .names import Index
from .reference import attribute_line, keyword_line

__all__ = ["hover_text", "word_at"]

_FIRST = re.compile(r"^\s*(?:at\s+\S+\s+)?")


def word_at(text: str, column: int) -> tuple[str, int, int]:
    """The word around ``column`` of a line: (word, start, end); ('', c, c) when none."""
    for m in WORD.finditer(text):
        if m.start() <= column <= m.end():
            return m.group(0), m.start(), m.end()
    return "", column, column


def hover_text(text: str, column: int, idx: Index) -> str:
    """Markdown for the word at ``column`` of line ``text`` ('' when there is nothing to say)."""
    word, start, end = word_at(text, column)
    if not word:
        return ""
    rule = words.rule_names().get(word)
    if rule is not None:
        doc, source = rule
        return f"**{word}**: {doc}" + (f"\n\nUpstream: {source}" if source else "")
    first = _FIRST.match(text)
    statement = first is not None and first.end() == start
    after = text[end:end + 1]
    if statement or text[:start].rstrip().endswith(("create", "expect")):
        line = keyword_line(word)
        if line:
            return f"```kr\n{line}\n```"
        listed = words.attributes(word)  # no reference beside the package (a wheel)
        if listed:
            return f"**{word}**: {', '.join(listed)}"
    if after in ("=", "("):
        line = attribute_line(word)
        if line:
            return f"```kr\n{line}\n```"
        return ""
    found = idx.find(word)
    if found is not None:
        return f"{found.kind} **{found.name}**, line {found.line + 1}:\n```kr\n" \
               f"{found.statement}\n```"
    return ""
