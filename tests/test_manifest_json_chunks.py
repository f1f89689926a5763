"""Reading a JSON dump a chunk at a time must load what reading it whole loads.

The loader reads the items of a JSON List from a window of the file that
moves on a few megabytes at a time.  Here the window is made a few
characters long, so that items, keys, numbers, escapes, multi-byte
characters and CRLF line ends are cut at every place, and every dump of the
JSON fast-path tests (malformed ones included) is loaded both ways: the
objects, phases, notes and error messages must be the same.  Files that are
not UTF-8, not a List, or have errors in several items are compared too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_manifest_build_fastpath import _dump, _fields
from test_manifest_json_fastpath import DUMPS, _malformed, dump, nodes, pod, pod_spec

from kruleset.errors import ManifestError
from kruleset.manifests import documents, load_manifests
from kruleset.manifests._jsonitems import ItemDecoder
from kruleset.manifests.documents import iter_documents
from kruleset.manifests.schema import STRICT

CHUNKS = (1, 2, 7, 64, 1000)
# Text left in the window below which the next chunk is read first: 0 cuts
# values at every place; otherwise few values are cut.
MARGINS = (0, 50)


def _load(path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch, margin: int = 0) -> Any:
    """What load_manifests gives reading ``chunk`` characters at a time (0: whole)."""
    with monkeypatch.context() as m:
        m.setattr(documents, "CHUNK", chunk)
        m.setattr(documents, "_MARGIN", margin)
        token = STRICT.set(False)
        try:
            loaded = load_manifests(path)
        except ManifestError as e:
            return f"{e} | {e.file} {e.document} {e.field} {e.line}"
        finally:
            STRICT.reset(token)
    return (loaded.objects, _fields(loaded.objects), dict(loaded.pod_phases), loaded.notes)


def _docs(path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch, margin: int = 0) -> Any:
    """Each document's field prefix and value as JSON text, or the error."""
    with monkeypatch.context() as m:
        m.setattr(documents, "CHUNK", chunk)
        m.setattr(documents, "_MARGIN", margin)
        try:
            return [(d.prefix, json.dumps(v, ensure_ascii=False))
                    for d, v in iter_documents(path, None, ItemDecoder())]
        except ManifestError as e:
            return str(e)


