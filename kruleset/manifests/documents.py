"""Reading the documents of a YAML or JSON file, before any object is converted.

A file is read without a byte order mark and never mapped into memory.
YAML is read whole, document by document, with a safe loader that refuses a
key given twice; JSON with the json module, the items of a top-level List
one at a time.  For the manifest loader (an :class:`ItemDecoder` given) a
JSON file is read a few megabytes at a time, so that a dump of gigabytes is
never held whole: anything unusual in it (not UTF-8, a syntax error, not a
List) makes it read whole instead, for the same items and messages.
``kind: List`` is expanded into its items, each with its own field prefix
(``items[3].``) so an error names where it is.  Syntax errors become
:class:`~kruleset.errors.ManifestError` with the file, document, line and
column.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Generator, Iterator
from contextvars import ContextVar
from itertools import islice
from pathlib import Path
from typing import Any, TextIO

import yaml

from ..errors import ManifestError, Span
from ..readfile import check_regular
from ..yamlload import load_all
from ._fields import Doc
from ._jsonitems import ItemDecoder

__all__ = ["FILE_LABELS", "file_label", "iter_documents", "read_documents", "read_text"]


#: Names shown for files read under another name (stdin, kept in a temporary file).
FILE_LABELS: ContextVar[dict[str, str] | None] = ContextVar("kruleset_file_labels",
                                                            default=None)


def file_label(path: Path) -> str:
    """How errors and notices name ``path``."""
    labels = FILE_LABELS.get()
    return str(path) if not labels else labels.get(str(path), str(path))


def read_documents(path: Path, span: Span | None = None, *,
                   strict: bool = False) -> Iterator[tuple[Doc, object]]:
    """Yield ``(Doc, value)`` for every document of ``path``, expanding ``kind: List``.

    ``.json`` files are read with the json module, the items of a List one at
    a time (a caller that drops each item after use never holds the whole
    decoded file); anything else as YAML (multi-document).  Empty YAML
    documents are skipped but still counted, so document numbers match what
    a reader counts between ``---`` lines.
    """
    return iter_documents(path, span, None, strict=strict)


def iter_documents(path: Path, span: Span | None, items: ItemDecoder | None, *,
                   strict: bool = False) -> Iterator[tuple[Doc, object]]:
    """:func:`read_documents`; with ``items``, List items of a JSON file are read by it.

    Values read by an :class:`ItemDecoder` may share nested parts of their
    ``spec`` with other items: only a caller that never changes them may ask.
    """
    file = file_label(path)
    json_file = path.suffix.lower() == ".json"
    skip = 0
    try:
        check_regular(path)
    except FileNotFoundError:
        raise ManifestError("no such file", file=file, span=span) from None
    except OSError as e:
        raise ManifestError(f"cannot read the file: {e.strerror}", file=file, span=span) from None
    if json_file and items is not None and CHUNK > 0:
        # Read a chunk at a time; on anything unusual (a syntax error
        # included) the whole text is read and decoded as below, from the
        # first item not handed out yet, for the same items and messages.
        done = [0]
        if (yield from _streamed(Doc(file, 1, "", span), path, items, done)):
            return
        skip = done[0]
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise ManifestError("no such file", file=file, span=span) from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"not UTF-8 text ({e.reason} at byte {e.start})",
                            file=file, span=span) from None
    except OSError as e:
        raise ManifestError(f"cannot read the file: {e.strerror}", file=file, span=span) from None
    if json_file:
        try:
            yield from islice(_json_documents(Doc(file, 1, "", span), _Text(text), items,
                                              strict), skip, None)
        except json.JSONDecodeError as e:
            raise ManifestError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}",
                                file=file, document=1, span=span) from None
        except RecursionError:
            raise ManifestError("the JSON is nested too deeply to read", file=file,
                                document=1, span=span) from None
        except _DuplicateKey as e:
            raise ManifestError(f"not valid JSON: {e}", file=file, document=1,
                                span=span) from None
        except ValueError:  # an integer of more than 4,300 digits
            raise ManifestError("a number has more than 4,300 digits: no quantity is that "
                                "large", file=file, document=1, span=span) from None
        return
    number = 0
    docs = load_all(text)
    while True:
        try:
            value = next(docs)
        except StopIteration:
            return
        except yaml.YAMLError as e:
            raise ManifestError(_yaml_message(e), file=file, document=number + 1,
                                span=span) from None
        except (ValueError, TypeError, RecursionError) as e:  # a huge integer, an odd key
            raise ManifestError(f"not valid YAML: {e}", file=file, document=number + 1,
                                span=span) from None
        number += 1
        if value is None:
            continue
        yield from _expand(Doc(file, number, "", span), value)


def read_text(path: Path) -> str:
    """The file's text, without a leading byte order mark (YAML and JSON alike).

    Read whole, not mapped into memory: a file truncated while it is read
    must give a short text (and a syntax error), not a bus error.
    """
    check_regular(path)
    with open(path, encoding="utf-8-sig") as f:
        return f.read()


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _DuplicateKey(ValueError):
    """A JSON object giving a key twice (the json module keeps the last)."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(f"the key {k!r} is given twice")
            seen.add(k)
    return out


