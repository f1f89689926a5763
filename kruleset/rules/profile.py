"""Profiles: which rules of each rule set run, in what order, with what arguments.

The default profile is upstream Kubernetes' defaults.  A profile can also be
read from a small YAML file::

    rulesets:
      scheduler.filter:
        disable: [scheduler.filter.TaintToleration]
        enable: [example.filter.NoFridays]     # a registered rule off by default
        order: [scheduler.filter.NodeName, example.filter.NoFridays]
        args:
          scheduler.filter.NodeResourcesFit: {ignoredResources: [example.com/foo]}
        weights:
          scheduler.score.TaintToleration: 3
    settings:
      percentageOfNodesToScore: 50

``order`` lists rules that move to the front, in that order; the others keep
their default order after them.  Mechanism modules translate upstream
configuration (KubeSchedulerConfiguration, KubeletConfiguration) into the same
overrides.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import yaml

from ..errors import ScenarioError, did_you_mean
from ..readfile import read_regular_text
from ..yamlload import load as load_yaml
from .engine import ActiveRule, ActiveRuleSet
from .registry import get_ruleset, rulesets

__all__ = ["Override", "Profile", "load_profile"]


def _freeze(m: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(m or {}))


@attrs.frozen(slots=True)
class Override:
    """Changes to one rule set's defaults."""

    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    args: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict, converter=_freeze)
    weights: Mapping[str, int] = attrs.field(factory=dict, converter=_freeze)
    disable_all: bool = False


@attrs.define(slots=True, eq=False)
class Profile:
    """Overrides per rule set plus mechanism settings; resolves :class:`ActiveRuleSet`\\ s."""

    overrides: dict[str, Override] = attrs.field(factory=dict)
    settings: dict[str, Any] = attrs.field(factory=dict)
    _cache: dict[str, ActiveRuleSet] = attrs.field(factory=dict, init=False, repr=False)

    @classmethod
    def default(cls) -> Profile:
        """Upstream's defaults."""
        return cls()

    def merged(self, other: Profile) -> Profile:
        """A profile with ``other``'s overrides and settings applied on top of these."""
        overrides = dict(self.overrides)
        for name, o in other.overrides.items():
            base = overrides.get(name)
            if base is None:
                overrides[name] = o
            else:
                overrides[name] = Override(
                    enable=base.enable + o.enable,
                    disable=base.disable + o.disable,
                    order=o.order or base.order,
                    args={**base.args, **o.args},
                    weights={**base.weights, **o.weights},
                    disable_all=base.disable_all or o.disable_all,
                )
        return Profile(overrides, {**self.settings, **other.settings})

    def active(self, name: str) -> ActiveRuleSet:
        """The enabled rules of rule set ``name`` under this profile (cached)."""
        hit = self._cache.get(name)
        if hit is not None:
            return hit
        rs = get_ruleset(name)
        o = self.overrides.get(name)
        if o is None:
            act = rs.defaults()
        else:
            chosen = [] if o.disable_all else [r for r in rs.rules if r.enabled]
            chosen = [r for r in chosen if r.name not in o.disable]
            for n in o.enable:
                if all(r.name != n for r in chosen):
                    chosen.append(rs.rule(n))
            if o.order:
                front = [r for n in o.order for r in chosen if r.name == n]
                chosen = front + [r for r in chosen if r not in front]
            act = ActiveRuleSet(rs, tuple(
                ActiveRule(r, {**r.args, **o.args.get(r.name, {})}, o.weights.get(r.name, r.weight))
                for r in chosen
            ))
        self._cache[name] = act
        return act

    def setting(self, key: str, default: Any = None) -> Any:
        """A mechanism setting (e.g. ``percentageOfNodesToScore``)."""
        return self.settings.get(key, default)


def load_profile(path: str | Path) -> Profile:
    """Read a kruleset profile YAML file; unknown rule sets and rules are refused."""
    p = Path(path)
    try:
        data = load_yaml(read_regular_text(p)) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ScenarioError(f"cannot read profile: {e}", None) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{p}: a profile is a mapping with 'rulesets' and 'settings'")
    known = {rs.name: rs for rs in rulesets()}
    overrides: dict[str, Override] = {}
    for name, body in (data.get("rulesets") or {}).items():
        if name not in known:
            raise ScenarioError(f"{p}: unknown rule set '{name}'",
                                suggestion=did_you_mean(name, known))
        body = body or {}
        names = {r.name for r in known[name].rules}
        for field in ("enable", "disable", "order"):
            for rn in body.get(field) or ():
                if rn not in names:
                    raise ScenarioError(f"{p}: rule set '{name}' has no rule '{rn}'",
                                        suggestion=did_you_mean(rn, names))
        overrides[name] = Override(
            enable=tuple(body.get("enable") or ()),
            disable=tuple(body.get("disable") or ()),
            order=tuple(body.get("order") or ()),
            args=body.get("args") or {},
            weights=body.get("weights") or {},
        )
    return Profile(overrides, dict(data.get("settings") or {}))
