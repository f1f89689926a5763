"""The generic shape of a parsed ``.kr`` file: statements made of items.

Lark (see :mod:`kruleset.lang.grammar`) calls :class:`Builder` while it parses,
so no parse tree is built.  The grammar hands over *runs* of words; the builder
splits them into :class:`Word` objects with their own line and column.  An item
is a :class:`Word` (kinds ``WORD``, ``STRING``, ``COMMA``, ``BAR``), a
:class:`Group` (``( … )``) or a :class:`BList` (``[ … ]``).  Meaning is given
to items later, by the interpreters in this package, so keywords stay
unreserved.
"""

from __future__ import annotations

import re
from typing import Any, Union

from lark import Token, Transformer

__all__ = [
    "BList",
    "Block",
    "Group",
    "Item",
    "LexError",
    "MAX_TOKEN",
    "Statement",
    "Builder",
    "Word",
    "describe",
    "first_word",
    "last_word",
]

#: The longest word or string a ``.kr`` file may hold (a CEL selector is at most
#: 10 KiB, a Kubernetes name 253 characters): longer is a mistake, refused at
#: its position before anything holds a copy of it.
MAX_TOKEN = 65_536

_PIECE = re.compile(r"\(([^()]*)\)|[^\s,|()]+|[,|]")
_FINDITER = _PIECE.finditer
# Possessive repetitions (++, *+): a backtracking one keeps memory for every
# character it matched, which a word of many megabytes would make gigabytes.
_WORD_OK = re.compile(r"(?:=#|[A-Za-z0-9_.\/*:%+\-@~=<>!]|\[[0-9]+\.\.[0-9]+\])++\Z")
_RUN_OK = re.compile(r"(?:=#|[A-Za-z0-9_.\/*:%+\-@~=<>!,|()\s]|\[[0-9]+\.\.[0-9]+\])*+\Z")
_BAD_CHAR = re.compile(r"\[[0-9]+\.\.[0-9]+\]|[A-Za-z0-9_.\/*:%+\-@~=<>!]")
_ESCAPE = re.compile(r"\\(.)")

# Words repeat (keywords, ``cpu=1m``, ``namespace=web``): one string for each
# word recently seen, so a million statements that spell the same words hold
# each once (about 55 bytes saved per repeat).  Bounded: names seen once
# (``p123456``) would otherwise fill it; emptied when full.
_SHARED: dict[str, str] = {}
_SHARED_MAX = 4096
_SHARED_LONGEST = 64


def _shared(value: str) -> str:
    got = _SHARED.get(value)
    if got is not None:
        return got
    if len(value) <= _SHARED_LONGEST:
        if len(_SHARED) >= _SHARED_MAX:
            _SHARED.clear()
        _SHARED[value] = value
    return value


