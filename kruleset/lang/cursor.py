"""A cursor over a statement's items, and the attribute reader built on it."""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import ScenarioError
from .errors import Source
from .syntax import BList, Group, Item, Word, describe, last_word

__all__ = ["Attr", "Cursor", "split_commas"]


class Cursor:
    """Reads the items of one statement (or group) left to right.

    ``end`` is where "end of line" errors point: just after the last item, or
    at ``after`` when there are no items.
    """

    __slots__ = ("src", "items", "pos", "after")

    def __init__(self, src: Source, items: list[Item], after: Word | None = None) -> None:
        self.src = src
        self.items = items
        self.pos = 0
        self.after = after

    def peek(self, ahead: int = 0) -> Item | None:
        """The item ``ahead`` places on, or None at the end."""
        i = self.pos + ahead
        return self.items[i] if i < len(self.items) else None

    def peek_word(self, ahead: int = 0) -> str | None:
        """The text of a plain word ahead, or None when it is not a word."""
        item = self.peek(ahead)
        if isinstance(item, Word) and item.kind == "WORD":
            return item.value
        return None

    def next(self) -> Item | None:
        """The next item (consumed), or None at the end."""
        if self.pos < len(self.items):
            item = self.items[self.pos]
            self.pos += 1
            return item
        return None

    def at_end(self) -> bool:
        """Whether every item has been read."""
        return self.pos >= len(self.items)

    def end_word(self) -> Word:
        """A position just after the last item (for 'expected …' at end of line)."""
        if self.items:
            last = last_word(self.items[-1])
            return Word("WORD", "", last.line, last.end_column + (0 if last.value else 1))
        if self.after is not None:
            return Word("WORD", "", self.after.line, self.after.end_column + 1)
        return Word("WORD", "", 0, 0)

    def here(self) -> Item:
        """The current item, or the end position."""
        item = self.peek()
        return item if item is not None else self.end_word()

    def error(self, message: str, item: Item | None = None, **kw: str) -> ScenarioError:
        """A ScenarioError at ``item`` (default: the current position)."""
        return self.src.error(message, item if item is not None else self.here(), **kw)

    def word(self, what: str, *, expected: str = "") -> Word:
        """Consume a plain word, or refuse saying that ``what`` was expected."""
        item = self.peek()
        if isinstance(item, Word) and item.kind == "WORD":
            self.pos += 1
            return item
        found = describe(item)
        raise self.error(f"expected {what}, found {found}", expected=expected or what)

    def keyword(self, *choices: str) -> Word:
        """Consume a word that must be one of ``choices``."""
        item = self.peek()
        if isinstance(item, Word) and item.kind == "WORD" and item.value in choices:
            self.pos += 1
            return item
        listed = " or ".join(f"'{c}'" for c in choices)
        if isinstance(item, Word) and item.kind == "WORD":
            raise self.src.unknown("keyword", item.value, item, choices, expected=listed)
        raise self.error(f"expected {listed}, found {describe(item)}", expected=listed)

    def accept(self, value: str) -> Word | None:
        """Consume the word ``value`` if it comes next."""
        item = self.peek()
        if isinstance(item, Word) and item.kind == "WORD" and item.value == value:
            self.pos += 1
            return item
        return None

    def group(self, what: str) -> Group:
        """Consume a ``( … )`` group."""
        item = self.peek()
        if isinstance(item, Group):
            self.pos += 1
            return item
        raise self.error(f"expected '(' after {what}, found {describe(item)}", expected="( … )")

    def blist(self, what: str) -> BList:
        """Consume a ``[ … ]`` list."""
        item = self.peek()
        if isinstance(item, BList):
            self.pos += 1
            return item
        raise self.error(f"expected a list [ … ] for {what}, found {describe(item)}",
                         expected="[REF, …]")

    def done(self, expected: str = "end of line") -> None:
        """Refuse anything left over."""
        item = self.peek()
        if item is not None:
            raise self.error(f"unexpected {describe(item)}", item, expected=expected)


class Attr:
    """One attribute: ``key=value``, ``key(…)`` or a bare flag ``key``.

    ``key`` is the word holding the key (its column is the key's), ``value``
    the value part of ``key=value`` as a word of its own (with ``text`` set when
    the value is a quoted string), ``group`` the group of ``key(…)``.
    """

    __slots__ = ("name", "key", "value", "group")

    def __init__(self, name: str, key: Word, value: Word | None, group: Group | None) -> None:
        self.name = name
        self.key = key
        self.value = value
        self.group = group

    @property
    def form(self) -> str:
        """``=``, ``()`` or ``flag``."""
        if self.value is not None:
            return "="
        if self.group is not None:
            return "()"
        return "flag"

    @property
    def text(self) -> str:
        """The value's text (the decoded string for ``key="…"``)."""
        assert self.value is not None
        return self.value.text if self.value.text is not None else self.value.value


def attr_from(cur: Cursor) -> Attr:
    """Read one attribute at the cursor."""
    item = cur.next()
    if not isinstance(item, Word) or item.kind != "WORD":
        raise cur.error(f"expected an attribute, found {describe(item)}", item,
                        expected="key=value, key(…) or a flag")
    text = item.value
    eq = text.find("=")
    if eq == 0:
        raise cur.error("expected a name before '='", item)
    if eq > 0:
        name = text[:eq]
        raw = text[eq + 1:]
        if not raw:
            nxt = cur.peek()
            hint = ""
            if isinstance(nxt, Word) and nxt.kind == "WORD" and nxt.line == item.line:
                hint = f"write {name}={nxt.value} without a space after '='"
            raise cur.src.error(f"missing value after '{name}='", item.at(eq + 1, ""),
                                expected="a value right after '='", suggestion=hint)
        value = item.at(eq + 1, raw)
        value.text = item.text
        return Attr(name, item.at(0, name), value, None)
    nxt = cur.peek()
    if isinstance(nxt, Group):
        cur.pos += 1
        return Attr(text, item, None, nxt)
    if isinstance(nxt, Word) and nxt.kind == "WORD" and nxt.value.startswith("="):
        shown = nxt.value
        after = cur.peek(1)
        if shown == "=" and isinstance(after, Word) and after.kind == "WORD":
            shown += after.value
        raise cur.error(f"write {text}{shown} without spaces around '='", nxt,
                        expected=f"{text}=VALUE")
    return Attr(text, item, None, None)


def read_attrs(cur: Cursor) -> Iterator[Attr]:
    """Attributes until the end of the items."""
    while not cur.at_end():
        yield attr_from(cur)


def split_commas(src: Source, group: Group | BList, *,
                 allow_empty: bool = True) -> list[list[Item]]:
    """The comma-separated entries of a group (a trailing comma is allowed)."""
    entries: list[list[Item]] = []
    current: list[Item] = []
    for item in group.items:
        if isinstance(item, Word) and item.kind == "COMMA":
            if not current:
                raise src.error("empty entry before ','", item, expected="a value before ','")
            entries.append(current)
            current = []
        else:
            current.append(item)
    if current:
        entries.append(current)
    if not entries and not allow_empty:
        raise src.error("expected at least one entry", group.open)
    return entries
