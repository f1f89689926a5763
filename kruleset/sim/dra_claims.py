"""Claims over time: the resource-claim controller and the kubelet's wait for claims.

The controller (kube-controller-manager's ``resourceclaim`` controller) runs
in step 3 of an instant, with the workload controllers:

* a pod naming a template gets its own claim, ``POD-PODCLAIM-xxxxx``
  (:func:`kruleset.rules.dra.state.generated_name`), owned by the pod and recorded as the
  pod's ``status.resourceClaimStatuses``;
* a pod bound without the scheduler (``spec.nodeName``) gets its allocated
  claims reserved for it; an unallocated claim stays so (only the scheduler
  allocates structured claims: B-003-08-10);
* pods that ended or were deleted leave ``reservedFor``; a claim whose
  ``reservedFor`` became empty is deallocated; claims generated for such a pod
  are deleted.

The kubelet starts a pod's containers only when every claim exists and is
reserved for the pod (``PrepareResources``).  Until then the pod, bound to
its node (holding its cpu and memory), stays ``Pending`` with the kubelet's
message; it starts at the first instant that changes.  Pod and claim UIDs
in that message are ``uid-NAMESPACE-NAME`` (the oracle's convention), as
kruleset has no UIDs.
"""

from __future__ import annotations

from typing import Any

from ..model.dra import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from ..model.state import FAILED, PENDING, RUNNING, SUCCEEDED, PodState
from ..rules.dra.state import ClaimState, DraState, dra_of, generated_name
from .registry import register_controller
from .view import SimulationView

__all__ = ["ClaimController", "DRA_KINDS", "create_dra_object", "delete_dra_object",
           "kubelet_wait", "watch_pod"]

DRA_KINDS = ("claim", "deviceclass", "claimtemplate")
_WAITING = "dra.waiting"


def create_dra_object(sim: SimulationView, obj: Any) -> bool:
    """Add a DRA object to the cluster; False if ``obj`` is not one."""
    if isinstance(obj, ResourceSlice):
        dra_of(sim.state).add_slice(obj)
    elif isinstance(obj, DeviceClass):
        dra = dra_of(sim.state)
        dra.classes[obj.name] = obj
        dra.selectable.clear()
        dra.solutions.clear()
    elif isinstance(obj, ResourceClaim):
        dra_of(sim.state).add_claim(obj)
    elif isinstance(obj, ResourceClaimTemplate):
        dra_of(sim.state).templates[obj.key] = obj
    else:
        from ..model.dra import FeatureGates

        if not isinstance(obj, FeatureGates):
            return False
        dra_of(sim.state).gates.update(obj.gates)
    _dra_event(sim, f"{type(obj).__name__} {getattr(obj, 'name', '')} was created")
    sim.changed()
    return True


def delete_dra_object(sim: SimulationView, kind: str, name: str) -> None:
    """``delete claim REF`` / ``delete deviceclass NAME`` / ``delete claimtemplate REF``."""
    dra = dra_of(sim.state)
    if kind == "deviceclass":
        dra.classes.pop(name, None)
        dra.selectable.clear()
        dra.solutions.clear()
    elif kind == "claimtemplate":
        dra.templates.pop(name, None)
    else:
        cs = dra.claims.get(name)
        if cs is not None:
            if cs.reserved_for:
                cs.deleting = True  # the finalizer holds it while pods use it
            else:
                dra.delete_claim(cs)
    _dra_event(sim, f"{kind} {name} was deleted")
    sim.changed()


def _dra_event(sim: SimulationView, what: str) -> None:
    # DynamicResources' registrations are not transcribed: every DRA change
    # retries every unschedulable pod (after its backoff).
    sim.wildcard_event(what)


def watch_pod(sim: SimulationView, ps: PodState) -> None:
    """A new pod with claims: the controller and the kubelet look after it."""
    dra_of(sim.state).watched.append(ps)


def _uid(key: str) -> str:
    ns, _, name = key.partition("/")
    return f"uid-{ns}-{name}"


def kubelet_problem(dra: DraState, ps: PodState) -> str:
    """Why the kubelet cannot start ``ps`` yet (empty: it can)."""
    pod = ps.pod
    for entry in pod.resource_claims:
        name, err = dra.claim_for(pod.key, pod.namespace, entry)
        if err:
            return err
        cs = dra.claims.get(f"{pod.namespace}/{name}")
        if cs is None:
            return (f"failed to fetch ResourceClaim {name} referenced by pod {pod.name}: "
                    f'resourceclaims.resource.k8s.io "{name}" not found')
        if pod.key not in cs.reserved_for:
            return (f"pod {pod.name} ({_uid(pod.key)}) is not allowed to use ResourceClaim "
                    f"{name} ({_uid(cs.key)})")
    return ""


