"""InterPodAffinity filter (seed 003 §2.3): required pod affinity and anti-affinity.

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``.
PreFilter counts, per topology pair ``(key, value)``:

* existing bound pods whose required anti-affinity terms match the incoming
  pod, at their node's value for the term's key;
* existing pods matching *all* of the incoming pod's required affinity
  terms, for each term's key;
* existing pods matching each of the incoming pod's required anti-affinity
  terms.

The Filter then checks, in upstream's order: the pod's affinity (every term
needs a matching pod in the node's domain; a node without the key fails;
unresolvable), the pod's anti-affinity (Unschedulable), existing pods'
anti-affinity (Unschedulable).  The first pod of a self-affine group may go
anywhere its topology keys exist when no pod in the cluster matches its
terms and it matches them itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, NodeState, PodState
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..node_selection import OVERLAY, overlay_for
from ..paths import pod_shape
from .topology_index import ResolvedTerm, pod_index, resolve_term

__all__ = ["MSG_AFFINITY", "MSG_ANTI", "MSG_EXISTING_ANTI", "required_terms"]

MSG_AFFINITY = "node(s) didn't match pod affinity rules"
MSG_ANTI = "node(s) didn't match pod anti-affinity rules"
MSG_EXISTING_ANTI = "node(s) didn't satisfy existing pods anti-affinity rules"

STATE = "interpod.filter"
Pair = tuple[str, str]


def required_terms(pod: Pod) -> tuple[list[ResolvedTerm], list[ResolvedTerm]]:
    """The pod's required affinity and anti-affinity terms, resolved (cached per pod object)."""
    return ([resolve_term(pod, t) for t in pod.pod_affinity],
            [resolve_term(pod, t) for t in pod.pod_anti_affinity])


class _AffinityState:
    __slots__ = ("affinity", "anti", "existing_anti", "affinity_counts", "anti_counts",
                 "existing_keys", "anti_hot", "existing_hot")

    def __init__(self, affinity: list[ResolvedTerm], anti: list[ResolvedTerm]) -> None:
        self.affinity = affinity
        self.anti = anti
        self.existing_anti: dict[Pair, int] = {}
        self.affinity_counts: dict[Pair, int] = {}
        self.anti_counts: dict[Pair, int] = {}
        # The topology keys occurring in existing_anti (the batch form's, built on first use).
        self.existing_keys: list[str] | None = None
        # Per topology key, the domain values with a positive count (the batch
        # form's, built on first use): a node fails when its value is in one.
        self.anti_hot: list[tuple[str, frozenset[str]]] | None = None
        self.existing_hot: list[tuple[str, frozenset[str]]] | None = None


def _add(counts: dict[Pair, int], pair: Pair, n: int) -> None:
    v = counts.get(pair, 0) + n
    if v:
        counts[pair] = v
    else:
        counts.pop(pair, None)


def _update_with_pod(s: _AffinityState, state: ClusterState, pod: Pod, other: PodState,
                     node: NodeState, sign: int, counts: tuple[dict[Pair, int], dict[Pair, int],
                                                               dict[Pair, int]]) -> None:
    existing_anti, affinity_counts, anti_counts = counts
    labels = node.labels
    for raw in other.pod.pod_anti_affinity:
        rt = resolve_term(other.pod, raw)
        if rt.key in labels and rt.matches(pod, state):
            _add(existing_anti, (rt.key, labels[rt.key]), sign)
    if s.affinity and all(t.matches(other.pod, state) for t in s.affinity):
        for t in s.affinity:
            if t.key in labels:
                _add(affinity_counts, (t.key, labels[t.key]), sign)
    for t in s.anti:
        if t.key in labels and t.matches(other.pod, state):
            _add(anti_counts, (t.key, labels[t.key]), sign)