# Configurations (``strict``): a key given twice is refused, as the strict
# decoding of kube-scheduler and the kubelet does.  Manifests keep the json
# module's reading (the last value wins), as ``kubectl`` does.
_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)
# Characters of a JSON file read at a time by the item-by-item reading (0: the
# whole file at once).  A few megabytes: the file is never held whole, and the
# window being decoded stays small.
CHUNK = 4 << 20
# Text left in the window below which the next chunk is read before decoding a value.
_MARGIN = 1 << 16


class _Text:
    """The text of a JSON file: whole, or a window of it that :meth:`more` moves on.

    Positions are in the window; :meth:`more` drops the text before a
    position and appends the next chunk of the file (at least as much as is
    kept, so that a value longer than a chunk is decoded again only a few
    times).  ``eof``: the window ends where the file ends.
    """

    __slots__ = ("eof", "file", "text")

    def __init__(self, text: str, file: TextIO | None = None) -> None:
        self.text = text
        self.file = file
        self.eof = file is None

    def more(self, pos: int) -> int:
        """Read on; the position in the new window of ``pos`` in the old one (0)."""
        assert self.file is not None
        chunk = self.file.read(max(CHUNK, len(self.text) - pos))
        if not chunk:
            self.eof = True
        self.text = self.text[pos:] + chunk
        return 0

    def ws(self, pos: int) -> int:
        """The position of the first character at or after ``pos`` that is not JSON
        whitespace (the window's length at the end of the file)."""
        while True:
            end = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
            if end < len(self.text) or self.eof:
                return end
            pos = self.more(end)

    def value(self, pos: int, decode: Callable[[str, int], tuple[Any, int]]) -> tuple[Any, int]:
        """``decode`` at ``pos``, then the whitespace after the value skipped.

        In a window, a value is taken once the character after it is in the
        window too (so a number cut by the window's end is not taken for a
        shorter one), and a value that fails is decoded again with more text
        until the file's end, where its error is raised.
        """
        if not self.eof and len(self.text) - pos < _MARGIN:
            # Read on before a value can be cut: failing on a cut value costs
            # its error's line count from the start of the window.
            pos = self.more(pos)
        while True:
            text = self.text
            try:
                value, end = decode(text, pos)
            except (ValueError, RecursionError):
                if self.eof:
                    raise
                pos = self.more(pos)
                continue
            end = _WS.match(text, end).end()  # type: ignore[union-attr]
            if end < len(text) or self.eof:
                return value, end
            pos = self.more(pos)


def _streamed(doc: Doc, path: Path, items: ItemDecoder,
              done: list[int]) -> Generator[tuple[Doc, object], None, bool]:
    """The documents of a JSON file read a chunk at a time; False: read it whole instead.

    Hands out what :func:`_json_documents` gives for the whole text, as far
    as it goes: anything unusual (not UTF-8, a syntax error, not a List, an
    unreadable file) stops it, and ``done[0]`` items have been handed out.
    """
    if not _utf8(path):
        return False  # the whole text's error, before any item (as when read whole)
    try:
        with open(path, encoding="utf-8-sig") as f:
            docs = _json_documents(doc, _Text("", f), items)
            while True:
                try:
                    pair = next(docs)
                except StopIteration:
                    return True
                except Exception:  # noqa: BLE001 - every failure is reported by the whole text
                    return False
                yield pair
                done[0] += 1
    except OSError:
        return False


