"""The DaemonSet controller's sync (``manage``, ``rollingUpdate``, ``updateDaemonSetStatus``),
deciding its rolling update through :mod:`kruleset.rules.controllers.daemonset`.

One pod per node that should run it by the controller's own test
(``NodeShouldRunDaemonPod``: nodeSelector and required node affinity, and the
NoSchedule/NoExecute taints tolerated with the tolerations the controller
adds).  Each pod is named ``NAME-NODE`` (a second pod on a node while a
surge lasts: ``NAME-NODE-2``, …) and bound by the default scheduler through a
required node affinity on ``metadata.name`` (upstream's
``ReplaceDaemonSetPodNodeNameNodeAffinity``), with the controller's
tolerations added (``AddOrUpdateDaemonPodTolerations``; the
network-unavailable one it adds to hostNetwork pods is not, as the model does
not keep hostNetwork).  A new pod always takes the DaemonSet's current
template; a node whose pod terminates gets its new pod once the old one is
gone.  A failed daemon pod is deleted and replaced; a pod on a node that no
longer fits (affinity, or an untolerated NoExecute taint) is deleted.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..model.objects import NodeAffinity, Pod, Workload
from ..model.selectors import NodeSelectorTerm, Requirement, Toleration
from ..model.state import FAILED, NodeState, PodState
from ..rules.controllers import daemonset as rules
from ..rules.controllers.outcome import outcome
from ..rules.scheduler.filters.nodeaffinity import node_matches_pod_affinity
from ..rules.scheduler.filters.tainttoleration import find_untolerated_taint
from .statefulset import set_state
from .view import SimulationView as Simulation
from .workload_pods import available, create_at_revision, owned

__all__ = ["DAEMON_TOLERATIONS", "daemon_pod", "daemonset_status", "sync_daemonset"]

# What the DaemonSet controller adds to every daemon pod (util.AddOrUpdateDaemonPodTolerations).
DAEMON_TOLERATIONS = (
    Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),
)


def daemon_pod(w: Workload, node: str) -> Pod:
    """The pod the DaemonSet controller makes for ``node``: pinned there by node affinity."""
    t = w.template
    pin = Requirement("metadata.name", "In", (node,))
    na = t.node_affinity
    if na is not None and na.required:
        # Every term keeps its expressions; its matchFields become the node name only.
        terms = tuple(NodeSelectorTerm(term.expressions, (pin,)) for term in na.required)
    else:
        terms = (NodeSelectorTerm((), (pin,)),)
    affinity = NodeAffinity(terms, na.preferred if na is not None else ())
    return attrs.evolve(t, name=f"{w.name}-{node}", node_affinity=affinity,
                        tolerations=daemon_tolerations(w), owner_kind="DaemonSet",
                        owner_name=w.name)


def _node_of(ps: PodState) -> str | None:
    """The node a daemon pod is for: where it runs, or the node its affinity pins it to."""
    if ps.node is not None:
        return ps.node
    if ps.pod.node_name:
        return ps.pod.node_name
    na = ps.pod.node_affinity
    for term in (na.required or ()) if na is not None else ():
        for r in term.fields:
            if r.key == "metadata.name" and r.operator == "In" and len(r.values) == 1:
                return r.values[0]
    return None



def daemon_tolerations(w: Workload) -> tuple[Toleration, ...]:
    """The template's tolerations with the controller's added (one tuple per template)."""
    t = w.template
    hit = _TOLERATIONS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    tolerations = list(t.tolerations)
    for tol in DAEMON_TOLERATIONS:
        if tol not in tolerations:
            tolerations.append(tol)
    if len(_TOLERATIONS) > 1024:
        _TOLERATIONS.clear()
    _TOLERATIONS[id(t)] = (t, tuple(tolerations))
    return tuple(tolerations)


# id of a template -> (the template, kept so the id stays its own; its tolerations)
_TOLERATIONS: dict[int, tuple[Pod, tuple[Toleration, ...]]] = {}


def _should_run(w: Workload, node: NodeState, tolerations: tuple[Toleration, ...]) -> bool:
    """``NodeShouldRunDaemonPod``: node affinity, and every NoSchedule/NoExecute taint tolerated."""
    return node_matches_pod_affinity(w.template, node) and \
        find_untolerated_taint(node.taints, tolerations) is None


def _may_stay(w: Workload, node: NodeState, tolerations: tuple[Toleration, ...]) -> bool:
    """``shouldContinueRunning``: only untolerated NoExecute taints (or affinity) evict."""
    if not node_matches_pod_affinity(w.template, node):
        return False
    noexec = [t for t in node.taints if t.effect == "NoExecute"]
    return find_untolerated_taint(noexec, tolerations) is None


def _by_node(sim: Simulation, w: Workload) -> dict[str, list[PodState]]:
    out: dict[str, list[PodState]] = {}
    for ps in owned(sim, w):
        node = _node_of(ps)
        if node is not None:
            out.setdefault(node, []).append(ps)
    return out


def _revision(ps: PodState, current: str) -> str:
    rev = ps.extra.get("revision")
    if rev is None:
        rev = ps.extra["revision"] = current  # read from a dump: its template's revision
    return rev  # type: ignore[return-value]


def sync_daemonset(ctl: Any, sim: Simulation, w: Workload) -> bool:
    """One sync of ``w``: the manage loop, then the rolling update."""
    st = set_state(sim, w)
    pods = _by_node(sim, w)
    changed = False
    tolerations = daemon_tolerations(w)
    for name, node in sim.state.nodes.items():
        mine = pods.get(name, [])
        if not mine and not _should_run(w, node, tolerations):
            continue
        changed |= _manage_node(ctl, sim, w, st.update, node, mine, tolerations)
        if ctl.refused:
            return changed
    if w.strategy == "RollingUpdate":
        changed |= _rolling(ctl, sim, w, st.current, st.update, _by_node(sim, w))
    return changed


def _manage_node(ctl: Any, sim: Simulation, w: Workload, rev: str, node: NodeState,
                 mine: list[PodState], tolerations: tuple[Toleration, ...]) -> bool:
    backoffs: dict[str, tuple[int, int]] = sim.extra.setdefault("daemon_failed_backoff", {})
    key = f"{w.key}@{node.name}"
    failed = sum(1 for ps in mine if not ps.terminating and ps.phase == FAILED)
    left = rules.backoff_left(backoffs.get(key), sim.now) if failed else 0
    view = rules.NodeManage(
        _should_run(w, node, tolerations), _may_stay(w, node, tolerations),
        sum(1 for ps in mine if not ps.terminating and ps.phase != FAILED),
        sum(1 for ps in mine if ps.terminating), failed, left)
    action = outcome(sim, rules.MANAGE, view, key, "none")
    if action == "create":
        _create(ctl, sim, w, rev, node.name, mine)
        return True
    if action == "wait" and left:
        sim.wake(sim.now + left)
    if action == "delete-failed":
        backoffs[key] = rules.next_backoff(backoffs.get(key), sim.now)
    doomed = [ps for ps in mine if not ps.terminating and
              (action == "delete-all" or (action == "delete-failed" and ps.phase == FAILED))]
    why = "misscheduled" if action == "delete-all" else "failed"
    for ps in doomed:
        _delete(sim, w, ps, why.capitalize(), f"controllers.daemonset.manage.{why}")
    return bool(doomed)


def _create(ctl: Any, sim: Simulation, w: Workload, rev: str, node: str,
            mine: list[PodState]) -> PodState | None:
    pod = daemon_pod(w, node)
    taken = {ps.pod.name for ps in mine if not ps.gone}
    name, n = pod.name, 1
    while name in taken:
        n += 1
        name = f"{pod.name}-{n}"
    return create_at_revision(ctl, sim, w, attrs.evolve(pod, name=name), rev,
                              "controllers.daemonset.manage.create")


def _delete(sim: Simulation, w: Workload, ps: PodState, reason: str, rule: str) -> None:
    # A Failed pod has nothing left to stop: its deletion completes at once.
    sim.terminate(ps, "deleted", by=f"daemonset/{w.name}", reason=reason,
                  grace=0 if ps.phase == FAILED else None, rules=(rule,))


def _rolling(ctl: Any, sim: Simulation, w: Workload, current: str, update: str,
             pods: dict[str, list[PodState]]) -> bool:
    views = []
    desired = 0
    tolerations = daemon_tolerations(w)
    for name, node in sim.state.nodes.items():
        if not _should_run(w, node, tolerations):
            continue
        desired += 1
        live = [ps for ps in pods.get(name, []) if not ps.terminating and ps.phase != FAILED]
        old = [ps for ps in live if _revision(ps, current) != update]
        new = [ps for ps in live if _revision(ps, current) == update]
        views.append(rules.NodePods(
            name, bool(old), bool(old) and available(old[0], w.min_ready_seconds, sim.now),
            bool(new), bool(new) and available(new[0], w.min_ready_seconds, sim.now),
            len(old) <= 1 and len(new) <= 1))
    assert w.max_surge is not None and w.max_unavailable is not None
    surge, unavailable = rules.desired_node_counts(w.max_surge, w.max_unavailable, desired)
    view = rules.RollingView(w.strategy, surge, unavailable, tuple(views))
    plan = outcome(sim, rules.ROLLING, view, w.key, rules.Plan())
    rule = ("controllers.daemonset.rolling-update.max-surge" if surge
            else "controllers.daemonset.rolling-update.max-unavailable")
    for name in plan.delete_old:
        for ps in pods.get(name, []):
            if not ps.terminating and _revision(ps, current) != update:
                _delete(sim, w, ps, "Rollout", rule)
    for name in plan.create_new:
        if _create(ctl, sim, w, update, name, pods.get(name, [])) is None:
            break
    return bool(plan.delete_old or plan.create_new)


def daemonset_status(sim: Simulation, w: Workload) -> dict[str, Any]:
    """``updateDaemonSetStatus``: per node that should run it, its oldest pod's state."""
    st = set_state(sim, w)
    pods = _by_node(sim, w)
    tolerations = daemon_tolerations(w)
    s = dict.fromkeys(("desiredNumberScheduled", "currentNumberScheduled", "numberReady",
                       "numberAvailable", "updatedNumberScheduled", "numberMisscheduled"), 0)
    for name, node in sim.state.nodes.items():
        mine = sorted(pods.get(name, []), key=lambda p: p.seq)
        if _should_run(w, node, tolerations):
            s["desiredNumberScheduled"] += 1
            if not mine:
                continue
            s["currentNumberScheduled"] += 1
            pod = mine[0]
            if pod.ready and pod.node is not None and pod.phase == "Running":
                s["numberReady"] += 1
                s["numberAvailable"] += available(pod, w.min_ready_seconds, sim.now)
            s["updatedNumberScheduled"] += _revision(pod, st.current) == st.update
        elif mine:
            s["numberMisscheduled"] += 1
    out: dict[str, Any] = dict(s)
    out["numberUnavailable"] = s["desiredNumberScheduled"] - s["numberAvailable"]
    return out
