"""Where the reference rules hand a question to a fast path, without importing it.

A fast path (``rules/scheduler/fast/``, ``quota/fast_*``) answers a question
the reference rules answer, faster, with the same decision and the same
trace.  The reference module names the question; the fast module registers
its answer under that name and the :class:`~kruleset.rules.scheduler.framework.FastPaths`
option that turns it on (:func:`fast_path`), and :func:`chosen` gives it to
the reference module only when the cycle's ``ctx.fast`` has that option on.  The fast
modules are imported by :mod:`kruleset.rules.builtin` with every other rules
module; a reference module never imports one, so the reference reads alone.

Rules also declare here the forms a fast path may run instead of them, as a
filter's batch form (:func:`register_batch_filter`): a declaration beside
the rule, used only by the batch search
(:mod:`~kruleset.rules.scheduler.fast.batch_search`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from kruleset.model.objects import Pod
    from kruleset.model.state import NodeState

    from ..engine import Failure

__all__ = [
    "BATCH_FILTERS",
    "GENERAL",
    "BatchFilterFn",
    "chosen",
    "chosen_by",
    "fast_path",
    "register_batch_filter",
]

F = TypeVar("F", bound=Callable[..., Any])

# name -> (the FastPaths option that chooses it, the fast path)
_FAST: dict[str, tuple[str, Callable[..., Any]]] = {}
# What a fast path returns when the reference must decide after all.
GENERAL: Any = object()


def fast_path(option: str, name: str | None = None) -> Callable[[F], F]:
    """Decorator: ``fn`` answers, as a fast path, the question ``name`` (default: ``option``).

    ``option`` is the field of :class:`~kruleset.rules.scheduler.framework.FastPaths`
    that turns it on; one option may choose several answers (the victim
    arithmetic has a plan and a per-node fit).
    """

    def wrap(fn: F) -> F:
        _FAST[name or option] = (option, fn)
        return fn

    return wrap


def chosen(ctx: Any, name: str) -> Callable[..., Any] | None:
    """The fast path registered as ``name`` when ``ctx.fast`` has its option on, else None.

    None means: take the reference path (the option is off, or no fast
    module registered one).
    """
    return chosen_by(ctx.fast, name)


def chosen_by(fast: Any, name: str) -> Callable[..., Any] | None:
    """:func:`chosen` for callers holding the FastPaths themselves (None: every option off)."""
    found = _FAST.get(name)
    if found is None or fast is None or not getattr(fast, found[0]):
        return None
    return found[1]


# A filter's batch form: ``batch(ctx, args, pod, nodes)`` gives, for each node
# of ``nodes``, exactly what ``fn(ctx, args, pod, node)`` would (a Failure or
# None), or returns None when every node passes.  It exists only to avoid a
# Python call per node on the hot path; results must be identical.
BatchFilterFn = Callable[[Any, Mapping[str, Any], "Pod", Sequence["NodeState"]],
                         "Sequence[Failure | None] | None"]
BATCH_FILTERS: dict[Callable[..., Any], BatchFilterFn] = {}


def register_batch_filter(fn: Callable[..., Any]) -> Callable[[BatchFilterFn], BatchFilterFn]:
    """Decorator: the batch form of the filter rule function ``fn`` (see ``BATCH_FILTERS``).

    Used by the batch search when tracing is off or deferred and no overlay
    is in force; the results (feasible nodes, failures, the next start
    offset) are the same as filtering node by node.
    """

    def wrap(batch: BatchFilterFn) -> BatchFilterFn:
        BATCH_FILTERS[fn] = batch
        return batch

    return wrap
