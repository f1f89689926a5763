"""Applying usage read from Summary API and metrics.k8s.io documents (at 0s).

Pods first: their memory working set, disk and inodes move the node's sums;
then each node's signals are made to read what the document says, as
``usage node`` does (the rest is the node's own consumption).  A signal of a
filesystem the node declares no size for is not observed (upstream has no
observation without a capacity either).  Containers' ``logs`` and ``rootfs``
bytes are kept for local-storage eviction of their ephemeral-storage limits.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.observed import ContainerUsage, ObservedUsage
from ..rules.kubelet.eviction.signals import (
    CONTAINER_USAGE,
    layout,
    pod_usage,
    set_node_signal,
    set_pod_observed,
    set_pod_usage,
)
from .core import Simulation, register_action

__all__: list[str] = []


def _apply(sim: Simulation, a: ObservedUsage) -> None:
    state = sim.state
    for p in a.pods:
        ps = state.pods.get(p.key)
        if ps is None or ps.gone:
            continue
        names = {e.name for e in ps.pod.emptydirs if not e.medium_memory}
        usage = dict(p.usage)
        other = sum(v for k, v in p.volumes.items() if k not in names)
        if other:
            usage["ephemeral-storage"] = usage.get("ephemeral-storage", 0) + other
        set_pod_observed(state, ps, usage, {k: v for k, v in p.volumes.items() if k in names})
        if p.containers:
            ps.extra[CONTAINER_USAGE] = {k: dict(v) for k, v in p.containers.items()}
    for n in a.nodes:
        node = state.nodes.get(n.node)
        if node is None:
            continue
        lay = layout(sim.kubelet_config(n.node), node)
        signals = dict(n.signals)
        if n.memory_used is not None:
            signals["memory.available"] = max(node.node.capacity.memory - n.memory_used, 0)
        for signal, value in signals.items():
            try:
                set_node_signal(node, lay, signal, value)
            except ValueError:
                continue  # no size declared for that filesystem: nothing to observe
    sim.changed()


#: A container's usage key -> (its place in the container's stats, the pod's usage key).
_CONTAINER_KEYS = {"ephemeral-storage": ("logs", "ephemeral-storage"),
                   "writable-layer": ("rootfs", "writable-layer"),
                   "memory": ("memory", "memory")}


def _container(sim: Simulation, a: ContainerUsage) -> None:
    key = a.ref if "/" in a.ref else f"default/{a.ref}"
    ps = sim.state.pods.get(key)
    if ps is None:
        raise ScenarioError(f"unknown pod '{a.ref}'", a.span)
    if a.container not in {c.name for c in ps.pod.containers}:
        raise ScenarioError(f"pod {key} has no container '{a.container}'", a.span)
    stats = ps.extra.setdefault(CONTAINER_USAGE, {})
    mine = stats.setdefault(a.container, {"logs": 0, "rootfs": 0})  # type: ignore[attr-defined]
    totals = dict(pod_usage(ps))
    for k, v in a.usage.items():
        stat, pod_key = _CONTAINER_KEYS[k]
        totals[pod_key] = max(totals.get(pod_key, 0) + v - mine.get(stat, 0), 0)
        mine[stat] = v
    set_pod_usage(sim.state, ps, totals)
    sim.changed()


register_action(ObservedUsage, _apply)
register_action(ContainerUsage, _container)