def _compute(state: ClusterState, pod: Pod) -> _AffinityState:
    affinity, anti = required_terms(pod)
    s = _AffinityState(affinity, anti)
    idx = pod_index(state)
    nodes = state.nodes
    # Existing pods usually share a few distinct terms (one workload's
    # replicas): the index groups bound pods' terms by value, so whether the
    # incoming pod matches is decided once per distinct term.
    existing_anti = s.existing_anti
    for rt, members in idx.anti_groups.values():
        if not rt.matches(pod, state):
            continue
        key = rt.key
        for ps, times in members.values():
            if ps.node is None:
                continue
            value = nodes[ps.node].labels.get(key)
            if value is not None:
                pair = (key, value)
                existing_anti[pair] = existing_anti.get(pair, 0) + times
    if affinity:
        first, rest = affinity[0], affinity[1:]
        for ps in first.matching_pods(idx, state):
            if ps.node is None or not all(t.matches(ps.pod, state) for t in rest):
                continue
            labels = nodes[ps.node].labels
            for t in affinity:
                if t.key in labels:
                    _add(s.affinity_counts, (t.key, labels[t.key]), 1)
    anti_counts = s.anti_counts
    for t in anti:
        key = t.key
        for ps in t.matching_pods(idx, state):
            if ps.node is None:
                continue
            value = nodes[ps.node].labels.get(key)
            if value is not None:
                pair = (key, value)
                anti_counts[pair] = anti_counts.get(pair, 0) + 1
    return s


