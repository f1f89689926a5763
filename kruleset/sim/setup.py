"""Putting a scenario's objects into the cluster (at time 0 and by `create`)."""

from __future__ import annotations

import gc
from typing import Any

import attrs

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
    RuntimeClass,
    Workload,
)
from ..model.scenario import Scenario
from ..model.state import PodState
from ..rules.engine import Failure
from ..rules.priority import admission_rules, admit_priority, priority_changes
from ..rules.profile import Profile
from .registry import register_pod_admission
from .view import SimulationView

__all__ = ["apply_declarations", "build_profile", "create_object"]


def build_profile(scenario: Scenario) -> Profile:
    """The scheduler profile: upstream defaults, a `config scheduler` file, quotas."""
    from ..rules.scheduler.config import profile_for

    quotas = any(isinstance(o, ElasticQuota) for o in scenario.objects) or any(
        isinstance(getattr(e.action, "obj", None), ElasticQuota) for e in scenario.events)
    return profile_for(scenario.scheduler, quotas_present=quotas)


def _priority(sim: SimulationView, pod: Pod) -> Any:
    return admit_priority(pod, sim.state.priority_classes, sim.profile)


def _priority_changes(sim: SimulationView, pod: Pod) -> Any:
    # What admission sets depends only on these three fields and the classes
    # (and the admission rules): kept per simulation until a class is created.
    rules = admission_rules(sim.profile)
    kept = sim.extra.get(_PRIORITY_MEMO)
    if kept is None or kept[0] is not rules:
        kept = sim.extra[_PRIORITY_MEMO] = (rules, {})
    memo: dict[Any, Any] = kept[1]
    key = (pod.priority, pod.priority_class, pod.preemption_policy)
    got = memo.get(key, _MISSING)
    if got is _MISSING:
        got = memo[key] = priority_changes(pod, sim.state.priority_classes, sim.profile)
    return got


_PRIORITY_MEMO = "setup.priority-changes"
_MISSING: Any = object()


register_pod_admission(_priority, changes=_priority_changes)


# From this many declared pods the built cluster is frozen (gc.freeze): below it
# (every test and example) collections are cheap and nothing is kept back.
FREEZE_AT_PODS = 50_000


# Whether this process froze what it held before its first simulation.
_PROCESS_FROZEN = False


def process_frozen() -> bool:
    """Whether :func:`freeze_process` has run in this process."""
    return _PROCESS_FROZEN


def freeze_process() -> None:
    """Before the first simulation of the process exists, freeze what the process holds.

    That is mostly the interpreter's and kruleset's modules (their functions,
    classes, rule registry, grammar tables: some 50,000 objects the collector
    tracks), which live as long as the process.  Left in the collector's
    generations, every full collection a run sets off walks them all (at 500
    preemptors, four times the objects the run itself keeps), and whether one
    falls inside a run depended on how many objects the imports happened to
    allocate before it.  Frozen, a full collection walks what the simulations
    made.  Only once, and before the simulation is allocated: a simulation
    refers to itself, so frozen it could never be collected, and a later
    freeze could catch an earlier simulation's garbage.
    """
    global _PROCESS_FROZEN
    if not _PROCESS_FROZEN:
        _PROCESS_FROZEN = True
        gc.freeze()


