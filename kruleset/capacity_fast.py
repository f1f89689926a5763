"""``kruleset capacity`` for a plain pod, as arithmetic: every node filled to what it holds.

When the only filter whose verdict can change as instances are placed is
NodeResourcesFit (the pod has no pod affinity, spread constraints, host
ports, claims or gates; no running pod has anti-affinity; no quota, no
nominated and no pending pod), the scheduler keeps placing instances while
any node has room, so every node it may use ends up holding as many as fit
in what it has left, whatever the order: the count and the distribution per
node are the same as placing them one by one (``tests/test_capacity.py``
compares the two).  The order, which does depend on the scores, is given for
the first :data:`ORDERED` instances, placed by the simulation itself; the
message that stops the next instance is the scheduler's, from one attempt on
the cluster with every node's totals filled (taken back afterwards).

A GKE-size cluster holds 1.6 million more plain pods: placed one by one,
that is minutes; this way, seconds (``benchmarks``: GKECapacity).
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["ORDERED", "plain_fill", "why_not_plain"]

#: Instances placed one by one before the rest is filled as arithmetic.
ORDERED = 100
_STATIC_OK = ("scheduler.filter.NodeResourcesFit",)


def why_not_plain(sim: Any, template: Any) -> str | None:
    """Why the arithmetic does not answer for ``template`` (None: it does)."""
    pod, state = template, sim.state
    if (pod.pod_affinity or pod.pod_anti_affinity or pod.spread or pod.host_ports
            or pod.resource_claims or pod.gates or pod.requests.scalars):
        return "the pod's own constraints depend on the pods placed"
    if state.quotas or state.resource_quotas or state.limit_ranges:
        return "quotas count the instances"
    if getattr(state, "dra", None) is not None:
        return "devices are allocated"
    if state.nominations or any(True for _ in state.pending()):
        return "other pods are pending or nominated"
    if any(ps.pod.pod_anti_affinity for ns in state.nodes.values() for ps in ns.pods.values()):
        return "running pods have anti-affinity"
    return None


def _static_fit(sim: Any, pod: Any) -> list[Any]:
    """The nodes every filter but NodeResourcesFit accepts, in node order."""
    from .rules.scheduler.cycle import ScheduleContext
    from .rules.scheduler.node_selection import prepare_cycle

    ctx = ScheduleContext(sim.state, sim.profile, None, sim.now)
    rules = [r for r in prepare_cycle(ctx, pod) if r[2] not in _STATIC_OK]
    out = []
    for node in sim.state.node_order():
        for fn, args, _name in rules:
            if fn(ctx, args, pod, node) is not None:
                break
        else:
            out.append(node)
    return out


def _room(node: Any, req: Any) -> int:
    """How many pods asking ``req`` fit in what ``node`` has left."""
    alloc, used = node.allocatable, node.requested
    n = alloc.pods - used.pods
    for want, have, taken in ((req.cpu, alloc.cpu, used.cpu),
                              (req.memory, alloc.memory, used.memory),
                              (req.ephemeral_storage, alloc.ephemeral_storage,
                               used.ephemeral_storage)):
        if want:
            n = min(n, (have - taken) // want)
    return max(n, 0)


def _stop_message(sim: Any, template: Any, fill: dict[str, int], name: str) -> str:
    """The FailedScheduling message of one more instance on the filled cluster."""
    from .rules.scheduler.framework import FastPaths
    from .sim.setup import create_pod

    state = sim.state
    pod = template
    filled = [(state.nodes[n], k) for n, k in fill.items() if k]
    for node, k in filled:
        node.requested.add(pod.requests, k)
        node.nonzero.add(pod.nonzero_requests, k)
        state.touch(node.name)
    fast = sim.fast
    # The node vectors follow binds only: the attempt reads the totals themselves.
    sim.fast = FastPaths(**{f.name: False for f in attrs.fields(FastPaths)})
    try:
        state.new_epoch()
        sim.changed()
        ps = create_pod(sim, pod.replace(name=name, preemption_policy="Never"))
        sim._settle()
        message = ps.schedule_message if ps is not None else sim.decisions[-1].message
        if ps is not None and not ps.gone:
            sim.terminate(ps, "deleted", by="kruleset capacity", grace=0)
    finally:
        sim.fast = fast
        for node, k in filled:
            node.requested.add(pod.requests, -k)
            node.nonzero.add(pod.nonzero_requests, -k)
            state.touch(node.name)
        state.new_epoch()
    return message or "not scheduled"


def plain_fill(sim: Any, template: Any, next_name: str) -> tuple[dict[str, int], str]:
    """Per node, how many more instances fit (nodes in node order); the stopping message."""
    req = template.requests
    fill = {node.name: _room(node, req) for node in _static_fit(sim, template)}
    fill = {n: k for n, k in fill.items() if k}
    return fill, _stop_message(sim, template, fill, next_name)
