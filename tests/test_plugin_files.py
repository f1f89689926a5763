"""ARCHITECTURE.md's table of upstream plugins names the file of every plugin's rules.

A newcomer should find the file for any upstream plugin from the folder tree
and that table.  The table is read from ARCHITECTURE.md and checked against
the plugins the configuration reader knows (in-tree ones and those registered
by out-of-tree modules such as CapacityScheduling): every plugin has a row,
the file defining each of its rules is among the row's files, a plugin with
no rules is said to be not simulated, and every file named exists.  The tree
alone must do too: every file of an in-tree plugin's rules is named after the
plugin (lower case) and holds no other plugin's rules, and every rule in the
extension points' packages belongs to the plugin its file is named after.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from kruleset.rules.registry import rulesets
from kruleset.rules.scheduler import config
from kruleset.rules.scheduler.defaults import IN_TREE_PLUGINS

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "kruleset" / "rules"
HEADER = "| Upstream plugin or component |"
# The packages holding the in-tree plugins, one per extension point.
PLUGIN_PACKAGES = ("scheduler/queue/", "scheduler/preenqueue/", "scheduler/filters/",
                   "scheduler/scores/")
# The scheduling queue itself (upstream backend/queue), beside the QueueSort
# plugin in scheduler/queue/: its rules are the queue's, no plugin's.
QUEUE_MACHINERY = ("scheduler/queue/backoff.py", "scheduler/queue/scheduling_queue.py")


def _table() -> dict[str, tuple[str, list[str]]]:
    """Plugin name -> (its role cell, the files named), from ARCHITECTURE.md."""
    lines = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADER))
    rows: dict[str, tuple[str, list[str]]] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        names, role, files = (c.strip() for c in line.strip("|").split("|"))
        for name in names.split(", "):
            rows[re.sub(r" \(.*\)$", "", name)] = (role, re.findall(r"`([^`]+)`", files))
    return rows


def _rule_files() -> dict[str, str]:
    """Built-in rule name -> the file (relative to ``kruleset/rules``) that defines it.

    Rules other tests register (defined in their own files) are left out.
    """
    out = {}
    for ruleset in rulesets():
        for r in ruleset.rules:
            source = inspect.getsourcefile(r.fn)
            assert source is not None
            path = Path(source).resolve()
            if path.is_relative_to(RULES):
                out[r.name] = path.relative_to(RULES).as_posix()
    return out


def _builtin_plugins(files: dict[str, str]) -> dict[str, set[str]]:
    """The package's plugins -> the files of their rules: in-tree ones, and those
    registered with rules the package defines (not a test's own plugin)."""
    out = {}
    for plugin, points in config.PLUGINS.items():
        names = [name for names in points.values() for name in names]
        if all(name in files for name in names) and (names or plugin in IN_TREE_PLUGINS):
            out[plugin] = {files[name] for name in names}
    return out


def test_every_plugin_has_a_row_naming_its_files() -> None:
    rows = _table()
    plugins = _builtin_plugins(_rule_files())
    assert set(IN_TREE_PLUGINS) | {"CapacityScheduling"} <= set(plugins)
    problems = []
    for plugin, rule_files in sorted(plugins.items()):
        if plugin not in rows:
            problems.append(f"{plugin}: no row")
            continue
        role, named = rows[plugin]
        if not rule_files and "not simulated" not in role:
            problems.append(f"{plugin}: has no rules, its row should say 'not simulated'")
        problems.extend(f"{plugin}: its rules are in {f}, not named in its row"
                        for f in sorted(rule_files - set(named)))
    assert problems == [], "\n".join(problems)


def test_every_file_in_the_table_exists() -> None:
    rows = _table()
    missing = sorted({f for _, named in rows.values() for f in named if not (RULES / f).is_file()})
    assert missing == []
    assert len(rows) >= len(IN_TREE_PLUGINS)


def _plugin_of_rule() -> dict[str, str]:
    """Rule name -> the plugin (in-tree or registered) whose rule it is."""
    return {name: plugin for plugin, points in config.PLUGINS.items()
            for names in points.values() for name in names}


def test_plugin_files_are_named_after_their_plugin() -> None:
    files = _rule_files()
    holders: dict[str, set[str]] = {}
    problems = []
    for plugin, rule_files in sorted(_builtin_plugins(files).items()):
        for f in rule_files:
            holders.setdefault(f, set()).add(plugin)
            if plugin in IN_TREE_PLUGINS and Path(f).stem != plugin.lower():
                problems.append(f"{plugin}: its rules are in {f}, not {plugin.lower()}.py")
    problems.extend(f"{f} holds the rules of several plugins: {', '.join(sorted(p))}"
                    for f, p in sorted(holders.items()) if len(p) > 1)
    assert problems == [], "\n".join(problems)


def test_every_rule_of_the_plugin_packages_is_its_files_plugins() -> None:
    owner = _plugin_of_rule()
    problems = []
    for name, f in sorted(_rule_files().items()):
        if not f.startswith(PLUGIN_PACKAGES) or f in QUEUE_MACHINERY:
            continue
        plugin = owner.get(name)
        if plugin is None or plugin.lower() != Path(f).stem:
            problems.append(f"{name} is in {f} but is a rule of {plugin or 'no plugin'}")
    assert problems == [], "\n".join(problems)
    # Every extension point's package holds at least one plugin's rules.
    assert {p for p in PLUGIN_PACKAGES if any(f.startswith(p) for f in _rule_files().values())} \
        == set(PLUGIN_PACKAGES)