def apply_declarations(sim: SimulationView) -> None:
    """Build the cluster at time 0 from the scenario's declarations, in file order."""
    for block in sim.scenario.kubelets:
        if block.node == "*":
            sim.default_kubelet = block.config
    for block in sim.scenario.kubelets:
        if block.node != "*":
            sim.kubelets[block.node] = block.config
    # Building a large cluster allocates several objects per pod and frees
    # almost none; the cyclic collector would rescan the growing heap again
    # and again (most of the time of a 150,000-pod setup).  Nothing created
    # here forms garbage cycles, so it is paused for the bulk and restored.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    # The time-0 cluster was admitted before it was written down: LimitRanges
    # and ResourceQuotas apply to pods created from now on (api_admission).
    sim.extra["api-admission.declaring"] = True
    try:
        objects = sim.scenario.objects
        i, end = 0, len(objects)
        while i < end:
            obj = objects[i]
            j = i + 1
            if j < end and getattr(objects[j], "range_head", None) is obj and obj.node_name:
                # A running pod and the rest of its `pods … on NODE` range.
                j = _range_end(objects, obj, i)
            if j - i > 1:
                create_running_range(sim, objects[i:j])  # type: ignore[arg-type]
            else:
                create_object(sim, obj, initial=True)
            i = j
    finally:
        sim.extra["api-admission.declaring"] = False
        if paused:
            if len(sim.state.pods) >= FREEZE_AT_PODS:
                # A large declared cluster lives as long as the simulation:
                # moved out of the collector's generations, it is not walked
                # by every full collection the run triggers (at a million pods
                # each took about a second).  Refcounting still frees it.
                gc.freeze()
                sim.extra[FROZEN] = True
            gc.enable()


# sim.extra key: the declared cluster was frozen; so is what time 0 settles for it.
FROZEN = "setup.frozen"


def freeze_settled(sim: SimulationView) -> None:
    """After time 0 is settled on a frozen cluster, freeze what the settling made.

    The first kubelet pass of every node gives it bookkeeping (its eviction
    state, its usage sums) that lives as long as the node.  A node's dict of
    bookkeeping is untracked while it holds only plain values, so it was not
    frozen with the cluster; left in the collector's generations, 65,000 of
    them were a twentieth of a second of every full collection (several per
    second of scheduling, more with tracing on, which keeps more objects).
    """
    if sim.extra.get(FROZEN):
        gc.freeze()


def _range_end(objects: tuple[Any, ...], head: Pod, i: int) -> int:
    """Where the run of ``head``'s renamed copies (its `pods` range) in its namespace ends."""
    j, end, ns = i + 1, len(objects), head.namespace
    while j < end:
        obj = objects[j]
        if type(obj) is not Pod or obj.range_head is not head or obj.namespace != ns:
            break
        j += 1
    return j


def create_object(sim: SimulationView, obj: Any, *, initial: bool = False) -> PodState | None:
    """Add ``obj`` to the cluster now. Pods declared ``on NODE`` at time 0 skip admission."""
    st = sim.state
    if isinstance(obj, Pod):  # first: a cluster dump is mostly pods
        sim.changed()
        return create_pod(sim, obj, initial=initial)
    if isinstance(obj, PriorityClass):
        st.priority_classes[obj.name] = obj
        sim.extra.pop(_PRIORITY_MEMO, None)
    elif isinstance(obj, RuntimeClass):
        st.runtime_classes[obj.name] = obj
    elif isinstance(obj, Namespace):
        old = st.namespaces.get(obj.name)
        labels = {**(old.labels if old else {}), **obj.labels}
        st.namespaces[obj.name] = Namespace(obj.name, labels, obj.span)
    elif isinstance(obj, Node):
        existed = obj.name in st.nodes
        st.add_node(_with_kubelet_reserved(sim, obj))
        if not existed:
            _node_added(sim, obj.name)
    elif isinstance(obj, Deployment):
        st.deployments[obj.key] = obj
        sim.extra.setdefault("deployment_counter", {}).setdefault(obj.key, 0)
    elif isinstance(obj, Workload):
        st.workloads[f"{obj.kind}/{obj.key}"] = obj
    elif isinstance(obj, LimitRange):
        st.limit_ranges[obj.key] = obj
    elif isinstance(obj, ResourceQuota):
        st.resource_quotas[obj.key] = obj
    elif isinstance(obj, PodDisruptionBudget):
        st.pdbs[obj.key] = obj
    elif isinstance(obj, ElasticQuota):
        st.quotas[obj.namespace] = obj
        sim.wildcard_event(f"elasticquota {obj.namespace}/{obj.name} changed")
    else:
        # DRA objects (slices, classes, claims, templates, feature gates).
        from .dra_claims import create_dra_object

        if not create_dra_object(sim, obj):  # pragma: no cover - the parser makes no other kind
            raise TypeError(f"cannot create {type(obj).__name__}")
        return None
    sim.changed()
    return None


