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

__all__ = ["MAX_WEIGHT", "Override", "Profile", "load_profile"]

#: The largest weight a profile may give a rule (a plugin's weight is an int32).
MAX_WEIGHT = 2**31 - 1


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
    """Read a kruleset profile YAML file; anything it cannot mean is refused with its field.

    Unknown rule sets, rules, fields and settings are refused with a
    suggestion; so is a value of the wrong type.  A weight is a positive
    integer of at most 2147483647 (a plugin's ``weight`` is an int32, and the
    scheduler never runs a score plugin with a weight of 0 or less), and a
    rule's ``args`` are checked against its plugin's arguments.
    """
    p = Path(path)
    try:
        data = load_yaml(read_regular_text(p))
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{p}: cannot read the profile: "
                            f"{getattr(e, 'strerror', None) or e}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(f"{p}: not valid YAML: {e}") from None
    top = _mapping(p, data if data is not None else {}, "",
                   "a profile is a mapping with 'rulesets' and 'settings'")
    _known_keys(p, top, "", ("rulesets", "settings"))
    known = {rs.name: rs for rs in rulesets()}
    overrides: dict[str, Override] = {}
    for name, body in _mapping(p, top.get("rulesets"), "rulesets").items():
        if name not in known:
            raise ScenarioError(f"{p}: unknown rule set '{name}'",
                                suggestion=did_you_mean(str(name), known))
        overrides[name] = _override(p, known[name], body, f"rulesets.{name}")
    settings = _mapping(p, top.get("settings"), "settings")
    _known_keys(p, settings, "settings", ("percentageOfNodesToScore",))
    pct = settings.get("percentageOfNodesToScore")
    if pct is not None and (type(pct) is not int or not 0 <= pct <= 100):
        raise ScenarioError(f"{p}: field settings.percentageOfNodesToScore: expected an "
                            f"integer from 0 to 100, found {pct!r}")
    return Profile(overrides, dict(settings))


def _mapping(p: Path, value: Any, field: str, what: str = "") -> dict[str, Any]:
    if value is None:
        return {}
    if type(value) is not dict or not all(type(k) is str for k in value):
        raise ScenarioError(f"{p}: {'field ' + field + ': ' if field else ''}"
                            f"{what or 'expected a mapping'}, found {value!r:.60}")
    return value


def _known_keys(p: Path, value: dict[str, Any], field: str, known: tuple[str, ...]) -> None:
    for key in value:
        if key not in known:
            raise ScenarioError(f"{p}: unknown field \"{field + '.' if field else ''}{key}\"",
                                suggestion=did_you_mean(key, known) or
                                f"known fields here: {', '.join(known)}")


def _override(p: Path, rs: Any, body: Any, field: str) -> Override:
    """One rule set's part of a profile file, checked."""
    body = _mapping(p, body, field)
    _known_keys(p, body, field, ("enable", "disable", "order", "args", "weights"))
    names = {r.name for r in rs.rules}
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("enable", "disable", "order"):
        items = body.get(key)
        if items is None:
            items = []
        if type(items) is not list:
            raise ScenarioError(f"{p}: field {field}.{key}: expected a list of rule names, "
                                f"found {items!r:.60}")
        for i, rn in enumerate(items):
            if type(rn) is not str:
                raise ScenarioError(f"{p}: field {field}.{key}[{i}]: expected a rule name, "
                                    f"found {rn!r:.60}")
            if rn not in names:
                raise ScenarioError(f"{p}: rule set '{rs.name}' has no rule '{rn}'",
                                    suggestion=did_you_mean(rn, names))
        lists[key] = tuple(items)
    weights = _mapping(p, body.get("weights"), f"{field}.weights")
    for rn, w in weights.items():
        if rn not in names:
            raise ScenarioError(f"{p}: rule set '{rs.name}' has no rule '{rn}'",
                                suggestion=did_you_mean(rn, names))
        if type(w) is not int or not 1 <= w <= MAX_WEIGHT:
            raise ScenarioError(f"{p}: field {field}.weights.{rn}: a weight is a positive "
                                f"integer of at most {MAX_WEIGHT}, found {w!r:.60}")
    args: dict[str, dict[str, Any]] = {}
    for rn, value in _mapping(p, body.get("args"), f"{field}.args").items():
        if rn not in names:
            raise ScenarioError(f"{p}: rule set '{rs.name}' has no rule '{rn}'",
                                suggestion=did_you_mean(rn, names))
        args[rn] = _mapping(p, value, f"{field}.args.{rn}")  # null: no args
        _check_args(p, rn, args[rn], f"{field}.args.{rn}")
    return Override(enable=lists["enable"], disable=lists["disable"], order=lists["order"],
                    args=args, weights=weights)


def _check_args(p: Path, rule: str, value: dict[str, Any], field: str) -> None:
    """A rule's args, against the arguments of the plugin the rule belongs to."""
    from ..manifests.known_fields import PLUGIN_ARGS
    from ..manifests.schema import check

    schema = PLUGIN_ARGS.get(rule.rsplit(".", 1)[-1])
    if schema is None:
        if value:
            raise ScenarioError(f"{p}: field {field}: rule {rule} takes no args")
        return
    for problem in check(value, schema, field, types=True):
        if problem.level != "warning":
            raise ScenarioError(f"{p}: field {problem.field}: {problem.message}",
                                suggestion=problem.suggestion)
