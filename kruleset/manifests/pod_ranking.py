"""What the ReplicaSet controller ranks a dumped pod by, besides its phase and readiness.

``status.containerStatuses[].restartCount`` (the most of any container),
``status.initContainerStatuses[].restartCount`` of sidecars (init containers
with ``restartPolicy: Always``) and the ``controller.kubernetes.io/pod-deletion-cost``
annotation (controller_utils.go ``compareMaxContainerRestarts``,
``helper.GetDeletionCostFromPodAnnotations``).  Creation and Ready times of a
dumped pod are taken to be its ``startTime`` (docs/LANGUAGE-SUMMARY.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.objects import EXTRA_FIELDS, extras_with
from ._fields import Doc

__all__ = ["DELETION_COST", "ranking_fields", "set_ranking"]

DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_INT32 = 2**31


def _most(doc: Doc | None, statuses: Any, field: str, only: frozenset[str] | None
          ) -> int | None:
    """The largest restartCount of ``statuses`` (those named in ``only``, if given);
    None when malformed and ``doc`` is None (the caller reads the pod the slow way)."""
    if statuses is None:
        return 0
    if type(statuses) is not list:
        if doc is None:
            return None
        doc.fail(field, "expected a list")
    best = 0
    for i, c in enumerate(statuses):
        if type(c) is not dict:
            if doc is None:
                return None
            doc.fail(f"{field}[{i}]", "expected a mapping")
        if only is not None and c.get("name") not in only:
            continue
        n = c.get("restartCount", 0)
        if type(n) is not int or n < 0:
            if doc is None:
                return None
            doc.fail(f"{field}[{i}].restartCount", "expected a whole number ≥ 0")
        if n > best:
            best = n
    return best


def ranking_fields(doc: Doc | None, status: Mapping[str, Any] | None,
                   annotations: Mapping[str, Any] | None, sidecars: frozenset[str]
                   ) -> dict[str, int] | None:
    """The Pod fields (restarts, sidecar_restarts, deletion_cost) that are not 0.

    ``{}`` when all are 0; None when something is malformed and ``doc`` is
    None (with a ``doc`` the error is raised at its field).
    """
    out: dict[str, int] = {}
    if status:
        n = _most(doc, status.get("containerStatuses"), "status.containerStatuses", None)
        if n is None:
            return None
        if n:
            out["restarts"] = n
        if sidecars and status.get("initContainerStatuses") is not None:
            n = _most(doc, status.get("initContainerStatuses"), "status.initContainerStatuses",
                      sidecars)
            if n is None:
                return None
            if n:
                out["sidecar_restarts"] = n
    if annotations and DELETION_COST in annotations:
        raw = annotations[DELETION_COST]
        try:
            cost = int(raw) if type(raw) is str and raw.strip() == raw else None
        except ValueError:
            cost = None
        if cost is None or not -_INT32 <= cost < _INT32:
            if doc is None:
                return None
            doc.fail(f"metadata.annotations[{DELETION_COST}]",
                     f"must be a 32-bit integer, found {raw!r}")
        if cost:
            out["deletion_cost"] = cost
    return out


def set_ranking(pod: Any, fields: Mapping[str, int]) -> None:
    """Set ``fields`` on a pod not shared yet (Pod is frozen; those it keeps in
    its PodExtras go there)."""
    extras = {}
    for k, v in fields.items():
        if k in EXTRA_FIELDS:
            extras[k] = v
        else:
            object.__setattr__(pod, k, v)
    if extras:  # the pod's own (times, counts): not worth sharing
        object.__setattr__(pod, "extras", extras_with(pod.extras, extras))
