"""Syntax highlighting of ``.kr`` files: a Pygments lexer.

Registered as the Pygments plugin ``kr`` (``pygmentize -l kr FILE.kr``) and
used by the HTML report for source snippets.  Keywords are not reserved in
``.kr``, so the lexer, like the parser, tells them by position: the first
word of a line (or the statement after ``at TIME``) is a keyword, ``name=``
and ``name(`` are attributes, the rest are values.  The statement words come
from the language modules, so a new statement is highlighted without
touching this file.

A character no ``.kr`` word may hold (``'``, ``;``, ``$``…) is an Error
token, as the parser refuses it.
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, default
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from .lang.expect_disruption import DRAIN_VERDICTS, WINDOW_MODES
from .lang.expectations import COUNT_STATES, POD_STATES, SUBJECTS
from .lang.kubelet import FLAGS
from .lang.loader import TOP_LEVEL
from .lang.pods import BLOCK_ITEMS
from .lang.timeline import TIMELINE_STATEMENTS

__all__ = ["KrLexer", "STATEMENT_WORDS", "VALUE_WORDS"]

#: Words that start a statement, a timeline event, a pod-block item or a kubelet flag.
STATEMENT_WORDS: tuple[str, ...] = tuple(sorted(
    {*TOP_LEVEL, *TIMELINE_STATEMENTS, *BLOCK_ITEMS, *FLAGS}, key=lambda w: (-len(w), w)))

#: Words that carry meaning inside a statement (states, connectives, flags).
VALUE_WORDS: tuple[str, ...] = tuple(sorted({
    *POD_STATES, *COUNT_STATES, *SUBJECTS,
    "on", "by", "of", "until", "for", "not", "status", "condition", "taint", "absent", "false",
    "used", "container", "critical", "static", "besteffort", "not-ready", "unschedulable",
    "default", "dry-run", "required", "preferred", "in", "notin", "scheduler", "kubelet",
    "deployment", "priorityclass", "runtimeclass", "namespace", "nodes",
    *WINDOW_MODES, "from", "to", *DRAIN_VERDICTS,
    "pause", "resume", "undo", "paused",
}, key=lambda w: (-len(w), w)))

# Word characters of the language (kruleset.lang.syntax), minus the operators
# the lexer shows on their own.
_W = r"[A-Za-z0-9_.\/*+\-@~:]"
_RANGE = r"\[[0-9]+\.\.[0-9]+\]"
_NAME = rf"(?:{_W}|{_RANGE})+"
# Quantities, durations, percentages: 2, 0.5, 500m, 1Gi, 1e3, 1m30s, -2h, 10.5%
_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][0-9]+)?(?:[A-Za-z]+[0-9]*)*%?(?![A-Za-z0-9_.\/*+\-@~:\[])"
_DURATION = r"-?[0-9]+(?:\.[0-9]+)?[a-z]+(?:[0-9]+(?:\.[0-9]+)?[a-z]+)*"
_END = r"(?![A-Za-z0-9_.\/*+\-@~:=(\[])"


def _any(choices: tuple[str, ...]) -> str:
    """A group matching any of ``choices`` (longest first, so none hides another)."""
    return "(?:" + "|".join(re.escape(c) for c in choices) + ")"


_STATEMENT = _any(STATEMENT_WORDS)


class KrLexer(RegexLexer):
    """Pygments lexer for kruleset ``.kr`` scenario files."""

    name = "kruleset"
    aliases = ["kr", "kruleset"]
    filenames = ["*.kr"]
    mimetypes = ["text/x-kruleset"]
    url = "https://pypi.org/project/kruleset/"
    flags = re.MULTILINE

    tokens = {
        "root": [
            # `at TIME statement`: the word after the time is a keyword too
            (rf"^([ \t]*)(at)([ \t]+)({_DURATION})([ \t]+)({_STATEMENT}){_END}",
             bygroups(Whitespace, Keyword, Whitespace, Number, Whitespace, Keyword), "line"),
            (rf"^([ \t]*)({_STATEMENT}){_END}", bygroups(Whitespace, Keyword), "line"),
            (r"[ \t\r]+", Whitespace),
            (r"\n", Whitespace),
            (r"#[^\n]*", Comment.Single),
            default("line"),
        ],
        "line": [
            (r"\n", Whitespace, "#pop"),
            (r"[ \t\r]+", Whitespace),
            # `index=#`: right after `=`, `#` is a device's number in its range
            # (DRA attributes), not a comment, as the grammar reads it.
            (r"(?<==)#", Number.Integer),
            (r"#[^\n]*", Comment.Single),
            (r'"(?:[^"\\\n]|\\.)*"', String.Double),
            (r"[(){}\[\]]", Punctuation),
            (r"!=|[=<>!|,]", Operator),
            (rf"({_NAME})(\()", bygroups(Name.Builtin, Punctuation)),
            (rf"({_NAME})(=)", bygroups(Name.Attribute, Operator)),
            (rf"({_NAME})(<)", bygroups(Name.Variable, Operator)),
            (_NUMBER, Number),
            (rf"{_any(VALUE_WORDS)}{_END}", Keyword.Pseudo),
            (rf"(?:Never|PreemptLowerPriority|IfHealthyBudget|AlwaysAllow|DoNotSchedule"
             rf"|ScheduleAnyway|Honor|Ignore|Guaranteed|Burstable|BestEffort|MemoryPressure"
             rf"|DiskPressure|PIDPressure|EphemeralStorage|API|Taint|Memory|Always){_END}",
             Name.Constant),
            (_NAME, Name),
            (r".", Error),
        ],
    }
