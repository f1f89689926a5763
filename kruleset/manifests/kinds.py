"""Which kinds a dump may hold, and the objects read besides pods, nodes and workloads.

* :data:`IGNORED_KINDS`: kinds that never change a scheduling, admission or
  eviction decision (Services, ConfigMaps, Events, RBAC, …).  They are
  accepted and counted in one summary line, as are custom resources of API
  groups kruleset does not read.
* LimitRange (``type: Container`` items) and ResourceQuota (``spec.hard``)
  become the API server's admission state for pods created during the run.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import NO_SPAN
from ..model.objects import (
    BUILTIN_PRIORITY_CLASSES,
    HIGHEST_USER_PRIORITY,
    LimitRange,
    PriorityClass,
    ResourceQuota,
)
from ..model.quantity import format_quantity
from ..model.resources import Resources
from ._fields import Doc, mapping, quantity, resources, seq, string

__all__ = ["DNS_LABEL", "DNS_SUBDOMAIN", "IGNORED_KINDS", "check_name", "check_priority_class",
           "ignored_summary", "is_custom_resource", "limit_range_from", "resource_quota_from"]

IGNORED_KINDS = frozenset(("Service", "ConfigMap", "Secret", "Event", "Endpoints",
    "EndpointSlice", "Lease", "ServiceAccount", "Role", "RoleBinding", "ClusterRole",
    "ClusterRoleBinding", "Ingress", "IngressClass", "NetworkPolicy", "PersistentVolume",
    "PersistentVolumeClaim", "StorageClass", "CSIDriver", "CSINode", "CSIStorageCapacity",
    "VolumeAttachment", "VolumeAttributesClass", "CustomResourceDefinition", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding", "HorizontalPodAutoscaler", "ControllerRevision",
    "PodTemplate", "ComponentStatus", "FlowSchema", "PriorityLevelConfiguration",
    "CertificateSigningRequest", "ClusterTrustBundle", "IPAddress", "ServiceCIDR", "Binding",
    "TokenReview", "SubjectAccessReview", "SelfSubjectReview", "LocalSubjectAccessReview",
    "SelfSubjectAccessReview", "SelfSubjectRulesReview", "LeaseCandidate",
    "PodCertificateRequest", "StorageVersion", "StorageVersionMigration",
    # (metrics-server's NodeMetrics and PodMetrics are read as usage: usage_docs.py)
    # v1.35 alpha APIs behind gates that are off by default (device taints, workload
    # gang scheduling): with their gates off they change no decision.
    "DeviceTaintRule", "Workload"))

DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_BUILTIN = {pc.name: pc for pc in BUILTIN_PRIORITY_CLASSES}


def is_custom_resource(api_version: object) -> bool:
    """A custom resource: its API group is not one of Kubernetes' own (``*.k8s.io`` or none)."""
    if not isinstance(api_version, str) or "/" not in api_version:
        return False
    group = api_version.rpartition("/")[0]
    return "." in group and not group.endswith(".k8s.io") and group != "k8s.io"


def check_name(doc: Doc, kind: str, name: str, field: str = "metadata.name") -> None:
    """Refuse a name the API server refuses: a DNS label for namespaces, else a DNS subdomain."""
    if kind == "Namespace":
        if len(name) > 63 or not DNS_LABEL.match(name):
            doc.fail(field, f"'{name[:80]}' is not a valid namespace name: at most 63 lowercase "
                            "letters, digits and '-', starting and ending with a letter or digit")
    elif len(name) > 253 or not DNS_SUBDOMAIN.match(name):
        doc.fail(field, f"'{name[:80]}' is not a valid {kind} name: at most 253 lowercase "
                        "letters, digits, '-' and '.', starting and ending with a letter or digit")


def check_priority_class(doc: Doc, pc: PriorityClass) -> bool:
    """Refuse what the API server refuses; False for an unchanged built-in class.

    The built-in ``system-node-critical`` and ``system-cluster-critical`` are
    printed by every ``kubectl get priorityclass``: equal to the built-ins
    (value, globalDefault, preemptionPolicy) they are accepted (and a
    scenario does not count them as declared twice).
    """
    builtin = _BUILTIN.get(pc.name)
    if builtin is not None:
        if (pc.value, pc.global_default, pc.preemption_policy) != \
                (builtin.value, builtin.global_default, builtin.preemption_policy):
            doc.fail("value", f"the built-in priority class {pc.name} has value {builtin.value}, "
                              f"globalDefault false and preemptionPolicy PreemptLowerPriority; "
                              "it cannot be changed")
        return False
    if pc.name.startswith("system-"):
        doc.fail("metadata.name", f"priority class names starting with 'system-' are reserved: "
                                  f"'{pc.name}'")
    if pc.value > HIGHEST_USER_PRIORITY:
        doc.fail("value", f"a user priority class value may be at most {HIGHEST_USER_PRIORITY}, "
                          f"found {pc.value}")
    return True


