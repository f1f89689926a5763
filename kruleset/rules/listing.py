"""``kruleset rules [PATTERN]``: the rules with their doc and source, filtered by name.

A pattern with a glob character (``* ? [``) must match a rule's whole name
(``scheduler.filter.*``); any other pattern is looked for inside the name
(``taint`` finds ``scheduler.filter.TaintToleration`` and the kubelet's taint
rules).  Both ignore case.  When nothing matches, the command says so on
stderr, suggests the nearest name, and exits 2.
"""

from __future__ import annotations

import fnmatch
import json
import sys

from ..errors import did_you_mean
from ..exitcode import ExitCode
from .engine import Rule, RuleSet
from .registry import rulesets
from .sources import user_source

__all__ = ["matches", "print_rules"]


def matches(pattern: str | None, name: str) -> bool:
    """Whether a rule called ``name`` is listed for ``pattern`` (None: every rule)."""
    if not pattern:
        return True
    pattern, name = pattern.lower(), name.lower()
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return pattern in name


def _selected(pattern: str | None) -> list[tuple[RuleSet, list[Rule]]]:
    out = []
    for rs in rulesets():
        rules = [r for r in rs.rules if matches(pattern, r.name)]
        if rules:
            out.append((rs, rules))
    return out


def print_rules(pattern: str | None, fmt: str) -> int:
    """Print the rules matching ``pattern`` as text or JSON; the exit status."""
    selected = _selected(pattern)
    if not selected:
        names = [r.name for rs in rulesets() for r in rs.rules]
        hint = did_you_mean(pattern or "", names)
        print(f"kruleset: no rule matches {pattern!r}" + (f"; {hint}" if hint else ""),
              file=sys.stderr)
        return ExitCode.REFUSED
    if fmt == "json":
        print(json.dumps([{
            "ruleset": rs.name, "kind": rs.kind, "doc": rs.doc,
            "rules": [{"name": r.name, "doc": r.doc, "source": user_source(r.source),
                       "enabled": r.enabled, "weight": r.weight} for r in rules],
        } for rs, rules in selected], indent=2))
        return ExitCode.OK
    for rs, rules in selected:
        print(f"{rs.name} ({rs.kind}): {rs.doc}")
        for r in rules:
            off = "" if r.enabled else " (off by default)"
            w = f" weight {r.weight}" if rs.kind == "score" else ""
            print(f"  {r.name}{off}{w}\n      {r.doc}\n      source: {user_source(r.source)}")
    return ExitCode.OK


def print_plugins(fmt: str) -> int:
    """``kruleset rules --plugins``: installed plugins and those loaded, with their rules."""
    from .plugins import ENTRY_POINT_GROUP, installed, loaded

    known = {p.target: p for p in loaded()}
    # (name, origin, target, distribution or "", rules)
    rows: list[tuple[str, str, str, str, tuple[str, ...]]] = []
    for ep in installed():
        dist = getattr(ep, "dist", None)
        p = known.pop(ep.value, None)
        rows.append((ep.name, "entry point", ep.value,
                     f"{dist.name} {dist.version}" if dist is not None else "",
                     p.rules if p is not None else ()))
    rows.extend((p.name, p.origin, p.target, "", p.rules) for p in known.values())
    if fmt == "json":
        print(json.dumps([{"name": n, "origin": o, "target": t, "distribution": d or None,
                           "rules": list(r)} for n, o, t, d, r in rows], indent=2))
        return ExitCode.OK
    if not rows:
        print(f"no rules plugins: none installed (entry-point group {ENTRY_POINT_GROUP}) "
              "and none given with --rules")
        return ExitCode.OK
    for name, origin, target, dist, rules in rows:
        source = f" from {dist}" if dist else ""
        print(f"{name} ({origin}{source}): {target}")
        print("  rules: " + (", ".join(rules) or "none"))
    return ExitCode.OK
