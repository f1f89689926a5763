"""Completion: what may come at the cursor, from the text before it on its line.

- the start of a statement: the statements (after ``at T``: the timeline's);
- after ``create``: the kinds; after ``expect``: its subjects;
- a line inside a ``kubelet … {`` block: the kubelet flags; a pod block: its items;
- where a name is expected (``on``, ``expect pod``, ``drain node``,
  ``priorityclass=``, …): the names the document declares;
- inside ``eviction-hard(`` and the other threshold lists: the signals;
- after a number: the units;
- elsewhere on a declaring statement: its kind's attributes.
"""

from __future__ import annotations

import re

import attrs

from . import words
from .names import Index

__all__ = ["Item", "complete"]

#: Text before the cursor -> the kind of name expected there.
_REFERENCES = [
    (re.compile(r"\bon\s+\S*$"), "node"),
    (re.compile(r"\b(?:drain|cordon|uncordon|taint|untaint|label)\s+node\s+\S*$"), "node"),
    (re.compile(r"\bexpect\s+node\s+\S*$"), "node"),
    (re.compile(r"\bkubelet\s+\S*$"), "node"),
    (re.compile(r"\bexpect\s+(?:pod|eviction)\s+\S*$"), "pod"),
    (re.compile(r"\b(?:victims\s+of|evict|delete\s+pod|ready|unready|ungate|complete|fail)"
                r"\s+(?:pod\s+)?\S*$"), "pod"),
    (re.compile(r"\bby\s+\S*$"), "pod"),
    (re.compile(r"\bpriorityclass=\S*$"), "priorityclass"),
    (re.compile(r"\bruntimeclass=\S*$"), "runtimeclass"),
    (re.compile(r"\bdeployment=\S*$"), "deployment"),
    (re.compile(r"\b(?:scale|rollout\s+\w+)\s+deployment\s+\S*$"), "deployment"),
    (re.compile(r"\bexpect\s+deployment\s+\S*$"), "deployment"),
    (re.compile(r"\bexpect\s+pdb\s+\S*$"), "pdb"),
    (re.compile(r"\bexpect\s+quota\s+\S*$"), "quota"),
    (re.compile(r"\bclass=\S*$"), "deviceclass"),
]
_SIGNAL_LIST = re.compile(r"\beviction-(?:hard|soft|minimum-reclaim|soft-grace-period)"
                          r"(?:\(|\s)[^)]*$")
_NUMBER = re.compile(r"[=(<,\s][0-9]+(?:\.[0-9]+)?[A-Za-z]*$")
_AT = re.compile(r"^\s*at\s+\S+\s+")
_STATEMENT = re.compile(r"^\s*(?:at\s+\S+\s+(?:create\s+)?)?([a-z][a-z\-]*)\s")


@attrs.frozen(slots=True)
class Item:
    """A completion: the word, what it is (the protocol's CompletionItemKind), a detail."""

    label: str
    kind: int
    detail: str = ""


KEYWORD, PROPERTY, REFERENCE, UNIT, VALUE = 14, 10, 18, 11, 12


def _block(lines: list[str], line: int) -> str:
    """'kubelet' or 'block' when ``line`` is inside such a ``{ }``, else ''."""
    depth = 0
    for n in range(line - 1, -1, -1):
        text = lines[n].split("#", 1)[0]
        depth += text.count("}") - text.count("{")
        if depth < 0:
            return "kubelet" if re.match(r"\s*(?:at\s+\S+\s+)?kubelet\b", text) else "block"
    return ""


def complete(lines: list[str], line: int, column: int, idx: Index) -> list[Item]:
    """The completions at a 0-based position of a ``.kr`` text (its lines)."""
    before = lines[line][:column] if line < len(lines) else ""
    start = re.sub(r"[A-Za-z0-9_.\-]*$", "", before)
    if not start.strip():
        block = _block(lines, line)
        if block:
            return [Item(w, KEYWORD) for w in words.accepted(block)]
        return [Item(w, KEYWORD) for w in words.accepted("statement")]
    if _AT.match(before) and not _AT.sub("", start).strip():
        return [Item(w, KEYWORD) for w in words.accepted("timeline")]
    if re.search(r"\bcreate\s+\S*$", before) and _AT.match(before):
        return [Item(w, KEYWORD) for w in words.accepted("create")]
    if re.search(r"^\s*(?:at\s+\S+\s+)?expect\s+[a-z]*$", before):
        return [Item(w, KEYWORD) for w in words.accepted("expect")]
    if _SIGNAL_LIST.search(before) and not _NUMBER.search(before):
        return [Item(s, VALUE, "eviction signal") for s in words.SIGNALS]
    if _NUMBER.search(before):
        return [Item(u, UNIT) for u in words.UNITS]
    for pattern, kind in _REFERENCES:
        if pattern.search(before):
            return [Item(n, REFERENCE, kind) for n in idx.names(kind)]
    m = _STATEMENT.match(before)
    if m:
        return [Item(w, PROPERTY, m.group(1)) for w in words.attributes(m.group(1))]
    return []
