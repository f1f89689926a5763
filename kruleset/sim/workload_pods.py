"""What the StatefulSet, DaemonSet and Job controllers share: their pods and pod states.

Readiness and availability are as upstream's ``podutil.IsPodReady`` and
``IsPodAvailable`` read them: Running and Ready, and Ready for at least
``minReadySeconds`` (``PodState.ready_since``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import attrs

from ..model.objects import Pod, Workload
from ..model.state import RUNNING, PodState
from .setup import create_pod
from .view import SimulationView as Simulation

__all__ = ["active", "available", "available_at", "create", "create_at_revision", "owned",
           "revision_of",
           "running_ready"]


def owned(sim: Simulation, w: Workload) -> Iterator[PodState]:
    """The workload's pods that still exist (terminating ones too), in creation order."""
    for ps in sim.state.by_namespace.get(w.namespace, {}).values():
        p = ps.pod
        if p.owner_kind == w.kind and p.owner_name == w.name and not ps.gone:
            yield ps


def active(ps: PodState) -> bool:
    """Pending or Running and not being deleted."""
    return not ps.terminating and ps.outcome is None and ps.phase in ("Pending", "Running")


def running_ready(ps: PodState) -> bool:
    """``isRunningAndReady``: phase Running with the Ready condition."""
    return ps.phase == RUNNING and ps.ready and ps.node is not None and not ps.gone


def available(ps: PodState, min_ready_seconds: int, now: int) -> bool:
    """``isRunningAndAvailable``: Running, Ready, and Ready for ``min_ready_seconds``."""
    if not running_ready(ps):
        return False
    if min_ready_seconds <= 0:
        return True
    since = ps.ready_since if ps.ready_since is not None else ps.start_time
    return since is not None and now - since >= min_ready_seconds * 1000


def available_at(ps: PodState, min_ready_seconds: int) -> int | None:
    """When a Ready pod becomes available (None: not Ready, or no wait)."""
    if min_ready_seconds <= 0 or not running_ready(ps):
        return None
    since = ps.ready_since if ps.ready_since is not None else ps.start_time
    return None if since is None else since + min_ready_seconds * 1000


def create(sim: Simulation, w: Workload, pod: Pod, rule: str) -> PodState | None:
    """Create one of ``w``'s pods; None when the API server refused it."""
    ps = create_pod(sim, pod)
    if ps is not None:
        sim.record("created", ps, None, f"{w.kind.lower()}/{w.name}", "", "", (rule,))
    return ps


def create_at_revision(ctl: Any, sim: Simulation, w: Workload, pod: Pod, rev: str,
                       rule: str) -> PodState | None:
    """Create ``pod`` labelled with the revision it was made from (``controller-revision-hash``);
    a refusal is noted on ``ctl`` for its sync's backoff."""
    labels = {**pod.labels, "controller-revision-hash": rev}
    ps = create(sim, w, attrs.evolve(pod, labels=labels), rule)
    if ps is None:
        ctl.refused = True
        return None
    ps.extra["revision"] = rev
    return ps


def revision_of(w: Workload, template: Pod) -> str:
    """The name of the ControllerRevision a template makes: ``NAME-`` and a hash of it.

    Upstream hashes the revision's data with FNV; this hashes the template as
    kruleset reads it, so the names differ from a real cluster's but two
    templates get one name exactly when they are the same.
    """
    digest = hashlib.sha256(repr(template).encode()).hexdigest()[:10]
    return f"{w.name}-{digest}"
