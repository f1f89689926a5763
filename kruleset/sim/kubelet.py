"""The kubelets: eviction-manager passes per node, node conditions and their taints (phase 5).

Each node's kubelet runs a pass at the first instant it exists (0s for
declared nodes) and then at every multiple of its ``housekeeping-interval``
(LANGUAGE.md §5).  Upstream runs the next pass as soon as an evicted pod is
cleaned up, and 10s later otherwise; kruleset keeps the fixed interval of the
language's contract.

A pass on a node where nothing changed since its last pass, with nothing met,
timing or held, would decide nothing, so it is skipped (and not traced): this
keeps thousands of idle nodes cheap.  With ``FastPaths.quiet_kubelet`` on (the
default) two more passes are answered without running the steps
(:mod:`kruleset.rules.kubelet.eviction.fast_pass`, the ``kubelet_pass`` the
composition root chooses, :func:`~kruleset.rules.scheduler.paths.paths_for`):
one where nothing changed and the last pass met nothing but conditions are still held (the pressure
transition period), which can only let them expire (``idle_pass``), and an
untraced one on a node whose manager remembers nothing, when it is certain to
decide nothing (``quiet_pass``: every node's first pass, at 0s); with it off
the reference pass runs.  Per-node usage sums are incremental
(:class:`kruleset.rules.kubelet.eviction.signals.UsageIndex`).

Timeline actions handled here: ``usage pod`` (:class:`PodUsage`), ``usage
node`` (:class:`NodeUsage`) and ``node NAME ready|not-ready``
(:class:`NodeReadiness`, whose NoExecute taint the taint manager acts on).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model import scenario as sc
from ..model.state import NodeState
from ..rules.disruption.taint_manager import CONDITION_TAINTS, NOT_READY_TAINTS
from ..rules.kubelet.eviction.manager import (
    EVICTION_REASON,
    NO_USAGE,
    PassResult,
    compact,
    eviction_pass,
    manager_state,
    peek_state,
)
from ..rules.kubelet.eviction.signals import (
    clear_dirty,
    is_dirty,
    layout,
    set_node_signal,
    set_pod_usage,
    usage_index,
)
from ..rules.scheduler.paths import KubeletPass, paths_for
from ..rules.scheduler.queue.events import node_view
from .core import Simulation, register_action, register_controller

__all__ = ["KubeletController", "apply_conditions", "apply_evictions"]


def _next_tick(last: int, interval: int) -> int:
    return (last // interval + 1) * interval


class KubeletController:
    """Runs every node's eviction-manager passes and applies what they decide."""

    name = "kubelet"
    phase = 5

    def __init__(self, sim: Simulation) -> None:
        self.last: dict[str, int] = {}
        # Subscribe before the declarations bind their pods, so sums start right.
        usage_index(sim.state)

    def _due(self, sim: Simulation, node: NodeState) -> bool:
        # Passes fall on the interval's grid (0s, 10s, 20s, …) whatever happened
        # in between; a node's first pass is when it first exists.
        last = self.last.get(node.name)
        if last is None:
            return True
        return sim.now > last and sim.now % sim.kubelet_config(node.name).housekeeping_interval == 0

    def step(self, sim: Simulation) -> bool:
        """Run the passes due now; True if any evicted a pod or changed a condition."""
        last = self.last
        if (not sim.kubelets and sim.now % sim.default_kubelet.housekeeping_interval != 0
                and all(name in last for name in sim.state.nodes)):
            # Off the one interval's grid with every node past its first
            # pass: no pass is due (a drain's instants on 65,000 nodes).
            return False
        changed = False
        # Chosen once per step (the passes run per node).
        fast = paths_for(sim.fast).kubelet_pass
        first = (fast.first_passes(sim.profile, sim.now)
                 if fast is not None and sim.trace is None else None)
        now = sim.now
        for node in sim.state.nodes.values():
            name = node.name
            if name not in last:
                last[name] = now  # its first pass
                if (first is not None and not node.conditions and not _condition_taints(node)
                        and first.take(node, sim.kubelet_config(name))):
                    # It met nothing: no condition to report, no taint to take
                    # off, no eviction (what apply_conditions would find).
                    continue
            elif self._due(sim, node):
                last[name] = now
            else:
                continue
            result = _run_pass(sim, node, fast)
            if result is None:
                continue
            if apply_conditions(sim, node, result):
                changed = True
            if apply_evictions(sim, result):
                changed = True
            elif not result.conditions:
                compact(node)
        return changed

    def next_time(self, sim: Simulation) -> int | None:
        """The next pass of a node where something may still change."""
        best: int | None = None
        now = sim.now
        for node in sim.state.nodes.values():
            last = self.last.get(node.name)
            if last is None:
                return now
            st = peek_state(node)
            if (st is None or st.quiet()) and not is_dirty(node):
                continue
            iv = sim.kubelet_config(node.name).housekeeping_interval
            t = now if (now % iv == 0 and now > last) else _next_tick(now, iv)
            if best is None or t < best:
                best = t
        return best


