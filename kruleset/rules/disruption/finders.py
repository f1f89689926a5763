"""The disruption controller's finders: a selected pod's controller and its scale.

When a PodDisruptionBudget's budget is a percentage, or a ``maxUnavailable``,
the controller needs how many pods there *should* be: the sum of the
``spec.replicas`` of the controllers of the selected pods, each controller
counted once.  For each pod with a controller (its ``ownerReferences`` entry
with ``controller: true``) the finders are asked in upstream's order; the
first that recognises the controller gives its scale:

1. ``disruption.finder.replication-controller`` — a ReplicationController;
2. ``disruption.finder.deployment`` — a ReplicaSet controlled by a
   Deployment: the Deployment's replicas;
3. ``disruption.finder.replica-set`` — a ReplicaSet no Deployment controls;
4. ``disruption.finder.stateful-set`` — a StatefulSet;
5. ``disruption.finder.scale`` — any other controller, through its scale
   subresource.  DaemonSets, Jobs, and Nodes (the controller of a static
   pod's mirror pod) have none: the budget fails with upstream's
   ``<resource> does not implement the scale subresource``.

A controller that is not in the cluster (a dump without it, a controller
named by a pod but deleted) is found by nobody: ``found no controllers for
pod "NAME"``.  A kind kruleset holds no objects of (a custom resource) is
treated the same way, since kruleset cannot read its scale.

How kruleset's objects stand for upstream's: a ``.kr`` ``deployment`` and a
YAML Deployment are a :class:`~kruleset.model.objects.Deployment` of kind
``Deployment`` whose pods name their ReplicaSet as ``ReplicaSet`` +
the deployment's name; a YAML ReplicaSet that no Deployment of the file
controls, and a ReplicationController, are a ``Deployment`` object of that
kind; StatefulSets, DaemonSets and Jobs are
:class:`~kruleset.model.objects.Workload` objects.

Upstream: ``pkg/controller/disruption/disruption.go`` (``finders``,
``getPodReplicationController``, ``getPodDeployment``, ``getPodReplicaSet``,
``getPodStatefulSet``, ``getScaleController``, ``getExpectedScale``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState

from ..engine import PIPELINE, ActiveRuleSet, Stop, Trace
from ..registry import define_ruleset, rule

__all__ = [
    "FINDERS",
    "NO_SCALE",
    "ControllerScale",
    "controller_of",
    "find_controller",
]

FINDERS = define_ruleset(
    "disruption.finder", PIPELINE,
    "The disruption controller's finders: the controller of a pod a budget selects, and its "
    "scale, asked in upstream's order.",
)

# The resources of controller kinds without a scale subresource, as upstream's
# error names them (GroupResource.String()).
NO_SCALE = {
    "DaemonSet": "daemonsets.apps",
    "Job": "jobs.batch",
    "CronJob": "cronjobs.batch",
    "Node": "nodes",
    "Pod": "pods",
}


@attrs.frozen(slots=True)
class ControllerScale:
    """A found controller (``kind``, ``namespace/name``) and its ``spec.replicas``."""

    kind: str
    key: str
    scale: int
    rule: str

    def __str__(self) -> str:
        return f"{self.kind} {self.key} replicas {self.scale}"


@attrs.define(slots=True)
class FinderQuery:
    """The controller reference being resolved: the pod's namespace, kind and name."""

    namespace: str
    kind: str
    name: str

    @property
    def key(self) -> str:
        """``namespace/name`` of the controller."""
        return f"{self.namespace}/{self.name}"


@attrs.define(slots=True)
class FinderContext:
    """The cluster the finders read."""

    state: ClusterState
    trace: Trace | None = None


def controller_of(pod: Pod) -> tuple[str, str] | None:
    """The pod's controller reference as ``(kind, name)``; None for a pod without one.

    A static pod's mirror pod is controlled by its Node (the kubelet sets that
    owner reference); a ``.kr`` ``static`` pod names no owner, so the node is
    supplied here.
    """
    if pod.owner_kind:
        return pod.owner_kind, pod.owner_name
    if pod.static:
        return "Node", pod.node_name or ""
    return None


_RC, _DEP, _RS, _SS, _SCALE = (
    "disruption.finder.replication-controller", "disruption.finder.deployment",
    "disruption.finder.replica-set", "disruption.finder.stateful-set",
    "disruption.finder.scale")


