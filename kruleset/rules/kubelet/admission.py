"""Kubelet admission of a pod bound to its node (seeds 000, 001; 003 §6, §12).

Two admit handlers run in upstream's order, the first refusal winning:

1. the eviction manager's (``pkg/kubelet/eviction/eviction_manager.go``
   ``Admit``), rule set ``kubelet.admission.pressure``: under node pressure
   only critical pods are admitted, except that MemoryPressure alone still
   admits pods that are not BestEffort and BestEffort pods tolerating
   ``node.kubernetes.io/memory-pressure:NoSchedule``.  Reason ``Evicted``,
   message ``The node had condition: [X]. ``.
2. the predicate handler (``pkg/kubelet/lifecycle/predicate.go``
   ``generalFilter`` = ``scheduler.AdmissionCheck(pod, node, true)`` plus the
   NoExecute taint check), rule set ``kubelet.admission`` whose failures are
   all collected: resources (each short resource is one reason), node
   affinity and nodeSelector, node name, host ports, untolerated NoExecute
   taints (static pods skip this one).  A critical pod whose reasons are all
   insufficient resources preempts (:mod:`.kubelet_preemption`); otherwise
   the first reason rejects the pod: ``OutOfcpu`` … with ``Node didn't have
   enough resource: …``, or the plugin name with ``Predicate X failed: …``.

Older kubelets (seed 001) rejected critical pods under DiskPressure and let
MemoryPressure+DiskPressure admit Burstable pods; upstream now admits critical
pods always and rejects every other pod under any condition but
MemoryPressure alone.  Upstream wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.selectors import Taint
from kruleset.model.state import ClusterState, NodeState, PodState

from ..engine import REJECTED, Failure, Trace
from ..profile import Profile
from ..registry import define_ruleset, rule
from ..scheduler.filters.noderesourcesfit import insufficient_resources
from .critical_preemption import (
    DISRUPTION_MESSAGE,
    PREEMPT_MESSAGE,
    PREEMPT_REASON,
    PreemptionError,
    Requirement,
    pods_to_preempt,
)

__all__ = [
    "ADMISSION",
    "PRESSURE",
    "AdmitResult",
    "Reason",
    "admit",
    "admit_pod",
    "condition_order",
]

PRESSURE = define_ruleset(
    "kubelet.admission.pressure", "predicate",
    "The eviction manager's admit handler: what a node under pressure still admits.",
)
ADMISSION = define_ruleset(
    "kubelet.admission", "predicate",
    "The kubelet's general predicates on a pod bound to its node; every failure is collected.",
)

MEMORY_PRESSURE_TAINT = Taint("node.kubernetes.io/memory-pressure", "", "NoSchedule")
_CONDITION_ORDER = ("MemoryPressure", "DiskPressure", "PIDPressure")

_OUT_OF = {"cpu": "OutOfcpu", "memory": "OutOfmemory",
           "ephemeral-storage": "OutOfephemeral-storage", "pods": "OutOfpods"}


@attrs.frozen(slots=True)
class Reason:
    """One admission failure as upstream's PredicateFailureReason.

    ``resource`` set: an InsufficientResourceError (``requested``, ``used``,
    ``capacity``); otherwise a PredicateFailureError (``predicate``, ``desc``).
    """

    predicate: str = ""
    desc: str = ""
    resource: str = ""
    requested: int = 0
    used: int = 0
    capacity: int = 0
    rule: str = ""

    @property
    def insufficient(self) -> bool:
        """An insufficient-resource reason."""
        return bool(self.resource)

    @property
    def reason(self) -> str:
        """The pod status reason upstream reports for this failure."""
        if self.resource:
            return _OUT_OF.get(self.resource, f"OutOf{self.resource}")
        return self.predicate

    @property
    def message(self) -> str:
        """Upstream's ``Error()`` text."""
        if self.resource:
            return (f"Node didn't have enough resource: {self.resource}, requested: "
                    f"{self.requested}, used: {self.used}, capacity: {self.capacity}")
        return f"Predicate {self.predicate} failed: {self.desc}"

    @property
    def shortfall(self) -> int:
        """``requested - (capacity - used)``: what preemption must free."""
        return self.requested - (self.capacity - self.used)


@attrs.frozen(slots=True)
class AdmitResult:
    """The kubelet's answer for one pod.

    ``failures``: every reason found (before preemption); ``victims``: the
    pods a critical pod preempts, in kill order (BestEffort, Burstable,
    Guaranteed); ``reason``/``message``:
    the rejection (empty when admitted); ``rules``: the rules that decided.
    """

    admitted: bool
    failures: tuple[Reason, ...] = ()
    victims: tuple[PodState, ...] = ()
    reason: str = ""
    message: str = ""
    rules: tuple[str, ...] = ()
    victim_reason: str = PREEMPT_REASON
    victim_message: str = PREEMPT_MESSAGE
    victim_condition: str = DISRUPTION_MESSAGE

    @property
    def victim_keys(self) -> tuple[str, ...]:
        """The victims' ``namespace/name``."""
        return tuple(v.key for v in self.victims)


