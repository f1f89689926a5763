"""NodeAffinity's PreFilter and filter: nodeSelector, required node affinity, addedAffinity.

Upstream ``pkg/scheduler/framework/plugins/nodeaffinity`` (PreFilter,
Filter; seed 003 §2.1-2.2, §2.5); its score is
:mod:`kruleset.rules.scheduler.scores.nodeaffinity`.  The PreFilter narrows
the search to the nodes that required terms name by ``metadata.name``
(:func:`named_nodes`).  :func:`node_matches_pod_affinity` is also
PodTopologySpread's nodeAffinityPolicy Honor and the DaemonSet controller's
check of which nodes get a daemon pod.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import NodeAffinity, Pod
from kruleset.model.selectors import NodeSelectorTerm
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNRESOLVABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS, PREFILTER, PREFILTER_NODES
from ..paths import pod_shape

__all__ = ["named_nodes", "node_matches_pod_affinity", "required_terms_match"]

_NAME_FIELD = "metadata.name"


def required_terms_match(terms: Sequence[NodeSelectorTerm], node: NodeState) -> bool:
    """Required nodeSelectorTerms: ORed; zero terms or an empty term match nothing."""
    labels, name = node.labels, node.name
    return any(term.matches(labels, name) for term in terms)


def node_matches_pod_affinity(pod: Pod, node: NodeState) -> bool:
    """The pod's nodeSelector AND its required node affinity hold on ``node``.

    Upstream ``GetRequiredNodeAffinity(pod).Match`` (also used by
    PodTopologySpread's nodeAffinityPolicy Honor).
    """
    labels = node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return False
    na = pod.node_affinity
    if na is not None and na.required is not None:
        return required_terms_match(na.required, node)
    return True


def _node_affinity_prepare(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> bool:
    # PreFilter Skip: no nodeSelector, no required affinity, no addedAffinity.
    added: NodeAffinity | None = args.get("addedAffinity")
    has_added = added is not None and added.required is not None
    na = pod.node_affinity
    return bool(pod.node_selector) or has_added or (na is not None and na.required is not None)


@rule(FILTERS, "scheduler.filter.NodeAffinity",
      doc="The node must match the pod's nodeSelector and required node affinity "
          "(terms ORed, expressions ANDed), and the profile's addedAffinity.",
      source="seed 003 §2.1-2.2, §2.5; pkg/scheduler/framework/plugins/nodeaffinity Filter",
      prepare=_node_affinity_prepare, reads=Reads("node", pod_shape))
def _node_affinity(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                   node: NodeState) -> Failure | None:
    added: NodeAffinity | None = args.get("addedAffinity")
    if (added is not None and added.required is not None
            and not required_terms_match(added.required, node)):
        return Failure("node(s) didn't match scheduler-enforced node affinity", UNRESOLVABLE)
    if not node_matches_pod_affinity(pod, node):
        return Failure("node(s) didn't match Pod's node affinity/selector", UNRESOLVABLE)
    return None


def named_nodes(pod: Pod) -> frozenset[str] | None:
    """The nodes the pod's required node affinity names, or None (it could be any node).

    Upstream NodeAffinity PreFilter: per term, the intersection of its
    ``matchFields`` ``metadata.name In`` values; a term without one allows
    every node (terms are ORed); otherwise the union over the terms.
    """
    na = pod.node_affinity
    if na is None or not na.required:
        return None
    names: set[str] = set()
    for term in na.required:
        in_term: set[str] | None = None
        for r in term.fields:
            if r.key == _NAME_FIELD and r.operator == "In":
                in_term = set(r.values) if in_term is None else in_term & set(r.values)
        if in_term is None:
            return None
        names |= in_term
    return frozenset(names)


@rule(PREFILTER, "scheduler.prefilter.NodeAffinity",
      doc="Required node affinity naming nodes (matchFields metadata.name In) narrows the "
          "nodes to those named: the others are never filtered, count as \"node(s) didn't "
          "satisfy plugin(s) [NodeAffinity]\" and are not preemption candidates; terms that "
          "name no common node: \"pod affinity terms conflict\".",
      source="v1.35 pkg/scheduler/framework/plugins/nodeaffinity PreFilter; schedule_one.go "
             "findNodesThatFitPod (PreFilterResult)")
def _node_affinity_prefilter(ctx: ScheduleContext, args: Mapping[str, Any],
                             pod: Pod) -> Failure | None:
    names = named_nodes(pod)
    if names is None:
        return None
    if not names:
        return Failure("pod affinity terms conflict", UNRESOLVABLE)
    ctx.extra[PREFILTER_NODES] = (names, "[NodeAffinity]")
    return None
