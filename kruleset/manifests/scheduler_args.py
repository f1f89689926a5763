"""kube-scheduler's validation of plugin args (validation_pluginargs.go), after defaulting.

A KubeSchedulerConfiguration whose args kube-scheduler v1.35 refuses at
start is refused here, with upstream's field path (from the profile down)
and message: ``profiles[0].pluginConfig[0].args.minCandidateNodesPercentage:
Invalid value: 300: not in valid range [0, 100]``.  Types were checked
before (:func:`kruleset.manifests.schema.vet`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._fields import Doc

__all__ = ["validate_plugin_args"]


def _int(value: Any, default: int) -> int:
    return value if type(value) is int else default


def _invalid(doc: Doc, field: str, value: Any, message: str) -> None:
    doc.fail(field, f"Invalid value: {value}: {message}")


def _default_preemption(doc: Doc, args: dict[str, Any], f: str) -> None:
    pct = _int(args.get("minCandidateNodesPercentage"), 10)
    absolute = _int(args.get("minCandidateNodesAbsolute"), 100)
    if not 0 <= pct <= 100:
        _invalid(doc, f"{f}.minCandidateNodesPercentage", pct, "not in valid range [0, 100]")
    if absolute < 0:
        _invalid(doc, f"{f}.minCandidateNodesAbsolute", absolute, "not in valid range [0, inf)")
    if pct == 0 and absolute == 0:
        _invalid(doc, f"{f}.minCandidateNodesPercentage", pct,
                 "cannot be zero at the same time as minCandidateNodesAbsolute")


def _inter_pod_affinity(doc: Doc, args: dict[str, Any], f: str) -> None:
    w = _int(args.get("hardPodAffinityWeight"), 1)
    if not 0 <= w <= 100:
        _invalid(doc, f"{f}.hardPodAffinityWeight", w, "not in valid range [0, 100]")


def _spread(doc: Doc, args: dict[str, Any], f: str) -> None:
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(args.get("defaultConstraints") or ()):
        if type(c) is not dict:
            continue
        p = f"{f}.defaultConstraints[{i}]"
        skew = _int(c.get("maxSkew"), 0)
        if skew <= 0:
            _invalid(doc, f"{p}.maxSkew", skew, "not in valid range (0, inf)")
        if not c.get("topologyKey"):
            doc.fail(f"{p}.topologyKey", "Required value: can not be empty")
        when = c.get("whenUnsatisfiable")
        if not when:
            doc.fail(f"{p}.whenUnsatisfiable", "Required value: can not be empty")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            doc.fail(f"{p}.whenUnsatisfiable", f'Unsupported value: "{when}": supported '
                                               'values: "DoNotSchedule", "ScheduleAnyway"')
        key = (str(c.get("topologyKey")), str(when))
        if key in seen:
            doc.fail(f"{f}.defaultConstraints[{i}]", f'Duplicate value: "{{{key[0]}, {key[1]}}}"')
        seen.add(key)


def _shape(doc: Doc, shape: Any, path: str) -> None:
    if not shape:
        doc.fail(path, "Required value: at least one point must be specified")
    points = [p for p in shape if type(p) is dict]
    for i in range(1, len(points)):
        if _int(points[i - 1].get("utilization"), 0) >= _int(points[i].get("utilization"), 0):
            _invalid(doc, f"{path}[{i}].utilization", _int(points[i].get("utilization"), 0),
                     "values must be sorted in increasing order")
    for i, point in enumerate(points):
        u, s = _int(point.get("utilization"), 0), _int(point.get("score"), 0)
        if not 0 <= u <= 100:
            _invalid(doc, f"{path}[{i}].utilization", u, "not in valid range [0, 100]")
        if not 0 <= s <= 10:
            _invalid(doc, f"{path}[{i}].score", s, "not in valid range [0, 10]")


def _fit(doc: Doc, args: dict[str, Any], f: str) -> None:
    strategy = args.get("scoringStrategy")
    if type(strategy) is not dict:
        return
    sp = f"{f}.scoringStrategy"
    kind = strategy.get("type") or "LeastAllocated"
    if kind not in ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"):
        doc.fail(f"{sp}.type", f'Unsupported value: "{kind}": supported values: '
                               '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"')
    for i, r in enumerate(strategy.get("resources") or ()):
        if type(r) is not dict:
            continue
        w = _int(r.get("weight"), 0) or 1  # defaulted to 1 when not set
        if not 0 < w <= 100:
            _invalid(doc, f"{sp}.resources[{i}].weight", w,
                     f"resource weight of {r.get('name')} not in valid range (0, 100]")
    ratio = strategy.get("requestedToCapacityRatio")
    if type(ratio) is dict:
        # Upstream's path names the shape under scoringStrategy, not under the ratio.
        _shape(doc, ratio.get("shape"), f"{sp}.shape")


def _balanced(doc: Doc, args: dict[str, Any], f: str) -> None:
    seen: set[str] = set()
    for i, r in enumerate(args.get("resources") or ()):
        if type(r) is not dict:
            continue
        name = str(r.get("name"))
        if name in seen:
            doc.fail(f"{f}.resources[{i}].name", f'Duplicate value: "{name}"')
        seen.add(name)
        w = _int(r.get("weight"), 0) or 1
        if w != 1:
            _invalid(doc, f"{f}.resources[{i}].weight", w, "must be 1")


_VALIDATORS: dict[str, Callable[[Doc, dict[str, Any], str], None]] = {
    "DefaultPreemption": _default_preemption,
    "InterPodAffinity": _inter_pod_affinity,
    "PodTopologySpread": _spread,
    "NodeResourcesFit": _fit,
    "NodeResourcesBalancedAllocation": _balanced,
}


def validate_plugin_args(doc: Doc, plugin: str, args: dict[str, Any], field: str) -> None:
    """Refuse ``args`` of ``plugin`` (at ``field``) as kube-scheduler's validation does."""
    check = _VALIDATORS.get(plugin)
    if check is not None:
        check(doc, args, field)
