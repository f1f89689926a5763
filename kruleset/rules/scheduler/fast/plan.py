"""The preemption fast plan: can "does the pod fit without these pods?" be arithmetic?

Victim selection asks whether the preemptor fits once some pods are gone,
once with every potential victim removed and once per reprieve.  When the
only enabled filters whose answer depends on the node's pods are
NodeResourcesFit and NodePorts (the pod has no pod (anti-)affinity or
required spreading, no pod of the cluster has anti-affinity against it, and
no pod nominated to the node has required anti-affinity), that answer is
integer arithmetic on the node's requested totals and a count of host-port
conflicts; every other filter looks at the node only and runs once per node.
:func:`fast_plan` says whether that holds for a pod in this cycle and what
the arithmetic needs.  Victim selection
(:mod:`kruleset.rules.scheduler.preemption.victims`), quota reclaim and the
cycle cache use it; with the simulation's ``FastPaths.victims`` off they take the general path,
which decides the same (tests compare the two).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from kruleset.model.objects import Pod

from ..defaults import (
    FILTER_DYNAMIC_RESOURCES,
    FILTER_INTER_POD_AFFINITY,
    FILTER_NODE_PORTS,
    FILTER_NODE_RESOURCES_FIT,
    FILTER_POD_TOPOLOGY_SPREAD,
    NODE_ONLY_FILTERS,
)
from ..filters.interpodaffinity import STATE as INTERPOD_STATE
from ..filters.podtopologyspread import STATE as SPREAD_STATE
from ..node_selection import _ALL_RULES, OVERLAY, prepare_cycle

__all__ = ["FastPlan", "fast_plan"]

_NODE_ONLY = NODE_ONLY_FILTERS
_PORTS = FILTER_NODE_PORTS
_FIT = FILTER_NODE_RESOURCES_FIT
_SPREAD = FILTER_POD_TOPOLOGY_SPREAD
_INTERPOD = FILTER_INTER_POD_AFFINITY
_DRA = FILTER_DYNAMIC_RESOURCES


@attrs.frozen(slots=True)
class FastPlan:
    """What the fast path needs to know about the preemptor, computed once per dry run.

    ``node_only`` are the filters that read the node alone (run once per
    node); ``checks`` the pod-dependent ones in filter order (``"ports"`` or
    ``"fit"``); ``ignored`` NodeResourcesFit's ignored resources (and
    ``group/*`` patterns); ``ports`` the pod's host ports.
    """

    node_only: tuple[tuple[Callable[..., Any], Mapping[str, Any]], ...]
    checks: tuple[str, ...]
    ignored: frozenset[str]
    ports: frozenset[Any]
    all_names: tuple[str, ...] = ()  # every enabled filter (a run with an overlay)
    prepared_names: tuple[str, ...] = ()  # those PreFilter kept (a run without)


def fast_plan(ctx: Any, pod: Pod, *, traced: bool = False) -> FastPlan | None:
    """The fast-path plan for ``pod``, or None when the general path must run.

    With tracing on there is a plan only for a caller that records the filter
    runs the general path would (``traced``: DefaultPreemption's victim
    selection does) and a trace that takes deferred groups.
    """
    trace = ctx.trace
    if not ctx.fast.victims or OVERLAY in ctx.extra or (
            trace is not None and not (traced and hasattr(trace, "defer"))):
        return None
    prepared = prepare_cycle(ctx, pod)
    skipped = {name for _, _, name in ctx.extra[_ALL_RULES]} - {name for _, _, name in prepared}
    node_only: list[tuple[Callable[..., Any], Mapping[str, Any]]] = []
    checks: list[str] = []
    ignored: frozenset[str] = frozenset()
    for fn, args, name in ctx.extra[_ALL_RULES]:
        if name in _NODE_ONLY:
            # A rule whose PreFilter skipped it passes every node.
            if name not in skipped:
                node_only.append((fn, args))
        elif name == _PORTS:
            if pod.host_ports:
                checks.append("ports")
        elif name == _FIT:
            checks.append("fit")
            ignored = frozenset(args.get("ignoredResources") or ()) | frozenset(
                f"{g}/*" for g in (args.get("ignoredResourceGroups") or ()))
        elif name == _SPREAD:
            if ctx.extra.get(SPREAD_STATE) is not None:
                return None
        elif name == _INTERPOD:
            s = ctx.extra.get(INTERPOD_STATE)
            if s is not None and (s.affinity or s.anti or s.existing_anti):
                return None
        elif name == _DRA:
            # DRA: skipped (passes every node) for a pod without claims.
            if name not in skipped:
                return None
        else:
            return None
    return FastPlan(tuple(node_only), tuple(checks), ignored, frozenset(pod.host_ports),
                    tuple(name for _, _, name in ctx.extra[_ALL_RULES]),
                    tuple(name for _, _, name in prepared))
