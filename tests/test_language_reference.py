"""docs/LANGUAGE.md, "the complete reference", names every word the parser accepts.

The grammar (grammar/kruleset.lark) is deliberately generic: statements are
lines of words, and what the words mean is decided by the language modules'
keyword tables (kruleset.lang).  So the parser's keywords are the grammar's
literal words plus those tables, read here at test time: a statement, attribute
or expectation added to the parser without its documentation fails this test.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import kruleset.lang

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "LANGUAGE.md"
GRAMMAR = ROOT / "grammar" / "kruleset.lark"

# Keyword tables of the language modules, by the end of their name: public
# tables are found in every module (a new module's too); a few private ones by name.
_TABLE = re.compile(r"(STATEMENTS|DECLARATIONS|ATTRIBUTES|_STATES|SUBJECTS|ITEMS|FLAGS|KEYS|"
                    r"GATES|SIGNALS|EFFECTS|REASONS|CONDITIONS|QOS|PREEMPTION)$")
_PRIVATE = {
    "declarations": ("_NODE_ATTRS", "_REPLICA_STATE"),
    "pods": ("_FORMS", "_SPREAD", "_POD_TERM_OPTIONS"),
    "dra_claims": ("_REQUEST_OPTIONS",),
    "dra_devices": ("_ALLOWED",),
    "loader": ("TOP_LEVEL",),
}


def _words(value: object) -> tuple[str, ...]:
    if isinstance(value, dict):
        value = tuple(value)
    if isinstance(value, (tuple, list, set, frozenset)) and all(isinstance(v, str)
                                                               for v in value):
        return tuple(v for v in value if re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", v))
    return ()


def parser_keywords() -> Iterator[tuple[str, str]]:
    """(where, word) for every keyword of the grammar and the language modules."""
    for literal in re.findall(r'"([A-Za-z][A-Za-z0-9-]*)"', GRAMMAR.read_text()):
        yield "grammar/kruleset.lark", literal
    for info in pkgutil.iter_modules(kruleset.lang.__path__):
        module = importlib.import_module(f"kruleset.lang.{info.name}")
        names = [n for n in vars(module) if not n.startswith("_") and _TABLE.search(n)]
        names += [n for n in _PRIVATE.get(info.name, ()) if hasattr(module, n)]
        for name in names:
            for word in _words(getattr(module, name)):
                yield f"kruleset.lang.{info.name}.{name}", word


def _code(text: str) -> str:
    """The reference's code: fenced blocks and inline code spans."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    return "\n".join(blocks + re.findall(r"`([^`\n]+)`", prose))


def _named(word: str, code: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", code) is not None


def test_the_tables_are_found() -> None:
    where = {w for w, _ in parser_keywords()}
    # the statement words, the timeline's, the pods' attributes and the expectations'
    assert {"kruleset.lang.loader.TOP_LEVEL", "kruleset.lang.timeline.TIMELINE_STATEMENTS",
            "kruleset.lang.pods.POD_ATTRIBUTES", "kruleset.lang.expectations.SUBJECTS"} <= where


def test_every_keyword_of_the_parser_is_in_the_reference() -> None:
    code = _code(REFERENCE.read_text())
    missing = sorted({f"{word} ({where})" for where, word in parser_keywords()
                      if not _named(word, code)})
    assert not missing, ("docs/LANGUAGE.md does not show (in code) these keywords the parser "
                         "accepts:\n  " + "\n  ".join(missing))


@pytest.mark.parametrize("form", [
    'at 10s apply "FILE.yaml"', 'at 10s delete "FILE.yaml"', 'include "FILE.yaml"'])
def test_file_statements_are_in_the_reference(form: str) -> None:
    verb = form.partition('"')[0].split()[-1]
    code = _code(REFERENCE.read_text())
    assert re.search(rf'(?<![\w-]){verb} "[^"]*"', code), form


def test_a_missing_keyword_is_caught(tmp_path: Path) -> None:
    code = _code("```kr\nnode n1 cpu=1\n```\nand `pod` words\n")
    assert _named("node", code) and _named("pod", code) and not _named("words", code)
    assert not _named("pod", _code("a pod in prose only"))


def test_every_kind_read_from_kubernetes_files_is_in_the_reference() -> None:
    from kruleset.manifests import SUPPORTED_KINDS

    code = _code(REFERENCE.read_text()) + REFERENCE.read_text()
    missing = [k for k in SUPPORTED_KINDS if not _named(k, code)]
    assert not missing, f"docs/LANGUAGE.md §9 does not name these kinds: {missing}"


def test_the_scheduler_configuration_versions_are_as_read() -> None:
    from kruleset.manifests.scheduler_config import API_VERSIONS

    text = REFERENCE.read_text()
    assert all(v.startswith("kubescheduler.config.k8s.io/v1") for v in API_VERSIONS)
    assert "`kubescheduler.config.k8s.io/v1` only" in text
    assert "v1beta3" not in " ".join(API_VERSIONS)