class AdmitContext:
    """What admission rules see: the state, the node, the profile and the trace."""

    __slots__ = ("state", "profile", "trace", "now", "node")

    def __init__(self, state: ClusterState, node: NodeState, profile: Profile | None = None,
                 trace: Trace | None = None, now: int = 0) -> None:
        self.state = state
        self.node = node
        self.profile = profile or Profile.default()
        self.trace = trace
        self.now = now


def condition_order(conditions: Mapping[str, Any]) -> list[str]:
    """Pressure conditions in a fixed order (upstream's order comes from a Go map, so is random)."""
    return [c for c in _CONDITION_ORDER if c in conditions]


# --- the eviction manager's admit handler ---------------------------------------------

@rule(PRESSURE, "kubelet.admission.pressure.node-conditions",
      doc="Under pressure only critical pods are admitted; MemoryPressure alone also admits pods "
          "that are not BestEffort and BestEffort pods tolerating the memory-pressure taint.",
      source="seed 001 Admit; seed 003 §12.4; pkg/kubelet/eviction/eviction_manager.go Admit")
def _pressure(ctx: AdmitContext, args: Mapping[str, Any], pod: Pod,
              node: NodeState) -> Failure | None:
    conds = condition_order(node.conditions)
    if not conds or pod.critical:
        return None
    if conds == ["MemoryPressure"]:
        if not pod.besteffort:
            return None
        if any(t.tolerates(MEMORY_PRESSURE_TAINT) for t in pod.tolerations):
            return None
    return Failure("Evicted", REJECTED,
                   detail={"message": f"The node had condition: [{' '.join(conds)}]. "})


# --- the predicate admit handler --------------------------------------------------------

@rule(ADMISSION, "kubelet.admission.NodeResourcesFit",
      doc="The pod's requests must fit the node's allocatable minus what its other pods request; "
          "each short resource is a reason (pods, cpu, memory, ephemeral-storage, extended).",
      source="seed 000; pkg/scheduler AdmissionCheck, noderesources.Fits")
def _resources(ctx: AdmitContext, args: Mapping[str, Any], pod: Pod,
               node: NodeState) -> Failure | None:
    # Extended resources the node does not know are dropped first
    # (removeMissingExtendedResources), so they never fail admission.
    known = {k for k, _ in node.allocatable.scalars}
    unknown = frozenset(k for k, _ in pod.requests.scalars if k not in known)
    short = insufficient_resources(pod, node, unknown)
    if not short:
        return None
    reasons = tuple(Reason(resource=n, requested=q, used=u, capacity=a) for n, q, u, a in short)
    return Failure(reasons[0].reason, REJECTED, detail=reasons)


@rule(ADMISSION, "kubelet.admission.NodeAffinity",
      doc="The node must match the pod's nodeSelector and required node affinity.",
      source="pkg/scheduler AdmissionCheck; nodeaffinity.ErrReasonPod")
def _affinity(ctx: AdmitContext, args: Mapping[str, Any], pod: Pod,
              node: NodeState) -> Failure | None:
    labels = node.labels
    ok = all(labels.get(k) == v for k, v in pod.node_selector.items())
    aff = pod.node_affinity
    if ok and aff is not None and aff.required is not None:
        ok = any(t.matches(labels, node.name) for t in aff.required)
    if ok:
        return None
    r = Reason("NodeAffinity", "node(s) didn't match Pod's node affinity/selector")
    return Failure(r.reason, REJECTED, detail=(r,))


@rule(ADMISSION, "kubelet.admission.NodeName",
      doc="A pod naming a node (spec.nodeName) is admitted only there.",
      source="pkg/scheduler AdmissionCheck; nodename.ErrReason")
def _node_name(ctx: AdmitContext, args: Mapping[str, Any], pod: Pod,
               node: NodeState) -> Failure | None:
    if not pod.node_name or pod.node_name == node.name:
        return None
    r = Reason("NodeName", "node(s) didn't match the requested node name")
    return Failure(r.reason, REJECTED, detail=(r,))


@rule(ADMISSION, "kubelet.admission.NodePorts",
      doc="A host port (and protocol) used by a pod already on the node conflicts.",
      source="pkg/scheduler AdmissionCheck; nodeports.ErrReason")
def _ports(ctx: AdmitContext, args: Mapping[str, Any], pod: Pod,
           node: NodeState) -> Failure | None:
    if not pod.host_ports:
        return None
    want = set(pod.host_ports)
    for other in node.pods.values():
        if other.pod.key != pod.key and want.intersection(other.pod.host_ports):
            r = Reason("NodePorts", "node(s) didn't have free ports for the requested pod ports")
            return Failure(r.reason, REJECTED, detail=(r,))
    return None


