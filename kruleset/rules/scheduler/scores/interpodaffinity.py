"""InterPodAffinity score (seed 003 §2.3): preferred pod affinity and anti-affinity.

Upstream ``interpodaffinity/scoring.go``.  PreScore sums, per topology pair:
the weights of the incoming pod's preferred affinity terms (minus its
preferred anti-affinity terms) for every existing pod they match, at that
pod's node; for every existing pod with affinity terms, ``hardPodAffinityWeight``
(default 1) per required affinity term matching the incoming pod and the
weights of its preferred (anti-)affinity terms matching the incoming pod
(unless ``ignorePreferredTermsOfExistingPods``).  A node scores the sum over
its labels; normalisation maps ``[min, max]`` to ``[0, 100]`` in floating
point, truncated, as upstream does (0 everywhere when max == min).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..filters.topology_index import pod_index, resolve_term
from ..framework import SCORES

__all__ = ["interpod_topology_score", "interpod_state"]

MAX_NODE_SCORE = 100
_STATE = "interpod.score"
Pair = tuple[str, str]


def interpod_topology_score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> dict[Pair,
                            int]:
    """The PreScore map ``(key, value) -> score`` for ``pod`` (empty: nothing to score)."""
    state = ctx.state
    idx = pod_index(state)
    nodes = state.nodes
    scores: dict[Pair, int] = {}

    def add(node_name: str, key: str, amount: int) -> None:
        labels = nodes[node_name].labels
        if key in labels:
            pair = (key, labels[key])
            scores[pair] = scores.get(pair, 0) + amount

    for sign, terms in ((1, pod.pod_affinity_preferred), (-1, pod.pod_anti_affinity_preferred)):
        for wt in terms:
            rt = resolve_term(pod, wt.term, wt.weight)
            for ps in rt.matching_pods(idx, state):
                if ps.node is not None:
                    add(ps.node, rt.key, sign * wt.weight)
    hard_weight = int(args.get("hardPodAffinityWeight", 1) or 0)
    ignore_preferred = bool(args.get("ignorePreferredTermsOfExistingPods", False))
    for ps in idx.with_affinity.values():
        other = ps.pod
        if ps.node is None:
            continue
        if hard_weight > 0:
            for t in other.pod_affinity:
                rt = resolve_term(other, t)
                if rt.matches(pod, state):
                    add(ps.node, rt.key, hard_weight)
        if ignore_preferred:
            continue
        for sign, terms in ((1, other.pod_affinity_preferred),
                            (-1, other.pod_anti_affinity_preferred)):
            for wt in terms:
                rt = resolve_term(other, wt.term, wt.weight)
                if rt.matches(pod, state):
                    add(ps.node, rt.key, sign * wt.weight)
    return {k: v for k, v in scores.items() if v != 0} if scores else scores


def interpod_state(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> dict[Pair, int]:
    """The pod's PreScore state (topology pair -> score), computed once per cycle."""
    cached = ctx.extra.get(_STATE)
    if cached is not None and cached[0] is pod:
        result: dict[Pair, int] = cached[1]
        return result
    s = interpod_topology_score(ctx, args, pod)
    ctx.extra[_STATE] = (pod, s)
    return s


def _normalize(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState],
               raw: list[int]) -> list[int]:
    if not interpod_state(ctx, args, pod):
        return raw
    lo, hi = min(raw), max(raw)
    diff = hi - lo
    if diff <= 0:
        return [0] * len(raw)
    # float64 arithmetic, truncated toward zero, as upstream.
    return [int(float(MAX_NODE_SCORE) * (float(v - lo) / float(diff))) for v in raw]


def _interpod_score_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                        nodes: Sequence[NodeState]) -> list[int]:
    if not interpod_state(ctx, args, pod):
        return [0] * len(nodes)
    return [_interpod_score(ctx, args, pod, n) for n in nodes]


@rule(SCORES, "scheduler.score.InterPodAffinity",
      doc="Preferred pod affinity attracts, preferred anti-affinity repels, by the terms' "
          "weights, in the terms' topology domains; existing pods' terms count too.",
      source="seed 003 §2.3; pkg/scheduler/framework/plugins/interpodaffinity/scoring.go",
      normalize=_normalize,
      batch=_interpod_score_all)
def _interpod_score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                    node: NodeState) -> int:
    scores = interpod_state(ctx, args, pod)
    if not scores:
        return 0
    total = 0
    for pair in node.labels.items():
        total += scores.get(pair, 0)
    return total
