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
from kruleset.model.selectors import IN, LabelSelector
from kruleset.model.state import PodState

from ..defaults import SCORE_POD_TOPOLOGY_SPREAD
from ..filters.podtopologyspread import (
    HOSTNAME,
    SCHEDULE_ANYWAY,
    constraints_for,
    includes_every_node,
    node_included,
)
from ..filters.topology_index import pod_index
from ..framework import SCORES, ScheduleContext
from ..scores import podtopologyspread  # noqa: F401  (imported for its rule, named below)
from .node_vectors import Scores, vector_score
from .vector_search import Feasible

__all__ = ["spread_scores"]

MAX_NODE_SCORE = 100


@vector_score(SCORES.rule(SCORE_POD_TOPOLOGY_SPREAD).fn)
def spread_scores(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, feasible: Feasible
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
    idx = pod_index(ctx.state)
    every_key = np.logical_and.reduce([has for has, _, _ in domains]) if require_all else None
    total = np.zeros(len(rows), np.float64)
    inverse: np.ndarray | None = None
    placed: dict[int, tuple[list[PodState], np.ndarray]] = {}
    for c, (has, dom, ids) in zip(constraints, domains, strict=True):
        # Constraints defaulted from one owner share one selector: its pods once.
        found = placed.get(id(c.selector))
        if found is None:
            found = placed[id(c.selector)] = _placed(idx, pod.namespace, c.selector, vec.row)
        pods, at = found
        counted = has[at] if every_key is None else has[at] & every_key[at]
        if c.key == HOSTNAME:
            if inverse is None:
                # Row -> place among the feasible nodes (-1: not feasible).
                inverse = np.full(len(has), -1, np.int64)
                inverse[rows] = np.arange(len(rows))
            # The node's own pods, whatever the inclusion policies (as upstream's Score).
            mine = inverse[at[counted]]
            cnt = np.bincount(mine[mine >= 0], minlength=len(rows))
            size = int(kept.sum())
        else:
            if not includes_every_node(c, pod):
                nodes = ctx.state.nodes
                # The index holds bound pods only: ps.node is a node's name.
                counted &= np.fromiter((node_included(c, pod, nodes[ps.node])  # type: ignore[index]
                                        for ps in pods), np.bool_, len(pods))
            cnt, size = _domain_counts(dom[rows], kept, dom[at[counted]], len(ids))
        weight = math.log(float(size + 2))
        term = cnt.astype(np.float64) * weight + float(c.max_skew - 1)
        total = np.where(has[rows], total + term, total)
    raw = np.where(ignored, 0, np.floor(total + 0.5).astype(np.int64))
    return raw, _normalize(raw, ignored)


def _domain_counts(feasible: np.ndarray, kept: np.ndarray, pods: np.ndarray, ids: int
                   ) -> tuple[np.ndarray, int]:
    """Per feasible node, the counted pods in its domain; and the number of domains.

    ``feasible`` and ``pods`` are value ids (of the feasible nodes, of the
    counted pods' nodes).  Only domains of the feasible nodes not ignored
    (``kept``) exist: a pod elsewhere counts for none.
    """
    present = np.zeros(ids, np.bool_)
    present[feasible[kept]] = True
    counts = np.where(present, np.bincount(pods, minlength=ids), 0)
    return counts[feasible], int(present.sum())


def _placed(idx: Any, namespace: str, selector: LabelSelector, row: Mapping[str, int]
            ) -> tuple[list[PodState], np.ndarray]:
    """The bound, not terminating pods ``selector`` matches, and their nodes' rows.

    A selector of single-value ``In`` requirements (an owner's) matches
    exactly the pods in every one of its label buckets of the pod index: the
    smallest bucket is filtered by membership in the others, without
    matching labels pod by pod.
    """
    reqs = selector.requirements
    if reqs and all(r.operator == IN and len(r.values) == 1 for r in reqs):
        buckets = [idx.by_label.get((namespace, r.key, r.values[0])) for r in reqs]
        if any(b is None for b in buckets):
            return [], np.zeros(0, np.int64)
        buckets.sort(key=len)
        first, rest = buckets[0], buckets[1:]
        keys = first.keys()
        if all(keys <= b.keys() for b in rest):  # an owner's pods: one bucket within the others
            matched = list(first.values())
        else:
            matched = [ps for key, ps in first.items() if all(key in b for b in rest)]
    else:
        matched = idx.matching(namespace, selector)
    pods = [ps for ps in matched if ps.deletion_time is None and ps.node is not None]
    return pods, np.fromiter((row[ps.node] for ps in pods), np.int64, len(pods))


def _normalize(raw: np.ndarray, ignored: np.ndarray) -> int | np.ndarray:
    """As the reference normalises: ignored nodes 0, others ``100 * (max + min - v) // max``."""
    scored = raw[~ignored]
    hi = int(scored.max()) if len(scored) else 0
    if hi == 0:
        return np.where(ignored, 0, MAX_NODE_SCORE) if ignored.any() else MAX_NODE_SCORE
    base = hi + int(scored.min())
    return np.where(ignored, 0, MAX_NODE_SCORE * (base - raw) // hi)
