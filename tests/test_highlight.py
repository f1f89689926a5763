"""Editor support: the Pygments lexer and the TextMate grammar read every shipped
``.kr`` text (examples, the language cases, the scenarios embedded in
features/, the reference's snippets) without an error token."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from pygments.token import Error, Keyword

from kruleset.highlight import STATEMENT_WORDS, KrLexer

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "editors" / "kr.tmLanguage.json"
_DOCSTRING = re.compile(r'^([ \t]*)Given the scenario:\n[ \t]*"""\n(.*?)^[ \t]*"""', re.S | re.M)
_KR_FENCE = re.compile(r"^```kr(?:-refused)?\n(.*?)^```", re.S | re.M)


def _shipped() -> list[tuple[str, str]]:
    texts = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
             for p in sorted([*(ROOT / "examples").rglob("*.kr"),
                              *(ROOT / "tests" / "lang_cases").glob("*.kr")])]
    for feature in sorted((ROOT / "features").rglob("*.feature")):
        text = feature.read_text(encoding="utf-8")
        for n, m in enumerate(_DOCSTRING.finditer(text)):
            texts.append((f"{feature.relative_to(ROOT).as_posix()}#{n}", m.group(2)))
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for n, m in enumerate(_KR_FENCE.finditer(doc.read_text(encoding="utf-8"))):
            texts.append((f"{doc.relative_to(ROOT).as_posix()}#{n}", m.group(1)))
    return texts


SHIPPED = _shipped()


def test_shipped_texts_are_found() -> None:
    names = [n for n, _ in SHIPPED]
    assert any(n.startswith("examples/") for n in names)
    assert any(n.startswith("tests/lang_cases/") for n in names)
    assert sum(n.startswith("features/") for n in names) > 100
    assert any(n.startswith("docs/") for n in names)


@pytest.mark.parametrize("name,text", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_lexer_reads_shipped_kr(name: str, text: str) -> None:
    tokens = list(KrLexer().get_tokens(text))
    errors = [v for t, v in tokens if t in Error]
    assert not errors, f"{name}: error tokens {errors[:5]}"
    assert "".join(v for _, v in tokens).rstrip("\n") == text.rstrip("\n")


def test_lexer_marks_what_the_language_refuses() -> None:
    tokens = list(KrLexer().get_tokens("pod web labels(app='web')\n"))
    assert [v for t, v in tokens if t in Error] == ["'", "'"]


def test_statements_are_keywords_by_position() -> None:
    text = ("pod critical on n1 critical\nat 10s drain node n1\n"
            "kubelet * {\n  eviction-hard x<1%\n}\n")
    tokens = [(t, v) for t, v in KrLexer().get_tokens(text) if v.strip()]
    keywords = [v for t, v in tokens if t is Keyword]
    assert keywords == ["pod", "at", "drain", "kubelet", "eviction-hard"]
    # a pod may be called like a keyword: only the first word is the statement
    assert tokens[1] == (tokens[1][0], "critical") and tokens[1][0] is not Keyword


def _tm_regexes(node: object) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("match", "begin", "end") and isinstance(value, str):
                out.append(value)
            else:
                out.extend(_tm_regexes(value))
    elif isinstance(node, list):
        for item in node:
            out.extend(_tm_regexes(item))
    return out


def test_textmate_grammar_regexes_compile() -> None:
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.kr" and "kr" in grammar["fileTypes"]
    regexes = _tm_regexes(grammar)
    assert len(regexes) >= 10
    for rx in regexes:
        re.compile(rx)  # the grammar keeps to syntax Oniguruma and Python share


def test_textmate_grammar_knows_every_statement() -> None:
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    statement = next(p for p in grammar["patterns"]
                     if p.get("captures", {}).get("1", {}).get("name")
                     == "keyword.other.statement.kr")
    for word in STATEMENT_WORDS:
        assert re.match(statement["match"], word + " x"), word


def test_textmate_grammar_flags_no_shipped_text() -> None:
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    invalid = next(p["match"] for p in grammar["patterns"]
                   if p.get("name") == "invalid.illegal.character.kr")
    assert re.search(invalid, "labels(app='web')")
    for name, text in SHIPPED:
        for n, line in enumerate(text.splitlines(), 1):
            code = line[:_comment_start(line)]
            assert not re.search(invalid, re.sub(_STRING, "", code)), f"{name}:{n}: {line}"


_STRING = r'"(?:[^"\\\n]|\\.)*"'


def _comment_start(line: str) -> int:
    """Where the line's comment starts as the grammar reads it (len(line) without one).

    ``#`` starts a comment outside strings, except right after ``=``, where it
    is a device's number in its range (``attributes(index=#)``).
    """
    i = 0
    while i < len(line):
        if line[i] == '"':
            m = re.compile(_STRING).match(line, i)
            i = m.end() if m else len(line)
            continue
        if line[i] == "#" and (i == 0 or line[i - 1] != "="):
            return i
        i += 1
    return len(line)


@pytest.mark.parametrize("name,text", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_lexer_comments_are_the_grammars(name: str, text: str) -> None:
    """Every shipped text: the lexer's comments start exactly where the grammar's do."""
    from pygments.token import Comment

    lines = text.split("\n")
    want = [(n, _comment_start(x)) for n, x in enumerate(lines) if _comment_start(x) < len(x)]
    got = []
    line, col = 0, 0
    for token, value in KrLexer().get_tokens(text):
        if token in Comment:
            got.append((line, col))
        for ch in value:
            line, col = (line + 1, 0) if ch == "\n" else (line, col + 1)
    assert got == want, name


@pytest.mark.parametrize("name,text", SHIPPED, ids=[n for n, _ in SHIPPED])
def test_textmate_comments_are_the_grammars(name: str, text: str) -> None:
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    comment = re.compile(grammar["repository"]["comment"]["match"])
    for n, line in enumerate(text.splitlines(), 1):
        # scanning as the editor does: strings first, then the comment pattern
        start = _comment_start(line)
        found = next((m.start() for m in comment.finditer(re.sub(
            _STRING, lambda m: " " * len(m.group()), line))), len(line))
        assert found == start, f"{name}:{n}: {line}"


def test_a_device_number_is_not_a_comment() -> None:
    from pygments.token import Comment, Number

    line = "devices gpu-[0..3] on n1 driver=d attributes(index=#) # four GPUs\n"
    tokens = [(t, v) for t, v in KrLexer().get_tokens(line) if v.strip()]
    assert (Number.Integer, "#") in tokens
    assert [v for t, v in tokens if t in Comment] == ["# four GPUs"]
    assert any("index=#" in text for _, text in SHIPPED)  # the shipped DRA example is covered


def test_entry_point_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pygments.lexers"] == {"kr": "kruleset.highlight:KrLexer"}
    assert any(d.startswith("pygments") for d in project["dependencies"])


def _installed_entry_point() -> bool:
    try:
        dist = metadata.distribution("kruleset")
    except metadata.PackageNotFoundError:
        return False
    return any(ep.group == "pygments.lexers" for ep in dist.entry_points)


@pytest.mark.skipif(not _installed_entry_point(),
                    reason="kruleset is not installed, so its Pygments plugin is not registered "
                           "(pip install . registers it)")
def test_pygmentize_finds_the_lexer() -> None:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

    assert type(get_lexer_by_name("kr")).__name__ == "KrLexer"
    assert type(get_lexer_for_filename("x.kr")).__name__ == "KrLexer"
    out = subprocess.run([sys.executable, "-m", "pygments", "-l", "kr", "-f", "terminal",
                          str(ROOT / "examples" / "quickstart.kr")],
                         capture_output=True, text=True, check=True).stdout
    assert "\x1b[" in out and "priorityclass" in out