class LexError(Exception):
    """A character or escape that no word may hold (turned into a ScenarioError)."""

    def __init__(self, message: str, line: int, column: int, expected: str = "",
                 suggestion: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.expected = expected
        self.suggestion = suggestion


class Word:
    """One word (or string, comma, ``|``) with its 1-based line and column.

    ``kind`` is ``WORD``, ``STRING``, ``COMMA``, ``BAR`` or a bracket kind
    (``LPAR``, ``RPAR``, ``LSQB``, ``RSQB``) for the ends of groups.  For a
    string, ``value`` is the text as written (quotes included) and ``text`` the
    decoded string.  A ``key=`` word glued to a string (``key=""``) becomes one
    word whose ``text`` is the decoded string.
    """

    __slots__ = ("kind", "value", "line", "column", "text")

    def __init__(self, kind: str, value: str, line: int, column: int,
                 text: str | None = None) -> None:
        self.kind = kind
        self.value = value
        self.line = line
        self.column = column
        self.text = text

    def at(self, offset: int, value: str) -> Word:
        """A word for part of this one, starting ``offset`` characters in."""
        return Word("WORD", value, self.line, self.column + offset)

    @property
    def end_column(self) -> int:
        """The column just after this word."""
        return self.column + len(self.value)

    def __repr__(self) -> str:
        return f"{self.kind}:{self.value}"


class Group:
    """``( item … )``: ``open`` and ``close`` are the parenthesis words."""

    __slots__ = ("open", "items", "close")

    def __init__(self, open_: Word, items: list[Item], close: Word) -> None:
        self.open = open_
        self.items = items
        self.close = close

    def __repr__(self) -> str:
        return f"Group({self.items!r})"


class BList:
    """``[ item … ]``: a bracketed list (``expect evictions = [a, b]``)."""

    __slots__ = ("open", "items", "close")

    def __init__(self, open_: Word, items: list[Item], close: Word) -> None:
        self.open = open_
        self.items = items
        self.close = close

    def __repr__(self) -> str:
        return f"BList({self.items!r})"


Item = Union[Word, Group, BList]  # noqa: UP007 - a runtime alias, kept readable


class Block:
    """``{`` NEWLINE statements ``}``."""

    __slots__ = ("open", "statements", "close")

    def __init__(self, open_: Word, statements: list[Statement], close: Word) -> None:
        self.open = open_
        self.statements = statements
        self.close = close


class Statement:
    """One logical line: its items and the block that may end it."""

    __slots__ = ("items", "block")

    def __init__(self, items: list[Item], block: Block | None) -> None:
        self.items = items
        self.block = block

    def __repr__(self) -> str:
        return f"Statement({self.items!r}, block={self.block is not None})"


def first_word(item: Item) -> Word:
    """The word an item starts with (for its position)."""
    if isinstance(item, Word):
        return item
    return item.open


def last_word(item: Item) -> Word:
    """The word an item ends with."""
    if isinstance(item, Word):
        return item
    return item.close


def describe(item: Item | None) -> str:
    """How an item is named in error messages."""
    if item is None:
        return "end of line"
    if isinstance(item, Group):
        return "'( … )'"
    if isinstance(item, BList):
        return "'[ … ]'"
    if item.kind == "STRING":
        return f"string {item.value}"
    return f"'{item.value}'"


def _decode(raw: str, line: int, column: int) -> str:
    body = raw[1:-1]
    if "\\" not in body:
        return body

    def repl(m: re.Match[str]) -> str:
        ch = m.group(1)
        if ch not in ('"', "\\"):
            raise LexError(f"unknown escape '\\{ch}' in a string", line, column + 1 + m.start(),
                           expected='\\" or \\\\')
        return ch

    return _ESCAPE.sub(repl, body)


def split_run(text: str, line: int, column: int, out: list[Item]) -> None:
    """Append the words of a run of text starting at ``line``/``column`` to ``out``."""
    check = _RUN_OK.match(text) is None  # one test for the whole run in the usual case
    append = out.append
    for m in _FINDITER(text):
        value, inner = m.group(0, 1)
        col = column + m.start()
        if inner is not None:
            items: list[Item] = []
            split_run(inner, line, col + 1, items)
            append(Group(Word("LPAR", "(", line, col), items,
                         Word("RPAR", ")", line, col + len(value) - 1)))
        elif value == ",":
            append(Word("COMMA", value, line, col))
        elif value == "|":
            append(Word("BAR", value, line, col))
        else:
            if check and _WORD_OK.match(value) is None:
                _bad_word(value, line, col)
            if len(value) > MAX_TOKEN:
                _too_long("word", value, line, col)
            append(Word("WORD", _shared(value), line, col))


def _too_long(what: str, value: str, line: int, col: int) -> None:
    raise LexError(f"a {what} of {len(value):,} characters, longer than the {MAX_TOKEN:,} "
                   f"kruleset reads", line, col,
                   expected=f"a {what} of at most {MAX_TOKEN:,} characters")


def _bad_word(value: str, line: int, col: int) -> None:
    bad = _BAD_CHAR.sub(lambda mm: " " * len(mm.group()), value)
    pos = len(bad) - len(bad.lstrip(" "))
    ch = value[pos]
    hint = 'strings use double quotes: "…"' if ch == "'" else ""
    if ch == "[":
        raise LexError("'[' inside a word must start a range like n[1..3]", line,
                       col + pos, expected="a range [A..B] of whole numbers")
    raise LexError(f"unexpected character {ch!r}", line, col + pos,
                   expected="letters, digits and - . / * : % = < > !", suggestion=hint)


def _flatten(children: list[Any], out: list[Item]) -> list[Item]:
    for child in children:
        if isinstance(child, Token):
            kind = child.type
            line, col = int(child.line or 0), int(child.column or 0)
            if kind == "RUN":
                split_run(str(child), line, col, out)
            elif kind == "STRING":
                raw = str(child)
                if len(raw) > MAX_TOKEN:
                    _too_long("string", raw, line, col)
                text = _decode(raw, line, col)
                prev = out[-1] if out else None
                if (isinstance(prev, Word) and prev.kind == "WORD" and prev.value.endswith("=")
                        and prev.line == line and prev.end_column == col):
                    out[-1] = Word("WORD", prev.value + raw, line, prev.column, text)
                else:
                    out.append(Word("STRING", raw, line, col, text))
            else:  # pragma: no cover - the grammar has no other item tokens
                out.append(Word(kind, str(child), line, col))
        else:
            out.append(child)
    return out


class Builder(Transformer):  # type: ignore[type-arg]
    """Lark callbacks that build the statement objects while parsing (no tree)."""

    #: False while a parse only looks for a syntax error: statements are
    #: checked word by word as always, then dropped rather than kept.
    keep = True

    def start(self, children: list[Statement]) -> list[Statement]:
        return children if self.keep else []

    def stmt(self, children: list[Any]) -> Statement | None:
        if not self.keep:
            _flatten(children, [])
            return None
        block = None
        if children and isinstance(children[-1], Block):
            block = children.pop()
        return Statement(_flatten(children, []), block)

    def block(self, children: list[Any]) -> Block:
        return Block(_tok(children[0]), children[1:-1], _tok(children[-1]))

    def group(self, children: list[Any]) -> Group:
        return Group(_tok(children[0]), _flatten(children[1:-1], []), _tok(children[-1]))

    def blist(self, children: list[Any]) -> BList:
        return BList(_tok(children[0]), _flatten(children[1:-1], []), _tok(children[-1]))


def _tok(tok: Token) -> Word:
    return Word(tok.type, str(tok), int(tok.line or 0), int(tok.column or 0))
