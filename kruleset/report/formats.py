"""The registry of output formats (``--format NAME``).

A format is a :class:`Format` subclass registered under its name with
:func:`register`.  The run calls :meth:`Format.begin` once, then
:meth:`Format.file` for each file in the order the files were given (as soon
as that file and every one before it have finished, so output streams and
stays deterministic whatever ``-j``), then :meth:`Format.end` with the
summary — also after Ctrl-C, so a report file is complete for the files that
finished.  A format writes only its report to ``out`` (stdout or
``--output FILE``); messages for people go to stderr through the run.

Adding a format is a module under ``kruleset/report/`` that registers a class,
plus its module name in :data:`BUILTIN`::

    @register("html")
    class Html(Format):
        def file(self, report: FileReport) -> None: ...
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import IO, ClassVar

import attrs

from .model import FileReport, Summary

__all__ = ["BUILTIN", "Format", "FormatOptions", "get", "names", "register"]

#: Modules under kruleset.report that register a format, in ``--help`` order.
BUILTIN = ("text", "json", "junit", "tap", "github")

_REGISTRY: dict[str, type[Format]] = {}


@attrs.frozen(slots=True)
class FormatOptions:
    """What a format may adapt to: the command (``run`` or ``check``), ``--quiet``,
    whether ``out`` takes ANSI colour."""

    command: str = "run"
    quiet: bool = False
    color: bool = False


class Format:
    """Base class of an output format; see the module docstring."""

    #: The per-file work renders the human report (costly for big runs) only for these.
    wants_text: ClassVar[bool] = False
    #: ... and the JSON list of decisions only for these.
    wants_decisions: ClassVar[bool] = False

    def __init__(self, out: IO[str], options: FormatOptions) -> None:
        self.out = out
        self.options = options

    def begin(self, total: int) -> None:
        """Before any file; ``total`` files will be reported at most."""

    def file(self, report: FileReport) -> None:
        """One finished file, in input order."""

    def end(self, summary: Summary) -> None:
        """After the last file (or the interruption)."""


def register(name: str) -> Callable[[type[Format]], type[Format]]:
    """Class decorator: make ``cls`` the format called ``name``."""

    def deco(cls: type[Format]) -> type[Format]:
        _REGISTRY[name] = cls
        return cls

    return deco


def _load_builtin() -> None:
    for module in BUILTIN:
        importlib.import_module(f"{__package__}.{module}")


def names() -> tuple[str, ...]:
    """Every format's name: the built-in ones in :data:`BUILTIN` order, then others."""
    _load_builtin()
    return tuple(sorted(_REGISTRY, key=lambda n: (BUILTIN.index(n) if n in BUILTIN
                                                  else len(BUILTIN), n)))


def get(name: str) -> type[Format]:
    """The format called ``name`` (KeyError if none)."""
    _load_builtin()
    return _REGISTRY[name]
