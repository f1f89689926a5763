"""Where a field path is in a YAML or JSON file: its line and column.

Files are decoded without positions (that is what makes a large dump fast
to read); only when something is refused is the file composed again, as
YAML (JSON is read the same way), to find the line of the field named.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any

import yaml

__all__ = ["locate"]

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INDEX = re.compile(r"\[([0-9]+)\]")
_MAX_BYTES = 64 << 20  # larger files are not composed again: no line, the field path stays


@lru_cache(maxsize=4)
def _documents(file: str, stamp: tuple[float, int]) -> tuple[Any, ...] | None:
    try:
        with open(file, encoding="utf-8-sig") as f:
            text = f.read()
        return tuple(yaml.compose_all(text, Loader=_LOADER))
    except Exception:  # noqa: BLE001 - no position is better than a second error
        return None


def _step(node: Any, rest: str) -> tuple[Any, str] | None:
    """The child of ``node`` the path ``rest`` starts with, and what is left."""
    if isinstance(node, yaml.SequenceNode):
        m = _INDEX.match(rest)
        if m is None or int(m.group(1)) >= len(node.value):
            return None
        return node.value[int(m.group(1))], rest[m.end():].lstrip(".")
    if isinstance(node, yaml.MappingNode):
        best = None
        for key, value in node.value:
            k = str(getattr(key, "value", ""))
            if rest.startswith(k) and (len(rest) == len(k) or rest[len(k)] in ".[") and \
                    (best is None or len(k) > len(best[0])):
                best = (k, key, value)
        if best is None:
            return None
        k, key, value = best
        left = rest[len(k):].lstrip(".")
        # The key's own line for the last step: that is where a wrong field is written.
        return (key if not left else value), left
    return None


def locate(file: str, document: int | None, field: str) -> tuple[int, int] | None:
    """1-based (line, column) of ``field`` in the ``document``-th document of ``file``.

    The deepest part of the path that exists is given (a missing field is
    reported at the object that lacks it); ``None`` when the file cannot be
    read again or composed.
    """
    try:
        st = os.stat(file)
    except OSError:
        return None
    if st.st_size > _MAX_BYTES:
        return None
    docs = _documents(file, (st.st_mtime, st.st_size))
    if not docs or document is None or not 1 <= document <= len(docs):
        return None
    node = docs[document - 1]
    rest = field
    while rest:
        nxt = _step(node, rest)
        if nxt is None:
            break
        node, rest = nxt
    mark = node.start_mark
    return mark.line + 1, mark.column + 1