def _utf8(path: Path) -> bool:
    """Whether the file is UTF-8 throughout (read a chunk at a time; ASCII chunks skipped)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    chunk = bytearray(CHUNK)
    try:
        with open(path, "rb") as f:
            while n := f.readinto(chunk):
                part = chunk if n == len(chunk) else chunk[:n]
                # An ASCII chunk is valid unless it follows a cut multi-byte sequence.
                if not part.isascii() or decoder.getstate()[0]:
                    decoder.decode(part)
        decoder.decode(b"", True)
    except (OSError, UnicodeDecodeError):
        return False
    return True


def _json_documents(doc: Doc, src: _Text, items: ItemDecoder | None = None,
                    strict: bool = False) -> Iterator[tuple[Doc, object]]:
    """The objects of a JSON text; a top-level ``items`` array is decoded item by item.

    An item ``items`` does not recognise (or without ``items``) is decoded by
    the json module, which also reports malformed text.  In a window
    (:class:`_Text`) anything but an object fails with ``ValueError``.
    """
    decode = (_STRICT_DECODER if strict else _DECODER).raw_decode
    fast = items.item if items is not None else None

    def read_item(text: str, pos: int) -> tuple[Any, int]:
        read = fast(text, pos) if fast is not None else None
        return decode(text, pos) if read is None else read

    pos = src.ws(0)
    if not src.text.startswith("{", pos):
        if not src.eof:
            raise ValueError("not an object: decoded from the whole text")
        value, end = decode(src.text, pos)
        _json_end(src, end)
        yield from _expand(doc, value)
        return
    top: dict[str, Any] = {}
    streamed = False
    pos += 1
    while True:
        pos = src.ws(pos)
        if src.text.startswith("}", pos):
            pos += 1
            break
        key, pos = src.value(pos, decode)
        if not isinstance(key, str):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes",
                                       src.text, pos)
        if not src.text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", src.text, pos)
        pos = src.ws(pos + 1)
        if key == "items" and src.text.startswith("[", pos) and not streamed:
            streamed = True
            index = 0
            pos = src.ws(pos + 1)
            if src.text.startswith("]", pos):
                pos += 1
            else:
                while True:
                    # Inline for a pod the decoder reads with room after it in the
                    # window (nearly every item); anything else through value().
                    text = src.text
                    read = fast(text, pos) if fast is not None and (
                        src.eof or len(text) - pos >= _MARGIN) else None
                    end = len(text)
                    if read is not None:
                        item, end = read
                        end = _WS.match(text, end).end()  # type: ignore[union-attr]
                    if end < len(text) or (read is not None and src.eof):
                        pos = end
                    else:
                        item, pos = src.value(pos, read_item)
                    if type(item) is dict and "kind" not in item and \
                            top.get("kind") in _METRICS_ITEMS:
                        item = {**item, "kind": _METRICS_ITEMS[top["kind"]]}
                    yield Doc(doc.file, doc.document, f"items[{index}].", doc.span), item
                    index += 1
                    if src.text.startswith(",", pos):
                        pos = src.ws(pos + 1)
                        continue
                    if src.text.startswith("]", pos):
                        pos += 1
                        break
                    raise json.JSONDecodeError("Expecting ',' delimiter", src.text, pos)
        else:
            if strict and key in top:
                raise _DuplicateKey(f"the key {key!r} is given twice")
            top[key], pos = src.value(pos, decode)
        pos = src.ws(pos)
        if src.text.startswith(",", pos):
            pos += 1
        elif not src.text.startswith("}", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", src.text, pos)
    _json_end(src, pos)
    if streamed:
        kind = top.get("kind")
        if not (isinstance(kind, str) and kind.endswith("List")):
            doc.fail("kind", f"an object with items must be a List, found kind {kind!r}")
        return
    yield from _expand(doc, top)


def _json_end(src: _Text, pos: int) -> None:
    end = src.ws(pos)
    if end != len(src.text):
        raise json.JSONDecodeError("Extra data", src.text, end)


def _yaml_message(e: yaml.YAMLError) -> str:
    if isinstance(e, yaml.MarkedYAMLError) and e.problem_mark is not None:
        mark = e.problem_mark
        what = e.problem or e.context or "syntax error"
        return f"not valid YAML: {what} at line {mark.line + 1}, column {mark.column + 1}"
    return f"not valid YAML: {e}"


def _expand(doc: Doc, value: object) -> Iterator[tuple[Doc, object]]:
    if isinstance(value, dict) and isinstance(value.get("kind"), str) and \
            value["kind"].endswith("List") and "items" in value:
        # kubectl writes kind: List; the API itself answers PodList, NodeList, …
        items = value.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            doc.fail("items", "expected a list of objects")
        # metrics.k8s.io lists leave their items' kind out.
        item_kind = _METRICS_ITEMS.get(value["kind"])
        for i, item in enumerate(items):
            if item_kind is not None and isinstance(item, dict) and "kind" not in item:
                item = {**item, "kind": item_kind}
            yield Doc(doc.file, doc.document, f"items[{i}].", doc.span), item
        return
    if isinstance(value, list) and value and all(
            isinstance(v, dict) and "kind" not in v and "node" in v for v in value):
        # Summary API answers of several nodes, as one JSON list.
        for i, item in enumerate(value):
            yield Doc(doc.file, doc.document, f"[{i}].", doc.span), item
        return
    yield doc, value


_METRICS_ITEMS = {"PodMetricsList": "PodMetrics", "NodeMetricsList": "NodeMetrics"}

