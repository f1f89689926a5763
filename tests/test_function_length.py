"""Functions that fit on a screen: none in ``kruleset/`` is longer than 100 lines.

A function's length runs from its ``def`` line to its last line (docstring,
comments and nested functions included; decorators not), measured with
:mod:`ast` on every module of the package.  A long function is split into
named steps that read top-down (as ``fast_reclaim._Cycle.select``,
``dra.allocator.allocate`` and ``report.html_model.file_data`` were).

``PENDING`` lists the few functions still over the limit, each with the
length it may not exceed and why it is not split yet; the list may only
shrink: an entry whose function has been split (or renamed) fails the test
until it is removed, so the limit then holds for it too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kruleset"

# About two screens at most; most functions are far shorter.
MAX_FUNCTION_LINES = 100

# "path:qualified name" -> the most lines it may have until it is split (none
# now: a function that must stay long for a reason says so here).
PENDING: dict[str, int] = {}


def function_lengths(source: str, path: str) -> Iterator[tuple[str, int]]:
    """``("path:Class.function", lines)`` for every function in ``source``, nested ones too."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert child.end_lineno is not None
                yield f"{path}:{prefix}{child.name}", child.end_lineno - child.lineno + 1
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(source), "")


def _all_lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        for name, n in function_lengths(p.read_text(encoding="utf-8"), rel):
            out[name] = max(n, out.get(name, 0))
    return out


def test_functions_fit_on_a_screen() -> None:
    long = sorted(f"{name}: {n} lines" for name, n in _all_lengths().items()
                  if n > MAX_FUNCTION_LINES and n > PENDING.get(name, 0))
    assert long == [], (f"over {MAX_FUNCTION_LINES} lines (split into named steps):\n"
                        + "\n".join(long))


def test_the_pending_list_only_shrinks() -> None:
    lengths = _all_lengths()
    done = sorted(name for name in PENDING if lengths.get(name, 0) <= MAX_FUNCTION_LINES)
    assert done == [], ("split or gone: remove from PENDING:\n" + "\n".join(done))


def test_the_measure_sees_a_long_function() -> None:
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    source = f"class C:\n    def long(self):\n{body}\n\ndef short():\n    return 1\n"
    lengths = dict(function_lengths(source, "m.py"))
    assert lengths == {"m.py:C.long": MAX_FUNCTION_LINES + 1, "m.py:short": 2}
