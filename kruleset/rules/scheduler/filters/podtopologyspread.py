"""PodTopologySpread filter (seed 003 §5): DoNotSchedule constraints.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread`` (filtering.go,
common.go).  PreFilter counts, per constraint, the matching pods in every
eligible domain: nodes that carry every constraint's topology key and pass
the constraint's nodeAffinityPolicy (Honor by default: the pod's
nodeSelector/required affinity) and nodeTaintsPolicy (Ignore by default).
Matching pods are bound, not terminating, in the pod's namespace, and match
the selector (plus ``matchLabelKeys``).  A node fits when, for every
constraint, ``count(domain) + selfMatch - globalMin <= maxSkew``; the global
minimum is 0 when fewer eligible domains exist than ``minDomains``.  Pods
removed or added by an overlay (preemption's dry run, nominated pods) move
the counts whether terminating or not, as upstream's ``updateWithPod`` does.

Pods with no constraints of their own that belong to a ReplicaSet,
StatefulSet or ReplicationController get the plugin's default constraints
(``defaultingType: System``: hostname maxSkew 3 and zone maxSkew 5, both
ScheduleAnyway, so they only score), with the owner's selector (kruleset
uses the pod's own labels, which its owner's selector matches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod, TopologySpreadConstraint
from kruleset.model.selectors import IN, LabelSelector, Requirement
from kruleset.model.state import ClusterState, NodeState
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..node_selection import OVERLAY, overlay_for
from ..paths import pod_shape
from .nodeaffinity import node_matches_pod_affinity
from .tainttoleration import find_untolerated_taint
from .topology_index import pod_index

__all__ = [
    "HOSTNAME",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "ZONE",
    "Constraint",
    "constraints_for",
    "node_included",
    "includes_every_node",
]

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(3, HOSTNAME, SCHEDULE_ANYWAY),
    TopologySpreadConstraint(5, ZONE, SCHEDULE_ANYWAY),
)
_OWNER_KINDS = ("ReplicaSet", "StatefulSet", "ReplicationController", "Deployment")

MSG_SKEW = "node(s) didn't match pod topology spread constraints"
MSG_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"

STATE = "spread.filter"


@attrs.frozen(slots=True)
class Constraint:
    """A constraint as the plugin uses it: selector parsed, defaults applied."""

    max_skew: int
    key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_affinity: bool = True
    honor_taints: bool = False


def _convert(c: TopologySpreadConstraint, labels: Mapping[str, str],
             selector: LabelSelector | None = None) -> Constraint:
    sel = c.selector if selector is None else selector
    if c.match_label_keys:
        extra = [Requirement(k, IN, (labels[k],)) for k in c.match_label_keys if k in labels]
        if extra:
            sel = LabelSelector(tuple(extra) + sel.requirements)
    return Constraint(c.max_skew, c.topology_key, sel, c.min_domains or 1,
                      c.node_affinity_policy != "Ignore", c.node_taints_policy == "Honor")


def _owner_selector(pod: Pod) -> LabelSelector | None:
    if pod.owner_kind not in _OWNER_KINDS or not pod.labels:
        return None
    return LabelSelector(tuple(Requirement(k, IN, (v,)) for k, v in pod.labels.items()))


def default_constraints(args: Mapping[str, Any]
                        ) -> tuple[tuple[TopologySpreadConstraint, ...], bool]:
    """The plugin's default constraints and whether they are the system defaults."""
    if (args.get("defaultingType") or "System") == "System":
        return SYSTEM_DEFAULT_CONSTRAINTS, True
    return tuple(args.get("defaultConstraints") or ()), False


def constraints_for(pod: Pod, args: Mapping[str, Any], action: str
                    ) -> tuple[list[Constraint], bool]:
    """The pod's constraints with ``whenUnsatisfiable == action``, and "system defaulted".

    Defaults apply only when the pod has none of its own and has an owner
    whose selector is not empty (upstream ``buildDefaultConstraints``).
    """
    if pod.spread:
        own = [_convert(c, pod.labels) for c in pod.spread if c.when_unsatisfiable == action]
        return own, False
    defaults, system = default_constraints(args)
    chosen = [c for c in defaults if c.when_unsatisfiable == action]
    if not chosen:
        return [], system
    sel = _owner_selector(pod)
    if sel is None:
        return [], system
    return [_convert(c, pod.labels, sel) for c in chosen], system


