"""Reading the documents of a YAML or JSON file, before any object is converted.

A file is read whole (never mapped into memory), without a byte order mark.
YAML is read document by document with a safe loader that refuses a key
given twice; JSON with the json module, the items of a top-level List one at
a time.  ``kind: List`` is expanded into its items, each with its own field
prefix (``items[3].``) so an error names where it is.  Syntax errors become
:class:`~kruleset.errors.ManifestError` with the file, document, line and
column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import ManifestError, Span
from ._fields import Doc
from ._jsonitems import ItemDecoder

__all__ = ["file_label", "iter_documents", "read_documents", "read_text"]

_MERGE = "tag:yaml.org,2002:merge"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, refusing a key given twice in one mapping (YAML keeps the last)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        keys = [k.value for k, _ in node.value
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE]
        if len(keys) != len(set(keys)):
            seen: set[str] = set()
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE:
                    if k.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {k.value!r} is given twice", k.start_mark)
                    seen.add(k.value)
        return super().construct_mapping(node, deep)


_LOADER: Any = _Loader


def file_label(path: Path) -> str:
    """How errors and notices name ``path``."""
    return str(path)


def read_documents(path: Path, span: Span | None = None) -> Iterator[tuple[Doc, object]]:
    """Yield ``(Doc, value)`` for every document of ``path``, expanding ``kind: List``.

    ``.json`` files are read with the json module, the items of a List one at
    a time (a caller that drops each item after use never holds the whole
    decoded file); anything else as YAML (multi-document).  Empty YAML
    documents are skipped but still counted, so document numbers match what
    a reader counts between ``---`` lines.
    """
    return iter_documents(path, span, None)


def iter_documents(path: Path, span: Span | None,
               items: ItemDecoder | None) -> Iterator[tuple[Doc, object]]:
    """:func:`read_documents`; with ``items``, List items of a JSON file are read by it.

    Values read by an :class:`ItemDecoder` may share nested parts of their
    ``spec`` with other items: only a caller that never changes them may ask.
    """
    file = file_label(path)
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise ManifestError("no such file", file=file, span=span) from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"not UTF-8 text ({e.reason} at byte {e.start})",
                            file=file, span=span) from None
    except OSError as e:
        raise ManifestError(f"cannot read the file: {e.strerror}", file=file, span=span) from None
    if path.suffix.lower() == ".json":
        try:
            yield from _json_documents(Doc(file, 1, "", span), text, items)
        except json.JSONDecodeError as e:
            raise ManifestError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}",
                                file=file, document=1, span=span) from None
        except RecursionError:
            raise ManifestError("the JSON is nested too deeply to read", file=file,
                                document=1, span=span) from None
        except ValueError:  # an integer of more than 4,300 digits
            raise ManifestError("a number has more than 4,300 digits: no quantity is that "
                                "large", file=file, document=1, span=span) from None
        return
    number = 0
    docs = yaml.load_all(text, Loader=_LOADER)
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
    with open(path, encoding="utf-8-sig") as f:
        return f.read()


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _json_documents(doc: Doc, text: str,
                    items: ItemDecoder | None = None) -> Iterator[tuple[Doc, object]]:
    """The objects of a JSON text; a top-level ``items`` array is decoded item by item.

    An item ``items`` does not recognise (or without ``items``) is decoded by
    the json module, which also reports malformed text.
    """
    decode = _DECODER.raw_decode
    fast = items.item if items is not None else None
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("{", pos):
        value, end = decode(text, pos)
        _json_end(text, end)
        yield from _expand(doc, value)
        return
    top: dict[str, Any] = {}
    streamed = False
    pos += 1
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith("}", pos):
            pos += 1
            break
        key, pos = decode(text, pos)
        if not isinstance(key, str):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes",
                                       text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        if key == "items" and text.startswith("[", pos) and not streamed:
            streamed = True
            index = 0
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            if text.startswith("]", pos):
                pos += 1
            else:
                while True:
                    read = fast(text, pos) if fast is not None else None
                    if read is None:
                        item, pos = decode(text, pos)
                    else:
                        item, pos = read
                    yield Doc(doc.file, doc.document, f"items[{index}].", doc.span), item
                    index += 1
                    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
                    if text.startswith(",", pos):
                        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                        continue
                    if text.startswith("]", pos):
                        pos += 1
                        break
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        else:
            top[key], pos = decode(text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos += 1
        elif not text.startswith("}", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
    _json_end(text, pos)
    if streamed:
        kind = top.get("kind")
        if not (isinstance(kind, str) and kind.endswith("List")):
            doc.fail("kind", f"an object with items must be a List, found kind {kind!r}")
        return
    yield from _expand(doc, top)


def _json_end(text: str, pos: int) -> None:
    end = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)


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
        for i, item in enumerate(items):
            yield Doc(doc.file, doc.document, f"items[{i}].", doc.span), item
        return
    yield doc, value

