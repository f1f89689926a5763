"""Reading a ``.kr`` file a piece at a time, so its memory stays a small multiple of its size.

Parsed whole, a file's statements are all held at once: about 200 bytes for
each, whatever its length, so a file of a million one-word statements needed
gigabytes.  Instead a cheap scan (:func:`scan`) first finds where each
top-level statement starts, following strings, comments and brackets as the
grammar does, and sorts the statements into the loader's passes by their
first word.  Each pass then parses only its own statements, a chunk at a
time (at most :data:`CHUNK_CHARS` of text), and drops each statement once
it is read; every statement is parsed exactly once.

A chunk is the text of consecutive runs of one pass's statements, with the
lines of other passes' statements between them replaced by empty lines (or,
past :data:`MAX_GAP` lines, a fresh chunk whose lexer starts counting at the
right line), so every word keeps its file line and column.

The scan decides nothing: whenever it meets what it does not expect (a
string or a bracket left open, a closing bracket that matches nothing), or a
chunk does not parse, or a statement turns out to start with another word
than the scan saw, the file is read again whole, the way it always was
(:class:`Fallback`), so errors are exactly those of a whole-file parse.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator

from lark import Lark
from lark.exceptions import UnexpectedInput
from lark.lexer import LexerState, LexerThread, LineCounter
from lark.utils import TextSlice

from .grammar import parser
from .syntax import LexError, Statement, Word

__all__ = ["CHUNK_CHARS", "Chunked", "Fallback", "MAX_GAP", "scan"]

#: Text parsed at once (a chunk's statements are held while it is read).
CHUNK_CHARS = 1 << 16
#: Empty lines written in place of other statements before a new chunk is started.
MAX_GAP = 256

#: The class of the statements whose first word is none of the passes' keywords
#: (refused by the loader's first check).
OTHER = 0


class Fallback(Exception):
    """The scan's view of the file and the parser's disagree: read the file whole."""


# What a line may hold and still be a whole statement at the top level: words,
# strings, comments and brackets closed on the same line, two levels deep.
# Possessive repetitions (*+, ++) keep no memory per character matched.
_ATOM = r'(?:[^\n"#(){}\[\]=]++|=\#?|"(?:[^"\\\n]|\\.)*+")'
_NEST1 = rf"(?:{_ATOM}|\((?:{_ATOM})*+\)|\[(?:{_ATOM})*+\])"
_NEST2 = rf"(?:{_ATOM}|\((?:{_NEST1})*+\)|\[(?:{_NEST1})*+\])"
_REST = rf"(?:{_NEST2})*+(?:\#[^\n]*+)?\n"
_BLANK = r"[ \t\r]*+(?:\#[^\n]*+)?\n"
# What ends a statement's first word: the split of a run into words (syntax.py)
# and the grammar's run (a range [A..B] or `=#` continues it).
_END = r"(?=[\s,|()\"#{}\]]|\[(?![0-9]+\.\.[0-9]+\])|\Z)"
# A piece of a statement that spans lines: strings, comments and `=#` hide brackets.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*+"|=\#|\#[^\n]*+|[^"#(){}\[\]\n=]++|=|([(\[{])|([)\]}])'
                    r'|(\n)|(")')
_CLOSES = {")": "(", "]": "[", "}": "{"}


def _keyword_alternatives(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


class Classes:
    """The loader's passes as classes of statements, and the scan's patterns for them."""

    def __init__(self, passes: list[tuple[str, ...]], top_level: tuple[str, ...]) -> None:
        # Class 0 is OTHER; each pass is a class; top-level words no pass reads are one more.
        self.of_word: dict[str, int] = {}
        for number, pass_words in enumerate(passes, start=1):
            for word in pass_words:
                self.of_word[word] = number
        unread = [w for w in top_level if w not in self.of_word]
        self.unread = len(passes) + 1
        for word in unread:
            self.of_word[word] = self.unread
        self.count = self.unread + 1
        self.words: list[frozenset[str]] = [frozenset()] * self.count
        for number in range(1, self.count):
            self.words[number] = frozenset(w for w, c in self.of_word.items() if c == number)
        every = _keyword_alternatives(list(self.of_word))
        self.head = re.compile(rf"[ \t\r]*+({every}){_END}")
        # For each class: as many following lines as are blank or whole statements of it.
        runs = [re.compile(rf"(?:{_BLANK}|[ \t\r]*+(?!(?:{every}){_END})(?=[^\s#]){_REST})*+")]
        for number in range(1, self.count):
            words = _keyword_alternatives(sorted(self.words[number]))
            runs.append(re.compile(rf"(?:{_BLANK}|[ \t\r]*+(?:{words}){_END}{_REST})*+"))
        self.runs = runs
        self.blanks = re.compile(rf"(?:{_BLANK})*+")

    def of_line(self, text: str, pos: int) -> int:
        m = self.head.match(text, pos)
        return OTHER if m is None else self.of_word[m.group(1)]


def _statement_end(text: str, pos: int) -> int:
    """Where the statement starting at ``pos`` ends (after its newline), or -1 if unclear."""
    stack: list[str] = []
    match = _TOKEN.match
    end = len(text)
    while pos < end:
        m = match(text, pos)
        assert m is not None  # every character starts a token
        pos = m.end()
        opened, closed, newline, quote = m.groups()
        if opened is not None:
            stack.append(opened)
        elif closed is not None:
            if not stack or stack.pop() != _CLOSES[closed]:
                return -1
        elif newline is not None:
            if not stack:
                return pos
        elif quote is not None:
            return -1  # a string left open
    return -1 if stack else end


def _end(m: re.Match[str] | None, pos: int) -> int:
    return pos if m is None else m.end()  # the patterns match at least nothing


def scan(text: str, classes: Classes) -> tuple[array[int], bytearray] | None:
    """The runs of statements of one class: their start offsets and classes (None: unclear)."""
    starts: array[int] = array("q")
    kinds = bytearray()
    runs = classes.runs
    blanks = classes.blanks.match
    of_line = classes.of_line
    end = len(text)
    pos = _end(blanks(text, 0), 0)
    last = -1
    run_start = 0
    while pos < end:
        kind = of_line(text, pos)
        if kind != last or pos - run_start >= CHUNK_CHARS:
            # A long run is cut too, so that no chunk is much longer than CHUNK_CHARS.
            starts.append(pos)
            kinds.append(kind)
            last = kind
            run_start = pos
        after = _end(runs[kind].match(text, pos, pos + CHUNK_CHARS), pos)
        if after == pos:  # not a one-line statement: follow its brackets
            after = _statement_end(text, pos)
            if after < 0:
                return None
        pos = after
    return starts, kinds


class Chunked:
    """A file's statements, parsed a chunk at a time as each pass asks for its class."""

    def __init__(self, text: str, classes: Classes, starts: array[int],
                 kinds: bytearray) -> None:
        self.text = text
        self.classes = classes
        self.starts = starts
        self.kinds = kinds
        # For each class, the first run not parsed yet (len(starts): none left).
        self.reached = [kinds.find(k) if k in kinds else len(starts)
                        for k in range(classes.count)]
        self.lark: Lark = parser()[0]

    def statements(self, kind: int) -> Iterator[Statement]:
        """The statements of one class, in file order, each parsed once."""
        words = self.classes.words[kind]
        for stmts in self._chunks(kind):
            for i, stmt in enumerate(stmts):
                stmts[i] = _READ  # dropped once read
                if kind != OTHER:
                    head = stmt.items[0]
                    if not (isinstance(head, Word) and head.kind == "WORD"
                            and head.value in words):
                        raise Fallback
                yield stmt

    def check_rest(self) -> None:
        """Parse what no pass read (raises Fallback at a syntax error)."""
        for kind in range(self.classes.count):
            for stmts in self._chunks(kind):
                stmts.clear()

    def _chunks(self, kind: int) -> Iterator[list[Statement]]:
        text, starts, kinds = self.text, self.starts, self.kinds
        size = len(text)
        count = text.count
        pieces: list[str] = []
        length = 0
        i = self.reached[kind]
        if i >= len(starts):
            return
        at = starts[i]  # offset whose line is ``line``
        first_line = line = 1 + count("\n", 0, at)  # line of pieces' start, line after them
        while i >= 0:
            start = starts[i]
            stop = starts[i + 1] if i + 1 < len(starts) else size
            gap = count("\n", at, start)
            if pieces and (gap > MAX_GAP or length >= CHUNK_CHARS):
                self.reached[kind] = i  # parsed up to here, read or not
                yield self._parse(pieces, first_line)
                pieces = []
                length = 0
            if not pieces:
                first_line = line + gap
            elif gap:
                pieces.append("\n" * gap)
                length += gap
            piece = text[start:stop]
            pieces.append(piece)
            length += len(piece)
            line += gap + piece.count("\n")
            at = stop
            i = kinds.find(kind, i + 1)
        self.reached[kind] = len(starts)
        if pieces:
            yield self._parse(pieces, first_line)

    def _parse(self, pieces: list[str], first_line: int) -> list[Statement]:
        chunk = "".join(pieces)
        if not chunk.endswith("\n"):
            chunk += "\n"
        front = self.lark.parser
        counter = LineCounter("\n")
        counter.line = first_line
        stream = LexerThread(front.lexer, LexerState(TextSlice(chunk, 0, len(chunk)), counter))
        try:
            return front.parser.parse(stream, "start")  # type: ignore[no-any-return]
        except (UnexpectedInput, LexError):
            raise Fallback from None


_READ = Statement([], None)
