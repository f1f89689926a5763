"""The StatefulSet controller's sync (``updateStatefulSet``), deciding through
:mod:`kruleset.rules.controllers.statefulset`.

Pods are named ``NAME-ORDINAL`` for ordinals ``start … start + replicas - 1``
(``spec.ordinals.start``).  Each pod carries the revision it was made from
(``PodState.extra["revision"]``); the set keeps its revisions' templates, so a
pod the partition keeps is recreated from the current revision's template.
Pods read from a dump count as the revision of the template they were read
with.  The status (``replicas``, ``readyReplicas``, ``availableReplicas``,
``currentReplicas``, ``updatedReplicas``, ``currentRevision``,
``updateRevision``) is computed after each sync as ``computeReplicaStatus``
and ``completeRollingUpdate`` do.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..model.objects import Pod, Workload
from ..model.state import FAILED, SUCCEEDED, PodState
from ..rules.controllers import statefulset as rules
from .view import SimulationView as Simulation
from .workload_pods import available, create_at_revision, owned, revision_of, running_ready

__all__ = ["SetState", "sync_statefulset", "statefulset_status"]


@attrs.define
class SetState:
    """A StatefulSet's or DaemonSet's revisions: their templates, current and update."""

    current: str
    update: str
    templates: dict[str, Pod]
    status: dict[str, Any] = attrs.field(factory=dict)


def set_state(sim: Simulation, w: Workload) -> SetState:
    """The revisions of ``w``, following its template (a changed one is a new update revision)."""
    table: dict[str, SetState] = sim.extra.setdefault("workload_revisions", {})
    key = f"{w.kind}/{w.key}"
    st = table.get(key)
    if st is None:
        rev = revision_of(w, w.template)
        st = table[key] = SetState(rev, rev, {rev: w.template})
    elif st.templates.get(st.update) is not w.template and \
            st.templates.get(st.update) != w.template:
        rev = revision_of(w, w.template)
        st.templates[rev] = w.template
        st.update = rev
    return st


def _ordinal(w: Workload, name: str) -> int:
    tail = name[len(w.name) + 1:]
    return int(tail) if name.startswith(w.name + "-") and tail.isdigit() else -1


def _revision(ps: PodState, st: SetState) -> str:
    rev = ps.extra.get("revision")
    if rev is None:
        rev = ps.extra["revision"] = st.current  # read from a dump: its template's revision
    return rev  # type: ignore[return-value]


def _view(ps: PodState | None, w: Workload, now: int, first: PodState | None = None
          ) -> rules.Replica:
    if ps is None:
        return rules.Replica(-1, False, False, False, False, False, w.ordered)
    return rules.Replica(
        -1, True, ps.phase in (FAILED, SUCCEEDED), ps.terminating, running_ready(ps),
        available(ps, w.min_ready_seconds, now), w.ordered, first_unhealthy=ps is first)


def _unavailable(ps: PodState | None, w: Workload, now: int) -> bool:
    return ps is None or ps.terminating or not available(ps, w.min_ready_seconds, now)


def sync_statefulset(ctl: Any, sim: Simulation, w: Workload) -> bool:
    """One sync of ``w``: create, recreate, scale down and update its pods."""
    st = set_state(sim, w)
    start, end = w.ordinals_start, w.ordinals_start + w.replicas
    replicas: dict[int, PodState] = {}
    condemned: list[PodState] = []
    for ps in owned(sim, w):
        o = _ordinal(w, ps.pod.name)
        _revision(ps, st)
        if start <= o < end:
            replicas[o] = ps
        elif o >= 0:
            condemned.append(ps)
    condemned.sort(key=lambda p: -_ordinal(w, p.pod.name))
    changed = False
    for o in range(start, end):
        slot = replicas.get(o)
        v = rules.decide(sim, rules.REPLICA, _view(slot, w, sim.now), f"{w.key}-{o}")
        if v.action == "create":
            made = _create(ctl, sim, w, st, o)
            changed = True
            if made is None:
                return changed
            replicas[o] = made
        elif v.action == "delete" and slot is not None and slot.deletion_time is None:
            _delete(sim, w, slot, "Recreate",
                    "controllers.statefulset.replica.recreate-terminal")
            changed = True
        if v.block:
            return changed
    first = next((replicas.get(o) for o in range(start, end)
                  if _unavailable(replicas.get(o), w, sim.now)), None)
    if first is None:
        first = next((p for p in reversed(condemned) if _unavailable(p, w, sim.now)), None)
    for ps in condemned:
        v = rules.decide(sim, rules.CONDEMNED, _view(ps, w, sim.now, first), ps.key)
        if v.action == "delete":
            _delete(sim, w, ps, "ScaledDown", "controllers.statefulset.condemned.delete")
            changed = True
        if v.block:
            return changed
    return _update(sim, w, st, replicas, start, end) or changed


def _update(sim: Simulation, w: Workload, st: SetState, replicas: dict[int, PodState],
            start: int, end: int) -> bool:
    ords = range(start, end)
    view = rules.UpdateView(
        w.strategy, w.partition, rules.max_unavailable(w.max_unavailable, w.replicas),
        st.update,
        tuple(_revision(replicas[o], st) if o in replicas else st.update for o in ords),
        tuple(o in replicas and replicas[o].terminating for o in ords),
        tuple(_unavailable(replicas.get(o), w, sim.now) for o in ords), start)
    v = rules.decide(sim, rules.UPDATE, view, w.key)
    for o in v.targets:
        _delete(sim, w, replicas[o], "Rollout", "controllers.statefulset.update.replace")
    return bool(v.targets)


def _create(ctl: Any, sim: Simulation, w: Workload, st: SetState, o: int) -> PodState | None:
    # newVersionedStatefulSetPod: an ordinal the partition keeps gets the current revision.
    keep = w.strategy == "RollingUpdate" and o < w.ordinals_start + w.partition
    rev = st.current if keep else st.update
    template = st.templates[rev]
    name = f"{w.name}-{o}"
    labels = {**template.labels, "statefulset.kubernetes.io/pod-name": name,
              "apps.kubernetes.io/pod-index": str(o)}
    return create_at_revision(ctl, sim, w, attrs.evolve(template, name=name, labels=labels),
                              rev, "controllers.statefulset.replica.create")


def _delete(sim: Simulation, w: Workload, ps: PodState, reason: str, rule: str) -> None:
    if ps.deletion_time is not None or ps.gone:
        return
    # A finished pod has nothing left to stop: the kubelet confirms its deletion at once.
    grace = 0 if ps.phase in (FAILED, SUCCEEDED) else None
    sim.terminate(ps, "deleted", by=f"statefulset/{w.name}", reason=reason, grace=grace,
                  rules=(rule,))


def statefulset_status(sim: Simulation, w: Workload) -> dict[str, Any]:
    """``computeReplicaStatus`` over the set's pods, then ``completeRollingUpdate``."""
    st = set_state(sim, w)
    s = {"replicas": 0, "readyReplicas": 0, "availableReplicas": 0, "currentReplicas": 0,
         "updatedReplicas": 0}
    for ps in owned(sim, w):
        if _ordinal(w, ps.pod.name) < 0:
            continue
        s["replicas"] += 1
        if running_ready(ps):
            s["readyReplicas"] += 1
            if available(ps, w.min_ready_seconds, sim.now):
                s["availableReplicas"] += 1
        if not ps.terminating:
            rev = _revision(ps, st)
            s["currentReplicas"] += rev == st.current
            s["updatedReplicas"] += rev == st.update
    if w.strategy == "RollingUpdate" and s["updatedReplicas"] == s["replicas"] and \
            s["readyReplicas"] == s["replicas"]:
        st.current = st.update
        s["currentReplicas"] = s["updatedReplicas"]
    out: dict[str, Any] = dict(s)
    out["currentRevision"], out["updateRevision"] = st.current, st.update
    st.status = out
    return out
