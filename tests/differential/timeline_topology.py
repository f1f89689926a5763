"""Random timelines whose pods spread and (anti-)attract: the cross-pod QueueingHints.

``generate_timeline``'s cases with, on top, what PodTopologySpread's and
InterPodAffinity's hints read: every node carries ``kubernetes.io/hostname``,
every pod an ``app`` label, and some pending pods a ``DoNotSchedule`` spread
constraint (over ``zone`` or the hostname) or a required pod affinity or
anti-affinity term (by ``zone`` or hostname) on an ``app`` value.  Deleting
and binding such pods, and labelling nodes (``zone``, ``disk``), are the
events those hints judge.  Everything follows from the seed (its own random
stream, so the base timeline is the same as ``generate_timeline``'s).
"""

from __future__ import annotations

import random
from typing import Any

from .timeline_generator import generate_timeline

__all__ = ["generate_topology_timeline"]

_APPS = ("web", "db", "cache")
_KEYS = ("zone", "kubernetes.io/hostname")


def _selector(app: str) -> dict[str, Any]:
    return {"matchLabels": {"app": app}}


def _decorate(rnd: random.Random, pod: dict[str, Any]) -> None:
    meta, spec = pod["metadata"], pod["spec"]
    meta["labels"] = {"app": rnd.choice(_APPS)}
    if spec.get("nodeName"):
        return
    roll = rnd.random()
    if roll < 0.3:
        spec["topologySpreadConstraints"] = [{
            "maxSkew": rnd.choice((1, 1, 2)), "topologyKey": rnd.choice(_KEYS),
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": _selector(
                rnd.choice((meta["labels"]["app"], rnd.choice(_APPS))))}]
    elif roll < 0.55:
        kind = rnd.choice(("podAffinity", "podAntiAffinity", "podAntiAffinity"))
        spec["affinity"] = {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": _selector(rnd.choice(_APPS)), "topologyKey": rnd.choice(_KEYS)}]}}


def _hostname(node: dict[str, Any]) -> None:
    node["metadata"].setdefault("labels", {})["kubernetes.io/hostname"] = \
        node["metadata"]["name"]


def generate_topology_timeline(seed: int) -> dict[str, Any]:
    """The topology timeline case for ``seed``."""
    case = generate_timeline(seed)
    rnd = random.Random(f"topology-{seed}")
    for node in case["nodes"]:
        _hostname(node)
    for pod in case["pods"]:
        _decorate(rnd, pod)
    for ev in case["timeline"]:
        if ev["op"] == "create" and "pod" in ev:
            _decorate(rnd, ev["pod"])
        elif ev["op"] == "create" and "node" in ev:
            _hostname(ev["node"])
    return case
