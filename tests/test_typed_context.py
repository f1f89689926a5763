"""Every rule's ``ctx`` under ``kruleset/rules/`` names the context it receives.

A context typed ``Any`` hides what a rule reads from it (and mypy checks
nothing about it); :mod:`kruleset.rules.context` lists the contexts.
"""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "kruleset" / "rules"


def _untyped_contexts(source: str) -> list[tuple[int, str]]:
    """``(line, function)`` of each ``ctx`` parameter with no annotation or ``Any``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        a = node.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            if arg.arg != "ctx":
                continue
            shown = ast.unparse(arg.annotation) if arg.annotation is not None else ""
            if shown in ("", "Any", "typing.Any", "'Any'", '"Any"'):
                out.append((node.lineno, node.name))
    return out


def test_no_rule_context_is_any() -> None:
    found = []
    for path in sorted(RULES.rglob("*.py")):
        rel = path.relative_to(RULES).as_posix()
        found += [f"kruleset/rules/{rel}:{line} {fn}(ctx)"
                  for line, fn in _untyped_contexts(path.read_text())]
    assert found == [], "ctx typed Any or not at all:\n" + "\n".join(found)


def test_the_check_sees_an_untyped_context() -> None:
    source = ("from typing import Any\n"
              "def f(ctx: Any, args): pass\n"
              "def g(x, ctx=None): pass\n"
              "def h(ctx: 'ScheduleContext'): pass\n")
    assert _untyped_contexts(source) == [(2, "f"), (3, "g")]
