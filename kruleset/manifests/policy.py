"""PriorityClass, RuntimeClass, PodDisruptionBudget and ElasticQuota."""

from __future__ import annotations

from typing import Any

from ..errors import NO_SPAN
from ..model.objects import ElasticQuota, PodDisruptionBudget, PriorityClass, RuntimeClass
from ._fields import (
    MATCH_NOTHING,
    Doc,
    boolean,
    choice,
    int_or_percent,
    integer,
    label_selector,
    mapping,
    resources,
    string,
)

__all__ = ["elastic_quota_from", "pdb_from", "priority_class_from", "runtime_class_from"]


def priority_class_from(doc: Doc, obj: dict[str, Any], name: str) -> PriorityClass:
    """scheduling.k8s.io PriorityClass: value, globalDefault, preemptionPolicy, description.

    The built-in ``system-node-critical`` and ``system-cluster-critical``
    classes appear in ``kubectl get priorityclass`` output; they are returned
    like any other class (and equal the model's built-ins when unchanged).
    """
    value = integer(doc, obj.get("value"), "value")
    if value is None:
        doc.fail("value", "a PriorityClass needs a value")
    return PriorityClass(
        name,
        value,
        boolean(doc, obj.get("globalDefault"), "globalDefault"),
        choice(doc, obj.get("preemptionPolicy"), "preemptionPolicy",
               ("PreemptLowerPriority", "Never"), "PreemptLowerPriority"),
        string(doc, obj.get("description"), "description"),
        span=doc.span or NO_SPAN,
    )


def runtime_class_from(doc: Doc, obj: dict[str, Any], name: str) -> RuntimeClass:
    """node.k8s.io RuntimeClass: only ``overhead.podFixed`` matters."""
    overhead = mapping(doc, obj.get("overhead"), "overhead")
    return RuntimeClass(name, resources(doc, overhead.get("podFixed"), "overhead.podFixed"),
                        span=doc.span or NO_SPAN)


def pdb_from(doc: Doc, obj: dict[str, Any], namespace: str, name: str) -> PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget.

    ``selector: {}`` selects every pod of the namespace (policy/v1); an absent
    selector selects none, represented by a selector that never matches.
    """
    spec = mapping(doc, obj.get("spec"), "spec")
    selector = label_selector(doc, spec.get("selector"), "spec.selector")
    min_available = int_or_percent(doc, spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = int_or_percent(doc, spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        doc.fail("spec.maxUnavailable", "minAvailable and maxUnavailable are mutually exclusive",
                 "keep one of them")
    if min_available is None and max_unavailable is None:
        doc.fail("spec", "a PodDisruptionBudget needs minAvailable or maxUnavailable")
    return PodDisruptionBudget(
        namespace,
        name,
        selector if selector is not None else MATCH_NOTHING,
        min_available,
        max_unavailable,
        choice(doc, spec.get("unhealthyPodEvictionPolicy"), "spec.unhealthyPodEvictionPolicy",
               ("IfHealthyBudget", "AlwaysAllow"), "IfHealthyBudget"),
        span=doc.span or NO_SPAN,
    )


def elastic_quota_from(doc: Doc, obj: dict[str, Any], namespace: str,
                       name: str) -> ElasticQuota:
    """ElasticQuota (scheduler-plugins): ``spec.min`` / ``spec.max``, ``None`` when absent.

    Upstream validates neither ``min <= max`` nor anything else, so neither do we.
    """
    spec = mapping(doc, obj.get("spec"), "spec")
    lo = spec.get("min")
    hi = spec.get("max")
    minimum = None if lo is None else resources(doc, lo, "spec.min")
    maximum = None if hi is None else resources(doc, hi, "spec.max")
    return ElasticQuota(namespace, minimum, maximum, name, span=doc.span or NO_SPAN)
