"""Helpers for the scheduling unit tests: build clusters and pods in a line or two."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kruleset.model.objects import (
    Container,
    Node,
    NodeAffinity,
    Pod,
    PodAffinityTerm,
    TopologySpreadConstraint,
    WeightedNodeTerm,
    WeightedPodAffinityTerm,
)
from kruleset.model.resources import Resources
from kruleset.model.selectors import (
    LabelSelector,
    NodeSelectorTerm,
    Requirement,
    Taint,
    Toleration,
)
from kruleset.model.state import ClusterState, PodState

GI = 1 << 30
MI = 1 << 20


def cluster(*nodes: Node) -> ClusterState:
    """A cluster with ``nodes`` in declaration order."""
    s = ClusterState()
    for n in nodes:
        s.add_node(n)
    return s


def node(name: str, cpu: int = 4000, memory: int = 8 * GI, pods: int = 110,
         labels: Mapping[str, str] | None = None, taints: Sequence[Taint] = (),
         unschedulable: bool = False, extended: Mapping[str, int] | None = None) -> Node:
    """A node; cpu in millicores, memory in bytes, ``extended`` resources by name."""
    res = {"cpu": cpu, "memory": memory, "pods": pods}
    res.update(extended or {})
    return Node(name, Resources.of(res), labels=labels or {}, taints=tuple(taints),
                unschedulable=unschedulable)


def sel(**labels: str) -> LabelSelector:
    """An equality selector."""
    return LabelSelector(tuple(Requirement(k, "In", (v,)) for k, v in labels.items()))


def pod(name: str, cpu: int = 0, memory: int = 0, *, ns: str = "default",
        labels: Mapping[str, str] | None = None, **kw: object) -> Pod:
    """A one-container pod requesting ``cpu`` millicores and ``memory`` bytes."""
    req = Resources.of({k: v for k, v in (("cpu", cpu), ("memory", memory)) if v})
    extra = kw.pop("requests", None)
    if isinstance(extra, Mapping):
        req = Resources.of({**req.as_dict(), **extra})
    containers = kw.pop("containers", None) or (Container("c", req),)
    return Pod(ns, name, containers=containers, labels=labels or {}, **kw)  # type: ignore[arg-type]


def bind(state: ClusterState, p: Pod, node_name: str) -> PodState:
    """Add ``p`` and bind it to ``node_name``."""
    ps = state.add_pod(p)
    state.bind(ps, node_name)
    return ps


def spread(max_skew: int, key: str, selector: LabelSelector, **kw: object
           ) -> TopologySpreadConstraint:
    """A topology spread constraint."""
    return TopologySpreadConstraint(max_skew, key, selector=selector, **kw)  # type: ignore[arg-type]


def term(key: str, selector: LabelSelector, **kw: object) -> PodAffinityTerm:
    """A pod affinity term."""
    return PodAffinityTerm(selector, key, **kw)  # type: ignore[arg-type]


def wterm(weight: int, key: str, selector: LabelSelector) -> WeightedPodAffinityTerm:
    """A weighted pod affinity term."""
    return WeightedPodAffinityTerm(weight, PodAffinityTerm(selector, key))


def node_term(*reqs: Requirement) -> NodeSelectorTerm:
    """A nodeSelectorTerm of label expressions."""
    return NodeSelectorTerm(tuple(reqs))


def required(*terms: NodeSelectorTerm) -> NodeAffinity:
    """Required node affinity."""
    return NodeAffinity(required=tuple(terms))


def preferred(*pairs: tuple[int, NodeSelectorTerm]) -> NodeAffinity:
    """Preferred node affinity."""
    return NodeAffinity(preferred=tuple(WeightedNodeTerm(w, t) for w, t in pairs))


__all__ = [
    "GI", "MI", "Requirement", "Taint", "Toleration", "bind", "cluster", "node", "node_term",
    "pod", "preferred", "required", "sel", "spread", "term", "wterm",
]
