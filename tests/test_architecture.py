"""The package's import structure: no cycles, no arrow back up the layers.

Reads every module's imports with :mod:`ast` (module level, inside functions
and under ``TYPE_CHECKING`` alike: a lazy import is still a dependency) and
checks the rules ARCHITECTURE.md states:

* no import cycle between modules of ``kruleset`` (imports made only for
  type checkers, under ``if TYPE_CHECKING:``, do not count here);
* the layers, from the bottom: ``errors``/``model`` → ``lang``/``manifests``
  → ``rules`` → ``sim`` → ``report`` → ``api``/``cli``/``bdd``; a module
  imports only from its own layer or below (``manifests`` never from ``lang``);
* the reference rules never import the scheduler's fast paths
  (``rules/scheduler/fast/``) to decide;
* every package is listed in ``pyproject.toml`` (an installed copy has it);
* no module under ``kruleset/rules/`` is longer than 600 lines;
* no module uses another kruleset module's private name (``from m import _x``,
  ``m._x``): what modules share is public, named and documented.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kruleset"

# Lower number = lower layer.  Longest prefix wins.
LAYERS: dict[str, int] = {
    "kruleset.errors": 0,
    "kruleset.model": 0,
    "kruleset.grammar": 0,
    "kruleset._version": 0,
    "kruleset.exitcode": 0,
    "kruleset.terminal": 0,
    "kruleset.readfile": 0,
    "kruleset.yamlload": 0,
    "kruleset.lang": 1,
    "kruleset.manifests": 1,
    "kruleset.rules": 2,
    "kruleset.highlight": 2,  # reads the language's words; the HTML report uses it
    "kruleset.sim": 3,
    "kruleset.report": 4,
    "kruleset.api": 5,
    "kruleset.cli": 6,
    # The command line's work over files and its what-if sweeps.
    "kruleset.runner": 6,
    "kruleset.guard": 6,
    "kruleset.batch": 6,
    "kruleset.fileresult": 6,
    "kruleset.progress": 6,
    "kruleset.diagnose": 6,
    "kruleset.sweep": 6,
    "kruleset.__main__": 6,
    "kruleset.bdd": 6,
    "kruleset.lsp": 6,  # the language server checks as `kruleset check` does
    "kruleset": 6,  # the package's public API re-exports from every layer
}
# Siblings on one layer and the direction they must not import in: the `.kr`
# loader may read an included manifest, the manifest readers never parse `.kr`.
APART = {("kruleset.manifests", "kruleset.lang")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (annotations, not run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                out.update(id(n) for n in ast.walk(stmt))
    return out


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a ``from … import`` in ``package`` reads from."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(name: str, path: Path, known: set[str], *, runtime: bool = False) -> set[str]:
    """The kruleset modules ``name`` imports (a package import counts as its __init__).

    ``runtime``: leave out imports made only for type checkers.
    """
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    out: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_only(tree) if runtime else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod
                       for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t.startswith("kruleset") and t != name:
                out.add(t)
    return out


def _graph(*, runtime: bool = False) -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known, runtime=runtime) for name, path in mods.items()}


def _layer(name: str) -> tuple[str, int]:
    best = max((p for p in LAYERS if name == p or name.startswith(p + ".")), key=len)
    return best, LAYERS[best]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _package_inits_ok(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ importing its own submodules (to re-export them) is
    # not a cycle with those submodules importing siblings through the
    # package path; drop edges from a package to its own descendants.
    return {v: {w for w in ws if not w.startswith(v + ".")} for v, ws in graph.items()}


def test_no_import_cycles() -> None:
    cycles = _cycles(_package_inits_ok(_graph(runtime=True)))
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_type_only_import_cycles() -> None:
    """No cycle even counting imports made only for type checkers: where one side
    needs the other's type, a Protocol names what it needs instead."""
    cycles = _cycles(_package_inits_ok(_graph()))
    assert cycles == [], "\n".join(" <-> ".join(c) for c in cycles)