def _interpod_prepare(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> bool:
    s = _compute(ctx.state, pod)
    ctx.extra[STATE] = s
    return bool(s.affinity or s.anti or s.existing_anti)


def _counts_for(ctx: ScheduleContext, s: _AffinityState, pod: Pod, node: NodeState
                ) -> tuple[dict[Pair, int], dict[Pair, int], dict[Pair, int]]:
    ov = overlay_for(ctx, node)
    if ov is None:
        return s.existing_anti, s.affinity_counts, s.anti_counts
    counts = (dict(s.existing_anti), dict(s.affinity_counts), dict(s.anti_counts))
    for ps in ov.removed:
        _update_with_pod(s, ctx.state, pod, ps, node, -1, counts)
    for ps in ov.added:
        _update_with_pod(s, ctx.state, pod, ps, node, 1, counts)
    return counts


def _interpod_filter_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                         nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    """:func:`_interpod_filter` on each of ``nodes``, without a Python call per node.

    Without an overlay the counts are the PreFilter's for every node, so the
    per-node part is a few dict lookups; the self-affinity exception is the
    same for every node and decided once.  Existing pods' anti-affinity is
    checked on the keys that occur in its counts, which gives the same answer
    as walking every label of the node (other pairs have no count).
    """
    s: _AffinityState | None = ctx.extra.get(STATE)
    if s is None:
        return None
    if ctx.extra.get(OVERLAY) is not None:
        return [_interpod_filter(ctx, args, pod, n) for n in nodes]
    if not s.affinity:
        return _without_affinity(s, nodes)
    affinity, affinity_counts = s.affinity, s.affinity_counts
    self_ok = bool(affinity) and not affinity_counts and all(
        t.matches(pod, ctx.state) for t in affinity)
    anti_keys = [t.key for t in s.anti] if s.anti_counts else []
    anti_counts = s.anti_counts
    existing_anti = s.existing_anti
    existing_keys = s.existing_keys
    if existing_keys is None:
        existing_keys = s.existing_keys = list(dict.fromkeys(k for k, _ in existing_anti))
    out: list[Failure | None] = []
    failed = False
    for node in nodes:
        labels = node.labels
        f: Failure | None = None
        if affinity:
            found = True
            for t in affinity:
                value = labels.get(t.key)
                if value is None:
                    f = _FAIL_AFFINITY
                    break
                if affinity_counts.get((t.key, value), 0) <= 0:
                    found = False
            if f is None and not found and not self_ok:
                f = _FAIL_AFFINITY
        if f is None and anti_keys:
            for k in anti_keys:
                value = labels.get(k)
                if value is not None and anti_counts.get((k, value), 0) > 0:
                    f = _FAIL_ANTI
                    break
        if f is None and existing_keys:
            for k in existing_keys:
                value = labels.get(k)
                if value is not None and existing_anti.get((k, value), 0) > 0:
                    f = _FAIL_EXISTING_ANTI
                    break
        if f is not None:
            failed = True
        out.append(f)
    return out if failed else None


@rule(FILTERS, "scheduler.filter.InterPodAffinity",
      doc="Required pod affinity must find matching pods in the node's domain; required "
          "anti-affinity of the pod and of existing pods must not.",
      source="seed 003 §2.3; pkg/scheduler/framework/plugins/interpodaffinity/filtering.go",
      prepare=_interpod_prepare, batch=_interpod_filter_all, reads=Reads("pods", pod_shape))
def _interpod_filter(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                     node: NodeState) -> Failure | None:
    s: _AffinityState | None = ctx.extra.get(STATE)
    if s is None:
        return None
    existing_anti, affinity_counts, anti_counts = _counts_for(ctx, s, pod, node)
    labels = node.labels
    if s.affinity:
        found = True
        for t in s.affinity:
            value = labels.get(t.key)
            if value is None:
                return Failure(MSG_AFFINITY, UNRESOLVABLE)
            if affinity_counts.get((t.key, value), 0) <= 0:
                found = False
        if not found and not (not affinity_counts
                              and all(t.matches(pod, ctx.state) for t in s.affinity)):
            return Failure(MSG_AFFINITY, UNRESOLVABLE)
    if anti_counts:
        for t in s.anti:
            value = labels.get(t.key)
            if value is not None and anti_counts.get((t.key, value), 0) > 0:
                return Failure(MSG_ANTI, UNSCHEDULABLE)
    if existing_anti:
        for pair in labels.items():
            if existing_anti.get(pair, 0) > 0:
                return Failure(MSG_EXISTING_ANTI, UNSCHEDULABLE)
    return None


# Shared, frozen failures of the batch form (no detail: one object per reason).
_FAIL_AFFINITY = Failure(MSG_AFFINITY, UNRESOLVABLE)
_FAIL_ANTI = Failure(MSG_ANTI, UNSCHEDULABLE)
_FAIL_EXISTING_ANTI = Failure(MSG_EXISTING_ANTI, UNSCHEDULABLE)


def _hot(counts: dict[Pair, int], keys: list[str]) -> list[tuple[str, frozenset[str]]]:
    """For each of ``keys`` (in order, once), the values whose pair has a positive count."""
    values: dict[str, set[str]] = {k: set() for k in keys}
    for (k, v), n in counts.items():
        if n > 0 and k in values:
            values[k].add(v)
    return [(k, frozenset(vs)) for k, vs in values.items()]


def _without_affinity(s: _AffinityState, nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    """The batch form for a pod without required affinity terms (no overlay).

    A node fails the pod's anti-affinity when, for one of its terms' keys,
    the node's value has a positive count (the per-node form's test), and
    otherwise existing pods' anti-affinity the same way; a value absent from
    the node (``None``) is in no set, as the per-node form skips it.
    """
    anti_hot = s.anti_hot
    if anti_hot is None:
        anti_hot = s.anti_hot = _hot(s.anti_counts, [t.key for t in s.anti])
    out: list[Failure | None]
    if len(anti_hot) == 1:
        k, hot = anti_hot[0]
        out = [_FAIL_ANTI if n.labels.get(k) in hot else None for n in nodes]
    else:
        out = [_FAIL_ANTI if any(n.labels.get(k) in hot for k, hot in anti_hot) else None
               for n in nodes]
    if s.existing_anti and None in out:
        existing_hot = s.existing_hot
        if existing_hot is None:
            keys = list(dict.fromkeys(k for k, _ in s.existing_anti))
            existing_hot = s.existing_hot = _hot(s.existing_anti, keys)
        for i, n in enumerate(nodes):
            if out[i] is None:
                labels = n.labels
                for k, hot in existing_hot:
                    if labels.get(k) in hot:
                        out[i] = _FAIL_EXISTING_ANTI
                        break
    return out if any(f is not None for f in out) else None
