"""The language server: the protocol's requests, answered from the modules beside it.

Checking runs in one worker thread, after a pause in typing
(:data:`DEBOUNCE`), so the editor's other requests (completion, hover) are
answered while a scenario including a large dump is read; a result that a
newer edit has overtaken is dropped.  Completion, hover, definitions and the
outline read the text only and never wait for a check.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from .cache import FileCache
from .check import ERROR, Diag
from .documents import diagnose, is_feature
from .names import Index, index
from .regions import Region, regions
from .settings import Settings

__all__ = ["DEBOUNCE", "KrServer", "to_diagnostic"]

#: Seconds of quiet after a change before the document is checked.
DEBOUNCE = 0.05


class KrServer(LanguageServer):
    """The state kept between requests: versions, the file cache, what was published where."""

    def __init__(self) -> None:
        super().__init__("kruleset", __version__,
                         text_document_sync_kind=t.TextDocumentSyncKind.Full)
        self.cache = FileCache()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kruleset-check")
        self.versions: dict[str, int] = {}
        # file -> document -> what checking the document placed on the file: a
        # YAML file shows its own diagnostics and those of every scenario including it.
        self.placed: dict[str, dict[str, list[Diag]]] = {}
        self.read: dict[str, dict[str, list[str]]] = {}  # document -> its last reading's names
        self.uris: dict[str, str] = {}   # file -> the URI of the open document showing it
        self.tasks: set[asyncio.Task[None]] = set()  # asyncio keeps only weak references
        self.settings = Settings()

    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def regions_of(self, uri: str) -> tuple[list[Region], Index]:
        text = self.workspace.get_text_document(uri).source
        found = regions(text, is_feature(uri))
        idx = index(found)
        idx.read = self.read.get(uri, {})
        return found, idx

    def schedule(self, uri: str) -> None:
        version = self.versions.get(uri, 0) + 1
        self.versions[uri] = version
        task = asyncio.ensure_future(self._check(uri, version))
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            self.window_log_message(t.LogMessageParams(
                t.MessageType.Error, f"kruleset: checking failed: {type(exc).__name__}: {exc}"))

    async def _check(self, uri: str, version: int) -> None:
        await asyncio.sleep(DEBOUNCE)
        if self.versions.get(uri) != version:
            return
        text = self.workspace.get_text_document(uri).source
        path = self.path_of(uri)
        loop = asyncio.get_running_loop()
        clusters = () if is_feature(path) else self.settings.clusters_for(path)

        def outdated() -> bool:
            return self.versions.get(uri) != version

        # The errors of one reading are shown at once; a refused file is then
        # read again without them, as `kruleset check` does, for the rest.
        for quick in (True, False):
            names: dict[str, list[str]] = {}
            found = await loop.run_in_executor(self.worker, _diagnose, path, text, self.cache,
                                               quick, outdated, names, clusters)
            if self.versions.get(uri) != version:
                return
            if names:
                self.read[uri] = names
            self.publish(uri, path, found)
            if not any(d.severity == ERROR for ds in found.values() for d in ds):
                return

    def publish(self, uri: str, path: str, found: dict[str, list[Diag]]) -> None:
        """Show what checking document ``uri`` found, on it and on the files it includes."""
        own = _key(path)
        self.uris[own] = uri  # the document's file is named as the editor names it
        files = {_key(f): ds for f, ds in found.items()}
        files.setdefault(own, [])
        for f in list(self.placed):
            if uri in self.placed[f] and f not in files:
                del self.placed[f][uri]
                self._send_file(f)
        for f, ds in files.items():
            self.placed.setdefault(f, {})[uri] = ds
            self._send_file(f)

    def forget(self, uri: str) -> None:
        """A document closed: take away what it placed."""
        self.versions[uri] = self.versions.get(uri, 0) + 1  # drop a check under way
        self.uris.pop(_key(self.path_of(uri)), None)
        for f in list(self.placed):
            if self.placed[f].pop(uri, None) is not None:
                self._send_file(f)

    def _send_file(self, f: str) -> None:
        found = [d for ds in self.placed.get(f, {}).values() for d in ds]
        self._send(self.uris.get(f) or from_fs_path(f) or f, found)

    def _send(self, uri: str, found: list[Diag]) -> None:
        self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
            uri=uri, diagnostics=[to_diagnostic(d) for d in found]))


def _key(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path


def _diagnose(path: str, text: str, cache: FileCache, quick: bool,
              stop: Callable[[], bool], names: dict[str, list[str]], clusters: tuple[str, ...]
              ) -> dict[str, list[Diag]]:
    try:
        return diagnose(path, text, cache, quick=quick, stop=stop, names=names,
                        clusters=clusters)
    finally:
        # A large scenario is frozen out of the collector's reach while read
        # (kruleset.lang.parse_text); a long-lived server lets it go again.
        gc.unfreeze()


def to_diagnostic(d: Diag) -> t.Diagnostic:
    return t.Diagnostic(
        range=t.Range(t.Position(d.line, d.column), t.Position(d.end_line, d.end_column)),
        message=d.message, severity=t.DiagnosticSeverity(d.severity), source="kruleset",
        data={"replace": d.replacement} if d.replacement else None)
