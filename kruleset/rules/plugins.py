"""User rules from outside kruleset: ``--rules MODULE_OR_FILE`` and installed plugins.

A plugin is a Python module that registers rules when it is imported (with
:func:`kruleset.register`), or a function that does so when called.  Three
ways bring one in:

* ``kruleset run|sweep|rules --rules MODULE_OR_FILE`` (repeatable), the
  pytest option ``--kruleset-rules`` or the ini option ``kruleset_rules``:
  a path to a ``.py`` file (its folder is put on ``sys.path``, last, for
  the modules beside it), or a dotted module name importable from
  ``sys.path`` or the current folder;
* the environment variable ``KRULESET_RULES`` (the same forms, separated by
  ``os.pathsep``): the command line sets it for its worker processes;
* an installed distribution's entry point in the group ``kruleset.rules``
  (as pytest's ``pytest11``), loaded the first time a rule set is asked for,
  unless ``KRULESET_DISABLE_PLUGIN_AUTOLOAD`` is set.

A plugin that cannot be loaded (not found, an error while importing it, a
rule with a bad name, an unknown rule set) is refused with
:class:`PluginError`, a :class:`~kruleset.errors.ScenarioError` naming the
file and line.  Loading the same plugin twice does nothing the second time.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import ScenarioError, Span, did_you_mean
from .registry import get_ruleset, rulesets

if TYPE_CHECKING:
    import importlib.metadata

__all__ = [
    "DISABLE_ENV",
    "ENTRY_POINT_GROUP",
    "ENV",
    "LoadedPlugin",
    "PluginError",
    "autoload",
    "installed",
    "load",
    "load_all",
    "loaded",
]

ENTRY_POINT_GROUP = "kruleset.rules"
ENV = "KRULESET_RULES"
DISABLE_ENV = "KRULESET_DISABLE_PLUGIN_AUTOLOAD"
# What a rule's name must look like: dotted words, as the built-in rules are named.
RULE_NAME = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$")


class PluginError(ScenarioError):
    """A plugin kruleset refuses (exit status 2 on the command line)."""


@attrs.frozen(slots=True)
class LoadedPlugin:
    """One plugin loaded: where from, what it is, the rules it added.

    ``origin`` is ``--rules`` (also the pytest and ``KRULESET_RULES`` forms) or
    ``entry point``; ``name`` the file, module or entry point name; ``target``
    what was imported (``module`` or ``module:attr``); ``rules`` the names of
    the rules it registered, as ``ruleset/rule``.
    """

    origin: str
    name: str
    target: str
    rules: tuple[str, ...]


_LOADED: dict[str, LoadedPlugin] = {}
_autoloaded = False


def loaded() -> list[LoadedPlugin]:
    """The plugins loaded in this process, in load order."""
    return list(_LOADED.values())


def _rule_names() -> set[str]:
    return {f"{rs.name}/{r.name}" for rs in rulesets() for r in rs.rules}


def _where(exc: BaseException, file: str | None) -> tuple[str, int]:
    """The plugin's own file and line in ``exc``'s traceback (the deepest frame there)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        return exc.filename, exc.lineno or 0
    mine = [f for f in frames if file is not None and Path(f.filename) == Path(file)]
    if not mine:
        # A module by name: the deepest frame outside kruleset and importlib.
        here = str(Path(__file__).resolve().parent.parent)
        mine = [f for f in frames if not f.filename.startswith(here)
                and "importlib" not in f.filename]
    if mine:
        return mine[-1].filename, mine[-1].lineno or 0
    return file or "", 0


def _refusal(spec: str, file: str | None, exc: BaseException) -> PluginError:
    where, line = _where(exc, file)
    what = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    suggestion = ""
    if isinstance(exc, KeyError) and what.startswith("no rule set "):
        wanted = what.removeprefix("no rule set ").strip("'\"")
        suggestion = did_you_mean(wanted, [rs.name for rs in rulesets()])
        what = f"unknown rule set '{wanted}'"
    elif not isinstance(exc, (ValueError, KeyError)):
        what = f"{type(exc).__name__}: {what}"
    return PluginError(f"rules plugin {spec} refused: {what}",
                       Span(where or spec, line, 1 if line else 0, ""), suggestion=suggestion)


def _forget(added: Iterable[str]) -> None:
    """Take a refused plugin's rules out again: a refusal leaves the rule sets as they were."""
    for full in added:
        ruleset, name = full.split("/", 1)
        rs = get_ruleset(ruleset)
        rs.rules[:] = [r for r in rs.rules if r.name != name]


def _check_names(spec: str, file: str | None, added: Iterable[str]) -> None:
    for full in sorted(added):
        name = full.split("/", 1)[1]
        if not RULE_NAME.match(name):
            raise PluginError(
                f"rules plugin {spec} refused: bad rule name {name!r}",
                Span(file or spec, 0, 0, ""),
                expected="a dotted name such as 'myorg.filter.GpuOnly' (letters, digits, "
                         "'-', '_')")


