"""The deployment controller: keeps `replicas` pods, replacing those that end.

Pods are named ``NAME-1``, ``NAME-2``, … in order and numbers are never
reused (LANGUAGE.md §5).  A replacement is created as soon as a pod starts
terminating.  Scaling down deletes pending pods first, then the newest ones
(a simplification of the ReplicaSet controller's ranking, documented in the
README).  A pod the API server refuses (ResourceQuota, LimitRanger) stops
the deployment's creations and puts it in its work queue's backoff
(:mod:`.create_backoff`), as the ReplicaSet controller's failed sync does.
"""

from __future__ import annotations

import attrs

from ..model.objects import TEMPLATE_HASH, template_hash
from ..model.state import PodState
from .core import Simulation, register_controller
from .create_backoff import REPLICASET_BACKOFF, CreateBackoff, pods_mark
from .setup import create_pod

__all__ = ["DeploymentController"]


def _counts(ps: PodState) -> bool:
    """Whether ``ps`` is one of its ReplicaSet's replicas: live and not terminating."""
    return (ps.pod.owner_kind == "ReplicaSet" and not ps.gone and not ps.terminating
            and ps.outcome is None and ps.phase in ("Pending", "Running"))


def owned(sim: Simulation, key: str) -> list[PodState]:
    """Live pods of deployment ``key`` that are not terminating, in creation order."""
    ns, name = key.split("/", 1)
    return [ps for ps in sim.state.by_namespace.get(ns, {}).values()
            if ps.pod.owner_name == name and _counts(ps)]


def owned_by_deployment(sim: Simulation) -> dict[str, list[PodState]]:
    """:func:`owned` for every deployment at once, in one pass over their namespaces.

    Asking per deployment walks a namespace once per deployment in it: a
    thousand deployments over 20,000 pods made each controller step take
    seconds.
    """
    out: dict[str, list[PodState]] = {}
    per_ns: dict[str, dict[str, list[PodState]]] = {}
    for key, dep in sim.state.deployments.items():
        out[key] = per_ns.setdefault(dep.namespace, {})[dep.name] = []
    by_ns = sim.state.by_namespace
    for ns, names in per_ns.items():
        for ps in by_ns.get(ns, {}).values():
            mine = names.get(ps.pod.owner_name)
            if mine is not None and _counts(ps):
                mine.append(ps)
    return out


class DeploymentController:
    """Phase 3: create replacements and scale."""

    name = "deployment-controller"
    phase = 3

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        # What had happened when a step last left every deployment at its
        # replicas: pods created, pods ended, cluster changes (terminations,
        # finished pods, scaling, phases all move one of them).  While it
        # stands, nothing can be missing: a node failure's instant steps
        # several times over 20,000 pods.
        self._settled_at: tuple[int, int, int] | None = None
        self.backoff = CreateBackoff(REPLICASET_BACKOFF)

    def _mark(self, sim: Simulation) -> tuple[int, int, int]:
        return sim.state.created, len(sim.extra.get("ended", ())), sim.version

    def step(self, sim: Simulation) -> bool:
        changed = False
        counters = sim.extra.setdefault("deployment_counter", {})
        if not sim.state.deployments or self._settled_at == self._mark(sim):
            return False
        groups = owned_by_deployment(sim)
        complete = True  # every deployment is at its replicas after this step
        backoff = self.backoff
        for key, dep in sim.state.deployments.items():
            pods = groups[key]
            missing = dep.replicas - len(pods)
            if missing > 0 and key in backoff.waiting and \
                    backoff.blocked(key, sim.now, pods_mark(pods)):
                complete = False
                continue
            refused = False
            while missing > 0:
                n = counters.get(key, 0) + 1
                counters[key] = n
                while f"{dep.namespace}/{dep.name}-{n}" in sim.state.pods:
                    n += 1
                    counters[key] = n
                labels = dict(dep.template.labels)
                labels.setdefault(TEMPLATE_HASH, template_hash(key))
                pod = attrs.evolve(dep.template, name=f"{dep.name}-{n}", namespace=dep.namespace,
                                   owner_kind="ReplicaSet", owner_name=dep.name, labels=labels)
                ps = create_pod(sim, pod)
                if ps is not None:
                    sim.record("created", ps, None, f"deployment/{dep.name}", "", "",
                               ("workloads.deployment.replace",))
                if ps is None or not _counts(ps):  # refused, or rejected by a kubelet
                    complete = False
                missing -= 1
                changed = True
                if ps is None:
                    refused = True
                    break
            if refused:
                backoff.failed(key, sim.now, pods_mark(owned(sim, key)))
            elif backoff.failures:
                backoff.succeeded(key)
            if missing < 0:
                victims = sorted(pods, key=lambda p: (p.node is not None, -p.seq))[: -missing]
                for ps in victims:
                    sim.terminate(ps, "deleted", by=f"deployment/{dep.name}", reason="ScaledDown",
                                  rules=("workloads.deployment.scale-down",))
                changed = True
        if changed:
            sim.changed()
        if complete:
            self._settled_at = self._mark(sim)
        return changed

    def next_time(self, sim: Simulation) -> int | None:
        """The next retry of a deployment whose pods were refused."""
        return self.backoff.next_time(sim.now)


register_controller(DeploymentController)
