"""The per-node filters that look at one node only (seed 003 §1-3, §6).

In upstream's default filter order: NodeUnschedulable, NodeName,
TaintToleration, NodeAffinity (with nodeSelector), NodePorts,
NodeResourcesFit.  PodTopologySpread and InterPodAffinity follow in their
own modules.  Each honours the :class:`~kruleset.rules.scheduler.node_selection.Overlay`
of :func:`~kruleset.rules.scheduler.node_selection.run_filters` where the pods on the
node matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kruleset.model.objects import NodeAffinity, Pod
from kruleset.model.selectors import NodeSelectorTerm, Taint, Toleration
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure
from kruleset.rules.registry import rule

from ..dispatch import register_batch_filter
from ..framework import FILTERS, PREFILTER, PREFILTER_NODES
from ..node_selection import OVERLAY, overlay_for, register_prepare

__all__ = [
    "find_untolerated_taint",
    "insufficient_resources",
    "node_matches_pod_affinity",
    "required_terms_match",
]

_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
_FILTER_EFFECTS = ("NoSchedule", "NoExecute")
_UNTOLERATED = "node(s) had untolerated taint(s)"


@rule(FILTERS, "scheduler.filter.NodeUnschedulable",
      doc="A cordoned node takes only pods tolerating node.kubernetes.io/unschedulable:NoSchedule.",
      source="seed 003 §6.6; pkg/scheduler/framework/plugins/nodeunschedulable")
def _node_unschedulable(ctx: Any, args: Mapping[str, Any], pod: Pod,
                        node: NodeState) -> Failure | None:
    if not node.unschedulable:
        return None
    for t in pod.tolerations:
        if t.tolerates(_UNSCHEDULABLE_TAINT):
            return None
    return Failure("node(s) were unschedulable", UNRESOLVABLE)


@rule(FILTERS, "scheduler.filter.NodeName",
      doc="A pod with spec.nodeName fits only that node.",
      source="seed 003 §2.4; pkg/scheduler/framework/plugins/nodename")
def _node_name(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> Failure | None:
    if pod.node_name and pod.node_name != node.name:
        return Failure("node(s) didn't match the requested node name", UNRESOLVABLE)
    return None


# --- TaintToleration ------------------------------------------------------------------

def find_untolerated_taint(taints: Iterable[Taint], tolerations: Sequence[Toleration],
                           effects: tuple[str, ...] = _FILTER_EFFECTS) -> Taint | None:
    """The first taint with one of ``effects`` that no toleration tolerates.

    Upstream ``FindMatchingUntoleratedTaint`` with the DoNotSchedule filter
    (NoSchedule and NoExecute); PreferNoSchedule is only scored.
    """
    for taint in taints:
        if taint.effect not in effects:
            continue
        for tol in tolerations:
            if tol.tolerates(taint):
                break
        else:
            return taint
    return None


@rule(FILTERS, "scheduler.filter.TaintToleration",
      doc="Every NoSchedule and NoExecute taint of the node must be tolerated "
          "(PreferNoSchedule only scores).",
      source="seed 003 §6.1-6.3; pkg/scheduler/framework/plugins/tainttoleration Filter")
def _taint_toleration(ctx: Any, args: Mapping[str, Any], pod: Pod,
                      node: NodeState) -> Failure | None:
    if not node.taints:
        return None
    taint = find_untolerated_taint(node.taints, pod.tolerations)
    if taint is None:
        return None
    # v1.35 names no taint (older releases said "untolerated taint {key: value}"),
    # so nodes failing for different taints count as one reason in the message.
    return Failure(_UNTOLERATED, UNRESOLVABLE, detail={"taint": str(taint)})


# --- NodeAffinity ----------------------------------------------------------------------

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


@register_prepare("scheduler.filter.NodeAffinity")
def _node_affinity_prepare(ctx: Any, args: Mapping[str, Any], pod: Pod) -> bool:
    # PreFilter Skip: no nodeSelector, no required affinity, no addedAffinity.
    added: NodeAffinity | None = args.get("addedAffinity")
    has_added = added is not None and added.required is not None
    na = pod.node_affinity
    return bool(pod.node_selector) or has_added or (na is not None and na.required is not None)


@rule(FILTERS, "scheduler.filter.NodeAffinity",
      doc="The node must match the pod's nodeSelector and required node affinity "
          "(terms ORed, expressions ANDed), and the profile's addedAffinity.",
      source="seed 003 §2.1-2.2, §2.5; pkg/scheduler/framework/plugins/nodeaffinity Filter")
def _node_affinity(ctx: Any, args: Mapping[str, Any], pod: Pod,
                   node: NodeState) -> Failure | None:
    added: NodeAffinity | None = args.get("addedAffinity")
    if (added is not None and added.required is not None
            and not required_terms_match(added.required, node)):
        return Failure("node(s) didn't match scheduler-enforced node affinity", UNRESOLVABLE)
    if not node_matches_pod_affinity(pod, node):
        return Failure("node(s) didn't match Pod's node affinity/selector", UNRESOLVABLE)
    return None


_NAME_FIELD = "metadata.name"


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
def _node_affinity_prefilter(ctx: Any, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    names = named_nodes(pod)
    if names is None:
        return None
    if not names:
        return Failure("pod affinity terms conflict", UNRESOLVABLE)
    ctx.extra[PREFILTER_NODES] = (names, "[NodeAffinity]")
    return None


# --- NodePorts ---------------------------------------------------------------------------

@register_prepare("scheduler.filter.NodePorts")
def _node_ports_prepare(ctx: Any, args: Mapping[str, Any], pod: Pod) -> bool:
    return bool(pod.host_ports)


@rule(FILTERS, "scheduler.filter.NodePorts",
      doc="The pod's host ports (port and protocol) must be free on the node.",
      source="seed 003 §1; pkg/scheduler/framework/plugins/nodeports Filter")
def _node_ports(ctx: Any, args: Mapping[str, Any], pod: Pod, node: NodeState) -> Failure | None:
    if not pod.host_ports:
        return None
    wanted = set(pod.host_ports)
    ov = overlay_for(ctx, node)
    pods = ov.pods(node) if ov is not None else node.pods.values()
    for ps in pods:
        for hp in ps.pod.host_ports:
            if hp in wanted:
                return Failure("node(s) didn't have free ports for the requested pod ports",
                               UNSCHEDULABLE)
    return None


# --- NodeResourcesFit --------------------------------------------------------------------

def insufficient_resources(pod: Pod, node: NodeState, ignored: frozenset[str] = frozenset(),
                           ctx: Any = None) -> list[tuple[str, int, int, int]]:
    """Each short resource as ``(name, requested, used, allocatable)``, in upstream's order.

    The pod count is always checked; a pod requesting nothing else stops there.
    Equality fits.  Zero requests are skipped; an extended resource the node
    does not have counts as allocatable 0.  With ``ctx``, an overlay for the
    node (pods hypothetically removed or added) is honoured.
    """
    alloc, tally, req = node.allocatable, node.requested, pod.requests
    u_cpu, u_mem, u_eph, u_pods = tally.cpu, tally.memory, tally.ephemeral_storage, tally.pods
    scalars: Mapping[str, int] = tally.scalars
    ov = overlay_for(ctx, node) if ctx is not None else None
    if ov is not None:
        d = ov.delta
        u_cpu += d.cpu
        u_mem += d.memory
        u_eph += d.ephemeral_storage
        u_pods += d.pods
        if d.scalars:
            merged = dict(scalars)
            for k, v in d.scalars:
                merged[k] = merged.get(k, 0) + v
            scalars = merged
    out: list[tuple[str, int, int, int]] = []
    if u_pods + 1 > alloc.pods:
        out.append(("pods", 1, u_pods, alloc.pods))
    if not (req.cpu or req.memory or req.ephemeral_storage or req.scalars):
        return out
    if req.cpu and req.cpu > alloc.cpu - u_cpu:
        out.append(("cpu", req.cpu, u_cpu, alloc.cpu))
    if req.memory and req.memory > alloc.memory - u_mem:
        out.append(("memory", req.memory, u_mem, alloc.memory))
    if req.ephemeral_storage and req.ephemeral_storage > alloc.ephemeral_storage - u_eph:
        out.append(("ephemeral-storage", req.ephemeral_storage, u_eph, alloc.ephemeral_storage))
    for name, q in req.scalars:
        if q == 0 or name in ignored or _ignored_group(name, ignored):
            continue
        a, u = alloc.get(name), scalars.get(name, 0)
        if q > a - u:
            out.append((name, q, u, a))
    return out


def _ignored_group(name: str, ignored: frozenset[str]) -> bool:
    # ignoredResourceGroups: the domain prefix of an extended resource ("example.com/...").
    if "/" not in name or not ignored:
        return False
    return name.split("/", 1)[0] + "/*" in ignored


@rule(FILTERS, "scheduler.filter.NodeResourcesFit",
      doc="The pod's requests (init-container max, sidecars, overhead) must fit the node's "
          "free allocatable; a request above allocatable is unresolvable.",
      source="seed 003 §3, §10; pkg/scheduler/framework/plugins/noderesources/fit.go")
def _node_resources_fit(ctx: Any, args: Mapping[str, Any], pod: Pod,
                        node: NodeState) -> Failure | None:
    ignored = frozenset(args.get("ignoredResources") or ()) | frozenset(
        f"{g}/*" for g in (args.get("ignoredResourceGroups") or ()))
    short = insufficient_resources(pod, node, ignored, ctx)
    if not short:
        return None
    reasons = ["Too many pods" if n == "pods" else f"Insufficient {n}" for n, *_ in short]
    # Newer releases: a request above the node's allocatable cannot be helped by preemption.
    unresolvable = any(n != "pods" and q > a for n, q, _, a in short)
    return Failure(reasons[0], UNRESOLVABLE if unresolvable else UNSCHEDULABLE,
                   detail={"reasons": reasons, "short": short})


# --- batch forms (see dispatch.register_batch_filter) --------------------------------

@register_batch_filter(_node_resources_fit)
def _node_resources_fit_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                            nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    req = pod.requests
    if req.ephemeral_storage or req.scalars:
        return [_node_resources_fit(ctx, args, pod, n) for n in nodes]
    if ctx.extra.get(OVERLAY) is not None:
        return [_node_resources_fit(ctx, args, pod, n) for n in nodes]
    rc, rm = req.cpu, req.memory
    out: list[Failure | None] = []
    failed = False
    # Without ephemeral-storage or extended requests (and no overlay), a node's
    # failure depends only on its allocatable and requested cpu, memory and pod
    # count: nodes with the same six numbers share one (frozen) Failure, which
    # also lets callers count reasons once per distinct failure.
    seen: dict[tuple[int, int, int, int, int, int], Failure | None] = {}
    for n in nodes:
        alloc, used = n.node.allocatable, n.requested
        if (used.pods + 1 > alloc.pods or (rc and rc > alloc.cpu - used.cpu)
                or (rm and rm > alloc.memory - used.memory)):
            key = (alloc.pods, alloc.cpu, alloc.memory, used.pods, used.cpu, used.memory)
            f = seen.get(key)
            if f is None:
                f = seen[key] = _node_resources_fit(ctx, args, pod, n)
            out.append(f)
            failed = True
        else:
            out.append(None)
    return out if failed else None


@register_batch_filter(_taint_toleration)
def _taint_toleration_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                          nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    if not any(n.taints for n in nodes):
        return None
    return [_taint_toleration(ctx, args, pod, n) if n.taints else None for n in nodes]


@register_batch_filter(_node_unschedulable)
def _node_unschedulable_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                            nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    if not any(n.unschedulable for n in nodes):
        return None
    return [_node_unschedulable(ctx, args, pod, n) for n in nodes]


@register_batch_filter(_node_name)
def _node_name_all(ctx: Any, args: Mapping[str, Any], pod: Pod,
                   nodes: Sequence[NodeState]) -> list[Failure | None] | None:
    if not pod.node_name:
        return None
    return [_node_name(ctx, args, pod, n) for n in nodes]
