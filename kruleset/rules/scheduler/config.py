"""KubeSchedulerConfiguration → kruleset :class:`Profile` (seed 003 §7, §10; seed 004 §5).

:data:`PLUGINS` maps each upstream plugin name to the kruleset rules that
implement it, per extension point (the in-tree ones and upstream's defaults
are data in :mod:`kruleset.rules.scheduler.defaults`).  :func:`profile_for` merges a
configuration's plugin sets with upstream's defaults the way
``kubescheduler.config.k8s.io/v1`` does:

* The defaults are all enabled through ``multiPoint``, in upstream's order
  and with its score weights (TaintToleration 3, NodeAffinity 2,
  PodTopologySpread 2, InterPodAffinity 2, NodeResourcesFit 1,
  NodeResourcesBalancedAllocation 1, ImageLocality 1).
* ``multiPoint.enabled`` re-configures a default in place (its weight) or
  appends a plugin; ``multiPoint.disabled`` removes defaults (``*``: all).
* At a specific extension point, plugins enabled there come first (in their
  order, with their weight), then the multiPoint plugins that implement the
  point and are not disabled there (``*`` disables every multiPoint plugin at
  that point).
* ``pluginConfig`` args become the rules' args (NodeResourcesFit's
  ``scoringStrategy``, PodTopologySpread's ``defaultConstraints``, …);
  DefaultPreemption's args pass through unchanged.
* ``percentageOfNodesToScore`` becomes the profile setting of that name.

Without a configuration, a scenario with elastic quotas runs
CapacityScheduling in place of DefaultPreemption (LANGUAGE.md §2), with the
plugin's documented configuration: ``multiPoint: CapacityScheduling`` and
``postFilter: CapacityScheduling`` with every other PostFilter disabled (so
DynamicResources' PostFilter does not run either).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.errors import ScenarioError, did_you_mean
from kruleset.model.config import PluginSet, SchedulerConfig
from kruleset.model.objects import NodeAffinity, TopologySpreadConstraint, WeightedNodeTerm
from kruleset.model.selectors import LabelSelector, NodeSelectorTerm, Requirement

from ..profile import Override, Profile
from ..registry import get_ruleset, rulesets
from .defaults import DEFAULT_PLUGINS, EXTENSION_POINTS, IN_TREE_PLUGINS

__all__ = [
    "DEFAULT_PLUGINS",
    "EXTENSION_POINTS",
    "PLUGINS",
    "plugin_args",
    "profile_for",
    "register_plugin",
]

# Every known plugin (in-tree ones and those registered by out-of-tree
# modules, e.g. CapacityScheduling) → extension point → its rule names.
PLUGINS: dict[str, dict[str, tuple[str, ...]]] = {
    name: dict(points) for name, points in IN_TREE_PLUGINS.items()}


def register_plugin(name: str, mapping: Mapping[str, Sequence[str]]) -> None:
    """Make ``name`` a known plugin: extension point → the rule names implementing it.

    Example (elastic quota)::

        register_plugin("CapacityScheduling", {
            "preFilter": ("scheduler.prefilter.CapacityScheduling",),
            "postFilter": ("scheduler.postfilter.CapacityScheduling",),
            "reserve": ("scheduler.reserve.CapacityScheduling",),
        })
    """
    for point in mapping:
        if point not in EXTENSION_POINTS:
            raise ValueError(f"unknown extension point {point!r}")
    PLUGINS[name] = {p: tuple(rules) for p, rules in mapping.items()}


def _merge_multipoint(defaults: Sequence[tuple[str, int | None]], custom: PluginSet | None
                      ) -> list[tuple[str, int | None]]:
    # Upstream mergePluginSet: disabled defaults go, re-enabled defaults are
    # updated in place, other enabled plugins are appended.
    if custom is None:
        return list(defaults)
    disabled = set(custom.disabled)
    enabled = dict(custom.enabled)
    out: list[tuple[str, int | None]] = []
    replaced: set[str] = set()
    if "*" not in disabled:
        for name, w in defaults:
            if name in disabled:
                continue
            if name in enabled:
                out.append((name, enabled[name] if enabled[name] is not None else w))
                replaced.add(name)
            else:
                out.append((name, w))
    for name, w in custom.enabled:
        if name not in replaced:
            out.append((name, w))
    return out


def _point_plugins(point: str, multipoint: Sequence[tuple[str, int | None]],
                   specific: PluginSet | None) -> list[tuple[str, int | None]]:
    chosen: list[tuple[str, int | None]] = []
    seen: set[str] = set()
    if specific is not None:
        for name, w in specific.enabled:
            if point in PLUGINS.get(name, {}) and name not in seen:
                mp_w = next((mw for n, mw in multipoint if n == name), None)
                chosen.append((name, w if w is not None else mp_w))
                seen.add(name)
    disabled = set(specific.disabled) if specific is not None else set()
    if "*" in disabled:
        return chosen
    for name, w in multipoint:
        if name in seen or name in disabled or point not in PLUGINS.get(name, {}):
            continue
        chosen.append((name, w))
        seen.add(name)
    return chosen


def _check_names(cfg: SchedulerConfig) -> None:
    known = set(PLUGINS)
    for point, ps in cfg.plugins.items():
        for name in [n for n, _ in ps.enabled] + [n for n in ps.disabled if n != "*"]:
            if name not in known:
                raise ScenarioError(
                    f"{cfg.source + ': ' if cfg.source else ''}unknown scheduler plugin "
                    f"'{name}' in plugins.{point}", cfg.span,
                    suggestion=did_you_mean(name, known))
    for name in cfg.plugin_args:
        if name not in known:
            raise ScenarioError(
                f"{cfg.source + ': ' if cfg.source else ''}unknown scheduler plugin '{name}' "
                "in pluginConfig", cfg.span, suggestion=did_you_mean(name, known))


def profile_for(cfg: SchedulerConfig | None, *, quotas_present: bool) -> Profile:
    """The :class:`Profile` a KubeSchedulerConfiguration profile describes.

    ``cfg`` None means upstream's defaults, except that ``quotas_present``
    swaps DefaultPreemption for CapacityScheduling (when that plugin is
    registered).  With a configuration, the configuration alone decides.
    Unknown plugin names are refused with a did-you-mean suggestion.
    """
    rulesets()  # built-in rule modules register their plugins (CapacityScheduling) on import
    if cfg is None:
        if not quotas_present or "CapacityScheduling" not in PLUGINS:
            return Profile.default()
        # CapacityScheduling's documented configuration: its PostFilter alone
        # (neither DynamicResources' nor DefaultPreemption's runs).
        cfg = SchedulerConfig(plugins={
            "multiPoint": PluginSet(enabled=(("CapacityScheduling", None),)),
            "postFilter": PluginSet(enabled=(("CapacityScheduling", None),), disabled=("*",))})
    _check_names(cfg)
    multipoint = _merge_multipoint(DEFAULT_PLUGINS, cfg.plugins.get("multiPoint"))
    overrides: dict[str, Override] = {}
    args_by_plugin = {name: plugin_args(name, raw, cfg) for name, raw in cfg.plugin_args.items()}
    owned: dict[str, set[str]] = {}
    for rules_by_point in PLUGINS.values():
        for point, rule_names in rules_by_point.items():
            owned.setdefault(point, set()).update(rule_names)
    for point, ruleset_name in EXTENSION_POINTS.items():
        try:
            rs = get_ruleset(ruleset_name)
        except KeyError:
            continue
        existing = {r.name for r in rs.rules}
        chosen = _point_plugins(point, multipoint, cfg.plugins.get(point))
        enable: list[str] = []
        weights: dict[str, int] = {}
        args: dict[str, Mapping[str, Any]] = {}
        for plugin, w in chosen:
            for rn in PLUGINS[plugin].get(point, ()):
                if rn not in existing:
                    continue
                enable.append(rn)
                if point == "score":
                    weights[rn] = w if w else 1
                pa = args_by_plugin.get(plugin)
                if pa is not None:
                    args[rn] = pa.get(point, pa.get("*", {}))
        disable = tuple(sorted((owned.get(point, set()) & existing) - set(enable)))
        overrides[ruleset_name] = Override(enable=tuple(enable), disable=disable,
                                           order=tuple(enable), args=args, weights=weights)
    settings: dict[str, Any] = {}
    if cfg.percentage_of_nodes_to_score is not None:
        settings["percentageOfNodesToScore"] = cfg.percentage_of_nodes_to_score
    settings["podInitialBackoffSeconds"] = cfg.pod_initial_backoff_seconds
    settings["podMaxBackoffSeconds"] = cfg.pod_max_backoff_seconds
    return Profile(overrides, settings)


# --- pluginConfig args ------------------------------------------------------------------------

def _fail(cfg: SchedulerConfig, plugin: str, msg: str) -> ScenarioError:
    where = f"{cfg.source}: " if cfg.source else ""
    return ScenarioError(f"{where}pluginConfig {plugin}: {msg}", cfg.span)


def _int(cfg: SchedulerConfig, plugin: str, value: Any, field: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(cfg, plugin, f"{field} must be an integer, found {value!r}")
    return value


def _requirements(cfg: SchedulerConfig, plugin: str, raw: Any) -> tuple[Requirement, ...]:
    out = []
    for e in raw or ():
        if not isinstance(e, Mapping) or "key" not in e or "operator" not in e:
            raise _fail(cfg, plugin, f"a match expression needs key and operator: {e!r}")
        out.append(Requirement(str(e["key"]), str(e["operator"]),
                               tuple(str(v) for v in (e.get("values") or ()))))
    return tuple(out)


def _term(cfg: SchedulerConfig, plugin: str, raw: Any) -> NodeSelectorTerm:
    if not isinstance(raw, Mapping):
        raise _fail(cfg, plugin, f"a nodeSelectorTerm must be a mapping, found {raw!r}")
    return NodeSelectorTerm(_requirements(cfg, plugin, raw.get("matchExpressions")),
                            _requirements(cfg, plugin, raw.get("matchFields")))


def _added_affinity(cfg: SchedulerConfig, raw: Any) -> NodeAffinity | None:
    if not raw:
        return None
    req = raw.get("requiredDuringSchedulingIgnoredDuringExecution")
    required = None
    if req is not None:
        terms = req.get("nodeSelectorTerms") or ()
        required = tuple(_term(cfg, "NodeAffinity", t) for t in terms)
    preferred = tuple(
        WeightedNodeTerm(_int(cfg, "NodeAffinity", p.get("weight"), "weight", 1),
                         _term(cfg, "NodeAffinity", p.get("preference") or {}))
        for p in (raw.get("preferredDuringSchedulingIgnoredDuringExecution") or ()))
    return NodeAffinity(required, preferred)


def _resources(cfg: SchedulerConfig, plugin: str, raw: Any) -> tuple[tuple[str, int], ...] | None:
    if raw is None:
        return None
    out = []
    for r in raw:
        if not isinstance(r, Mapping) or not r.get("name"):
            raise _fail(cfg, plugin, f"a resource needs a name: {r!r}")
        w = _int(cfg, plugin, r.get("weight"), "weight", 1)
        if w < 0:
            raise _fail(cfg, plugin, f"resource {r['name']}: weight cannot be negative")
        out.append((str(r["name"]), w or 1))
    return tuple(out)


def plugin_args(plugin: str, raw: Mapping[str, Any], cfg: SchedulerConfig
                ) -> dict[str, Mapping[str, Any]]:
    """Translate one plugin's pluginConfig args: extension point → rule args (``*``: all)."""
    if plugin == "NodeResourcesFit":
        strategy = raw.get("scoringStrategy") or {}
        kind = strategy.get("type") or "LeastAllocated"
        if kind not in ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"):
            raise _fail(cfg, plugin, f"unknown scoringStrategy type '{kind}'")
        score: dict[str, Any] = {"type": kind}
        res = _resources(cfg, plugin, strategy.get("resources"))
        if res is not None:
            score["resources"] = res
        if kind == "RequestedToCapacityRatio":
            shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape")
            if not shape:
                raise _fail(cfg, plugin, "RequestedToCapacityRatio needs a shape")
            score["shape"] = tuple((_int(cfg, plugin, p.get("utilization"), "utilization", 0),
                                    _int(cfg, plugin, p.get("score"), "score", 0))
                                   for p in shape)
        filt = {"ignoredResources": tuple(raw.get("ignoredResources") or ()),
                "ignoredResourceGroups": tuple(raw.get("ignoredResourceGroups") or ())}
        return {"filter": filt, "score": score}
    if plugin == "NodeResourcesBalancedAllocation":
        res = _resources(cfg, plugin, raw.get("resources"))
        return {"score": {"resources": res} if res is not None else {}}
    if plugin == "PodTopologySpread":
        dtype = raw.get("defaultingType") or "System"
        if dtype not in ("System", "List"):
            raise _fail(cfg, plugin, f"defaultingType must be System or List, found '{dtype}'")
        constraints = []
        for c in raw.get("defaultConstraints") or ():
            if c.get("labelSelector"):
                raise _fail(cfg, plugin, "defaultConstraints may not set a labelSelector")
            constraints.append(TopologySpreadConstraint(
                _int(cfg, plugin, c.get("maxSkew"), "maxSkew", 1), str(c.get("topologyKey", "")),
                str(c.get("whenUnsatisfiable") or "DoNotSchedule"), LabelSelector()))
        if constraints and dtype != "List":
            raise _fail(cfg, plugin, "defaultConstraints need defaultingType: List")
        return {"*": {"defaultingType": dtype, "defaultConstraints": tuple(constraints)}}
    if plugin == "InterPodAffinity":
        return {"score": {
            "hardPodAffinityWeight": _int(cfg, plugin, raw.get("hardPodAffinityWeight"),
                                          "hardPodAffinityWeight", 1),
            "ignorePreferredTermsOfExistingPods": bool(
                raw.get("ignorePreferredTermsOfExistingPods", False))}}
    if plugin == "NodeAffinity":
        added = _added_affinity(cfg, raw.get("addedAffinity"))
        return {"*": {"addedAffinity": added}}
    return {"*": dict(raw)}
