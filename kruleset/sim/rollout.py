"""``rollout pause|resume|undo deployment REF``: what ``kubectl rollout`` does to a Deployment.

``pause`` and ``resume`` set ``spec.paused`` (kubectl refuses to pause a
paused Deployment or resume one that is not).  ``undo`` is kubectl's
client-side rollback (``DeploymentRollbacker.Rollback``): the ReplicaSet of
the previous revision (or ``to-revision=N``) gives the Deployment its pod
template again, and the controller rolls it out; that ReplicaSet then takes
the next revision number.  Each is a ``rollout`` decision worded as kubectl
prints it.
"""

from __future__ import annotations

import attrs

from ..model import scenario as sc
from ..rules.controllers.deployment import ReplicaSet, rollback_target
from .core import Simulation, register_action
from .workloads import deployment_state

__all__: list[str] = []

_RULE = "controllers.deployment.rollout"


def _revision(rss: list[ReplicaSet], to_revision: int, name: str) -> ReplicaSet | str:
    """kubectl's deploymentRevision: the ReplicaSet to roll back to, or the error."""
    found = rollback_target(None, {}, (rss, to_revision))
    if found is not None:
        return found
    if to_revision > 0:
        return f"unable to find specified revision {to_revision} in history"
    return f'no rollout history found for deployment "{name}"'


def _rollout(sim: Simulation, a: sc.RolloutDeployment) -> None:
    key = a.ref
    dep = sim.state.deployments.get(key)
    name = key.split("/", 1)[1]
    if dep is None:
        sim.record("ignored", key, None, "kubectl", "NotFound",
                   f'deployments.apps "{name}" not found')
        return
    what = f"deployment.apps/{name}"
    if a.verb in ("pause", "resume"):
        want = a.verb == "pause"
        if dep.paused == want:
            sim.record("ignored", f"deployment/{key}", None, "kubectl", "Unchanged",
                       f'deployments.apps "{name}" is {"already" if want else "not"} paused',
                       (_RULE,))
            return
        sim.state.deployments[key] = attrs.evolve(dep, paused=want)
        sim.record("rollout", f"deployment/{key}", None, "kubectl",
                   "Paused" if want else "Resumed", f"{what} {'paused' if want else 'resumed'}",
                   (_RULE,))
        sim.changed()
        return
    if dep.paused:
        sim.record("ignored", f"deployment/{key}", None, "kubectl", "Paused",
                   "you cannot rollback a paused deployment; resume it first with "
                   "'kubectl rollout resume' and try again", (_RULE,))
        return
    st = deployment_state(sim, key)
    target = _revision(st.rss if st is not None else [], a.to_revision, name)
    if isinstance(target, str):
        sim.record("ignored", f"deployment/{key}", None, "kubectl", "RevisionNotFound", target,
                   (_RULE,))
        return
    if target.template is None:
        sim.record("ignored", f"deployment/{key}", None, "kubectl", "RevisionNotFound",
                   f"replica set {target.name} was read from a cluster dump without its pod "
                   "template: kruleset cannot roll back to it", (_RULE,))
        return
    if target.template == dep.template:
        sim.record("rollout", f"deployment/{key}", None, "kubectl", "RollbackSkipped",
                   f"{what} skipped rollback (current template already matches revision "
                   f"{a.to_revision})", (_RULE,))
        return
    sim.state.deployments[key] = attrs.evolve(dep, template=target.template)
    sim.record("rollout", f"deployment/{key}", None, "kubectl", "RolledBack",
               f"{what} rolled back", (_RULE,))
    sim.changed()


register_action(sc.RolloutDeployment, _rollout)