def _node_added(sim: SimulationView, name: str) -> None:
    """Upstream ``addNodeToCache``: a ``NodeAdd`` event for the queue."""
    queue = sim.queue
    if queue is None or not queue.unschedulable:
        return
    from ..rules.scheduler.queue.events import ADD, NODE, ClusterEvent, Occurrence, node_view

    queue.event(Occurrence(ClusterEvent(NODE, ADD), None, node_view(sim.state.nodes[name]),
                           f"node {name} was added"))


def _with_kubelet_reserved(sim: SimulationView, node: Node) -> Node:
    """A `config kubelet` file's systemReserved + kubeReserved, for nodes declaring none."""
    reserved = getattr(sim.kubelet_config(node.name), "reserved", None)
    if reserved is None or reserved.is_zero() or not node.reserved.is_zero():
        return node
    return attrs.evolve(node, reserved=reserved)


def create_running_range(sim: SimulationView, pods: tuple[Pod, ...]) -> None:
    """Declare the pods of one ``pods … on NODE`` range at time 0, as a block.

    ``pods[1:]`` are renamed copies of ``pods[0]`` in its namespace
    (``Pod.range_head``), so API admission's answer for the first is every
    pod's (admission steps read no names, see ``register_pod_admission``)
    and each admitted pod is the admitted first one renamed.  The cluster,
    the decisions and the order of both are what :func:`create_object` makes
    of the pods one at a time, which is what happens whenever the block does
    not apply (a refusal, a step that must see each pod, a missing node,
    resource claims).
    """
    head = pods[0]
    node = head.node_name
    changes = sim.admission_changes(head)
    if (changes is None or isinstance(changes, Failure) or head.resource_claims
            or node not in sim.state.nodes or not _RENAMABLE.issuperset(changes)):
        for pod in pods:
            create_object(sim, pod, initial=True)
        return
    if changes:
        admitted = head.replace(**changes)
        renamed = admitted.renamed
        block = [admitted, *(renamed(pod.namespace, pod.name, pod.container_spec)
                             for pod in pods[1:])]
    else:
        block = list(pods)
    sim.add_running(block, node)


# Admission changes a range's admitted first pod can pass on to the others by
# renaming: not the names themselves.
_RENAMABLE = frozenset({"priority", "priority_class", "preemption_policy", "tolerations",
                        "node_name", "gates"})


def create_pod(sim: SimulationView, pod: Pod, *, initial: bool = False) -> PodState | None:
    """Admit ``pod`` to the API and add it; bind it at once when it names a node."""
    admitted = sim.admit_to_api(pod)
    if isinstance(admitted, Failure):
        sim.record("refused", pod.key, None, "api-server", "Forbidden", admitted.reason,
                   (admitted.rule,) if admitted.rule else ())
        return None
    ps = sim.state.add_pod(admitted, sim.now)
    ps.usage = dict(admitted.usage)
    ps.ready = admitted.ready
    if admitted.resource_claims:  # DRA: the claim controller and kubelet watch it
        from .dra_claims import watch_pod

        watch_pod(sim, ps)
    if admitted.node_name:
        if admitted.node_name not in sim.state.nodes:
            sim.record("pending", ps, None, "", "NodeNotFound",
                       f"node {admitted.node_name} does not exist")
            return ps
        if sim.bind(ps, admitted.node_name, admit=not initial):
            if initial:
                ps.bind_seq = 0  # bound from the start: one start time, as add_running's
            sim.record("running" if initial else "scheduled", ps, admitted.node_name,
                       "" if initial else "nodeName", "", "",
                       () if initial else ("spec.nodeName",))
            if admitted.resource_claims:  # DRA: the kubelet waits for the claims
                from .dra_claims import kubelet_wait

                kubelet_wait(sim, ps)
    return ps
