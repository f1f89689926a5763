"""PriorityClass, RuntimeClass, PodDisruptionBudget and ElasticQuota."""

from __future__ import annotations

import re
from typing import Any

from ..errors import NO_SPAN
from ..model.objects import ElasticQuota, PodDisruptionBudget, PriorityClass, RuntimeClass
from ._fields import (
    MATCH_NOTHING,
    Doc,
    boolean,
    choice,
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


_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
_PERCENT = re.compile(r"[0-9]+%")


def _budget(doc: Doc, value: object, field: str) -> int | str | None:
    """``minAvailable`` / ``maxUnavailable`` as ValidatePodDisruptionBudgetSpec accepts them.

    A non-negative integer (ValidateNonnegativeField) or a percentage matching
    ``[0-9]+%`` (IsValidPercent), in both cases not above 100%
    (IsNotMoreThan100Percent).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        doc.fail(field, f"must be an integer or percentage (e.g '5%'), found {value!r}",
                 "an integer such as 1 or a percentage such as 50%")
    if isinstance(value, int):
        if value < 0:
            doc.fail(field, f"Invalid value: {value}: must be greater than or equal to 0",
                     "0 or more, or a percentage from 0% to 100%")
        return value
    if not _PERCENT.fullmatch(value):
        hint = (f"write {value} without quotes or as {value}%" if value.isdigit()
                else "an integer such as 1 or a percentage such as 50%")
        doc.fail(field, f'Invalid value: "{value}": a valid percent string must be a numeric '
                 "string followed by an ending '%' (e.g. '1%',  or '93%', regex used for "
                 "validation is '[0-9]+%')", hint)
    if int(value[:-1]) > 100:
        doc.fail(field, f'Invalid value: "{value}": must not be greater than 100%',
                 "a percentage from 0% to 100%")
    return f"{int(value[:-1])}%"


def pdb_from(doc: Doc, obj: dict[str, Any], namespace: str, name: str) -> PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget, validated as ValidatePodDisruptionBudgetSpec does.

    ``selector: {}`` selects every pod of the namespace (policy/v1); an absent
    selector selects none, represented by a selector that never matches.
    A budget with neither minAvailable nor maxUnavailable is valid in
    policy/v1 (nothing is defaulted): the controller then expects no pod and
    allows no disruption, as upstream's does.
    """
    spec = mapping(doc, obj.get("spec"), "spec")
    selector = label_selector(doc, spec.get("selector"), "spec.selector")
    min_available = _budget(doc, spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _budget(doc, spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        doc.fail("spec", "minAvailable and maxUnavailable cannot be both set (they are mutually "
                 "exclusive)", "keep one of them")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _POLICIES:
        doc.fail("spec.unhealthyPodEvictionPolicy", f"Unsupported value: {policy!r}: supported "
                 'values: "AlwaysAllow", "IfHealthyBudget"', "AlwaysAllow or IfHealthyBudget")
    return PodDisruptionBudget(
        namespace,
        name,
        selector if selector is not None else MATCH_NOTHING,
        min_available,
        max_unavailable,
        policy if policy is not None else "IfHealthyBudget",
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
