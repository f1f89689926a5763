"""The registry of rule sets and the ``@rule`` decorator built-in modules use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from .engine import Reads, Rule, RuleSet

__all__ = ["define_ruleset", "get_ruleset", "register", "rule", "rulesets"]

_RULESETS: dict[str, RuleSet] = {}


def define_ruleset(name: str, kind: str, doc: str) -> RuleSet:
    """Create the rule set ``name`` (or return it if it exists with the same kind)."""
    rs = _RULESETS.get(name)
    if rs is not None:
        if rs.kind != kind:
            raise ValueError(f"rule set {name!r} exists with kind {rs.kind!r}")
        return rs
    rs = _RULESETS[name] = RuleSet(name, kind, doc)
    return rs


def get_ruleset(name: str) -> RuleSet:
    """The rule set called ``name`` (built-in modules are loaded first)."""
    _load_builtins()
    try:
        return _RULESETS[name]
    except KeyError:
        raise KeyError(f"no rule set {name!r}") from None


def rulesets() -> list[RuleSet]:
    """Every rule set, sorted by name."""
    _load_builtins()
    return [_RULESETS[k] for k in sorted(_RULESETS)]


def register(
    rule_: Rule, ruleset: str, *, before: str | None = None, after: str | None = None
) -> Rule:
    """Add a user rule to a rule set (it is enabled by default unless ``enabled=False``)."""
    _load_builtins()
    return get_ruleset(ruleset).add(rule_, before=before, after=after)


def rule(
    ruleset: RuleSet,
    name: str,
    *,
    doc: str,
    source: str,
    args: Mapping[str, Any] | None = None,
    weight: int = 1,
    enabled: bool = True,
    normalize: Callable[..., Any] | None = None,
    describe: Callable[[Any], str] | None = None,
    prepare: Callable[..., bool] | None = None,
    batch: Callable[..., Any] | None = None,
    reads: Reads | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: make a function a rule of ``ruleset`` (appended in definition order).

    ``prepare``, ``batch`` and ``reads`` declare the rule's fast forms
    (:class:`~kruleset.rules.engine.Rule`), beside the rule.
    """

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        ruleset.add(Rule(name, doc, source, fn, args or {}, weight, enabled, normalize, describe,
                         prepare, batch, reads))
        return fn

    return wrap


_loaded = False


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import builtin

    builtin.load(lambda: list(_RULESETS.values()))
    # Installed plugins and KRULESET_RULES add their rules once the built-in sets
    # exist (imported by name, as builtin imports the rules modules: plugins uses
    # this registry).
    importlib.import_module(f"{__package__}.plugins").autoload()
