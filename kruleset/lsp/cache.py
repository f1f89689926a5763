"""Included files read once: kept until their modification time or size changes.

The language server checks a scenario on every pause in typing; a scenario
that includes a 100 MB dump would read the dump each time.  :class:`FileCache`
is installed as :data:`kruleset.lang.files.LOADER_CACHE` while the server
checks: a file whose ``stat`` is unchanged gives back what it gave before,
with the notices (warnings) its reading produced, so a cached read is
reported exactly as a fresh one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ..errors import NOTICES, ScenarioError, Span, notice

__all__ = ["FileCache"]


@attrs.frozen(slots=True)
class _Entry:
    stamp: tuple[int, int]   # (mtime_ns, size)
    value: Any
    error: ScenarioError | None
    span: Span               # where the include was: an error's place depends on it
    notices: tuple[str, ...]


class FileCache:
    """``(loader, path) -> result``, valid while the file's mtime and size stay the same."""

    def __init__(self, limit: int = 32) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()
        self._limit = limit
        self.reads = 0  # how many times a file was really read (the tests look)

    def __call__(self, name: str, path: Any, span: Span,
                 loader: Callable[[Any, Span], Any]) -> Any:
        try:
            st = os.stat(path)
        except OSError:
            return loader(path, span)  # missing: the loader says so, at the statement
        key = (name, str(Path(path).resolve()))
        stamp = (st.st_mtime_ns, st.st_size)
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry.stamp != stamp or (entry.error is not None
                                                     and entry.span != span):
            entry = self._read(name, path, span, loader, stamp)
            with self._lock:
                if len(self._entries) >= self._limit:
                    self._entries.pop(next(iter(self._entries)))
                self._entries[key] = entry
        for text in entry.notices:
            notice(text)
        if entry.error is not None:
            raise entry.error
        return entry.value

    def _read(self, name: str, path: Any, span: Span, loader: Callable[[Any, Span], Any],
              stamp: tuple[int, int]) -> _Entry:
        self.reads += 1
        heard: list[str] = []
        token = NOTICES.set(heard)
        try:
            return _Entry(stamp, loader(path, span), None, span, tuple(heard))
        except ScenarioError as e:
            return _Entry(stamp, None, e, span, tuple(heard))
        finally:
            NOTICES.reset(token)