@rule(ADMISSION, "kubelet.admission.TaintToleration",
      doc="An untolerated NoExecute taint refuses the pod (the kubelet looks at no other effect); "
          "static pods are not checked.",
      source="seed 003 §6.1; pkg/kubelet/lifecycle/predicate.go generalFilter")
def _taints(ctx: AdmitContext, args: Mapping[str, Any], pod: Pod,
            node: NodeState) -> Failure | None:
    if pod.static:
        return None
    for taint in node.taints:
        if taint.effect != "NoExecute":
            continue
        if not any(t.tolerates(taint) for t in pod.tolerations):
            r = Reason("TaintToleration", "node(s) had taints that the pod didn't tolerate")
            return Failure(r.reason, REJECTED, detail=(r,))
    return None


def _reasons(failures: Sequence[Failure]) -> list[Reason]:
    out: list[Reason] = []
    for f in failures:
        for r in f.detail:
            out.append(attrs.evolve(r, rule=f.rule))
    return out


def _decide(ctx: AdmitContext, ps: PodState, node: NodeState) -> AdmitResult:
    pod = ps.pod
    profile = ctx.profile
    trace = ctx.trace
    f = profile.active(PRESSURE.name).first_failure(ctx, pod, node, subject=pod.key)
    if f is not None:
        return AdmitResult(False, (), (), f.reason, f.detail["message"], (f.rule,))
    failures = profile.active(ADMISSION.name).all_failures(ctx, pod, node, subject=pod.key)
    if not failures:
        return AdmitResult(True)
    reasons = _reasons(failures)
    rules = tuple(dict.fromkeys(f.rule for f in failures))
    if not pod.critical:
        first = reasons[0]
        return AdmitResult(False, tuple(reasons), (), first.reason, first.message, rules)
    other = [r for r in reasons if not r.insufficient]
    if other:
        # Any non-resource reason: preemption cannot help, only those are reported.
        if trace is not None:
            trace.add("kubelet.preemption", pod.key, "skipped",
                      "a failure is not an insufficient resource")
        first = other[0]
        return AdmitResult(False, tuple(reasons), (), first.reason, first.message,
                           (*rules, "kubelet.preemption"))
    reqs = [Requirement(r.resource, r.shortfall) for r in reasons]
    active = [p.pod for p in node.pods.values() if p.key != pod.key] + [pod]
    try:
        victims = pods_to_preempt(pod, active, reqs, ctx)
    except PreemptionError as e:
        msg = ("Unexpected error while attempting to recover from admission failure: "
               f"preemption: error finding a set of pods to preempt: {e}")
        return AdmitResult(False, tuple(reasons), (), "UnexpectedAdmissionError", msg,
                           (*rules, "kubelet.preemption"))
    by_key = {p.key: p for p in node.pods.values()}
    chosen = tuple(by_key[v.key] for v in victims)
    if trace is not None:
        trace.add("kubelet.preemption", pod.key, "victims",
                  ", ".join(v.key for v in chosen) or "none")
    return AdmitResult(True, tuple(reasons), chosen, "", "", (*rules, "kubelet.preemption"))


def admit(ctx_or_sim: Any, node_state: NodeState, ps: PodState) -> AdmitResult:
    """The kubelet's admission of ``ps`` to ``node_state``, called before the pod is bound.

    Nothing changes: the caller kills the ``victims`` of a critical pod's
    preemption in order (reason ``Preempting``, message
    :attr:`AdmitResult.victim_message`, each with its own grace period, as
    upstream's killPodNow without override), records them as the pod's
    victims, and binds the pod when ``admitted``; otherwise it rejects the pod
    with ``reason`` and ``message``.
    """
    state = ctx_or_sim.state
    ctx = AdmitContext(state, node_state, getattr(ctx_or_sim, "profile", None),
                       getattr(ctx_or_sim, "trace", None), getattr(ctx_or_sim, "now", 0))
    return _decide(ctx, ps, node_state)


def admit_pod(state: ClusterState, node: str | NodeState, pod: Pod | PodState,
              profile: Profile | None = None, *, trace: Trace | None = None) -> AdmitResult:
    """Embed one admission decision: would the kubelet of ``node`` admit ``pod`` now?

    Nothing in ``state`` changes; the victims a critical pod would preempt are
    listed, not killed.
    """
    ns = node if isinstance(node, NodeState) else state.nodes[node]
    ps = pod if isinstance(pod, PodState) else PodState(pod, 1 << 62, state.now)
    ctx = AdmitContext(state, ns, profile, trace, state.now)
    return _decide(ctx, ps, ns)
