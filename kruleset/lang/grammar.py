"""Loading the Lark grammar and parsing text into statements.

The grammar ships inside the wheel as ``kruleset.grammar/kruleset.lark``; in a
source tree where that package does not import, it is read from the top-level
``grammar/`` folder.  The parser is built once per process.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import ScenarioError
from .errors import Source
from .syntax import Builder, LexError, Statement

__all__ = ["grammar_text", "parser", "parse_statements_raw"]

_OPENERS = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
_CHAR = {"LPAR": "(", "RPAR": ")", "LSQB": "[", "RSQB": "]", "LBRACE": "{", "RBRACE": "}"}

_TERMINAL_WORDS = {
    "RUN": "a word",
    "STRING": 'a "string"',
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "_NL": "end of line",
    "$END": "end of file",
}


def grammar_text() -> str:
    """The text of ``kruleset.lark``, from the installed package or the source tree."""
    try:
        from importlib.resources import files

        return files("kruleset.grammar").joinpath("kruleset.lark").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        path = Path(__file__).resolve().parents[2] / "grammar" / "kruleset.lark"
        return path.read_text(encoding="utf-8")


class _PostLex:
    """Drops newlines inside ``( )`` and ``[ ]`` and remembers unclosed openers.

    The stack of open brackets is kept on the instance so that a syntax error
    can point at the bracket that was never closed rather than at the end of
    the file.
    """

    always_accept = ("_NL",)

    def __init__(self) -> None:
        self.stack: list[Token] = []

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        stack: list[Token] = []
        self.stack = stack
        for tok in stream:
            kind = tok.type
            if kind == "_NL":
                if stack and stack[-1].type != "LBRACE":
                    continue
            elif kind in _OPENERS:
                stack.append(tok)
            elif kind in _CLOSERS and stack and stack[-1].type == _CLOSERS[kind]:
                stack.pop()
            yield tok


@lru_cache(maxsize=1)
def parser() -> tuple[Lark, _PostLex]:
    """The LALR parser (built once) and its post-lexer."""
    post = _PostLex()
    lark = Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        postlex=post,
        transformer=Builder(),
        maybe_placeholders=False,
        propagate_positions=False,
    )
    return lark, post


def parse_statements_raw(text: str, source: Source, *, keep: bool = True) -> list[Statement]:
    """Parse ``text`` into statements, or raise a ScenarioError for a syntax error.

    With ``keep`` false the statements are checked and dropped (the list
    returned is empty), so looking for a syntax error in a large file costs
    little memory.
    """
    lark, post = parser()
    if not text.endswith("\n"):
        text += "\n"
    builder = lark.options.transformer
    assert isinstance(builder, Builder)
    try:
        builder.keep = keep
        result = lark.parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, source, list(post.stack)) from None
    except LexError as exc:
        raise ScenarioError(exc.message, source.span_at(exc.line, exc.column),
                            expected=exc.expected, suggestion=exc.suggestion) from None
    finally:
        builder.keep = True
    return result  # type: ignore[return-value]


def _expected_words(expected: set[str] | frozenset[str] | None) -> str:
    words = sorted({_TERMINAL_WORDS.get(e, e) for e in expected or () if not e.startswith("__")})
    return ", ".join(words)


def _syntax_error(exc: UnexpectedInput, source: Source, stack: list[Token]) -> ScenarioError:
    """A plain-words ScenarioError for Lark's syntax errors."""
    unclosed = [t for t in stack if t.type in ("LPAR", "LSQB")]
    if isinstance(exc, UnexpectedCharacters):
        line, col = exc.line, exc.column
        char = exc.char
        if char == '"':
            return ScenarioError("unterminated string", source.span_at(line, col),
                                 expected='a closing " on the same line')
        if char == "'":
            return ScenarioError("unexpected character \"'\"", source.span_at(line, col),
                                 expected="a word", suggestion='strings use double quotes: "…"')
        if char == "[":
            return ScenarioError("'[' here must start a range like n[1..3]",
                                 source.span_at(line, col),
                                 expected="a range [A..B] with whole numbers A and B")
        return ScenarioError(f"unexpected character {char!r}", source.span_at(line, col),
                             expected=_expected_words(exc.allowed) or "a word")
    if isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    ):
        opener = unclosed[-1] if unclosed else (stack[-1] if stack else None)
        if opener is not None:
            close = _CHAR[_OPENERS[opener.type]]
            return ScenarioError(f"'{opener.value}' is never closed",
                                 source.span_at(opener.line or 0, opener.column or 0),
                                 expected=f"'{close}'")
        last = source.line_count
        return ScenarioError("unexpected end of file", source.span_at(last, 1))
    assert isinstance(exc, UnexpectedToken)
    tok = exc.token
    span = source.span_at(tok.line or 0, tok.column or 0)
    expected = set(exc.expected or ())
    kind = tok.type
    if unclosed and unclosed[-1].line != tok.line and kind in ("LBRACE", "RBRACE"):
        opener = unclosed[-1]
        return ScenarioError(f"'{opener.value}' is never closed",
                             source.span_at(opener.line or 0, opener.column or 0),
                             expected=f"'{_CHAR[_OPENERS[opener.type]]}' before the end of line")
    if expected == {"_NL"} and kind != "_NL":
        # Only a block's braces insist on a line break right after them.
        prev = stack[-1] if stack else None
        if prev is not None and prev.type == "LBRACE" and (prev.line, prev.column) < (
            tok.line, tok.column
        ) and prev.line == tok.line:
            return ScenarioError("'{' must end the line; put the block's items on the lines below",
                                 source.span_at(prev.line or 0, prev.column or 0),
                                 expected="end of line after '{'")
        return ScenarioError(f"'}}' must stand on its own line, found {_show(tok)} after it",
                             span, expected="end of line after '}'")
    in_block = any(t.type == "LBRACE" for t in stack)
    if kind == "RBRACE" and ("_NL" in expected or not in_block):
        if in_block:
            return ScenarioError("'}' must stand on its own line", span,
                                 expected="end of line before '}'")
        return ScenarioError("'}' without a matching '{'", span)
    if kind in ("RPAR", "RSQB"):
        return ScenarioError(f"'{tok.value}' without a matching '{_CHAR[_CLOSERS[kind]]}'", span)
    if kind == "LBRACE":
        if unclosed:
            opener = unclosed[-1]
            return ScenarioError(f"'{opener.value}' is never closed",
                                 source.span_at(opener.line or 0, opener.column or 0),
                                 expected=f"'{_CHAR[_OPENERS[opener.type]]}'")
        return ScenarioError("a block '{' must follow a statement on the same line", span)
    if kind == "_NL" and any(t.type == "LBRACE" for t in stack):
        return ScenarioError("unexpected end of line", span, expected=_expected_words(expected))
    return ScenarioError(f"unexpected {_show(tok)}", span, expected=_expected_words(expected))


def _show(tok: Token) -> str:
    if tok.type == "_NL":
        return "end of line"
    if tok.type == "$END":
        return "end of file"
    return f"'{tok.value}'"
