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

Every write the scheduler's informers would see is a cluster event for the
scheduling queue (:mod:`kruleset.rules.dra.queue_hints` decides which pods
it retries): a ResourceSlice or DeviceClass added or replaced, a
ResourceClaim added or its status (allocation, ``reservedFor``) or deletion
mark updated, a pod's generated claims recorded in its status.  Deletions
are events no plugin registers for, so they send none.

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
from ..rules.dra.queue_hints import ClaimsPodView, ClaimView, claim_view
from ..rules.dra.state import ClaimState, DraState, Written, dra_of, generated_name
from ..rules.scheduler.queue.events import (
    ADD,
    DEVICE_CLASS,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    UNSCHEDULED_POD,
    UPDATE,
    UPDATE_POD_GENERATED_RESOURCE_CLAIM,
    ClusterEvent,
    Occurrence,
)
from .registry import register_controller
from .view import SimulationView

__all__ = ["ClaimController", "DRA_KINDS", "claim_occurrence", "claim_written",
           "claims_reserved", "create_dra_object", "delete_dra_object", "kubelet_wait",
           "replace_slice", "watch_pod"]

DRA_KINDS = ("claim", "deviceclass", "claimtemplate")
CLAIM_ADD = ClusterEvent(RESOURCE_CLAIM, ADD)
CLAIM_UPDATE = ClusterEvent(RESOURCE_CLAIM, UPDATE)
CLAIMS_RECORDED = ClusterEvent(UNSCHEDULED_POD, UPDATE_POD_GENERATED_RESOURCE_CLAIM)
_WAITING = "dra.waiting"


def create_dra_object(sim: SimulationView, obj: Any) -> bool:
    """Add a DRA object to the cluster (a ResourceSlice or DeviceClass of the same name is
    replaced: an update); False if ``obj`` is not one."""
    dra = dra_of(sim.state)
    if isinstance(obj, ResourceSlice):
        updated = replace_slice(dra, obj.name)
        if obj.slice_count == 0:
            # Created over time without ``slices=N``: its pool is the slices of that
            # pool and generation already there, and this one.
            import attrs

            same = sum(1 for s in dra.slices if (s.driver, s.pool, s.generation)
                       == (obj.driver, obj.pool, obj.generation))
            obj = attrs.evolve(obj, slice_count=same + 1)
        dra.add_slice(obj)
        _object_event(sim, RESOURCE_SLICE, updated, f"ResourceSlice {obj.name}")
    elif isinstance(obj, DeviceClass):
        updated = obj.name in dra.classes
        dra.classes[obj.name] = obj
        dra.selectable.clear()
        dra.solutions.clear()
        _object_event(sim, DEVICE_CLASS, updated, f"DeviceClass {obj.name}")
    elif isinstance(obj, ResourceClaim):
        cs = dra.add_claim(obj)
        claim_written(sim, cs, None, f"ResourceClaim {cs.key} was created")
    elif isinstance(obj, ResourceClaimTemplate):
        dra.templates[obj.key] = obj  # the scheduler does not watch templates
    else:
        from ..model.dra import FeatureGates

        if not isinstance(obj, FeatureGates):
            return False
        dra.gates.update(obj.gates)
        # No API object: components restarted with other gates; every pod is retried.
        sim.wildcard_event("feature gates changed")
    sim.changed()
    return True


def replace_slice(dra: DraState, name: str) -> bool:
    """Take the ResourceSlice ``name`` away (deleted, or about to be replaced); whether
    there was one."""
    kept = [s for s in dra.slices if s.name != name]
    if len(kept) == len(dra.slices):
        return False
    dra.slices[:] = kept
    dra.slices_version += 1
    dra.selectable.clear()
    dra.solutions.clear()
    return True


def delete_dra_object(sim: SimulationView, kind: str, name: str) -> None:
    """``delete claim REF`` / ``delete deviceclass NAME`` / ``delete claimtemplate REF``.

    A deletion is no event the scheduler's plugins register for; a claim
    in use is only marked (its finalizer holds it: an update), an allocated
    one is deallocated by the claim controller before it goes (an update).
    """
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
            before = _before(sim, cs)
            if cs.reserved_for:
                cs.deleting = True  # the finalizer holds it while pods use it
                claim_written(sim, cs, before, f"ResourceClaim {cs.key} is being deleted")
            else:
                deallocated = cs.allocation is not None
                dra.delete_claim(cs)
                if deallocated:
                    claim_written(sim, cs, before,
                                  f"ResourceClaim {cs.key} was deallocated to be deleted")
    sim.changed()


def _object_event(sim: SimulationView, resource: str, updated: bool, what: str) -> None:
    queue = sim.queue
    if queue is None or not queue.unschedulable:
        return
    event = ClusterEvent(resource, UPDATE if updated else ADD)
    if queue.listens(event):
        queue.event(Occurrence(event, None, None,
                               f"{what} was {'updated' if updated else 'created'}"))


def _before(sim: SimulationView, cs: ClaimState) -> Written:
    """The claim's status now, before a write (:func:`claim_written` compares)."""
    return (cs, cs.allocation, tuple(cs.reserved_for))


