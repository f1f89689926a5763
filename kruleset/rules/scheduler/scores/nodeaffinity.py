"""NodeAffinity score: the weights of the preferred terms a node matches (seed 003 §2.2).

Upstream ``pkg/scheduler/framework/plugins/nodeaffinity`` (Score,
NormalizeScore); its PreFilter and filter are
:mod:`kruleset.rules.scheduler.filters.nodeaffinity`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import NodeAffinity, Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import SCORES
from .normalize import normalized

__all__: list[str] = []


def _node_affinity_score_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                             nodes: Sequence[NodeState]) -> list[int]:
    na = pod.node_affinity
    added: NodeAffinity | None = args.get("addedAffinity")
    if (na is None or not na.preferred) and (added is None or not added.preferred):
        return [0] * len(nodes)
    return [_node_affinity_score(ctx, args, pod, n) for n in nodes]


@rule(SCORES, "scheduler.score.NodeAffinity",
      doc="The sum of the weights of the preferred node-affinity terms the node matches "
          "(and the profile's addedAffinity preferred terms).",
      source="seed 003 §2.2; pkg/scheduler/framework/plugins/nodeaffinity Score",
      normalize=normalized,
      batch=_node_affinity_score_all)
def _node_affinity_score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                         node: NodeState) -> int:
    total = 0
    labels, name = node.labels, node.name
    na = pod.node_affinity
    if na is not None:
        for wt in na.preferred:
            if wt.term.matches(labels, name):
                total += wt.weight
    added: NodeAffinity | None = args.get("addedAffinity")
    if added is not None:
        for wt in added.preferred:
            if wt.term.matches(labels, name):
                total += wt.weight
    return total
