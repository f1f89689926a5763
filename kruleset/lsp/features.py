"""The protocol's methods the server answers, each a thin call into the modules beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types as t
from pygls.uris import from_fs_path

from .complete import complete
from .hover import hover_text, word_at
from .names import in_files
from .profile import is_profile, is_yaml, profile_completions
from .regions import Region
from .server import KrServer
from .settings import Settings

__all__ = ["register"]

_SYMBOL_KINDS = {"node": t.SymbolKind.Class, "pod": t.SymbolKind.Object,
                 "deployment": t.SymbolKind.Struct, "priorityclass": t.SymbolKind.Constant}


def _region_line(found: list[Region], line: int, column: int
                 ) -> tuple[list[str], int, int] | None:
    """The region lines holding document position (line, column), as (lines, line, column)."""
    for region in found:
        for n, (doc_line, start) in enumerate(region.origins):
            if doc_line == line and column >= start:
                return region.lines, n, column - start
    return None


def _range(line: int, start: int, end: int) -> t.Range:
    return t.Range(t.Position(line, start), t.Position(line, end))


def _completion(ls: KrServer, params: t.CompletionParams) -> t.CompletionList:
    uri = params.text_document.uri
    found, idx = ls.regions_of(uri)
    at = _region_line(found, params.position.line, params.position.character)
    if is_yaml(uri):
        items = profile_completions() if is_profile(
            ls.workspace.get_text_document(uri).source) else []
    else:
        items = [] if at is None else complete(at[0], at[1], at[2], idx)
    return t.CompletionList(is_incomplete=False, items=[
        t.CompletionItem(label=i.label, kind=t.CompletionItemKind(i.kind), detail=i.detail or None)
        for i in items])


def _hover(ls: KrServer, params: t.HoverParams) -> t.Hover | None:
    found, idx = ls.regions_of(params.text_document.uri)
    at = _region_line(found, params.position.line, params.position.character)
    if at is None:
        return None
    text = hover_text(at[0][at[1]], at[2], idx)
    if not text:
        return None
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))


def _definition(ls: KrServer, params: t.DefinitionParams) -> list[t.Location] | None:
    uri = params.text_document.uri
    found, idx = ls.regions_of(uri)
    line, col = params.position.line, params.position.character
    for ref in idx.files:
        if ref.line == line and ref.column <= col <= ref.end:
            target = Path(ls.path_of(uri)).parent / ref.path
            return [t.Location(uri=from_fs_path(str(target.resolve())) or "",
                               range=_range(0, 0, 0))]
    at = _region_line(found, line, col)
    if at is None:
        return None
    word = word_at(at[0][at[1]], at[2])[0]
    decl = idx.find(word) if word else None
    if decl is not None:
        return [t.Location(uri=uri, range=_range(decl.line, decl.column, decl.end))]
    if not word or not any(word in names for names in idx.read.values()):
        return None
    # An object of an included file: where that file names it.
    folder = Path(ls.path_of(uri)).parent
    where = in_files(word, [folder / ref.path for ref in idx.files])
    if where is None:
        return None
    path, n, column = where
    return [t.Location(uri=from_fs_path(str(path.resolve())) or "",
                       range=_range(n, column, column + len(word.rsplit("/", 1)[-1])))]


def _symbols(ls: KrServer, params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
    _, idx = ls.regions_of(params.text_document.uri)
    out: list[t.DocumentSymbol] = []
    if idx.title is not None:
        title, line = idx.title
        r = _range(line, 0, len(title) + 11)
        out.append(t.DocumentSymbol(name=title or "scenario", kind=t.SymbolKind.Module,
                                    range=r, selection_range=r))
    seen: set[tuple[str, str]] = set()
    for d in idx.declared:
        if (d.kind, d.name) in seen or d.statement.startswith(("deployment", "at ")) \
                and d.kind == "pod":
            continue  # a deployment's replicas are completions, not outline entries
        seen.add((d.kind, d.name))
        r = _range(d.line, d.column, d.end)
        out.append(t.DocumentSymbol(name=d.name.removeprefix("default/"), detail=d.kind,
                                    range=r, selection_range=r,
                                    kind=_SYMBOL_KINDS.get(d.kind, t.SymbolKind.Variable)))
    for when, line, end in idx.instants:
        r = _range(line, 0, end)
        out.append(t.DocumentSymbol(name=f"at {when}", kind=t.SymbolKind.Event, range=r,
                                    selection_range=r))
    out.sort(key=lambda s: (s.range.start.line, s.range.start.character))
    return out


def _code_actions(ls: KrServer, params: t.CodeActionParams) -> list[t.CodeAction]:
    uri = params.text_document.uri
    out = []
    for diag in params.context.diagnostics:
        data: Any = diag.data
        word = data.get("replace") if isinstance(data, dict) else None
        if not word:
            continue
        edit = t.WorkspaceEdit(changes={uri: [t.TextEdit(range=diag.range, new_text=word)]})
        out.append(t.CodeAction(title=f"Replace with '{word}'", kind=t.CodeActionKind.QuickFix,
                                diagnostics=[diag], edit=edit, is_preferred=True))
    return out


def register(ls: KrServer) -> None:
    """Attach every feature to ``ls``."""
    # pygls passes the server to a handler whose first parameter is called ``ls``.
    ls.feature(t.INITIALIZE)(_initialize)
    ls.feature(t.TEXT_DOCUMENT_DID_OPEN)(_changed)
    ls.feature(t.TEXT_DOCUMENT_DID_CHANGE)(_changed)
    ls.feature(t.TEXT_DOCUMENT_DID_SAVE)(_changed)
    ls.feature(t.TEXT_DOCUMENT_DID_CLOSE)(_closed)
    ls.feature(t.TEXT_DOCUMENT_COMPLETION,
               t.CompletionOptions(trigger_characters=[" ", "=", "(", ","]))(_completion)
    ls.feature(t.TEXT_DOCUMENT_HOVER)(_hover)
    ls.feature(t.TEXT_DOCUMENT_DEFINITION)(_definition)
    ls.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(_symbols)
    ls.feature(t.TEXT_DOCUMENT_CODE_ACTION,
               t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))(_code_actions)


def _initialize(ls: KrServer, params: t.InitializeParams) -> None:
    root = params.root_uri and ls.path_of(params.root_uri) or params.root_path
    ls.settings = Settings.read(root, params.initialization_options)
    for problem in ls.settings.problems:
        ls.window_log_message(t.LogMessageParams(t.MessageType.Warning, problem))


def _changed(ls: KrServer, params: Any) -> None:
    ls.schedule(params.text_document.uri)


def _closed(ls: KrServer, params: t.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
