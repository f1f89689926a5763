"""The Deployment and ReplicaSet controllers (phase 3).

Each Deployment keeps its ReplicaSets (:class:`~kruleset.rules.controllers.deployment.ReplicaSet`
records); a ReplicaSet's pods are the Deployment's pods carrying its
``pod-template-hash`` label (pods stay owned by the Deployment's name, as the
rest of kruleset reads them).  Every step, for each Deployment:

1. the ReplicaSets' status (active, ready, available pods) is read from the
   pods; pods of a hash no ReplicaSet has (a cluster dump's) are adopted: at
   the Deployment's first sync the newest hash is taken to be its current
   template's, the others old ReplicaSets;
2. the Deployment controller's rules (``controllers.deployment.*``) scale the
   ReplicaSets: a rollout (RollingUpdate or Recreate), proportional scaling,
   pause; each scaling is a ``scaled`` decision with upstream's event text;
3. the ReplicaSet controller (``controllers.replicaset.*``) creates the pods a
   ReplicaSet lacks and deletes those beyond its replicas, in upstream's
   ranking.

Pods are named ``NAME-1``, ``NAME-2``, … in order and numbers are never
reused (LANGUAGE.md §8), whatever ReplicaSet they belong to.  A pod the API
server refuses (ResourceQuota, LimitRanger) stops the Deployment's creations
and puts it in its work queue's backoff (:mod:`.create_backoff`), as the
ReplicaSet controller's failed sync does.
"""

from __future__ import annotations

from ..model.objects import TEMPLATE_HASH, Deployment, Pod, template_hash
from ..model.state import PodState
from ..rules.controllers.deployment import (
    DeploymentContext,
    DeploymentStatus,
    ReplicaSet,
    complete,
    deployment_status,
    find_new,
    history_to_delete,
    max_surge,
    sync_deployment,
)
from ..rules.controllers.replicaset import (
    RankContext,
    is_available,
    is_ready,
    pods_to_delete,
    replicas_diff,
)
from .core import Simulation, register_controller
from .create_backoff import REPLICASET_BACKOFF, CreateBackoff, pods_mark
from .setup import create_pod

__all__ = ["DeploymentController", "DeploymentState", "deployment_state", "owned",
           "status_of"]


def _counts(ps: PodState) -> bool:
    """Whether ``ps`` is one of its ReplicaSet's replicas: live and not terminating."""
    return (ps.pod.owner_kind == "ReplicaSet" and not ps.gone and not ps.terminating
            and ps.outcome is None and ps.phase in ("Pending", "Running"))


def _present(ps: PodState) -> bool:
    """Not gone and not terminal: what Recreate waits for (terminating pods count)."""
    return not ps.gone and ps.phase in ("Pending", "Running")


def owned(sim: Simulation, key: str) -> list[PodState]:
    """Live pods of deployment ``key`` that are not terminating, in creation order."""
    ns, name = key.split("/", 1)
    return [ps for ps in sim.state.by_namespace.get(ns, {}).values()
            if ps.pod.owner_name == name and _counts(ps)]


def _owned_by_deployment(sim: Simulation) -> dict[str, list[PodState]]:
    """Every deployment's pods not gone (terminating ones too), in one pass over the
    namespaces (asking per deployment walks a namespace once per deployment)."""
    out: dict[str, list[PodState]] = {}
    per_ns: dict[str, dict[str, list[PodState]]] = {}
    for key, dep in sim.state.deployments.items():
        out[key] = per_ns.setdefault(dep.namespace, {})[dep.name] = []
    by_ns = sim.state.by_namespace
    for ns, names in per_ns.items():
        for ps in by_ns.get(ns, {}).values():
            mine = names.get(ps.pod.owner_name)
            if mine is not None and ps.pod.owner_kind == "ReplicaSet" and _present(ps):
                mine.append(ps)
    return out


class DeploymentState:
    """What the controllers keep for one Deployment: its ReplicaSets and their pods' templates."""

    __slots__ = ("rss", "templates", "made", "synced")

    def __init__(self) -> None:
        self.rss: list[ReplicaSet] = []
        self.templates: dict[str, Pod] = {}  # hash -> the pod its ReplicaSet makes
        self.made = 0          # ReplicaSets created or adopted
        self.synced = False    # adopted the pods it found at its first sync

    def by_hash(self) -> dict[str, ReplicaSet]:
        """The ReplicaSets by their pod-template-hash."""
        return {rs.hash: rs for rs in self.rss}


def deployment_state(sim: Simulation, key: str) -> DeploymentState | None:
    """The controllers' record of deployment ``key`` (None before its first sync)."""
    ctl = sim.extra.get("deployment_controller")
    return None if ctl is None else ctl.states.get(key)


