"""Reading a file a pass at a time (kruleset/lang/chunks.py) reads what a whole-file parse reads.

Each input is read twice, chunked and whole, and the two outcomes compared:
the same scenario, or the same errors at the same lines and columns.
"""

from __future__ import annotations

import random
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import kruleset.lang.chunks as chunks
import kruleset.lang.loader as loader
from kruleset.errors import ScenarioError
from kruleset.lang import parse_text

sys.path.insert(0, str(Path(__file__).parent))
from fuzzing import corpus, mutate  # noqa: E402

CASES = Path(__file__).parent / "lang_cases"
EXAMPLES = [(CASES / name).read_text() for name in ("language_example.kr", "everything.kr")]


def _outcome(text: str, chunked: bool, folder: Path) -> Any:
    saved = loader.CHUNKED_FROM
    loader.CHUNKED_FROM = 0 if chunked else 1 << 62
    try:
        scenario = parse_text(text, "f.kr", folder=folder)
    except ScenarioError as err:
        errors = getattr(err, "errors", None) or [err]
        return [(e.file, e.line, e.column, e.render()) for e in errors]
    finally:
        loader.CHUNKED_FROM = saved
    return repr(scenario)


def _same(text: str, folder: Path) -> None:
    assert _outcome(text, True, folder) == _outcome(text, False, folder)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few statements, so that small texts are cut in many places."""
    monkeypatch.setattr(chunks, "CHUNK_CHARS", 64)
    monkeypatch.setattr(chunks, "MAX_GAP", 2)


@pytest.mark.usefixtures("small_chunks")
def test_examples_read_alike(tmp_path: Path) -> None:
    for text in EXAMPLES:
        _same(text, tmp_path)


@pytest.mark.usefixtures("small_chunks")
def test_mutated_inputs_read_alike(tmp_path: Path) -> None:
    rng = random.Random(33)
    texts = [t for kind, t in corpus() if kind == "kr"] + EXAMPLES
    for _ in range(150):
        _same(mutate(rng, rng.choice(texts)), tmp_path)


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("text", [
    # A syntax error late in the file comes alone, before the earlier refusals.
    "x\n" * 40 + "node n1 cpu=1\npod p on n1 (\n",
    "node n1 cpu=1\n" + "at 1s delete pod nope\n" * 30 + 'pod p "open\n',
    # Multi-line groups and blocks, declarations after their users.
    "pod p on n1 requests(cpu=1,\n  memory=1Gi)\n\n# c\nnode n1 cpu=4 memory=8Gi\n"
    "kubelet n1 {\n  eviction-hard memory.available<100Mi\n}\nat 1s delete pod p\n"
    "expect pod p deleted\nrun until 1m\n",
    "node a=# cpu=1\n",  # `=#` is a word, not a comment
    "pod[1..2] x\npod p\n",  # a range glued to a keyword is another word
    "pod,p\n", "pod(x)\n", '"s" x\n', "(a) b\n", "} x\n", "x }\n", "a ( ]\n", "a\n  b {\n",
    "kubelet * {\n  eviction-hard memory.available<1Mi\n}\n" * 5 + "node n cpu=1\n",
    "node n cpu=1", "node n cpu=1\n   ", "node n cpu=1\n# end", "\n\n\n", "",
    "node n1 cpu=1\r\npod p on n1\r\n", "pod p\fx\n", "nodé n\n", "at 1s\n" * 20,
])
def test_hard_cases_read_alike(text: str, tmp_path: Path) -> None:
    _same(text, tmp_path)


def test_many_short_statements_are_read_in_little_memory() -> None:
    # 400,000 refused one-word statements: parsed whole they held about
    # 100 MB of statements at once; a chunk at a time, a few MB.
    text = "node n1 cpu=4 memory=8Gi\n" + "x\n" * 400_000
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError, match="unknown statement 'x'"):
            parse_text(text, "big.kr")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000, peak


def test_a_late_syntax_error_is_found_in_little_memory() -> None:
    text = "node n1 cpu=4 memory=8Gi\n" + "x\n" * 200_000 + "pod p (\n"
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError, match="never closed") as info:
            parse_text(text, "big.kr")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.line == 200_002
    assert peak < 20_000_000, peak
