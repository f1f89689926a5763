"""PodTopologySpread score (seed 003 §5): ScheduleAnyway constraints and the defaults.

Upstream ``podtopologyspread/scoring.go``.  PreScore, over the feasible
nodes: nodes missing a constraint's key are ignored (score 0) unless the
constraints are the system defaults; each constraint's weight is
``ln(domains + 2)`` (hostname: the number of scored nodes).  Matching pods
are counted per domain over all eligible nodes (only domains that hold a
feasible node; under the system defaults a node without a zone makes ""
one more domain of the weight); for hostname, the scored node's own pods,
whatever the inclusion policies.  A node's raw score is ``round(sum(count * weight + maxSkew
- 1))``; normalised as ``100 * (max + min - score) // max`` (100 for all when
max is 0), so fewer matching pods score higher.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..filters.podtopologyspread import (
    HOSTNAME,
    SCHEDULE_ANYWAY,
    Constraint,
    constraints_for,
    node_included,
)
from ..filters.topology_index import pod_index
from ..framework import FEASIBLE, SCORES

__all__ = ["spread_prescore"]

MAX_NODE_SCORE = 100
_STATE = "spread.score"


class _PreScore:
    __slots__ = ("constraints", "ignored", "counts", "weights", "host_counts")

    def __init__(self, constraints: list[Constraint]) -> None:
        self.constraints = constraints
        self.ignored: set[str] = set()
        self.counts: list[dict[str, int]] = [{} for _ in constraints]
        self.weights: list[float] = []
        self.host_counts: list[dict[str, int]] = [{} for _ in constraints]


def _go_round(x: float) -> int:
    return int(math.floor(x + 0.5))


def spread_prescore(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                    feasible: Sequence[NodeState]) -> _PreScore | None:
    """The PreScore state for ``pod`` over ``feasible`` (None: nothing to score)."""
    constraints, system = constraints_for(pod, args, SCHEDULE_ANYWAY)
    if not constraints:
        return None
    require_all = bool(pod.spread) or not system
    s = _PreScore(constraints)
    sizes = [0] * len(constraints)
    keys = [c.key for c in constraints]
    domains = [(i, c.key, s.counts[i]) for i, c in enumerate(constraints) if c.key != HOSTNAME]
    ignored = s.ignored
    for node in feasible:
        labels = node.labels
        if require_all:
            missing = False
            for k in keys:
                if k not in labels:
                    missing = True
                    break
            if missing:
                ignored.add(node.name)
                continue
        for i, k, counts in domains:
            # Upstream reads the label as a map lookup: a node without it
            # (only kept here under the system defaults) makes "" a domain,
            # which counts in the weight but never scores (Score skips it).
            v = labels.get(k, "")
            if v not in counts:
                counts[v] = 0
                sizes[i] += 1
    for i, c in enumerate(constraints):
        size = len(feasible) - len(s.ignored) if c.key == HOSTNAME else sizes[i]
        s.weights.append(math.log(float(size + 2)))
    state = ctx.state
    idx = pod_index(state)
    for i, c in enumerate(constraints):
        for ps in idx.matching(pod.namespace, c.selector):
            if ps.deletion_time is not None or ps.node is None:
                continue
            node = state.nodes[ps.node]
            labels = node.labels
            if require_all and not all(k.key in labels for k in constraints):
                continue
            if c.key not in labels:
                continue
            if c.key == HOSTNAME:
                # Upstream counts a node's own pods in Score, where the
                # inclusion policies are not read: they only shape domains.
                s.host_counts[i][node.name] = s.host_counts[i].get(node.name, 0) + 1
                continue
            if not node_included(c, pod, node):
                continue
            v = labels[c.key]
            if v in s.counts[i]:
                s.counts[i][v] += 1
    return s


def _state(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> _PreScore | None:
    feasible = ctx.extra.get(FEASIBLE) or ()
    cached = ctx.extra.get(_STATE)
    if cached is not None and cached[0] is feasible:
        result: _PreScore | None = cached[1]
        return result
    s = spread_prescore(ctx, args, pod, feasible)
    ctx.extra[_STATE] = (feasible, s)
    return s


def _normalize(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState],
               raw: list[int]) -> list[int]:
    s = _state(ctx, args, pod)
    if s is None:
        return raw
    ignored = s.ignored
    skip = [n.name in ignored for n in nodes] if ignored else [False] * len(nodes)
    lo, hi = None, 0
    for skipped, v in zip(skip, raw, strict=True):
        if skipped:
            continue
        lo = v if lo is None or v < lo else lo
        if v > hi:
            hi = v
    if hi == 0:
        return [0 if skipped else MAX_NODE_SCORE for skipped in skip]
    base = hi + (lo or 0)
    return [0 if skipped else MAX_NODE_SCORE * (base - v) // hi
            for skipped, v in zip(skip, raw, strict=True)]


def _spread_score_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                      nodes: Sequence[NodeState]) -> list[int]:
    s = _state(ctx, args, pod)
    if s is None:
        return [0] * len(nodes)
    # _spread_score node by node, with what it looks up per constraint hoisted.
    plan = [(c.key, c.key == HOSTNAME, s.host_counts[i] if c.key == HOSTNAME else s.counts[i],
             s.weights[i], float(c.max_skew - 1)) for i, c in enumerate(s.constraints)]
    ignored = s.ignored
    floor = math.floor
    out = []
    for node in nodes:
        name = node.name
        if name in ignored:
            out.append(0)
            continue
        labels = node.labels
        total = 0.0
        for key, host, table, weight, skew in plan:
            if key not in labels:
                continue
            cnt = table.get(name, 0) if host else table.get(labels[key], 0)
            total += float(cnt) * weight + skew
        out.append(int(floor(total + 0.5)))
    return out


@rule(SCORES, "scheduler.score.PodTopologySpread",
      doc="ScheduleAnyway constraints (and the default constraints of owned pods): nodes "
          "whose domains hold fewer matching pods score higher.",
      source="seed 003 §5.1, §5.5; pkg/scheduler/framework/plugins/podtopologyspread/scoring.go",
      normalize=_normalize,
      batch=_spread_score_all)
def _spread_score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    s = _state(ctx, args, pod)
    if s is None or node.name in s.ignored:
        return 0
    labels = node.labels
    total = 0.0
    for i, c in enumerate(s.constraints):
        if c.key not in labels:
            continue
        if c.key == HOSTNAME:
            cnt = s.host_counts[i].get(node.name, 0)
        else:
            cnt = s.counts[i].get(labels[c.key], 0)
        total += float(cnt) * s.weights[i] + float(c.max_skew - 1)
    return _go_round(total)
