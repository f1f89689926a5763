"""Scores of a node's own properties: TaintToleration and NodeAffinity (seed 003 §2.2, §6).

Upstream normalisation (``helper.DefaultNormalizeScore``): each raw score is
``100 * raw // max``; TaintToleration is reversed (``100 - that``), and when
every raw score is 0 it gives everyone 100 (reversed) or leaves 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import NodeAffinity, Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule

from ..cycle import register_batch_score
from ..framework import SCORES

__all__ = ["default_normalize"]

MAX_NODE_SCORE = 100


def default_normalize(raw: Sequence[int], reverse: bool) -> list[int]:
    """Upstream ``DefaultNormalizeScore(MaxNodeScore, reverse, scores)``."""
    top = max(raw, default=0)
    if top <= 0:
        # Nothing above zero (the usual case for a plugin with nothing to say):
        # upstream leaves the scores as they are, or sets all to MaxNodeScore.
        return [MAX_NODE_SCORE] * len(raw) if reverse else list(raw)
    out = []
    for s in raw:
        v = MAX_NODE_SCORE * s // top
        out.append(MAX_NODE_SCORE - v if reverse else v)
    return out


def _norm_reverse(ctx: Any, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState],
                  raw: list[int]) -> list[int]:
    return default_normalize(raw, True)


def _norm(ctx: Any, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState],
          raw: list[int]) -> list[int]:
    return default_normalize(raw, False)


@rule(SCORES, "scheduler.score.TaintToleration",
      doc="Fewer untolerated PreferNoSchedule taints score higher.",
      source="seed 003 §6.2-6.3; pkg/scheduler/framework/plugins/tainttoleration Score",
      normalize=_norm_reverse)
def _taint_score(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    if not node.taints:
        return 0
    # Only tolerations with an empty or PreferNoSchedule effect count (upstream
    # getAllTolerationPreferNoSchedule).
    tols = [t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule")]
    n = 0
    for taint in node.taints:
        if taint.effect != "PreferNoSchedule":
            continue
        if not any(t.tolerates(taint) for t in tols):
            n += 1
    return n


@rule(SCORES, "scheduler.score.NodeAffinity",
      doc="The sum of the weights of the preferred node-affinity terms the node matches "
          "(and the profile's addedAffinity preferred terms).",
      source="seed 003 §2.2; pkg/scheduler/framework/plugins/nodeaffinity Score",
      normalize=_norm)
def _node_affinity_score(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
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


@register_batch_score(_taint_score)
def _taint_score_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                     nodes: Sequence[NodeState]) -> list[int]:
    return [_taint_score(ctx, args, pod, n) if n.taints else 0 for n in nodes]


@register_batch_score(_node_affinity_score)
def _node_affinity_score_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                             nodes: Sequence[NodeState]) -> list[int]:
    na = pod.node_affinity
    added: NodeAffinity | None = args.get("addedAffinity")
    if (na is None or not na.preferred) and (added is None or not added.preferred):
        return [0] * len(nodes)
    return [_node_affinity_score(ctx, args, pod, n) for n in nodes]