def node_included(c: Constraint, pod: Pod, node: NodeState) -> bool:
    """nodeAffinityPolicy / nodeTaintsPolicy for ``node`` (``matchNodeInclusionPolicies``)."""
    if c.honor_affinity and not node_matches_pod_affinity(pod, node):
        return False
    return not (c.honor_taints and node.taints
                and find_untolerated_taint(node.taints, pod.tolerations) is not None)


class _SpreadState:
    __slots__ = ("constraints", "counts", "paths", "self_match")

    def __init__(self, constraints: list[Constraint]) -> None:
        self.constraints = constraints
        self.counts: list[dict[str, int]] = [{} for _ in constraints]
        self.paths: list[list[tuple[int, str]]] = []
        self.self_match: list[bool] = []


def _has_all_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    return all(c.key in labels for c in constraints)


def includes_every_node(c: Constraint, pod: Pod) -> bool:
    """Whether :func:`node_included` holds on every node for ``c`` and ``pod``.

    True when neither policy can exclude a node: taints are ignored and the
    node affinity policy is Ignore or the pod has no nodeSelector and no
    required node affinity (then ``node_matches_pod_affinity`` is always True).
    """
    if c.honor_taints:
        return False
    if not c.honor_affinity:
        return True
    na = pod.node_affinity
    return not pod.node_selector and (na is None or na.required is None)


