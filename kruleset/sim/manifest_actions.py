"""What ``apply "FILE"`` and ``delete "FILE"`` do to each object of the file, at their time.

* apply: an object that does not exist is created; an existing one is
  replaced (a PriorityClass, PDB, quota, LimitRange, ResourceQuota,
  Namespace).  A Deployment is replaced and its controller does the rest: a
  changed pod template is rolled out by its strategy (RollingUpdate or
  Recreate, :mod:`.workloads`), changed replicas are a scaling.  A
  StatefulSet, DaemonSet or Job keeps its pods when only its replicas
  changed; when its pod template changed, a StatefulSet's or DaemonSet's
  controller replaces them by its update strategy, and a Job's pods are
  deleted and created again from the new template.  An existing pod or node
  is left unchanged (kubectl apply could
  not change what kruleset reads of them) and reported so.
* delete: the object goes, and with it what it owns, as with kubectl's
  default cascading deletion (a Deployment's or workload's pods, a
  namespace's pods).
"""

from __future__ import annotations

from typing import Any

import attrs

from ..model import scenario as sc
from ..model.dra import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from ..model.objects import (
    Deployment,
    ElasticQuota,
    LimitRange,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ResourceQuota,
    Workload,
)
from ..model.state import PodState
from ..rules.dra.state import dra_of
from .core import Simulation, register_action
from .dra_claims import delete_dra_object, replace_slice
from .setup import create_object

__all__: list[str] = []

DRA_OBJECTS = (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice)


def _pods_of(sim: Simulation, namespace: str, kind: str | None, name: str | None
             ) -> list[PodState]:
    out = []
    for ps in sim.state.by_namespace.get(namespace, {}).values():
        if ps.gone or ps.terminating:
            continue
        p = ps.pod
        if kind is None or (p.owner_kind == kind and p.owner_name == name):
            out.append(ps)
    return out


def _end(sim: Simulation, pods: list[PodState], by: str, reason: str, rule: str) -> None:
    for ps in pods:
        sim.terminate(ps, "deleted", by=by, reason=reason, rules=(rule,))


def _apply(sim: Simulation, a: sc.ApplyObject) -> None:
    obj: Any = a.obj
    st = sim.state
    if isinstance(obj, Pod | Node):
        table: dict[str, Any] = st.pods if isinstance(obj, Pod) else st.nodes  # type: ignore[assignment]
        key = obj.key if isinstance(obj, Pod) else obj.name
        old = table.get(key)
        if old is not None and not getattr(old, "gone", False):
            sim.record("unchanged", key if isinstance(obj, Pod) else f"node/{key}", None,
                       "kubectl apply", "Unchanged", "exists already; kruleset does not "
                       "change a pod's or node's spec", ("api.apply",))
            return
    elif isinstance(obj, Deployment):
        old = st.deployments.get(obj.key)
        if old is not None and old.paused and not obj.paused:
            # `kubectl rollout pause` set it outside the applied spec, which
            # apply's three-way merge keeps.
            obj = attrs.evolve(obj, paused=True)
    elif isinstance(obj, Workload):
        old = st.workloads.get(f"{obj.kind}/{obj.key}")
        # A StatefulSet's or DaemonSet's controller rolls its pods out by its update
        # strategy (sim/statefulset.py, sim/daemonset.py); a Job's template cannot
        # change upstream (it is immutable), so its pods are made again here.
        if old is not None and old.kind == "Job" and old.template != obj.template:
            _end(sim, _pods_of(sim, obj.namespace, obj.kind, obj.name),
                 f"{obj.kind.lower()}/{obj.name}", "Rollout", "workloads.rollout")
    elif isinstance(obj, DRA_OBJECTS):
        _apply_dra(sim, obj)
        return
    create_object(sim, obj)


def _apply_dra(sim: Simulation, obj: Any) -> None:
    """A DRA object applied: created, or replaced where the API lets its spec change.

    A ResourceClaim's and a ResourceClaimTemplate's spec cannot change
    (the API server refuses the update: the field is immutable), so an
    existing one is left as it is and reported so; a DeviceClass or a
    ResourceSlice of the same name is replaced.
    """
    dra = dra_of(sim.state)
    if isinstance(obj, ResourceClaim | ResourceClaimTemplate):
        table: dict[str, Any] = dra.claims if isinstance(obj, ResourceClaim) else dra.templates
        if obj.key in table:
            sim.record("unchanged", obj.key, None, "kubectl apply", "Unchanged",
                       f"{type(obj).__name__} exists already; its spec is immutable",
                       ("api.apply",))
            return
    # A ResourceSlice of the same name is replaced (create_dra_object: an update).
    create_object(sim, obj)


def _delete_dra(sim: Simulation, obj: Any) -> None:
    if isinstance(obj, ResourceSlice):
        # A deletion no plugin registers for: no queue event.
        if replace_slice(dra_of(sim.state), obj.name):
            sim.changed()
        return
    kind = {DeviceClass: "deviceclass", ResourceClaim: "claim",
            ResourceClaimTemplate: "claimtemplate"}[type(obj)]
    delete_dra_object(sim, kind, obj.name if isinstance(obj, DeviceClass) else obj.key)


def _delete(sim: Simulation, a: sc.DeleteObjectOf) -> None:
    obj: Any = a.obj
    st = sim.state
    if isinstance(obj, Pod):
        ps = st.pods.get(obj.key)
        if ps is not None and not ps.gone:
            sim.terminate(ps, "deleted", by="user", reason="Deleted", rules=("api.delete",))
    elif isinstance(obj, Deployment):
        if st.deployments.pop(obj.key, None) is not None:
            _end(sim, _pods_of(sim, obj.namespace, "ReplicaSet", obj.name),
                 f"deployment/{obj.name}", "Deleted", "api.delete")
    elif isinstance(obj, Workload):
        if st.workloads.pop(f"{obj.kind}/{obj.key}", None) is not None:
            _end(sim, _pods_of(sim, obj.namespace, obj.kind, obj.name),
                 f"{obj.kind.lower()}/{obj.name}", "Deleted", "api.delete")
            # A workload created again under the name starts with no history.
            sim.extra.get("workload_revisions", {}).pop(f"{obj.kind}/{obj.key}", None)
            if obj.kind == "Job":
                sim.extra.get("job_states", {}).pop(obj.key, None)
    elif isinstance(obj, Namespace):
        _end(sim, _pods_of(sim, obj.name, None, None), f"namespace/{obj.name}", "Deleted",
             "api.delete")
    elif isinstance(obj, PriorityClass):
        st.priority_classes.pop(obj.name, None)
    elif isinstance(obj, PodDisruptionBudget):
        st.pdbs.pop(obj.key, None)
    elif isinstance(obj, ElasticQuota):
        st.quotas.pop(obj.namespace, None)
    elif isinstance(obj, LimitRange):
        st.limit_ranges.pop(obj.key, None)
    elif isinstance(obj, ResourceQuota):
        st.resource_quotas.pop(obj.key, None)
    elif isinstance(obj, DRA_OBJECTS):
        _delete_dra(sim, obj)
        return
    sim.changed()


register_action(sc.ApplyObject, _apply)
register_action(sc.DeleteObjectOf, _delete)