def claim_occurrence(sim: SimulationView, cs: ClaimState, before: Written | None,
                     what: str) -> Occurrence:
    """``ResourceClaim`` Add (``before`` None) or Update from ``before`` to now."""
    dra = dra_of(sim.state)
    trace = getattr(sim, "trace", None)
    after = claim_view(cs, dra, trace)
    if before is None:
        return Occurrence(CLAIM_ADD, None, after, what)
    old = ClaimView(cs, before[1], before[2], False, dra, trace)
    return Occurrence(CLAIM_UPDATE, old, after, what)


def claim_written(sim: SimulationView, cs: ClaimState, before: Written | None,
                  what: str) -> None:
    """Tell the queue a claim was created (``before`` None) or its status written."""
    queue = sim.queue
    if queue is None or not queue.unschedulable:
        return
    if queue.listens(CLAIM_ADD if before is None else CLAIM_UPDATE):
        queue.event(claim_occurrence(sim, cs, before, what))


def claims_reserved(sim: SimulationView, written: list[Written], pod: str) -> None:
    """The scheduler's PreBind wrote these claims' status for ``pod``."""
    for before in written:
        cs = before[0]
        verb = "reserved" if before[1] is not None else "allocated and reserved"
        claim_written(sim, cs, before, f"ResourceClaim {cs.key} was {verb} for pod {pod}")


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
    _reserve_bound(sim, dra, ps)
    problem = kubelet_problem(dra, ps)
    if problem:
        ps.phase = PENDING
        ps.extra[_WAITING] = True
        ps.schedule_message = problem
        sim.record("pending", ps, ps.node, "kubelet", "FailedPrepareDynamicResources", problem,
                   ("kubelet.dra",))


def _reserve_bound(sim: SimulationView, dra: DraState, ps: PodState) -> bool:
    """The controller reserves allocated claims for a pod bound without the scheduler."""
    changed = False
    for _entry, _name, cs, _err in dra.claims_of(ps.pod):
        if cs is None or cs.allocation is None or ps.key in cs.reserved_for:
            continue
        if ps.node is not None and cs.allocation.allows(
                ps.node, sim_labels(dra, ps.node)):
            before = _before(sim, cs)
            cs.reserved_for.append(ps.key)
            claim_written(sim, cs, before,
                          f"ResourceClaim {cs.key} was reserved for pod {ps.pod.name}")
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
                changed |= self._release(sim, dra, ps)
                continue
            keep.append(ps)
            changed |= self._create_claims(sim, dra, ps)
            if ps.node is not None and ps.extra.get(_WAITING):
                changed |= _reserve_bound(sim, dra, ps)
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
            sim.changed()
        return changed

    def _create_claims(self, sim: SimulationView, dra: DraState, ps: PodState) -> bool:
        pod = ps.pod
        made = dra.pod_claims.setdefault(pod.key, {})
        names: dict[str, str] = {}
        for entry in pod.resource_claims:
            if not entry.template_name or entry.name in made:
                continue
            tpl = dra.templates.get(f"{pod.namespace}/{entry.template_name}")
            if tpl is None:
                continue  # the controller waits for the template
            name = generated_name(pod.namespace, pod.name, entry.name)
            cs = ClaimState(pod.namespace, name, tpl.spec, owner=pod.key, pod_claim=entry.name)
            dra.claims[cs.key] = cs
            names[entry.name] = name
            self.sim.record("claim-created", ps, None, "resourceclaim", "Created",
                            f"ResourceClaim {cs.key} created from template "
                            f"{tpl.key}", ("resourceclaim.controller",))
            claim_written(sim, cs, None, f"ResourceClaim {cs.key} was created for pod "
                                         f"{pod.name}")
        if not names:
            return False
        # Then the pod's status.resourceClaimStatuses names them: the pod's own update.
        made.update(names)
        queue = sim.queue
        if queue is not None and ps.node is None:
            view = ClaimsPodView(pod, None, dra, getattr(sim, "trace", None))
            queue.pod_updated(ps, Occurrence(
                CLAIMS_RECORDED, None, view,
                f"pod {pod.name}'s generated claims were recorded in its status"))
        return True

    def _release(self, sim: SimulationView, dra: DraState, ps: PodState) -> bool:
        changed = False
        for cs in list(dra.claims.values()):
            if ps.key in cs.reserved_for:
                before = _before(sim, cs)
                cs.reserved_for.remove(ps.key)
                changed = True
                freed = not cs.reserved_for and cs.allocation is not None
                if freed:
                    dra.set_allocation(cs, None)
                claim_written(sim, cs, before,
                              f"ResourceClaim {cs.key} was deallocated, pod {ps.pod.name} gone"
                              if freed else
                              f"pod {ps.pod.name} left ResourceClaim {cs.key}'s reservedFor")
                if not cs.reserved_for and cs.deleting:
                    dra.delete_claim(cs)
            if cs.owner == ps.key and not cs.gone:
                dra.delete_claim(cs)
                changed = True
        return changed

    def next_time(self, sim: SimulationView) -> int | None:
        return None


register_controller(ClaimController)
