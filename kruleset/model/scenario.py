"""A scenario: the cluster at time 0, a timeline of events, and expectations.

This is what ``kruleset.lang`` (and the Gherkin steps) produce and what
``kruleset.sim`` consumes.  Every statement keeps the :class:`Span` it came
from, so the simulation and the report point at the user's line.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import attrs

from ..errors import NO_SPAN, Span
from .config import KubeletConfig, SchedulerConfig
from .dra import DeviceClass, FeatureGates, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from .objects import (
    Deployment,
    ElasticQuota,
    LimitRange,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ResourceQuota,
    RuntimeClass,
    Workload,
)
from .selectors import Taint

__all__ = [
    "MAX_SIMULATED_TIME",
    "Action",
    "ApplyObject",
    "Cordon",
    "Create",
    "DeleteObject",
    "DeleteObjectOf",
    "DeletePod",
    "DrainNode",
    "Event",
    "EvictPod",
    "Expectation",
    "KubeletBlock",
    "LabelNode",
    "NodeReadiness",
    "NodeUsage",
    "NominatePod",
    "PodPhase",
    "PodReadiness",
    "PodUsage",
    "RolloutDeployment",
    "ScaleDeployment",
    "Scenario",
    "TaintNode",
    "Ungate",
    "Object",
]

# The furthest time a scenario may reach: the kubelet's housekeeping runs every
# 10 s of simulated time, so a timeline of decades would take hours to run.
MAX_SIMULATED_TIME = 7 * 86_400_000  # ms

Object = (
    PriorityClass | RuntimeClass | Namespace | Node | Pod | Deployment | PodDisruptionBudget |
    ElasticQuota | Workload | LimitRange | ResourceQuota | ResourceSlice | DeviceClass |
    ResourceClaim | ResourceClaimTemplate | FeatureGates
)


def _span() -> Any:
    return attrs.field(default=NO_SPAN, eq=False, repr=False)


@attrs.frozen(slots=True)
class KubeletBlock:
    """A ``kubelet NODE { … }`` or ``kubelet * { … }`` block."""

    node: str  # "*" for every node
    config: KubeletConfig
    span: Span = _span()


# --- timeline actions -------------------------------------------------------

@attrs.frozen(slots=True)
class Create:
    """``create …``: any declaration at that time (a pod is created pending unless ``on``)."""

    obj: Object
    span: Span = _span()


@attrs.frozen(slots=True)
class ScaleDeployment:
    """``scale deployment REF replicas=N``."""

    ref: str
    replicas: int
    span: Span = _span()


@attrs.frozen(slots=True)
class DeletePod:
    """``delete pod REF [grace-period=D]``."""

    ref: str
    grace_period: int | None = None
    span: Span = _span()


@attrs.frozen(slots=True)
class EvictPod:
    """``evict pod REF [dry-run]``: the Eviction API."""

    ref: str
    dry_run: bool = False
    span: Span = _span()


@attrs.frozen(slots=True)
class DrainNode:
    """``drain node NAME``."""

    node: str
    span: Span = _span()


@attrs.frozen(slots=True)
class Cordon:
    """``cordon node NAME`` (``unschedulable=True``) or ``uncordon node NAME``."""

    node: str
    unschedulable: bool
    span: Span = _span()


@attrs.frozen(slots=True)
class TaintNode:
    """``taint node NAME k=v:E`` (``add=True``) or ``untaint node NAME k:E``."""

    node: str
    taint: Taint
    add: bool
    span: Span = _span()


@attrs.frozen(slots=True)
class LabelNode:
    """``label node NAME key=value``."""

    node: str
    key: str
    value: str
    span: Span = _span()


@attrs.frozen(slots=True)
class NodeReadiness:
    """``node NAME not-ready`` / ``node NAME ready``."""

    node: str
    ready: bool
    span: Span = _span()


@attrs.frozen(slots=True)
class PodUsage:
    """``usage pod REF KEY=Q …`` (keys: memory, ephemeral-storage, writable-layer, inodes, pids)."""

    ref: str
    usage: Mapping[str, int]
    span: Span = _span()


@attrs.frozen(slots=True)
class NodeUsage:
    """``usage node NAME SIGNAL=Q …``: the signal is made to read Q now."""

    node: str
    signals: Mapping[str, int]
    span: Span = _span()


@attrs.frozen(slots=True)
class Ungate:
    """``ungate pod REF GATE``."""

    ref: str
    gate: str
    span: Span = _span()


@attrs.frozen(slots=True)
class PodReadiness:
    """``ready pod REF`` / ``unready pod REF``."""

    ref: str
    ready: bool
    span: Span = _span()


@attrs.frozen(slots=True)
class PodPhase:
    """``complete pod REF`` (Succeeded) / ``fail pod REF [exit-code=N] [container=NAME]``
    (Failed: the container, or the pod's first, ended with ``exit_code``)."""

    ref: str
    phase: str
    span: Span = _span()
    exit_code: int | None = None
    container: str | None = None


@attrs.frozen(slots=True)
class ApplyObject:
    """``apply "FILE"``: one object of the file, created or updated (``kubectl apply``).

    A Deployment whose pod template changed is rolled out by its strategy;
    a StatefulSet, DaemonSet or Job whose template changed replaces its pods;
    an existing pod is left as it is (its spec cannot change).  ``apply
    deployment REF …`` in a ``.kr`` timeline makes one of these too.
    """

    obj: Object
    span: Span = _span()


@attrs.frozen(slots=True)
class DeleteObjectOf:
    """``delete "FILE"``: one object of the file deleted (``kubectl delete``, cascading)."""

    obj: Object
    span: Span = _span()


@attrs.frozen(slots=True)
class NominatePod:
    """A pending pod's ``status.nominatedNodeName`` read from a file (the nominator's state)."""

    ref: str
    node: str
    span: Span = _span()


@attrs.frozen(slots=True)
class DeleteObject:
    """``delete priorityclass NAME | delete quota NAMESPACE | delete pdb REF``."""

    kind: str  # "priorityclass" | "quota" | "pdb"
    name: str
    span: Span = _span()


@attrs.frozen(slots=True)
class RolloutDeployment:
    """``rollout pause|resume|undo deployment REF [to-revision=N]`` (kubectl rollout)."""

    ref: str
    verb: str          # "pause" | "resume" | "undo"
    to_revision: int = 0  # undo: 0 is the previous revision
    span: Span = _span()


Action = (
    Create | ScaleDeployment | RolloutDeployment | DeletePod | EvictPod | DrainNode | Cordon |
    TaintNode | LabelNode | NodeReadiness | PodUsage | NodeUsage | Ungate | PodReadiness |
    PodPhase | DeleteObject | KubeletBlock | NominatePod | ApplyObject | DeleteObjectOf
)


@attrs.frozen(slots=True)
class Event:
    """An action at a time (ms). ``seq`` keeps file order within an instant."""

    time: int
    seq: int
    action: Action


@attrs.frozen(slots=True)
class Expectation:
    """One ``expect …`` line.

    ``form`` is one of:
    ``pod`` (``state`` in running/pending/nominated/preempted/evicted/rejected/deleted/
    terminating/succeeded/failed, ``negated`` for ``not preempted|evicted``),
    ``pods-count``, ``victims``, ``evictions``, ``eviction-status``, ``node-condition``,
    ``node-taint``, ``quota-used``, ``pdb-status``, ``drain``, ``qos``, ``priority``, ``critical``,
    ``oom-score-adj``.  ``args`` holds the rest (``node``, ``reason``, ``by``, ``count``,
    ``refs``, ``status``, ``condition``, ``taint``, ``absent``, ``used``, ``value``,
    ``preemption``, ``container``).  ``time`` is ``None`` for end-of-run checks.

    Fields: ``form`` (above), ``ref`` (the pod, node or object it is about),
    ``text`` (the line as written), ``state``, ``negated``, ``args`` (above),
    ``time`` (when it is checked, in milliseconds; ``None``: at the end; :attr:`at`
    as a ``timedelta``) and ``span`` (its file, line and column).
    """

    form: str
    ref: str
    text: str
    state: str = ""
    negated: bool = False
    args: Mapping[str, Any] = attrs.field(factory=dict)
    time: int | None = None
    span: Span = _span()

    @property
    def at(self) -> timedelta | None:
        """:attr:`time` as a ``timedelta`` (``None``: checked at the end of the run)."""
        return None if self.time is None else timedelta(milliseconds=self.time)


@attrs.frozen(slots=True)
class Scenario:
    """A parsed and validated scenario, ready to simulate."""

    title: str = ""
    file: str = "<text>"
    objects: tuple[Object, ...] = ()          # declarations at time 0, in file order
    kubelets: tuple[KubeletBlock, ...] = ()
    scheduler: SchedulerConfig | None = None
    events: tuple[Event, ...] = ()
    expectations: tuple[Expectation, ...] = ()
    run_until: int | None = None
    source: str = ""                          # the text, for error rendering
    # What the user should know that is no error: warnings (settings read but
    # not simulated, unknown fields allowed) and summaries of files read.
    notices: tuple[str, ...] = ()