def _refresh(st: DeploymentState, pods: list[PodState], min_ready_ms: int, now: int
             ) -> dict[str, list[PodState]]:
    """Each ReplicaSet's status from its pods; the active pods by hash."""
    active: dict[str, list[PodState]] = {}
    counts: dict[str, list[int]] = {}
    for ps in pods:
        h = ps.pod.labels.get(TEMPLATE_HASH, "")
        c = counts.get(h)
        if c is None:
            c = counts[h] = [0, 0, 0, 0]
        c[3] += 1
        if _counts(ps):
            active.setdefault(h, []).append(ps)
            c[0] += 1
            if is_ready(ps):
                c[1] += 1
                if is_available(ps, min_ready_ms, now):
                    c[2] += 1
    for rs in st.rss:
        rs.status_replicas, rs.ready, rs.available, rs.present = counts.get(rs.hash, (0, 0, 0, 0))
    return active


def status_of(sim: Simulation, key: str) -> DeploymentStatus | None:
    """calculateStatus of deployment ``key`` now (None: no such deployment)."""
    dep = sim.state.deployments.get(key)
    st = deployment_state(sim, key)
    if dep is None:
        return None
    if st is None:
        return DeploymentStatus(0, 0, 0, 0, dep.replicas)
    ns, name = key.split("/", 1)
    pods = [ps for ps in sim.state.by_namespace.get(ns, {}).values()
            if ps.pod.owner_name == name and ps.pod.owner_kind == "ReplicaSet" and _present(ps)]
    _refresh(st, pods, dep.min_ready_seconds * 1000, sim.now)
    return deployment_status(sim, {}, (st.rss, find_new(sim, {}, (dep, st.rss))))


