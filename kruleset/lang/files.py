"""``at T apply "FILE"`` and ``at T delete "FILE"``: a manifest's objects at a time.

As ``kubectl apply -f`` and ``kubectl delete -f``: the file is read when the
scenario is (so its mistakes are refused at once, at the statement), and its
objects are applied or deleted in file order at that time.  What each means
is the simulation's :class:`~kruleset.model.scenario.ApplyObject` and
:class:`~kruleset.model.scenario.DeleteObjectOf`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ..errors import ScenarioError, Span
from ..model.dra import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from ..model.objects import Node, Pod
from ..model.scenario import Action, ApplyObject, DeleteObjectOf
from .context import Context
from .cursor import Cursor
from .declarations import resolve_path
from .dra import register_included
from .syntax import Word

__all__ = ["LOADER_CACHE", "call_loader", "file_actions"]

#: A cache of loaded files (the language server keeps a 100 MB dump it has read
#: until the file changes): called as ``cache(name, path, span, loader)``.
LOADER_CACHE: ContextVar[Callable[[str, Any, Span, Callable[..., Any]], Any] | None] = \
    ContextVar("kruleset_loader_cache", default=None)

DRA_OBJECTS = (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice)


def call_loader(name: str, path: Any, span: Span) -> Any:
    """Call a loader of kruleset.manifests, imported only when a file needs it."""
    from .. import manifests

    loader = getattr(manifests, name, None)
    if loader is None:
        raise ScenarioError(f"reading Kubernetes files is not available in this version "
                            f"({name} is missing)", span)
    cache = LOADER_CACHE.get()
    return loader(path, span) if cache is None else cache(name, path, span, loader)


def file_actions(ctx: Context, cur: Cursor, verb: str, span: object) -> list[Action]:
    """The actions of ``apply "FILE"`` / ``delete "FILE"`` (the cursor is at the file name)."""
    w = cur.peek()
    assert isinstance(w, Word)
    cur.pos += 1
    path = resolve_path(ctx, w)
    loaded = call_loader("load_manifests", path, span)  # type: ignore[arg-type]
    where = f"from {w.text}"
    out: list[Action] = []
    for obj in loaded.objects:
        if isinstance(obj, DRA_OBJECTS):
            # Registered by the DRA reader (names for later references); the
            # simulation applies or deletes them as the other kinds.
            if verb == "apply":
                register_included(ctx, obj, w)
                out.append(ApplyObject(obj, span=span))  # type: ignore[arg-type]
            else:
                out.append(DeleteObjectOf(obj, span=span))  # type: ignore[arg-type]
            continue
        if verb == "apply":
            kind, key, table = ctx._slot(obj)
            if key not in table or (kind, key) in ctx.gone:
                ctx.register(obj, w, where)
            out.append(ApplyObject(obj, span=span))  # type: ignore[arg-type]
        else:
            if isinstance(obj, Node):
                raise ctx.src.error(f"deleting Node {obj.name} from a file is not simulated",
                                    w, expected=f"drain node {obj.name}")
            kind, key, _ = ctx._slot(obj)
            ctx.gone.add((kind, key))
            if isinstance(obj, Pod):
                ctx.gone.add(("pod", obj.key))
            out.append(DeleteObjectOf(obj, span=span))  # type: ignore[arg-type]
    return out
