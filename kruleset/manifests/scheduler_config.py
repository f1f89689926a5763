"""KubeSchedulerConfiguration files into :class:`~kruleset.model.SchedulerConfig`."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import attrs

from ..errors import NO_SPAN, ManifestError, Span, did_you_mean, notice
from ..model.config import PluginSet, SchedulerConfig
from ._fields import Doc, integer, mapping, seq, string
from .documents import read_documents
from .known_fields import PLUGIN_ARGS, SCHEDULER_CONFIGURATION
from .scheduler_args import validate_plugin_args
from .schema import ANY, vet

__all__ = ["API_VERSIONS", "EXTENSION_POINTS", "load_scheduler_config"]

GROUP = "kubescheduler.config.k8s.io"
# kube-scheduler v1.35 reads v1 only (v1beta3 went in v1.29, the older betas before).
API_VERSIONS = (f"{GROUP}/v1",)
# Plugins kruleset knows but does not simulate: enabling one explicitly is a warning.
UNSIMULATED_PLUGINS = {
    "VolumeRestrictions": "volumes are not simulated",
    "NodeVolumeLimits": "volumes are not simulated",
    "VolumeBinding": "volumes are not simulated",
    "VolumeZone": "volumes are not simulated",
    "DefaultBinder": "binding is immediate",
    "DynamicResources": "dynamic resource allocation is not simulated by this reader",
}
EXTENSION_POINTS = (
    "multiPoint", "queueSort", "preEnqueue", "preFilter", "filter", "postFilter", "preScore",
    "score", "reserve", "permit", "preBind", "bind", "postBind",
)
DEFAULT_SCHEDULER = "default-scheduler"


def _plugin_set(doc: Doc, raw: object, field: str) -> PluginSet:
    ps = mapping(doc, raw, field)
    enabled: list[tuple[str, int | None]] = []
    for i, p in enumerate(seq(doc, ps.get("enabled"), f"{field}.enabled")):
        pf = f"{field}.enabled[{i}]"
        p = mapping(doc, p, pf)
        name = string(doc, p.get("name"), f"{pf}.name")
        if not name:
            doc.fail(f"{pf}.name", "a plugin needs a name")
        if name == "*":
            doc.fail(f"{pf}.name", "'*' may only be used in disabled")
        why = UNSIMULATED_PLUGINS.get(name)
        if why:
            notice(f"{doc.file}: warning: {field}.enabled names plugin {name}, which kruleset "
                   f"accepts but does not simulate ({why})")
        enabled.append((name, integer(doc, p.get("weight"), f"{pf}.weight", None, 0)))
    disabled: list[str] = []
    for i, p in enumerate(seq(doc, ps.get("disabled"), f"{field}.disabled")):
        pf = f"{field}.disabled[{i}]"
        name = string(doc, mapping(doc, p, pf).get("name"), f"{pf}.name")
        if not name:
            doc.fail(f"{pf}.name", "a plugin needs a name ('*' disables every default)")
        disabled.append(name)
    return PluginSet(tuple(enabled), tuple(disabled))


def _percentage(doc: Doc, raw: object, field: str) -> int | None:
    return integer(doc, raw, field, None, 0, 100)


def _profile(doc: Doc, raw: dict[str, Any], field: str, top_percentage: int | None,
             source: str, span: Span | None) -> SchedulerConfig:
    name = string(doc, raw.get("schedulerName"), f"{field}.schedulerName", DEFAULT_SCHEDULER)
    plugins_raw = mapping(doc, raw.get("plugins"), f"{field}.plugins")
    plugins: dict[str, PluginSet] = {}
    for point, value in plugins_raw.items():
        if point not in EXTENSION_POINTS:
            doc.fail(f"{field}.plugins.{point}",
                     f"'{point}' is not an extension point; known: {', '.join(EXTENSION_POINTS)}",
                     did_you_mean(str(point), EXTENSION_POINTS))
        plugins[point] = _plugin_set(doc, value, f"{field}.plugins.{point}")
    args: dict[str, dict[str, Any]] = {}
    for i, pc in enumerate(seq(doc, raw.get("pluginConfig"), f"{field}.pluginConfig")):
        pf = f"{field}.pluginConfig[{i}]"
        pc = mapping(doc, pc, pf)
        plugin = string(doc, pc.get("name"), f"{pf}.name")
        if not plugin:
            doc.fail(f"{pf}.name", "a pluginConfig entry needs the plugin's name")
        if plugin in args:
            doc.fail(f"{pf}.name", f"repeated pluginConfig for plugin {plugin}")
        raw_args = mapping(doc, pc.get("args"), f"{pf}.args")
        vet(doc, raw_args, PLUGIN_ARGS.get(plugin, ANY), f"{pf}.args", types=True)
        validate_plugin_args(doc, plugin, raw_args, f"{pf}.args")
        args[plugin] = copy.deepcopy(raw_args)
    percentage = _percentage(doc, raw.get("percentageOfNodesToScore"),
                             f"{field}.percentageOfNodesToScore")
    return SchedulerConfig(
        scheduler_name=name,
        plugins=plugins,
        plugin_args=args,
        percentage_of_nodes_to_score=percentage if percentage is not None else top_percentage,
        source=source,
        span=span or NO_SPAN,
    )


def load_scheduler_config(path: Path, span: Span | None = None) -> SchedulerConfig:
    """Read one profile of a KubeSchedulerConfiguration (YAML or JSON).

    apiVersion ``kubescheduler.config.k8s.io/v1``, the only one kube-scheduler
    v1.35 reads.  Unknown fields (also in a simulated plugin's ``args``) are
    errors naming the field; settings read but not simulated, and plugins
    enabled that kruleset does not simulate, are warnings.  With several profiles, the one whose
    ``schedulerName`` is ``default-scheduler`` is taken, else the first one;
    without profiles, the default profile.  Plugins are kept per extension
    point as written (``*`` allowed in ``disabled``), ``pluginConfig`` args as
    plain dicts keyed by plugin name, and ``percentageOfNodesToScore`` from the
    profile when it sets one, else from the top level.  Fields kruleset does
    not use (leaderElection, clientConnection, …) are ignored.
    """
    path = Path(path)
    source = str(path)
    found: tuple[Doc, dict[str, Any]] | None = None
    for doc, value in read_documents(path, span, strict=True):
        body = mapping(doc, value, "")
        kind = body.get("kind")
        if kind != "KubeSchedulerConfiguration":
            doc.fail("kind", f"expected kind KubeSchedulerConfiguration, found {kind!r}",
                     did_you_mean(str(kind), ("KubeSchedulerConfiguration",)))
        if found is not None:
            doc.fail("", "a second KubeSchedulerConfiguration; give one per file")
        found = (doc, body)
    if found is None:
        raise ManifestError("the file holds no KubeSchedulerConfiguration", file=source,
                            span=span)
    doc, body = found
    api_version = string(doc, body.get("apiVersion"), "apiVersion")
    if api_version not in API_VERSIONS:
        doc.fail("apiVersion", f"'{api_version}' is not a KubeSchedulerConfiguration apiVersion "
                               f"kube-scheduler v1.35 reads; supported: {', '.join(API_VERSIONS)}",
                 did_you_mean(api_version, API_VERSIONS) or
                 "v1beta3 was removed in v1.29: change apiVersion to "
                 "kubescheduler.config.k8s.io/v1 (the fields are the same)")
    vet(doc, body, SCHEDULER_CONFIGURATION, types=True)
    top = _percentage(doc, body.get("percentageOfNodesToScore"), "percentageOfNodesToScore")
    backoff = _backoff(doc, body)
    profiles = seq(doc, body.get("profiles"), "profiles")
    if not profiles:
        return attrs.evolve(SchedulerConfig(percentage_of_nodes_to_score=top, source=source,
                                            span=span or NO_SPAN),
                            pod_initial_backoff_seconds=backoff[0],
                            pod_max_backoff_seconds=backoff[1])
    names: dict[str, int] = {}
    for i, p in enumerate(profiles):
        p = mapping(doc, p, f"profiles[{i}]")
        name = string(doc, p.get("schedulerName"), f"profiles[{i}].schedulerName",
                      DEFAULT_SCHEDULER)
        if name in names:
            doc.fail(f"profiles[{i}].schedulerName", f"duplicate profile '{name}'")
        names[name] = i
    chosen = names.get(DEFAULT_SCHEDULER, 0)
    return attrs.evolve(_profile(doc, profiles[chosen], f"profiles[{chosen}]", top, source, span),
                        pod_initial_backoff_seconds=backoff[0], pod_max_backoff_seconds=backoff[1])


def _backoff(doc: Doc, body: dict[str, Any]) -> tuple[int, int]:
    """podInitialBackoffSeconds and podMaxBackoffSeconds (v1 defaults 1 and 10; upstream's
    validation: both positive, the initial one at most the maximum)."""
    initial = integer(doc, body.get("podInitialBackoffSeconds"), "podInitialBackoffSeconds",
                      1, 1, None) or 1
    most = integer(doc, body.get("podMaxBackoffSeconds"), "podMaxBackoffSeconds", 10, 1,
                   None) or 10
    if initial > most:
        doc.fail("podMaxBackoffSeconds", f"must be at least podInitialBackoffSeconds "
                                         f"({initial}), found {most}")
    return initial, most