def _deployment_object(ctx: FinderContext, q: FinderQuery, kind: str) -> Any:
    dep = ctx.state.deployments.get(q.key)
    if dep is None or getattr(dep, "kind", "Deployment") != kind:
        return None
    return dep


def _replicated(ctx: FinderContext, q: FinderQuery, pod_kinds: tuple[str, ...], kind: str,
                rule_name: str) -> Stop | None:
    """The ``kind`` object (read as a Deployment) a pod naming one of ``pod_kinds`` belongs to."""
    if q.kind not in pod_kinds:
        return None
    obj = _deployment_object(ctx, q, kind)
    if obj is None:
        return None
    return Stop(ControllerScale(kind, q.key, obj.replicas, rule_name))


@rule(FINDERS, _RC,
      doc="A pod controlled by a ReplicationController: its replicas.",
      source="disruption.go getPodReplicationController")
def _replication_controller(ctx: FinderContext, args: Mapping[str, Any],
                            q: FinderQuery) -> Stop | None:
    # "ReplicaSet" too: the pods the simulation creates from a ReplicationController's
    # template name their controller as a Deployment's pods do.
    return _replicated(ctx, q, ("ReplicationController", "ReplicaSet"),
                       "ReplicationController", _RC)


@rule(FINDERS, _DEP,
      doc="A pod controlled by a ReplicaSet that a Deployment controls: the Deployment's "
          "replicas.",
      source="disruption.go getPodDeployment")
def _deployment(ctx: FinderContext, args: Mapping[str, Any], q: FinderQuery) -> Stop | None:
    return _replicated(ctx, q, ("ReplicaSet",), "Deployment", _DEP)


@rule(FINDERS, _RS,
      doc="A pod controlled by a ReplicaSet no Deployment controls: the ReplicaSet's replicas.",
      source="disruption.go getPodReplicaSet")
def _replica_set(ctx: FinderContext, args: Mapping[str, Any], q: FinderQuery) -> Stop | None:
    return _replicated(ctx, q, ("ReplicaSet",), "ReplicaSet", _RS)


@rule(FINDERS, _SS,
      doc="A pod controlled by a StatefulSet: its replicas.",
      source="disruption.go getPodStatefulSet")
def _stateful_set(ctx: FinderContext, args: Mapping[str, Any], q: FinderQuery) -> Stop | None:
    if q.kind != "StatefulSet":
        return None
    ss = ctx.state.workloads.get(f"StatefulSet/{q.key}")
    if ss is None:
        return None
    return Stop(ControllerScale("StatefulSet", q.key, ss.replicas, _SS))


@rule(FINDERS, _SCALE,
      doc="Any other controller through its scale subresource; a DaemonSet, Job or Node has "
          "none, which fails the budget.",
      source="disruption.go getScaleController, implementsScale")
def _scale(ctx: FinderContext, args: Mapping[str, Any], q: FinderQuery) -> Stop | None:
    resource = NO_SCALE.get(q.kind)
    if resource is not None:
        return Stop(f"{resource} does not implement the scale subresource")
    # A pod naming a Deployment itself as its controller: the Deployment's scale.
    return _replicated(ctx, q, ("Deployment",), "Deployment", _SCALE)


_DEFAULT: ActiveRuleSet | None = None


def find_controller(state: ClusterState, namespace: str, kind: str, name: str,
                    trace: Trace | None = None, subject: str = ""
                    ) -> ControllerScale | str | None:
    """Resolve one controller reference: its scale, an error message, or None (found by nobody)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = FINDERS.defaults()
    ctx = FinderContext(state, trace)
    q = FinderQuery(namespace, kind, name)
    for a in _DEFAULT.rules:
        out = a.rule.fn(ctx, a.args, q)
        if isinstance(out, Stop):
            if trace is not None:
                got = out.result
                if not isinstance(got, ControllerScale):
                    why = f"error: {got}"
                elif got.kind == kind:
                    why = f"replicas {got.scale}"
                else:
                    why = str(got)
                trace.add(a.rule.name, subject, "found", f"{kind} {q.key}: {why}")
            found: ControllerScale | str = out.result
            return found
    if trace is not None:
        trace.add(_SCALE, subject, "none", f"no controller {kind} {q.key} in the cluster")
    return None
