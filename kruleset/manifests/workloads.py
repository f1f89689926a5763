"""Workload objects of a dump: Deployments, ReplicaSets, ReplicationControllers,
StatefulSets, DaemonSets and Jobs, and which controller owns a pod.

A workload is read into a :class:`PendingWorkload` as its document comes and
built by :func:`build_workload` once the whole file is read: a ReplicaSet may
come before the Deployment it belongs to (and is then folded into it), and
its template may name a RuntimeClass defined later in the file.
:class:`WorkloadIndex` remembers which Deployments and ReplicaSets the file
holds, to name each pod's owner as the deployment controller counts it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..model.deployment_spec import strategy_errors
from ..model.objects import MAX_REPLICAS, Deployment, Workload
from ..model.scenario import Object
from ._fields import Doc, choice, integer, mapping, string, string_map
from .entries import Entry
from .pods import PodContext, SpecFields, make_pod, spec_fields
from .workload_specs import job_fields, rollout_fields

__all__ = ["WORKLOADS", "PendingWorkload", "WorkloadIndex", "build_workload", "controlled_by"]

WORKLOADS = frozenset({"Deployment", "ReplicaSet", "ReplicationController", "StatefulSet",
                       "DaemonSet", "Job"})


class PendingWorkload(NamedTuple):
    """A Deployment or ReplicaSet read but not built yet (it may be folded, or need overheads)."""

    doc: Doc
    kind: str
    namespace: str
    name: str
    replicas: int
    spec: SpecFields
    labels: dict[str, str]
    annotations: dict[str, str]
    completions: int | None = None  # a Job's
    ordered: bool = True            # a StatefulSet's podManagementPolicy OrderedReady
    strategy: dict[str, Any] | None = None  # a Deployment's strategy fields (Deployment kwargs)
    fields: dict[str, Any] | None = None  # the controller's other fields (workload_specs)


class WorkloadIndex:
    """The Deployments of a file and the controller of each ReplicaSet, as they are read."""

    def __init__(self) -> None:
        self.deployments: set[tuple[str, str]] = set()
        self.rs_controller: dict[tuple[str, str], str] = {}  # (ns, rs) -> its Deployment

    def read(self, e: Entry) -> PendingWorkload:
        """Check one workload object and remember what its pods' owners depend on."""
        doc, kind = e.doc, e.kind
        spec = mapping(doc, e.obj.get("spec"), "spec")
        completions = None
        ordered = True
        if kind == "Job":
            parallelism = integer(doc, spec.get("parallelism"), "spec.parallelism", None, 0,
                                  MAX_REPLICAS)
            completions = integer(doc, spec.get("completions"), "spec.completions", None, 0,
                                  MAX_REPLICAS)
            if parallelism is None:
                parallelism = 1
                if completions is None:
                    completions = 1  # neither set: one pod, one completion
            replicas = parallelism
        elif kind == "DaemonSet":
            replicas = 0  # one pod per eligible node
        else:
            replicas = integer(doc, spec.get("replicas"), "spec.replicas", 1, 0,
                               MAX_REPLICAS) or 0
        if kind == "StatefulSet":
            ordered = choice(doc, spec.get("podManagementPolicy"), "spec.podManagementPolicy",
                             ("OrderedReady", "Parallel"), "OrderedReady") == "OrderedReady"
        template = mapping(doc, spec.get("template"), "spec.template")
        if not template:
            doc.fail("spec.template", f"a {kind} needs a pod template")
        fields: dict[str, Any] | None = None
        if kind in ("StatefulSet", "DaemonSet"):
            fields = rollout_fields(doc, kind, spec)
        elif kind == "Job":
            tspec = mapping(doc, template.get("spec"), "spec.template.spec")
            fields = {"job": job_fields(doc, spec, completions, tspec.get("restartPolicy"))}
        tmeta = mapping(doc, template.get("metadata"), "spec.template.metadata")
        strategy = None
        if kind == "Deployment":
            self.deployments.add((e.namespace, e.name))
            strategy = deployment_fields(doc, spec)
        elif kind in ("ReplicaSet", "ReplicationController"):
            owner_kind, owner = controlled_by(doc, mapping(doc, e.obj.get("metadata"),
                                                           "metadata"))
            self.rs_controller[(e.namespace, e.name)] = \
                owner if owner_kind == "Deployment" else ""
        return PendingWorkload(
            doc, kind, e.namespace, e.name, replicas,
            spec_fields(doc, template.get("spec"), "spec.template.spec"),
            string_map(doc, tmeta.get("labels"), "spec.template.metadata.labels"),
            string_map(doc, tmeta.get("annotations"), "spec.template.metadata.annotations"),
            completions, ordered, strategy, fields,
        )

    def folded(self) -> dict[tuple[str, str], str]:
        """``(namespace, replicaset) -> deployment`` for ReplicaSets whose Deployment is read.

        A ReplicaSet may come before its Deployment, so this is asked once the
        file is read.
        """
        return {k: d for k, d in self.rs_controller.items()
                if d and (k[0], d) in self.deployments}

    def owner(self, namespace: str, kind: str, name: str, labels: Mapping[str, str],
              rs_owner: Mapping[tuple[str, str], str]) -> str:
        """The owner name a pod is represented with: its Deployment when that is in the load.

        ``kind`` and ``name`` are the pod's controller; ``rs_owner`` is :meth:`folded`.
        """
        if kind != "ReplicaSet":
            return name
        key = (namespace, name)
        owner = rs_owner.get(key)
        if owner is not None:
            return owner
        if key not in self.rs_controller:
            # The ReplicaSet itself was not dumped (kubectl get deploy,pods): the
            # deployment controller names it <deployment>-<pod-template-hash>, and
            # the hash is on the pod, so the deployment is known without guessing.
            h = labels.get("pod-template-hash")
            if h and name.endswith("-" + h) and \
                    (namespace, name[: -len(h) - 1]) in self.deployments:
                return name[: -len(h) - 1]
        return name


