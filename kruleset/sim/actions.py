"""Handlers for the timeline statements every scenario may use (LANGUAGE.md §3)."""

from __future__ import annotations

from typing import Any

import attrs

from ..model import scenario as sc
from ..model.state import SUCCEEDED, PodState
from .core import Simulation, register_action
from .readiness import set_ready
from .setup import create_object

__all__ = ["pod_ref"]


def pod_ref(ref: str) -> str:
    """``name`` -> ``default/name``."""
    return ref if "/" in ref else f"default/{ref}"


def _pod(sim: Simulation, ref: str) -> PodState | None:
    ps = sim.state.pods.get(pod_ref(ref))
    if ps is None or ps.gone:
        sim.record("ignored", pod_ref(ref), None, "", "NotFound",
                   f'pods "{pod_ref(ref).split("/", 1)[1]}" not found')
        return None
    return ps


def _create(sim: Simulation, a: sc.Create) -> None:
    create_object(sim, a.obj)


def _scale(sim: Simulation, a: sc.ScaleDeployment) -> None:
    key = pod_ref(a.ref)
    dep = sim.state.deployments.get(key)
    if dep is None:
        sim.record("ignored", key, None, "", "NotFound", f'deployments "{key}" not found')
        return
    sim.state.deployments[key] = attrs.evolve(dep, replicas=a.replicas)
    sim.changed()


def _delete(sim: Simulation, a: sc.DeletePod) -> None:
    ps = _pod(sim, a.ref)
    if ps is not None:
        sim.terminate(ps, "deleted", by="user", reason="Deleted", grace=a.grace_period,
                      rules=("api.delete",))


def _before(sim: Simulation, node: str) -> Any:
    from ..rules.scheduler.queue.events import node_view

    return node_view(sim.state.nodes[node])


def _cordon(sim: Simulation, a: sc.Cordon) -> None:
    before = _before(sim, a.node)
    sim.state.nodes[a.node].unschedulable = a.unschedulable
    sim.node_changed(a.node, before)
    sim.record("cordoned" if a.unschedulable else "uncordoned", a.node, a.node)
    sim.changed()


def _taint(sim: Simulation, a: sc.TaintNode) -> None:
    node = sim.state.nodes[a.node]
    before = _before(sim, a.node)
    if a.add:
        if a.taint not in node.taints:
            node.taints.append(a.taint)
    else:
        node.taints[:] = [t for t in node.taints
                          if not (t.key == a.taint.key and t.effect == a.taint.effect)]
    sim.node_changed(a.node, before)
    sim.changed()


def _label(sim: Simulation, a: sc.LabelNode) -> None:
    before = _before(sim, a.node)
    sim.state.relabel_node(a.node, a.key, a.value)  # a zone change moves it in the node tree
    sim.node_changed(a.node, before)
    sim.changed()


def _ungate(sim: Simulation, a: sc.Ungate) -> None:
    ps = _pod(sim, a.ref)
    if ps is not None and a.gate in ps.pod.gates:
        ps.pod = attrs.evolve(ps.pod, gates=tuple(g for g in ps.pod.gates if g != a.gate))
        if sim.queue is not None and not ps.pod.gates:
            sim.queue.gates_eliminated(ps)
        sim.changed()


def _ready(sim: Simulation, a: sc.PodReadiness) -> None:
    ps = _pod(sim, a.ref)
    if ps is not None:
        set_ready(ps, a.ready, sim.now)  # its Ready condition's time too
        sim.changed()


def _phase(sim: Simulation, a: sc.PodPhase) -> None:
    ps = _pod(sim, a.ref)
    if ps is None:
        return
    node = ps.node
    sim.state.unbind(ps, SUCCEEDED if a.phase == SUCCEEDED else "Failed")
    ps.ready_since = None
    containers = [c.name for c in ps.pod.containers]
    if a.phase == SUCCEEDED:
        ps.extra["exit_codes"] = tuple((c, 0) for c in containers)
    else:
        # The named container (or the first) ended with the code (1 when not given).
        failing = a.container or (containers[0] if containers else "")
        code = 1 if a.exit_code is None else a.exit_code
        ps.extra["exit_codes"] = tuple((c, code if c == failing else 0) for c in containers)
    ps.extra["finished_at"] = sim.now
    message = f"exit code {a.exit_code}" if a.exit_code is not None else ""
    sim.record(a.phase.lower(), ps, ps.node, message=message)
    ps.extra["ended_by_user"] = True
    sim.pod_deleted(ps, node)  # a terminal pod leaves the scheduler's cache
    sim.changed()


def _delete_object(sim: Simulation, a: sc.DeleteObject) -> None:
    st = sim.state
    if a.kind == "node":
        from .pod_gc import delete_node

        delete_node(sim, a.name, "user", "the Node object was deleted", "api.delete")
        return
    if a.kind in ("claim", "deviceclass", "claimtemplate"):  # DRA objects
        from .dra_claims import delete_dra_object

        delete_dra_object(sim, a.kind, a.name)
        return
    table: dict[str, dict[str, object]] = {
        "priorityclass": st.priority_classes,  # type: ignore[dict-item]
        "quota": st.quotas,  # type: ignore[dict-item]
        "pdb": st.pdbs,  # type: ignore[dict-item]
    }
    store = table[a.kind]
    key = pod_ref(a.name) if a.kind == "pdb" else a.name
    store.pop(key, None)
    if a.kind == "quota":
        sim.wildcard_event(f"elasticquota {a.name} was deleted")
    sim.changed()


def _nominate(sim: Simulation, a: sc.NominatePod) -> None:
    # Read from a dump: the scheduler keeps room for it there (its nominator's state).
    ps = _pod(sim, a.ref)
    if ps is None or ps.node is not None or ps.gone or a.node not in sim.state.nodes:
        return
    ps.nominated = a.node
    sim.changed()


def _kubelet(sim: Simulation, a: sc.KubeletBlock) -> None:
    # `at D kubelet NODE|* { … }`: new settings from now on (a kubelet restart).
    if a.node == "*":
        sim.default_kubelet = a.config
    else:
        sim.kubelets[a.node] = a.config
    sim.changed()


for _cls, _fn in (
    (sc.Create, _create), (sc.ScaleDeployment, _scale), (sc.DeletePod, _delete),
    (sc.Cordon, _cordon), (sc.TaintNode, _taint), (sc.LabelNode, _label),
    (sc.Ungate, _ungate), (sc.PodReadiness, _ready), (sc.PodPhase, _phase),
    (sc.DeleteObject, _delete_object), (sc.KubeletBlock, _kubelet),
    (sc.NominatePod, _nominate),
):
    register_action(_cls, _fn)
