"""kube-scheduler v1.35's default profile as data: plugin order, score weights, default args.

Upstream: ``pkg/scheduler/apis/config/v1/default_plugins.go`` (the multiPoint
plugins, in order, with their weights) and ``defaults.go`` (each plugin's
default args).  Every rule name of a default plugin is spelled here once; a
module that needs another plugin's rule (the preemption fast plan naming the
filters it can answer, the configuration reader) imports the name from here.

The order of the scheduler rule sets comes from this table, not from the
order in which their modules happen to be imported: :func:`arrange` puts the
default plugins' rules first, in this order, with these weights and args, and
keeps every other rule (out-of-tree plugins such as CapacityScheduling, user
rules) after them in the order it was registered.  A leaf module: it imports
no rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

__all__ = [
    "DEFAULT_ARGS",
    "DEFAULT_PLUGINS",
    "DEFAULT_RESOURCES",
    "DEFAULT_SCORE_ORDER",
    "DEFAULT_SHAPE",
    "IN_TREE_PLUGINS",
    "arrange",
    "default_order",
]

# --- rule names of the default plugins, by extension point ----------------------------------

QUEUE_PRIORITY_SORT = "scheduler.queue.PrioritySort"
QUEUE_TIME = "scheduler.queue.QueueTime"
PREENQUEUE_SCHEDULING_GATES = "scheduler.preenqueue.SchedulingGates"

PREENQUEUE_DYNAMIC_RESOURCES = "scheduler.preenqueue.DynamicResources"

PREFILTER_NODE_AFFINITY = "scheduler.prefilter.NodeAffinity"
PREFILTER_DYNAMIC_RESOURCES = "scheduler.prefilter.DynamicResources"

FILTER_NODE_UNSCHEDULABLE = "scheduler.filter.NodeUnschedulable"
FILTER_NODE_NAME = "scheduler.filter.NodeName"
FILTER_TAINT_TOLERATION = "scheduler.filter.TaintToleration"
FILTER_NODE_AFFINITY = "scheduler.filter.NodeAffinity"
FILTER_NODE_PORTS = "scheduler.filter.NodePorts"
FILTER_NODE_RESOURCES_FIT = "scheduler.filter.NodeResourcesFit"
FILTER_POD_TOPOLOGY_SPREAD = "scheduler.filter.PodTopologySpread"
FILTER_INTER_POD_AFFINITY = "scheduler.filter.InterPodAffinity"
FILTER_DYNAMIC_RESOURCES = "scheduler.filter.DynamicResources"

POSTFILTER_DYNAMIC_RESOURCES = "scheduler.postfilter.DynamicResources"
POSTFILTER_DEFAULT_PREEMPTION = "scheduler.postfilter.DefaultPreemption"

SCORE_TAINT_TOLERATION = "scheduler.score.TaintToleration"
SCORE_NODE_AFFINITY = "scheduler.score.NodeAffinity"
SCORE_NODE_RESOURCES_FIT = "scheduler.score.NodeResourcesFit"
SCORE_POD_TOPOLOGY_SPREAD = "scheduler.score.PodTopologySpread"
SCORE_INTER_POD_AFFINITY = "scheduler.score.InterPodAffinity"
SCORE_BALANCED_ALLOCATION = "scheduler.score.NodeResourcesBalancedAllocation"
SCORE_IMAGE_LOCALITY = "scheduler.score.ImageLocality"
SCORE_DYNAMIC_RESOURCES = "scheduler.score.DynamicResources"

# --- the plugins -------------------------------------------------------------------------------

# In-tree plugin → extension point → the kruleset rules implementing it.
# Plugins with no rules are accepted in a configuration but not simulated
# (volumes, binding).
IN_TREE_PLUGINS: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "SchedulingGates": {"preEnqueue": (PREENQUEUE_SCHEDULING_GATES,)},
    "PrioritySort": {"queueSort": (QUEUE_PRIORITY_SORT, QUEUE_TIME)},
    "NodeUnschedulable": {"filter": (FILTER_NODE_UNSCHEDULABLE,)},
    "NodeName": {"filter": (FILTER_NODE_NAME,)},
    "TaintToleration": {"filter": (FILTER_TAINT_TOLERATION,),
                        "score": (SCORE_TAINT_TOLERATION,)},
    "NodeAffinity": {"preFilter": (PREFILTER_NODE_AFFINITY,), "filter": (FILTER_NODE_AFFINITY,),
                     "score": (SCORE_NODE_AFFINITY,)},
    "NodePorts": {"filter": (FILTER_NODE_PORTS,)},
    "NodeResourcesFit": {"filter": (FILTER_NODE_RESOURCES_FIT,),
                         "score": (SCORE_NODE_RESOURCES_FIT,)},
    "PodTopologySpread": {"filter": (FILTER_POD_TOPOLOGY_SPREAD,),
                          "score": (SCORE_POD_TOPOLOGY_SPREAD,)},
    "InterPodAffinity": {"filter": (FILTER_INTER_POD_AFFINITY,),
                         "score": (SCORE_INTER_POD_AFFINITY,)},
    # DynamicResources: kruleset.rules.dra implements these rules.
    "DynamicResources": {"preEnqueue": (PREENQUEUE_DYNAMIC_RESOURCES,),
                         "preFilter": (PREFILTER_DYNAMIC_RESOURCES,),
                         "filter": (FILTER_DYNAMIC_RESOURCES,),
                         "postFilter": (POSTFILTER_DYNAMIC_RESOURCES,),
                         "score": (SCORE_DYNAMIC_RESOURCES,)},
    "DefaultPreemption": {"postFilter": (POSTFILTER_DEFAULT_PREEMPTION,)},
    "NodeResourcesBalancedAllocation": {"score": (SCORE_BALANCED_ALLOCATION,)},
    "VolumeRestrictions": {}, "NodeVolumeLimits": {}, "VolumeBinding": {}, "VolumeZone": {},
    "ImageLocality": {"score": (SCORE_IMAGE_LOCALITY,)}, "DefaultBinder": {},
})

# Upstream's default multiPoint plugins, in order, with score weights.
DEFAULT_PLUGINS: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None), ("PrioritySort", None), ("NodeUnschedulable", None),
    ("NodeName", None), ("TaintToleration", 3), ("NodeAffinity", 2), ("NodePorts", None),
    ("NodeResourcesFit", 1), ("VolumeRestrictions", None), ("NodeVolumeLimits", None),
    ("VolumeBinding", None), ("VolumeZone", None), ("PodTopologySpread", 2),
    ("InterPodAffinity", 2), ("DynamicResources", 2), ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("DefaultBinder", None),
)

# The order in which the default score rules run and are traced.  A node's
# total does not depend on it; it is kruleset's order since the first release
# (resources first) rather than DEFAULT_PLUGINS', kept so traces stay the same.
# A configuration's profile (config.profile_for) scores in its plugins' order.
DEFAULT_SCORE_ORDER: tuple[str, ...] = (
    SCORE_NODE_RESOURCES_FIT, SCORE_BALANCED_ALLOCATION, SCORE_TAINT_TOLERATION,
    SCORE_NODE_AFFINITY, SCORE_POD_TOPOLOGY_SPREAD, SCORE_INTER_POD_AFFINITY,
    SCORE_IMAGE_LOCALITY, SCORE_DYNAMIC_RESOURCES,
)

# --- default args (defaults.go SetDefaults_*Args), per rule ----------------------------------

# NodeResourcesFit / BalancedAllocation: cpu and memory, weight 1 each.
DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
# RequestedToCapacityRatio's shape when none is given (utilisation, score).
DEFAULT_SHAPE: tuple[tuple[int, int], ...] = ((0, 10), (100, 0))
_SPREAD_ARGS = {"defaultingType": "System", "defaultConstraints": ()}

DEFAULT_ARGS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    FILTER_NODE_AFFINITY: {"addedAffinity": None},
    FILTER_NODE_RESOURCES_FIT: {"ignoredResources": (), "ignoredResourceGroups": ()},
    FILTER_POD_TOPOLOGY_SPREAD: _SPREAD_ARGS,
    SCORE_NODE_AFFINITY: {"addedAffinity": None},
    SCORE_NODE_RESOURCES_FIT: {"type": "LeastAllocated", "resources": DEFAULT_RESOURCES,
                               "shape": DEFAULT_SHAPE},
    SCORE_POD_TOPOLOGY_SPREAD: _SPREAD_ARGS,
    SCORE_INTER_POD_AFFINITY: {"hardPodAffinityWeight": 1,
                               "ignorePreferredTermsOfExistingPods": False},
    SCORE_BALANCED_ALLOCATION: {"resources": DEFAULT_RESOURCES},
    POSTFILTER_DEFAULT_PREEMPTION: {"minCandidateNodesPercentage": 10,
                                    "minCandidateNodesAbsolute": 100},
})

# Extension point → rule set.
EXTENSION_POINTS: Mapping[str, str] = MappingProxyType({
    "queueSort": "scheduler.queue",
    "preEnqueue": "scheduler.preenqueue",
    "preFilter": "scheduler.prefilter",
    "filter": "scheduler.filter",
    "postFilter": "scheduler.postfilter",
    "score": "scheduler.score",
    "reserve": "scheduler.reserve",
})


def default_order(point: str) -> tuple[tuple[str, int], ...]:
    """The default plugins' rules at extension ``point``, in order, with their score weight.

    Scores run in :data:`DEFAULT_SCORE_ORDER`.
    """
    out = []
    for plugin, weight in DEFAULT_PLUGINS:
        for name in IN_TREE_PLUGINS[plugin].get(point, ()):
            out.append((name, weight or 1))
    if point == "score":
        out.sort(key=lambda item: DEFAULT_SCORE_ORDER.index(item[0]))
    return tuple(out)


def arrange(rulesets: Iterable[Any]) -> None:
    """Order the scheduler's rule sets as the default profile says, with its weights and args.

    Default plugins' rules come first in :data:`DEFAULT_PLUGINS` order, with
    their weight (score rules) and :data:`DEFAULT_ARGS`; the other rules
    follow in the order they were registered.  Called once, after the
    built-in rule modules are imported.
    """
    by_name = {rs.name: rs for rs in rulesets}
    for point, rs_name in EXTENSION_POINTS.items():
        rs = by_name.get(rs_name)
        if rs is None:
            continue
        order = default_order(point)
        rank = {name: i for i, (name, _) in enumerate(order)}
        weights = dict(order)
        listed = sorted((r for r in rs.rules if r.name in rank), key=lambda r: rank[r.name])
        others = [r for r in rs.rules if r.name not in rank]
        arranged = []
        for r in listed:
            changes: dict[str, Any] = {}
            if point == "score" and r.weight != weights[r.name]:
                changes["weight"] = weights[r.name]
            args = DEFAULT_ARGS.get(r.name)
            if args is not None and dict(r.args) != dict(args):
                changes["args"] = args
            arranged.append(attrs.evolve(r, **changes) if changes else r)
        rs.rules[:] = arranged + others
