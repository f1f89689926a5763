"""PodTopologySpread's score as array operations over the node vectors (``node_vectors``).

Every pod of a Deployment gets the system default constraints (hostname and
zone, ScheduleAnyway), so its PreScore, Score and normalisation
(:mod:`~kruleset.rules.scheduler.scores.podtopologyspread`) walk every
feasible node in Python, several times.  Here the same three steps work on
arrays of the feasible nodes' rows:

* PreScore: a node is ignored when the constraints are the pod's own (or
  not the system defaults) and it lacks one of their keys; each
  constraint's weight is ``ln(domains + 2)``, the domains being the distinct
  values (a missing label is the value ``""``) of the nodes not ignored, or
  for hostname their number; the matching pods are counted by walking them
  (a Deployment's few, not the nodes) exactly as the reference does;
* Score: per node, in constraint order, ``count * weight + maxSkew - 1``
  summed in float64 and rounded half up (Go's ``math.Round`` of a positive
  number), 0 for an ignored node;
* normalisation: ``100 * (max + min - score) // max`` over the nodes not
  ignored (100 each when max is 0).

The domains of a label key (which value each row has) are kept by the node
vectors until the epoch moves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from kruleset.model.objects import Pod

from ..filters.podtopologyspread import HOSTNAME, SCHEDULE_ANYWAY, constraints_for, node_included
from ..filters.topology_index import pod_index
from ..scores import podtopologyspread
from .node_vectors import Scores, vector_score
from .vector_search import Feasible

__all__ = ["spread_scores"]

MAX_NODE_SCORE = 100


@vector_score(podtopologyspread._spread_score)
def spread_scores(ctx: Any, args: Mapping[str, Any], pod: Pod, feasible: Feasible
                  ) -> Scores | None:
    """PodTopologySpread's raw and normalised scores over ``feasible``."""
    constraints, system = constraints_for(pod, args, SCHEDULE_ANYWAY)
    if not constraints:
        return 0, 0
    vec, rows = feasible.vectors, feasible.rows
    require_all = bool(pod.spread) or not system
    domains = [vec.domain(c.key) for c in constraints]
    ignored = np.zeros(len(rows), np.bool_)
    if require_all:
        for has, _, _ in domains:
            ignored |= ~has[rows]
    kept = ~ignored
    state = ctx.state
    nodes = state.nodes
    idx = pod_index(state)
    keys = [c.key for c in constraints]
    total = np.zeros(len(rows), np.float64)
    inverse: np.ndarray | None = None
    for c, (has, dom, ids) in zip(constraints, domains, strict=True):
        host = c.key == HOSTNAME
        if host:
            size = int(kept.sum())
        else:
            present = np.zeros(len(ids), np.bool_)
            present[dom[rows][kept]] = True
            size = int(present.sum())
        weight = math.log(float(size + 2))
        per_host: dict[str, int] = {}
        counts = np.zeros(len(ids), np.int64)
        for ps in idx.matching(pod.namespace, c.selector):
            if ps.deletion_time is not None or ps.node is None:
                continue
            node = nodes[ps.node]
            labels = node.labels
            if require_all and not all(k in labels for k in keys):
                continue
            if c.key not in labels:
                continue
            if host:
                # The node's own pods, whatever the inclusion policies (as upstream's Score).
                per_host[node.name] = per_host.get(node.name, 0) + 1
                continue
            if not node_included(c, pod, node):
                continue
            v = ids.get(labels[c.key])
            if v is not None and present[v]:
                counts[v] += 1
        if host:
            if inverse is None:
                inverse = np.full(len(vec.order or ()), -1, np.int64)
                inverse[rows] = np.arange(len(rows))
            cnt = np.zeros(len(rows), np.int64)
            for name, k in per_host.items():
                at = int(inverse[vec.row[name]])
                if at >= 0:
                    cnt[at] = k
        else:
            cnt = counts[dom[rows]]
        term = cnt.astype(np.float64) * weight + float(c.max_skew - 1)
        total = np.where(has[rows], total + term, total)
    raw = np.where(ignored, 0, np.floor(total + 0.5).astype(np.int64))
    return raw, _normalize(raw, ignored)


def _normalize(raw: np.ndarray, ignored: np.ndarray) -> int | np.ndarray:
    """As the reference normalises: ignored nodes 0, others ``100 * (max + min - v) // max``."""
    scored = raw[~ignored]
    hi = int(scored.max()) if len(scored) else 0
    if hi == 0:
        return np.where(ignored, 0, MAX_NODE_SCORE) if ignored.any() else MAX_NODE_SCORE
    base = hi + int(scored.min())
    return np.where(ignored, 0, MAX_NODE_SCORE * (base - raw) // hi)
