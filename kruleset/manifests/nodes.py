"""Nodes and namespaces."""

from __future__ import annotations

from typing import Any

from ..errors import NO_SPAN
from ..model.objects import Namespace, Node
from ..model.resources import Resources
from ..model.selectors import EFFECTS, Taint
from ._fields import (
    Doc,
    boolean,
    choice,
    integer,
    mapping,
    resources,
    seq,
    string,
    string_list,
    string_map,
)

__all__ = ["DEFAULT_MAX_PODS", "namespace_from", "node_from"]

DEFAULT_MAX_PODS = 110  # the kubelet's maxPods default, reported as capacity.pods


def node_from(doc: Doc, obj: dict[str, Any], name: str, labels: dict[str, str]) -> Node:
    """A v1 Node: ``status.capacity`` and ``status.allocatable`` (reserved = the difference).

    Without ``status.capacity`` the allocatable list is taken as the capacity
    (nothing reserved); ``pods`` is 110 when neither lists it, the kubelet's default.
    """
    status = mapping(doc, obj.get("status"), "status")
    spec = mapping(doc, obj.get("spec"), "spec")
    has_capacity = status.get("capacity") is not None
    capacity = resources(doc, status.get("capacity"), "status.capacity")
    allocatable = resources(doc, status.get("allocatable"), "status.allocatable")
    if not has_capacity:
        capacity, allocatable = allocatable, allocatable
    cap = capacity.as_dict()
    alloc = allocatable.as_dict()
    if status.get("allocatable") is None:
        alloc = dict(cap)
    listed_alloc = mapping(doc, status.get("allocatable"), "status.allocatable")
    for res, value in alloc.items():
        if res not in cap:
            doc.fail(f"status.allocatable.{res}",
                     f"allocatable {res} is listed but status.capacity has no {res}")
        if value > cap[res]:
            doc.fail(f"status.allocatable.{res}", f"allocatable {res} is above its capacity")
    reserved = {}
    for res, value in cap.items():
        # A resource left out of a listed allocatable is all reserved (0 allocatable).
        left = alloc.get(res, 0 if listed_alloc else value)
        if value - left:
            reserved[res] = value - left
    if "pods" not in cap:
        cap["pods"] = DEFAULT_MAX_PODS
    taints = []
    for i, t in enumerate(seq(doc, spec.get("taints"), "spec.taints")):
        tf = f"spec.taints[{i}]"
        t = mapping(doc, t, tf)
        key = string(doc, t.get("key"), f"{tf}.key")
        if not key:
            doc.fail(f"{tf}.key", "a taint needs a key")
        if t.get("effect") is None:
            doc.fail(f"{tf}.effect", "a taint needs an effect (NoSchedule, PreferNoSchedule "
                                     "or NoExecute)")
        taints.append(Taint(key, string(doc, t.get("value"), f"{tf}.value"),
                            choice(doc, t.get("effect"), f"{tf}.effect", EFFECTS, "")))
    return Node(
        name=name,
        capacity=Resources.of(cap),
        reserved=Resources.of(reserved),
        labels=labels,
        taints=tuple(taints),
        unschedulable=boolean(doc, spec.get("unschedulable"), "spec.unschedulable"),
        images=_images(doc, status.get("images")),
        span=doc.span or NO_SPAN,
    )


def _images(doc: Doc, raw: object) -> tuple[tuple[tuple[str, ...], int], ...]:
    """``status.images``: each image's names and ``sizeBytes`` (for ImageLocality)."""
    out = []
    for i, img in enumerate(seq(doc, raw, "status.images")):
        f = f"status.images[{i}]"
        img = mapping(doc, img, f)
        names = string_list(doc, img.get("names"), f"{f}.names")
        size = integer(doc, img.get("sizeBytes"), f"{f}.sizeBytes", 0) or 0
        if size < 0:
            doc.fail(f"{f}.sizeBytes", "an image size cannot be negative")
        if names:
            out.append((names, size))
    return tuple(out)


def namespace_from(doc: Doc, obj: dict[str, Any], name: str) -> Namespace:
    """A v1 Namespace with its labels.

    The API server always adds ``kubernetes.io/metadata.name``; a hand-written
    namespace gets it here too, so namespaceSelectors on it behave as in a cluster.
    """
    meta = mapping(doc, obj.get("metadata"), "metadata")
    labels = dict(string_map(doc, meta.get("labels"), "metadata.labels"))
    labels.setdefault("kubernetes.io/metadata.name", name)
    return Namespace(name, labels, span=doc.span or NO_SPAN)