def _assert_same(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    whole = _load(path, 0, monkeypatch)
    whole_docs = _docs(path, 0, monkeypatch)
    for chunk in CHUNKS:
        for margin in MARGINS:
            assert _load(path, chunk, monkeypatch, margin) == whole, (chunk, margin)
            assert _docs(path, chunk, monkeypatch, margin) == whole_docs, (chunk, margin)
    return whole


@pytest.mark.parametrize("name", DUMPS)
def test_dumps_load_the_same_in_chunks(name: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "dump.json"
    path.write_text(DUMPS[name](), encoding="utf-8")
    assert not isinstance(_assert_same(path, monkeypatch), str)


@pytest.mark.parametrize("name", list(_malformed()))
def test_malformed_dumps_fail_the_same_in_chunks(name: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bad.json"
    path.write_text(_malformed()[name], encoding="utf-8")
    assert "not valid JSON" in _assert_same(path, monkeypatch)


@pytest.mark.parametrize("seed", range(3))
def test_random_dumps_with_crlf_load_the_same_in_chunks(seed: int, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Line ends are read as the text reader reads them (CRLF and CR made LF), even cut."""
    path = tmp_path / "dump.json"
    text = _dump(seed, runtime_class_first=True)
    path.write_bytes(text.replace("\n", "\r\n" if seed else "\r").encode("utf-8"))
    assert not isinstance(_assert_same(path, monkeypatch), str)


def _pods(n: int) -> list[dict[str, Any]]:
    return nodes() + [pod(f"p-{i}", pod_spec(f"n{i % 3 + 1}")) for i in range(n)]


_ODD: dict[str, bytes] = {
    "bom": b"\xef\xbb\xbf" + dump(_pods(3)).encode(),
    "not utf-8 at the end": dump(_pods(4)).encode() + b"\n\xff",
    "cut multi-byte character at the end": dump(_pods(4)).encode() + b" \xc3",
    "not utf-8 inside a late item": dump(_pods(4)).replace('"p-3"', '"p-\xe9"').encode(
        "latin-1"),
    # Refused pods before a bad byte: reading whole reports the bad byte alone.
    "a cut character completed after ASCII": dump(_pods(4)).replace(
        '"cpu": "100m"', '"cpu": "lots"').encode().replace(b'"p-3"', b'"p-\xc3x\xa9"'),
    "not utf-8 after refused pods": dump(_pods(4)).replace(
        '"cpu": "100m"', '"cpu": "lots"').encode().replace(b'"p-3"', b'"p-\xff"'),
    "not a list": json.dumps({"kind": "Pod", "items": [], "metadata": {"name": "x"}}).encode(),
    "a single object": json.dumps(pod("alone", pod_spec("n1"))).encode(),
    "top-level array": json.dumps([pod("a", pod_spec("n1"))]).encode(),
    "extra data": dump(_pods(2)).encode() + b" {}",
    "items not an array": b'{"kind": "List", "items": 5}',
    "empty items": b'{"kind": "List", "items": [ ]}',
    "empty file": b"",
    "numbers as items": b'{"kind": "List", "items": [12345, 678]}',
    "keys after the items": dump(_pods(2)).replace('"kind": "List"', '"kind": "List", "x": '
                                                     '[1, 2, {"y": "z"}]').encode(),
}


@pytest.mark.parametrize("name", _ODD)
def test_odd_files_load_the_same_in_chunks(name: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(_ODD[name])
    _assert_same(path, monkeypatch)


def test_errors_in_several_items_are_all_reported(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Items are read on while one is refused, and the file's later syntax error ends it."""
    text = dump(_pods(6)).replace('"cpu": "100m"', '"cpu": "lots"')
    path = tmp_path / "bad.json"
    path.write_text(text[:-20], encoding="utf-8")
    message = _assert_same(path, monkeypatch)
    assert "lots" in message and "not valid JSON" in message


def test_the_whole_file_is_not_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window stays near a chunk long: the text before each item is dropped."""
    path = tmp_path / "dump.json"
    path.write_text(dump(_pods(60)), encoding="utf-8")
    longest = 0
    more = documents._Text.more

    def watch(self: documents._Text, pos: int) -> int:
        nonlocal longest
        out = more(self, pos)
        longest = max(longest, len(self.text))
        return out

    monkeypatch.setattr(documents._Text, "more", watch)
    _assert_same(path, monkeypatch)
    item = max(len(json.dumps(p)) for p in _pods(60)) * 2  # indented: longer than compact
    assert 0 < longest < 2 * (item + 1000 + max(MARGINS))


@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_good_dump_is_never_read_whole(chunk: int, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Only something unusual makes the loader read the file whole again."""
    path = tmp_path / "dump.json"
    path.write_text(DUMPS["kubectl"](), encoding="utf-8")
    whole = _load(path, 0, monkeypatch)

    def refuse(p: Path) -> str:
        raise AssertionError("read whole")

    monkeypatch.setattr(documents, "read_text", refuse)
    for margin in MARGINS:
        assert _load(path, chunk, monkeypatch, margin) == whole


def test_values_are_not_cut_by_the_window(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """With the default margin the next chunk is read before an item can be cut: no item
    fails to decode (a failure counts the lines of the window for its message)."""
    path = tmp_path / "dump.json"
    path.write_text(dump(_pods(60)), encoding="utf-8")
    assert path.stat().st_size > 2 * documents._MARGIN
    failures = 0
    init = json.JSONDecodeError.__init__

    def count(self: json.JSONDecodeError, *args: Any) -> None:
        nonlocal failures
        failures += 1
        init(self, *args)

    monkeypatch.setattr(json.JSONDecodeError, "__init__", count)
    with monkeypatch.context() as m:
        m.setattr(documents, "CHUNK", 1000)
        loaded = load_manifests(path)
    assert len(loaded.objects) == 63 and failures == 0