def limit_range_from(doc: Doc, obj: dict[str, Any], namespace: str, name: str) -> LimitRange:
    """The ``type: Container`` items of a LimitRange (Pod and PVC items do not default).

    The API's defaulting of the object is applied (``SetDefaults_LimitRangeItem``):
    ``default`` from ``max``, then ``defaultRequest`` from ``default``, then from ``min``.
    """
    spec = mapping(doc, obj.get("spec"), "spec")
    found: dict[str, dict[str, int]] = {"default": {}, "default_request": {}, "max": {},
                                        "min": {}}
    for i, item in enumerate(seq(doc, spec.get("limits"), "spec.limits")):
        f = f"spec.limits[{i}]"
        item = mapping(doc, item, f)
        if string(doc, item.get("type"), f"{f}.type") != "Container":
            continue
        got = {attr: resources(doc, item.get(key), f"{f}.{key}").as_dict()
               for key, attr in (("default", "default"), ("defaultRequest", "default_request"),
                                 ("max", "max"), ("min", "min"))}
        for k, v in got["max"].items():
            got["default"].setdefault(k, v)
        for k, v in (*got["default"].items(), *got["min"].items()):
            got["default_request"].setdefault(k, v)
        _check_limit_item(doc, f, item, got)
        for attr, values in got.items():
            found[attr].update(values)
    return LimitRange(namespace, name, span=doc.span or NO_SPAN,
                      **{k: Resources.of(v) for k, v in found.items()})


# ValidateLimitRange's comparisons of one item, after defaulting, in its order:
# (the field refused, the smaller side, the larger side, the message's words).
_LIMIT_ORDER = (
    ("min", "min", "max", "min value {a} is greater than max value {b}"),
    ("defaultRequest", "min", "default_request", "min value {a} is greater than default "
                                                 "request value {b}"),
    ("defaultRequest", "default_request", "max", "default request value {a} is greater "
                                                 "than max value {b}"),
    ("defaultRequest", "default_request", "default", "default request value {a} is greater "
                                                     "than default limit value {b}"),
    ("default", "min", "default", "min value {a} is greater than default value {b}"),
    ("default", "default", "max", "default value {a} is greater than max value {b}"),
)
_WRITTEN = {"min": "min", "max": "max", "default": "default",
            "default_request": "defaultRequest"}


def _check_limit_item(doc: Doc, f: str, item: dict[str, Any],
                      got: dict[str, dict[str, int]]) -> None:
    """Refuse an item the API server's ValidateLimitRange refuses (min above max, …)."""
    keys = sorted({k for values in got.values() for k in values})
    for k in keys:
        for field, low, high, words in _LIMIT_ORDER:
            a, b = got[low].get(k), got[high].get(k)
            if a is None or b is None or a <= b:
                continue
            side = low if _WRITTEN[low] == field else high  # the value the field holds
            text = _as_written(item, field, k, got[side][k])
            doc.fail(f"{f}.{field}[{k}]", f'Invalid value: "{text}": ' + words.format(
                a=_as_written(item, _WRITTEN[low], k, a),
                b=_as_written(item, _WRITTEN[high], k, b)))


def _as_written(item: dict[str, Any], key: str, resource: str, value: int) -> str:
    """A quantity of the item as the file writes it (or, when defaulted, as kruleset prints it)."""
    written = item.get(key)
    if isinstance(written, dict) and resource in written:
        return str(written[resource])
    return format_quantity(resource, value)


def resource_quota_from(doc: Doc, obj: dict[str, Any], namespace: str,
                        name: str) -> ResourceQuota:
    """``spec.hard`` of a ResourceQuota, each value in its resource's internal unit."""
    spec = mapping(doc, obj.get("spec"), "spec")
    hard = {}
    for key, value in mapping(doc, spec.get("hard"), "spec.hard").items():
        key = str(key)
        resource = key.rpartition(".")[2] if key.startswith(("requests.", "limits.")) else key
        hard[key] = quantity(doc, value, f"spec.hard.{key}", resource)
    return ResourceQuota(namespace, name, hard, span=doc.span or NO_SPAN)


def ignored_summary(file: str, counts: dict[str, int]) -> str:
    """The one line saying which objects were accepted but play no part in the decisions."""
    total = sum(counts.values())
    kinds = ", ".join(f"{k} ({n:,})" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1],
                                                                                        kv[0])))
    return (f"{file}: ignored {total:,} object{'s' if total != 1 else ''} of {len(counts)} "
            f"kind{'s' if len(counts) != 1 else ''} that do not affect scheduling or eviction: "
            f"{kinds}")