def _on_path(folder: str) -> None:
    """Let plugins import from ``folder`` (after everything installed: nothing is shadowed)."""
    if folder not in sys.path:
        sys.path.append(folder)


def _import(spec: str) -> tuple[ModuleType, str | None]:
    """Import ``spec`` (a ``.py`` path or a module name); the module and its file."""
    path = Path(spec)
    if spec.endswith(".py") or os.sep in spec or path.is_file():
        if not path.is_file():
            raise PluginError(f"rules plugin {spec} refused: no such file",
                              Span(spec, 0, 0, ""),
                              expected="a .py file or an importable module name")
        _on_path(str(path.resolve().parent))  # its own helper modules, beside it
        name = "kruleset_user_rules_" + re.sub(r"\W", "_", str(path.resolve()))
        loader_spec = importlib.util.spec_from_file_location(name, path)
        assert loader_spec is not None and loader_spec.loader is not None
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        try:
            loader_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module, str(path)
    _on_path(os.getcwd())  # as `python -m` would find it, whatever started kruleset
    if importlib.util.find_spec(spec.split(".")[0]) is None:
        raise PluginError(f"rules plugin {spec} refused: no such file or module",
                          Span(spec, 0, 0, ""),
                          expected="a .py file or an importable module name")
    module = importlib.import_module(spec)
    return module, getattr(module, "__file__", None)


def _guarded(spec: str, file: str | None, origin: str, target: str,
             work: Callable[[], str | None]) -> LoadedPlugin:
    """Run ``work`` (which imports the plugin), turning its failures into a PluginError."""
    before = _rule_names()
    try:
        found = work()
        _check_names(spec, found or file, _rule_names() - before)
    except PluginError:
        _forget(_rule_names() - before)
        raise
    except (Exception, SystemExit) as exc:  # a plugin's own bug is a refusal, not ours
        _forget(_rule_names() - before)
        raise _refusal(spec, file, exc) from None
    added = _rule_names() - before
    plugin = LoadedPlugin(origin, spec, target, tuple(sorted(added)))
    _LOADED[f"{origin}:{target}"] = plugin
    return plugin


def load(spec: str) -> LoadedPlugin:
    """Load the rules of ``spec``: a ``.py`` file or a module name (``--rules``)."""
    get_ruleset("scheduler.filter")  # the built-in rule sets exist before the plugin adds
    path = Path(spec)
    target = str(path.resolve()) if path.is_file() else spec
    known = _LOADED.get(f"--rules:{target}")
    if known is not None:
        return known

    def work() -> str | None:
        module, file = _import(spec)
        return file if file else getattr(module, "__file__", None)

    return _guarded(spec, str(path) if path.is_file() else None, "--rules", target, work)


def load_all(specs: Iterable[str]) -> list[LoadedPlugin]:
    """Load every ``spec`` in order, then remember them in ``KRULESET_RULES`` for workers."""
    out = [load(s) for s in specs]
    if out:
        known = [s for s in os.environ.get(ENV, "").split(os.pathsep) if s]
        for p in out:
            if p.target not in known:
                known.append(p.target)
        os.environ[ENV] = os.pathsep.join(known)
    return out


def installed() -> list[importlib.metadata.EntryPoint]:
    """The entry points of the group ``kruleset.rules``, sorted by name."""
    import importlib.metadata  # only here: it imports much of the standard library

    return sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP),
                  key=lambda ep: (ep.name, ep.value))


def _load_entry_point(ep: importlib.metadata.EntryPoint) -> LoadedPlugin:
    key = f"entry point:{ep.value}"
    if key in _LOADED:
        return _LOADED[key]
    module_name = ep.value.split(":", 1)[0].strip()

    def work() -> str | None:
        obj: Any = ep.load()
        if callable(obj) and not isinstance(obj, ModuleType):
            obj()
        module = sys.modules.get(module_name)
        return getattr(module, "__file__", None)

    dist = getattr(ep, "dist", None)
    shown = f"{ep.name} ({dist.name})" if dist is not None else ep.name
    try:
        return _guarded(shown, None, "entry point", ep.value, work)
    except PluginError as e:
        # An installed plugin refuses every command: say how to run without it.
        raise PluginError(e.message, e.span, expected=e.expected,
                          suggestion=e.suggestion or f"uninstall it, or set {DISABLE_ENV}=1 "
                          "to run without installed plugins") from None


def autoload() -> list[LoadedPlugin]:
    """Installed plugins and ``KRULESET_RULES``, once per process (rule sets' first use)."""
    global _autoloaded
    if _autoloaded:
        return []
    _autoloaded = True
    out: list[LoadedPlugin] = []
    if not os.environ.get(DISABLE_ENV):
        out.extend(_load_entry_point(ep) for ep in installed())
    out.extend(load(s) for s in os.environ.get(ENV, "").split(os.pathsep) if s)
    return out