class DeploymentController:
    """Phase 3: the Deployment controller, then the ReplicaSet controller."""

    name = "deployment-controller"
    phase = 3

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.states: dict[str, DeploymentState] = {}
        sim.extra["deployment_controller"] = self
        # What had happened when a step last found nothing to do: pods
        # created, pods ended, cluster changes, binds, the clock.  While it
        # stands, nothing can change: a node failure's instant steps several
        # times over 20,000 pods.
        self._settled_at: tuple[int, ...] | None = None
        self.backoff = CreateBackoff(REPLICASET_BACKOFF)
        self._available_at: list[int] = []  # when Ready pods pass minReadySeconds
        self._rs_seq = 0

    def status_of(self, sim: Simulation, key: str) -> DeploymentStatus | None:
        """:func:`status_of` (what ``expect deployment`` reads)."""
        return status_of(sim, key)

    def _mark(self, sim: Simulation) -> tuple[int, ...]:
        return (sim.state.created, len(sim.extra.get("ended", ())), sim.version,
                sim.bind_version, sim.now)

    def step(self, sim: Simulation) -> bool:
        deployments = sim.state.deployments
        for gone in [k for k in self.states if k not in deployments]:
            del self.states[gone]
        if not deployments or self._settled_at == self._mark(sim):
            return False
        groups = _owned_by_deployment(sim)
        self._available_at = []
        changed = False
        for key, dep in deployments.items():
            changed |= self._sync(sim, key, dep, groups[key])
        if changed:
            sim.changed()
        else:
            self._settled_at = self._mark(sim)
        return changed

    def _sync(self, sim: Simulation, key: str, dep: Deployment, pods: list[PodState]) -> bool:
        st = self.states.get(key)
        if st is None:
            st = self.states[key] = DeploymentState()
        self._adopt(sim, st, dep, pods)
        min_ready = dep.min_ready_seconds * 1000
        _refresh(st, pods, min_ready, sim.now)
        ctx = DeploymentContext(sim.now, sim.trace, subject=f"deployment/{key}")
        sync_deployment(ctx, dep, st.rss, lambda size: self._new_rs(sim, st, dep, size))
        changed = bool(ctx.events)
        for rs_name, reason, message, rule_name in ctx.events:
            sim.record("scaled", f"{dep.namespace}/{rs_name}", None, f"deployment/{dep.name}",
                       reason, message, (rule_name,))
        active = _refresh(st, pods, min_ready, sim.now)
        related = [ps for group in active.values() for ps in group]
        for rs in list(st.rss):
            changed |= self._manage(sim, key, dep, st, rs, active.get(rs.hash, []), related)
        self._history(sim, dep, st)
        if min_ready:
            for ps in related:
                if ps.ready_since is not None and is_ready(ps) and \
                        ps.ready_since + min_ready > sim.now:
                    self._available_at.append(ps.ready_since + min_ready)
        return changed

    def _adopt(self, sim: Simulation, st: DeploymentState, dep: Deployment,
               pods: list[PodState]) -> None:
        """ReplicaSets for the hashes of pods no ReplicaSet has (a dump's, a declared replica's)."""
        known = st.by_hash()
        newest: dict[str, PodState] = {}
        for ps in pods:
            h = ps.pod.labels.get(TEMPLATE_HASH, "")
            if h not in known and (h not in newest or ps.seq > newest[h].seq):
                newest[h] = ps
        first = not st.synced
        st.synced = True
        if not newest:
            return
        order = sorted(newest, key=lambda h: newest[h].seq)
        top = max((rs.revision for rs in st.rss), default=0)
        for i, h in enumerate(order):
            current = first and i == len(order) - 1 and find_new(sim, {}, (dep, st.rss)) is None
            # The pod the adopted ReplicaSet makes: one of its pods, as new.
            sample = newest[h].pod.replace(ready=True, restarts=0, sidecar_restarts=0)
            self._rs_seq += 1
            st.made += 1
            # Its annotations are taken to be those of the Deployment as declared
            # (a dump's ReplicaSet annotations are not read).
            st.rss.append(ReplicaSet(
                f"{dep.name}-{h}" if h else dep.name, h, dep.template if current else None,
                sum(1 for ps in pods if _counts(ps) and ps.pod.labels.get(TEMPLATE_HASH, "") == h),
                top + i + 1, min(ps.created for ps in pods
                                 if ps.pod.labels.get(TEMPLATE_HASH, "") == h),
                self._rs_seq, dep.replicas, dep.replicas + max_surge(dep)))
            st.templates[h] = dep.template if current else sample

    def _new_rs(self, sim: Simulation, st: DeploymentState, dep: Deployment, size: int
                ) -> ReplicaSet:
        """getNewReplicaSet creating one: named ``NAME-HASH``, the next revision."""
        used = st.by_hash()
        h = template_hash(dep.key)
        n = st.made
        while h in used:
            n += 1
            h = template_hash(f"{dep.key}/{n}")
        st.made += 1
        self._rs_seq += 1
        rs = ReplicaSet(f"{dep.name}-{h}", h, dep.template, size,
                        max((r.revision for r in st.rss), default=0) + 1, sim.now, self._rs_seq)
        st.rss.append(rs)
        st.templates[h] = dep.template
        return rs

    def _manage(self, sim: Simulation, key: str, dep: Deployment, st: DeploymentState,
                rs: ReplicaSet, active: list[PodState], related: list[PodState]) -> bool:
        """manageReplicas for one ReplicaSet: create what it lacks, delete what is too many."""
        diff = replicas_diff(sim, {}, (len(active), rs.replicas))
        if diff == 0:
            return False
        if diff > 0:
            ctx = RankContext(sim.now, trace=sim.trace, profile=sim.profile)
            for victim in pods_to_delete(ctx, active, related, diff, rs.name):
                sim.terminate(victim, "deleted", by=f"replicaset/{rs.name}",
                              reason="SuccessfulDelete", message=f"Deleted pod: {victim.pod.name}",
                              rules=("controllers.replicaset.manage-replicas",
                                     "controllers.replicaset.delete-order"))
            return True
        backoff = self.backoff
        if key in backoff.waiting and backoff.blocked(key, sim.now, pods_mark(active)):
            return False
        refused = False
        for _ in range(-diff):
            if self._create(sim, dep, rs, st) is None:
                refused = True
                break
        if refused:
            backoff.failed(key, sim.now, pods_mark(owned(sim, key)))
        elif backoff.failures:
            backoff.succeeded(key)
        return True

    def _create(self, sim: Simulation, dep: Deployment, rs: ReplicaSet, st: DeploymentState
                ) -> PodState | None:
        counters = sim.extra.setdefault("deployment_counter", {})
        key = dep.key
        n = counters.get(key, 0) + 1
        while f"{dep.namespace}/{dep.name}-{n}" in sim.state.pods:
            n += 1
        counters[key] = n
        template = st.templates.get(rs.hash) or dep.template
        labels = dict(template.labels)
        labels[TEMPLATE_HASH] = rs.hash
        pod = template.replace(name=f"{dep.name}-{n}",
                               namespace=dep.namespace, owner_kind="ReplicaSet",
                               owner_name=dep.name, labels=labels, started=None, created_at=None,
                               ready_at=None, node_name="")
        ps = create_pod(sim, pod)
        if ps is not None:
            sim.record("created", ps, None, f"replicaset/{rs.name}", "SuccessfulCreate",
                       f"Created pod: {pod.name}", ("controllers.replicaset.manage-replicas",))
        return ps

    def _history(self, sim: Simulation, dep: Deployment, st: DeploymentState) -> None:
        """cleanupDeployment once the rollout is complete: old revisions beyond the limit go."""
        new = find_new(sim, {}, (dep, st.rss))
        olds = [rs for rs in st.rss if rs is not new]
        if len(olds) <= dep.revision_history_limit:
            return
        if not dep.paused and (new is None or not complete(
                dep, deployment_status(sim, {}, (st.rss, new)))):
            return
        for rs in history_to_delete(sim, {}, (dep, olds)):
            st.rss.remove(rs)
            st.templates.pop(rs.hash, None)
            if sim.trace is not None:
                sim.trace.add("controllers.deployment.history", f"deployment/{dep.key}",
                              "deleted", f"replica set {rs.name} (revision {rs.revision})")

    def next_time(self, sim: Simulation) -> int | None:
        """The next retry of a refused pod, or the next pod to pass minReadySeconds."""
        times = [t for t in self._available_at if t > sim.now]
        nxt = self.backoff.next_time(sim.now)
        if nxt is not None:
            times.append(nxt)
        return min(times) if times else None


register_controller(DeploymentController)