def test_no_import_runs_back_up_the_layers() -> None:
    bad = []
    for v, ws in _graph().items():
        lv, nv = _layer(v)
        for w in ws:
            lw, nw = _layer(w)
            if nw > nv or (lv, lw) in APART:
                bad.append(f"{v} ({lv}) imports {w} ({lw})")
    assert bad == [], "\n".join(sorted(bad))


def test_reference_rules_do_not_import_fast_paths() -> None:
    bad = sorted(f"{v} imports {w}" for v, ws in _graph(runtime=True).items() for w in ws
                 if _is_fast(w) and not _is_fast(v)
                 and v.startswith("kruleset.rules.") and v not in CHOOSE_FAST_PATHS)
    assert bad == [], "\n".join(bad)


def _is_fast(module: str) -> bool:
    """A fast path: under ``rules/scheduler/fast/`` or a ``fast_*`` module beside its mechanism."""
    return (module.startswith("kruleset.rules.scheduler.fast")
            or module.rpartition(".")[2].startswith("fast_"))


# Reference modules that still import a fast path; the list may only shrink.
# Empty: every fast path is chosen by rules/scheduler/fast/compose.py (imported by name).
CHOOSE_FAST_PATHS: set[str] = set()


# A module a newcomer reads in one sitting.
MAX_RULES_MODULE_LINES = 600


def test_rules_modules_are_small() -> None:
    """No module under ``kruleset/rules/`` is longer than 600 lines (ARCHITECTURE.md)."""
    long = sorted(f"{p.relative_to(ROOT)}: {n} lines"
                  for p in (PACKAGE / "rules").rglob("*.py")
                  if (n := len(p.read_text().splitlines())) > MAX_RULES_MODULE_LINES)
    assert long == [], "\n".join(long)


def test_every_package_is_installed() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'"(kruleset[\w.]*)"', text))
    packages = {_module_name(p.parent / "__init__.py") for p in PACKAGE.rglob("__init__.py")}
    assert packages - listed == set()


def test_the_checker_sees_an_import() -> None:
    graph = _graph()
    assert "kruleset.rules.engine" in graph["kruleset.rules.registry"]
    assert "kruleset.rules.scheduler.framework" in graph["kruleset.rules.scheduler.node_selection"]
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]


def _private_uses(name: str, text: str, known: set[str], *, is_pkg: bool = False) -> list[str]:
    """Where module ``name`` (source ``text``) reaches another kruleset module's
    ``_private`` name: ``from m import _x``, or ``m._x`` on a name bound to a module."""
    package = name if is_pkg else name.rpartition(".")[0]
    tree = ast.parse(text)
    modules: dict[str, str] = {}  # local name -> the kruleset module it is bound to
    found: list[str] = []

    def private(n: str) -> bool:
        return n.startswith("_") and not n.startswith("__")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:
                    modules[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            if not mod.startswith("kruleset"):
                continue
            for a in node.names:
                if f"{mod}.{a.name}" in known:
                    modules[a.asname or a.name] = f"{mod}.{a.name}"
                elif private(a.name) and mod != name:
                    found.append(f"{name}:{node.lineno}: from {mod} import {a.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and private(node.attr)
                and isinstance(node.value, ast.Name) and node.value.id in modules
                and modules[node.value.id] != name):
            found.append(f"{name}:{node.lineno}: {modules[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    mods = _modules()
    known = set(mods)
    found = [f for name, path in mods.items()
             for f in _private_uses(name, path.read_text(), known,
                                    is_pkg=path.name == "__init__.py")]
    assert found == [], "\n".join(found)


def test_the_private_name_checker_sees_both_forms() -> None:
    text = ("from .b import _x, y\nfrom . import b\nfrom kruleset import b as c\n"
            "b._z()\nc._w\nb.w()\nimport os\nos._exit(0)\nfrom .b import __doc__\n")
    uses = _private_uses("kruleset.a", text, {"kruleset.a", "kruleset.b"})
    assert sorted(u.split(": ", 1)[1] for u in uses) == [
        "from kruleset.b import _x", "kruleset.b._w", "kruleset.b._z"]
