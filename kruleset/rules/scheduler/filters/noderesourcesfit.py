"""NodeResourcesFit filter: the pod's requests must fit the node's free allocatable.

Seed 003 §3, §10; upstream ``pkg/scheduler/framework/plugins/noderesources``
(fit.go, Filter); its score is
:mod:`kruleset.rules.scheduler.scores.noderesourcesfit`.
:func:`insufficient_resources` is also the kubelet's admission check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Reads
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..framework import FILTERS
from ..node_selection import OVERLAY, overlay_for
from ..paths import pod_shape

__all__ = ["insufficient_resources"]


def insufficient_resources(pod: Pod, node: NodeState, ignored: frozenset[str] = frozenset(),
                           ctx: ScheduleContext | None = None) -> list[tuple[str, int, int, int]]:
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


def _node_resources_fit_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
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


@rule(FILTERS, "scheduler.filter.NodeResourcesFit",
      doc="The pod's requests (init-container max, sidecars, overhead) must fit the node's "
          "free allocatable; a request above allocatable is unresolvable.",
      source="seed 003 §3, §10; pkg/scheduler/framework/plugins/noderesources/fit.go",
      batch=_node_resources_fit_all, reads=Reads("fit", pod_shape))
def _node_resources_fit(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
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
