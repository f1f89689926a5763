"""Which kinds and API versions are read, and the check every object passes first.

:func:`entry` checks one decoded object's ``kind``, ``apiVersion`` and
``metadata`` (name, namespace) and hands back an :class:`Entry` for the
reader to convert by kind, or the kind's name when the object is of a kind
that plays no part in the decisions (counted, not read).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import did_you_mean
from ._fields import Doc, mapping, string
from .dra import DRA_KINDS, DRA_VERSIONS
from .kinds import IGNORED_KINDS, check_name, is_custom_resource

__all__ = ["SUPPORTED_KINDS", "Entry", "entry"]

# kind -> API groups accepted for it ("" is the core group).
SUPPORTED_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "Node": ("",),
    "Pod": ("",),
    "Namespace": ("",),
    "PriorityClass": ("scheduling.k8s.io",),
    "RuntimeClass": ("node.k8s.io",),
    "PodDisruptionBudget": ("policy",),
    "ElasticQuota": ("scheduling.x-k8s.io", "scheduling.sigs.k8s.io"),
    "Deployment": ("apps",),
    "ReplicaSet": ("apps",),
    "ReplicationController": ("",),
    "StatefulSet": ("apps",),
    "DaemonSet": ("apps",),
    "Job": ("batch",),
    "CronJob": ("batch",),
    "LimitRange": ("",),
    "ResourceQuota": ("",),
    **dict.fromkeys(DRA_KINDS, ("resource.k8s.io",)),
})
# Versions read per kind (default v1): older versions the v1.35 API server no longer serves.
_VERSIONS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "ElasticQuota": ("v1alpha1",),
})
_CLUSTER_SCOPED = frozenset({"Node", "Namespace", "PriorityClass", "RuntimeClass",
                             "DeviceClass", "ResourceSlice"})


class Entry(NamedTuple):
    """One object whose kind, apiVersion and metadata passed :func:`entry`."""

    doc: Doc
    obj: dict[str, Any]
    kind: str
    namespace: str
    name: str
    meta: dict[str, Any]



def entry(doc: Doc, value: object) -> Entry | str:
    """Check kind, apiVersion and metadata of one object; a kind that plays no part: its name."""
    if not isinstance(value, dict):
        doc.fail("", "expected a Kubernetes object (a mapping with apiVersion and kind)")
    kind = value.get("kind")
    if kind is None:
        doc.fail("kind", "the object has no kind")
    if not isinstance(kind, str) or kind not in SUPPORTED_KINDS:
        if isinstance(kind, str) and (kind in IGNORED_KINDS or
                                      is_custom_resource(value.get("apiVersion"))):
            return kind
        near = did_you_mean(str(kind), (*SUPPORTED_KINDS, *IGNORED_KINDS))
        doc.fail("kind", f"kind {kind!r} is not read by kruleset; kinds read: "
                         f"{', '.join(SUPPORTED_KINDS)}; kinds accepted and ignored: Service, "
                         "ConfigMap, Secret, Event, … and custom resources", near)
    api_version = value.get("apiVersion")
    if api_version is not None:
        api_version = string(doc, api_version, "apiVersion")
        group, _, version = api_version.rpartition("/")
        groups = SUPPORTED_KINDS[kind]
        if group not in groups:
            accepted = " or ".join(f"{g}/…" if g else "v1" for g in groups)
            doc.fail("apiVersion", f"{kind} is read from apiVersion {accepted}, "
                                   f"not {api_version}")
        if kind == "PodDisruptionBudget" and version != "v1":
            doc.fail("apiVersion", f"PodDisruptionBudget is read from policy/v1 only "
                                   f"(policy/{version} selects pods differently)")
        if kind in DRA_KINDS and version not in DRA_VERSIONS:
            doc.fail("apiVersion", f"{kind} is read from resource.k8s.io/"
                                   f"{', '.join(DRA_VERSIONS)}, not {api_version}")
        elif kind not in DRA_KINDS and version not in _VERSIONS.get(kind, ("v1",)):
            doc.fail("apiVersion", f"{api_version} is not a version of {kind} kruleset reads; "
                                   f"supported: " + ", ".join(
                                       f"{groups[0]}/{v}" if groups[0] else v
                                       for v in _VERSIONS.get(kind, ("v1",))))
    meta = mapping(doc, value.get("metadata"), "metadata")
    name = string(doc, meta.get("name"), "metadata.name")
    if not name:
        doc.fail("metadata.name", f"the {kind} has no name",
                 "generateName is not supported: give the object a name")
    check_name(doc, kind, name)
    namespace = ""
    if kind not in _CLUSTER_SCOPED:
        namespace = string(doc, meta.get("namespace"), "metadata.namespace") or "default"
        check_name(doc, "Namespace", namespace, "metadata.namespace")
    return Entry(doc, value, kind, namespace, name, meta)