def kubelet_wait(sim: SimulationView, ps: PodState) -> None:
    """A pod just bound by ``spec.nodeName``: pending at the kubelet until its claims are ready."""
    dra = dra_of(sim.state)
    _reserve_bound(dra, ps)
    problem = kubelet_problem(dra, ps)
    if problem:
        ps.phase = PENDING
        ps.extra[_WAITING] = True
        ps.schedule_message = problem
        sim.record("pending", ps, ps.node, "kubelet", "FailedPrepareDynamicResources", problem,
                   ("kubelet.dra",))


def _reserve_bound(dra: DraState, ps: PodState) -> bool:
    """The controller reserves allocated claims for a pod bound without the scheduler."""
    changed = False
    for _entry, _name, cs, _err in dra.claims_of(ps.pod):
        if cs is None or cs.allocation is None or ps.key in cs.reserved_for:
            continue
        if ps.node is not None and cs.allocation.allows(
                ps.node, sim_labels(dra, ps.node)):
            cs.reserved_for.append(ps.key)
            changed = True
    return changed


def sim_labels(dra: DraState, node: str) -> Any:
    """The labels of ``node`` (set by the controller before it reserves)."""
    return dra.node_labels.get(node, {})


def _ended(ps: PodState) -> bool:
    return ps.gone or ps.phase in (SUCCEEDED, FAILED)


class ClaimController:
    """Phase 3: template claims, reservations for bound pods, cleanup."""

    name = "resourceclaim"
    phase = 3
    # What it changes (claims; a waiting pod's phase, with its node touched)
    # is nothing the scheduler's cross-cycle caches keep: pods with claims are
    # never cached (cycle_cache.shape_of).
    tracked = True

    def __init__(self, sim: SimulationView) -> None:
        self.sim = sim

    def step(self, sim: SimulationView) -> bool:
        dra: DraState | None = sim.state.dra
        if dra is None or not (dra.watched or dra.claims):
            return False
        dra.node_labels = {n: ns.labels for n, ns in sim.state.nodes.items()}
        changed = False
        keep: list[PodState] = []
        for ps in dra.watched:
            if _ended(ps):
                changed |= self._release(dra, ps)
                continue
            keep.append(ps)
            changed |= self._create_claims(dra, ps)
            if ps.node is not None and ps.extra.get(_WAITING):
                changed |= _reserve_bound(dra, ps)
                if not kubelet_problem(dra, ps):
                    del ps.extra[_WAITING]
                    sim.state.touch(ps.node)
                    ps.phase = RUNNING
                    ps.schedule_message = ""
                    sim.record("running", ps, ps.node, "kubelet", "Started",
                               "claims allocated and reserved: containers started",
                               ("kubelet.dra",))
                    changed = True
        dra.watched = keep
        if changed:
            sim.wildcard_event("resource claims changed")
            sim.changed()
        return changed

    def _create_claims(self, dra: DraState, ps: PodState) -> bool:
        pod = ps.pod
        made = dra.pod_claims.setdefault(pod.key, {})
        changed = False
        for entry in pod.resource_claims:
            if not entry.template_name or entry.name in made:
                continue
            tpl = dra.templates.get(f"{pod.namespace}/{entry.template_name}")
            if tpl is None:
                continue  # the controller waits for the template
            name = generated_name(pod.namespace, pod.name, entry.name)
            cs = ClaimState(pod.namespace, name, tpl.spec, owner=pod.key, pod_claim=entry.name)
            dra.claims[cs.key] = cs
            made[entry.name] = name
            self.sim.record("claim-created", ps, None, "resourceclaim", "Created",
                            f"ResourceClaim {cs.key} created from template "
                            f"{tpl.key}", ("resourceclaim.controller",))
            changed = True
        return changed

    def _release(self, dra: DraState, ps: PodState) -> bool:
        changed = False
        for cs in list(dra.claims.values()):
            if ps.key in cs.reserved_for:
                cs.reserved_for.remove(ps.key)
                changed = True
                if not cs.reserved_for:
                    if cs.allocation is not None:
                        dra.set_allocation(cs, None)
                    if cs.deleting:
                        dra.delete_claim(cs)
            if cs.owner == ps.key and not cs.gone:
                dra.delete_claim(cs)
                changed = True
        return changed

    def next_time(self, sim: SimulationView) -> int | None:
        return None


register_controller(ClaimController)