def _compute(state: ClusterState, pod: Pod, constraints: list[Constraint]) -> _SpreadState:
    s = _SpreadState(constraints)
    nodes = state.nodes
    # Which constraints must ask node_included per node; the others include
    # every node (the common case), which saves two calls per node and pod.
    check = [not includes_every_node(c, pod) for c in constraints]
    keys = [c.key for c in constraints]
    # Eligible domains (zero counts included) come from every eligible node.
    if len(constraints) == 1 and not check[0]:
        key, counts0 = keys[0], s.counts[0]
        for node in nodes.values():
            value = node.labels.get(key)
            if value is not None and value not in counts0:
                counts0[value] = 0
    else:
        for node in nodes.values():
            labels = node.labels
            if not _has_all_keys(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if not check[i] or node_included(c, pod, node):
                    s.counts[i].setdefault(labels[c.key], 0)
    idx = pod_index(state)
    ns = pod.namespace
    for i, c in enumerate(constraints):
        counts = s.counts[i]
        key, needs = c.key, check[i]
        single = len(keys) == 1
        for ps in idx.matching(ns, c.selector):
            if ps.deletion_time is not None or ps.node is None:
                continue
            node = nodes[ps.node]
            labels = node.labels
            if single:
                if key not in labels:
                    continue
            elif not all(k in labels for k in keys):
                continue
            if needs and not node_included(c, pod, node):
                continue
            counts[labels[key]] += 1
        s.paths.append(sorted((n, v) for v, n in counts.items())[:2])
        s.self_match.append(c.selector.matches(pod.labels))
    return s


def _spread_prepare(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> bool:
    constraints, _ = constraints_for(pod, args, DO_NOT_SCHEDULE)
    if not constraints:
        ctx.extra[STATE] = None
        return False
    ctx.extra[STATE] = _compute(ctx.state, pod, constraints)
    return True


def _overlay_delta(ctx: ScheduleContext, s: _SpreadState, pod: Pod,
                   node: NodeState) -> list[int] | None:
    ov = overlay_for(ctx, node)
    if ov is None or not _has_all_keys(node.labels, s.constraints):
        return None
    # Upstream's AddPod/RemovePod (``updateWithPod``) count a pod whatever its
    # deletionTimestamp, though PreFilter (``countPodsMatchSelector``) skipped
    # terminating pods: a preemption dry run that removes a terminating pod
    # takes one more off its domain than PreFilter counted there.
    ns = pod.namespace
    out = []
    for c in s.constraints:
        d = 0
        if node_included(c, pod, node):
            sel = c.selector
            d -= sum(1 for ps in ov.removed
                     if ps.pod.namespace == ns and sel.matches(ps.pod.labels))
            d += sum(1 for ps in ov.added
                     if ps.pod.namespace == ns and sel.matches(ps.pod.labels))
        out.append(d)
    return out


def _spread_filter_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                       nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    """:func:`_spread_filter` on each of ``nodes``, without a Python call per node.

    Without an overlay a node's result depends only on its domain value for
    each constraint (counts, minimum and self-match are the PreFilter's), so
    it is decided once per domain and shared by the domain's nodes (one
    Failure object per domain, equal to the one the per-node form builds).
    """
    s: _SpreadState | None = ctx.extra.get(STATE)
    if s is None:
        return None
    if ctx.extra.get(OVERLAY) is not None:
        return [_spread_filter(ctx, args, pod, n) for n in nodes]
    if len(s.constraints) == 1:
        return _one_constraint(s, nodes)
    by_domain: list[dict[str, Failure | None]] = [{} for _ in s.constraints]
    indexed = list(enumerate(s.constraints))
    out: list[Failure | None] = []
    failed = False
    for node in nodes:
        labels = node.labels
        f: Failure | None = None
        for i, c in indexed:
            value = labels.get(c.key)
            if value is None:
                f = _FAIL_LABEL
                break
            known = by_domain[i]
            if value in known:
                f = known[value]
            else:
                f = known[value] = _domain_failure(s, i, c, value)
            if f is not None:
                break
        if f is not None:
            failed = True
        out.append(f)
    return out if failed else None


@rule(FILTERS, "scheduler.filter.PodTopologySpread",
      doc="DoNotSchedule spread constraints: matching pods in the node's domain + 1 - the "
          "global minimum must not exceed maxSkew; nodes without the topology key fail.",
      source="seed 003 §5; pkg/scheduler/framework/plugins/podtopologyspread/filtering.go",
      prepare=_spread_prepare, batch=_spread_filter_all, reads=Reads("pods", pod_shape))
def _spread_filter(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                   node: NodeState) -> Failure | None:
    s: _SpreadState | None = ctx.extra.get(STATE)
    if s is None:
        return None
    labels = node.labels
    delta = _overlay_delta(ctx, s, pod, node)
    for i, c in enumerate(s.constraints):
        value = labels.get(c.key)
        if value is None:
            return Failure(MSG_LABEL, UNRESOLVABLE)
        counts = s.counts[i]
        if delta is not None and delta[i] and value in counts:
            # The node's domain changes; the minimum is it or the smallest other domain.
            match = counts[value] + delta[i]
            others = [n for n, v in s.paths[i] if v != value]
            f = _skew_failure(s, i, c, value, match, min([match] + others[:1]))
        else:
            f = _domain_failure(s, i, c, value)
        if f is not None:
            return f
    return None


_FAIL_LABEL = Failure(MSG_LABEL, UNRESOLVABLE)


def _domain_failure(s: _SpreadState, i: int, c: Constraint, value: str) -> Failure | None:
    """The per-node form's answer for constraint ``i`` on a node in domain ``value``, no overlay."""
    paths = s.paths[i]
    return _skew_failure(s, i, c, value, s.counts[i].get(value, 0), paths[0][0] if paths else 0)


def _skew_failure(s: _SpreadState, i: int, c: Constraint, value: str, match: int,
                  minimum: int) -> Failure | None:
    """Constraint ``i``'s answer for a node in domain ``value`` with ``match`` matching
    pods there and ``minimum`` the global minimum (0 below ``minDomains`` domains)."""
    if len(s.counts[i]) < c.min_domains:
        minimum = 0
    skew = match + (1 if s.self_match[i] else 0) - minimum
    if skew > c.max_skew:
        return Failure(MSG_SKEW, UNSCHEDULABLE,
                       detail={"topologyKey": c.key, "domain": value, "matching": match,
                               "globalMinimum": minimum, "maxSkew": c.max_skew})
    return None


def _one_constraint(s: _SpreadState, nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    """The batch form for one constraint: each distinct domain decided once.

    A node without the key gets the missing-label failure (``None`` is never
    a key of ``known``, whose keys are label values).
    """
    c = s.constraints[0]
    key = c.key
    values = [n.labels.get(key) for n in nodes]
    known: dict[str | None, Failure | None] = {}
    for v in set(values):
        if v is not None:
            known[v] = _domain_failure(s, 0, c, v)
    if None not in values and not any(f is not None for f in known.values()):
        return None
    return [known.get(v, _FAIL_LABEL) for v in values]