def build_workload(rec: PendingWorkload, ctx: PodContext,
                   rs_owner: Mapping[tuple[str, str], str], notes: list[str]) -> Object | None:
    """The model object of a read workload; None for a ReplicaSet folded into its Deployment.

    StatefulSets, DaemonSets and Jobs become a :class:`Workload` for their own
    controllers; Deployments, ReplicaSets and ReplicationControllers a
    :class:`Deployment` (the deployment controller keeps their replicas).
    """
    folded = rs_owner.get((rec.namespace, rec.name))
    if rec.kind == "ReplicaSet" and folded is not None:
        notes.append(f"replicaset {rec.namespace}/{rec.name} is part of "
                     f"deployment {rec.namespace}/{folded}")
        return None
    simulated = rec.kind in ("StatefulSet", "DaemonSet", "Job")
    pod = make_pod(rec.doc, ctx, rec.spec, namespace=rec.namespace,
                   name=rec.name, labels=rec.labels,
                   annotations=rec.annotations,
                   owner_kind=rec.kind if simulated else "ReplicaSet",
                   owner_name=rec.name)
    if simulated:
        return Workload(rec.kind, rec.namespace, rec.name, pod,
                        rec.replicas, rec.completions, rec.ordered,
                        span=pod.span, **(rec.fields or {}))
    return Deployment(rec.namespace, rec.name, rec.replicas, pod,
                      span=pod.span, kind=rec.kind, **(rec.strategy or {}))


def deployment_fields(doc: Doc, spec: Mapping[str, Any]) -> dict[str, Any]:
    """A Deployment's strategy, minReadySeconds, paused and revisionHistoryLimit, refused
    with their field path where the API server's validation refuses them."""
    strat = mapping(doc, spec.get("strategy"), "spec.strategy")
    kind = string(doc, strat.get("type"), "spec.strategy.type") if "type" in strat \
        else "RollingUpdate"
    rolling = mapping(doc, strat.get("rollingUpdate"), "spec.strategy.rollingUpdate")
    out: dict[str, Any] = {"strategy": kind}
    for field, key in (("maxSurge", "max_surge"), ("maxUnavailable", "max_unavailable")):
        v = rolling.get(field)
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, int | str):
                doc.fail(f"spec.strategy.rollingUpdate.{field}", "expected an integer or a "
                         "percentage such as 25%")
            out[key] = v
    out["min_ready_seconds"] = integer(doc, spec.get("minReadySeconds"), "spec.minReadySeconds",
                                       0, None, 2**31 - 1) or 0
    history = integer(doc, spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit", 10,
                      0, 2**31 - 1)
    out["revision_history_limit"] = 10 if history is None else history
    paused = spec.get("paused")
    if paused is not None and not isinstance(paused, bool):
        doc.fail("spec.paused", "expected true or false")
    out["paused"] = bool(paused)
    errs = strategy_errors(kind, out.get("max_surge", "25%"), out.get("max_unavailable", "25%"),
                           "rollingUpdate" in strat and kind == "Recreate",
                           out["min_ready_seconds"])
    if errs:
        path, message = errs[0]
        doc.fail(path, message)
    return out


def controlled_by(doc: Doc, meta: Mapping[str, Any]) -> tuple[str, str]:
    """``(kind, name)`` of the controlling owner reference, or ``("", "")``."""
    refs = meta.get("ownerReferences")
    if not refs:
        return "", ""
    if type(refs) is list and len(refs) == 1:
        # Nearly every owned pod has its controller as its one reference.
        ref = refs[0]
        if type(ref) is dict and ref.get("controller") is True:
            kind, name = ref.get("kind"), ref.get("name")
            if type(kind) is str and type(name) is str:
                return kind, name
    if not isinstance(refs, list):
        doc.fail("metadata.ownerReferences", "expected a list")
    for i, ref in enumerate(refs):
        if isinstance(ref, dict) and ref.get("controller") is True:
            kind, name = ref.get("kind"), ref.get("name")
            if type(kind) is str and type(name) is str:
                return kind, name
            return (string(doc, kind, f"metadata.ownerReferences[{i}].kind"),
                    string(doc, name, f"metadata.ownerReferences[{i}].name"))
    return "", ""