def _run_pass(sim: Simulation, node: NodeState, fast: KubeletPass | None
              ) -> PassResult | None:
    """The node's eviction-manager pass now (``fast``: the passes answered without their
    steps, or None); None: skipped, it could change nothing."""
    kept = peek_state(node)
    config = sim.kubelet_config(node.name)
    if kept is not None and kept.last_pass is not None and not is_dirty(node):
        if kept.quiet():
            return None
        if fast is not None:
            # Conditions held after the pressure is gone: the pass can only
            # let them expire, so it is computed without the steps.
            result = fast.idle(sim.state, node, config, sim.now,
                               profile=sim.profile, trace=sim.trace)
            if result is not None:
                return result
    clear_dirty(node)
    if fast is not None:
        # A node with nothing met, timing or held (every node's first pass, at
        # 0s): computed without the steps when it is certain to decide nothing.
        result = fast.quiet(sim.state, node, config, sim.now, profile=sim.profile,
                            trace=sim.trace)
        if result is not None:
            return result
    return eviction_pass(sim.state, node, config, sim.now, profile=sim.profile, trace=sim.trace)


def _condition_taints(node: NodeState) -> bool:
    """Whether ``node`` carries a taint its kubelet's conditions keep."""
    taints = node.taints
    return bool(taints) and any(t in taints for t in CONDITION_TAINTS.values())


def apply_conditions(sim: Simulation, node: NodeState, result: PassResult) -> bool:
    """Report the pass's conditions on the node and keep their NoSchedule taints in step."""
    if not result.conditions and not node.conditions and not node.taints:
        # No pressure before or now, and no taint to take off (every node's
        # first pass on a large quiet cluster): nothing changes.
        return False
    st = manager_state(node)
    view = node_view(node)
    before = set(node.conditions)
    node.conditions = {c: st.last_observed[c] for c in result.conditions}
    changed = before != set(node.conditions)
    for cond, taint in CONDITION_TAINTS.items():
        has = taint in node.taints
        want = cond in node.conditions
        if want and not has:
            node.taints.append(taint)
            changed = True
        elif has and not want:
            node.taints.remove(taint)
            changed = True
    if changed:
        sim.node_changed(node.name, view)
        sim.changed()
        if sim.trace is not None:
            sim.trace.add("kubelet.eviction.pass.conditions", node.name,
                          ", ".join(result.conditions) or "no pressure")
    return changed


def _warn_no_usage(sim: Simulation, result: PassResult) -> None:
    """Once per node: its pods report no usage, so evicting them frees nothing the
    kubelet measures (a dump read without a Summary API or metrics document)."""
    warned: set[str] = sim.extra.setdefault("kubelet.no-usage", set())
    if result.node in warned:
        return
    warned.add(result.node)
    sim.record("warning", result.node, result.node, "kubelet", "NoUsage",
               f"pods on {result.node} have no usage: eviction order is by priority and "
               "requests only, and evictions free nothing",
               ("kubelet.eviction.pass.evict-one",))


def apply_evictions(sim: Simulation, result: PassResult) -> bool:
    """Terminate the pods the pass evicts, as the kubelet does; True if it evicted any."""
    if NO_USAGE in result.notes:
        _warn_no_usage(sim, result)
    for e in result.evictions:
        ps = sim.state.pods[e.pod]
        ps.extra["eviction_kind"] = e.kind
        if e.kind != "EphemeralStorage":
            ps.conditions["DisruptionTarget"] = "TerminationByKubelet"
        sim.kubelet_evictions.append(ps.key)
        sim.terminate(ps, "evicted", by="kubelet", reason=EVICTION_REASON, message=e.message,
                      grace=e.grace, rules=e.rules)
    return bool(result.evictions)


def _key(ref: str) -> str:
    return ref if "/" in ref else f"default/{ref}"


def _pod_usage(sim: Simulation, a: sc.PodUsage) -> None:
    ps = sim.state.pods.get(_key(a.ref))
    if ps is None:
        raise ScenarioError(f"unknown pod '{a.ref}'", a.span)
    set_pod_usage(sim.state, ps, a.usage)


def _node_usage(sim: Simulation, a: sc.NodeUsage) -> None:
    node = sim.state.nodes.get(a.node)
    if node is None:
        raise ScenarioError(f"unknown node '{a.node}'", a.span)
    lay = layout(sim.kubelet_config(a.node), node)
    for signal, value in a.signals.items():
        try:
            set_node_signal(node, lay, signal, value)
        except ValueError as e:
            raise ScenarioError(str(e), a.span,
                                suggestion="declare the filesystem's size on the node") from None


def _readiness(sim: Simulation, a: sc.NodeReadiness) -> None:
    node = sim.state.nodes.get(a.node)
    if node is None:
        raise ScenarioError(f"unknown node '{a.node}'", a.span)
    view = node_view(node)
    node.ready = a.ready
    for taint in NOT_READY_TAINTS:
        if a.ready and taint in node.taints:
            node.taints.remove(taint)
        elif not a.ready and taint not in node.taints:
            node.taints.append(taint)
    sim.node_changed(node.name, view)
    sim.changed()


register_controller(KubeletController)
register_action(sc.PodUsage, _pod_usage)
register_action(sc.NodeUsage, _node_usage)
register_action(sc.NodeReadiness, _readiness)
