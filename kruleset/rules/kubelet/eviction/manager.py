"""One pass of the kubelet's eviction manager on one node (seed 001; 003 §12).

Upstream: ``pkg/kubelet/eviction/eviction_manager.go`` ``synchronize``,
``reclaimNodeLevelResources``, ``localStorageEviction``, ``evictPod`` and
``helpers.go`` ``evictionMessage``.  The steps of :func:`eviction_pass`, in
upstream's order (each is a named step of the ``kubelet.eviction.pass``
pipeline, which explanations cite):

1. observe the signals; ``met`` = thresholds met now, merged with last pass's
   due thresholds still met counting their minimum reclaim (stickiness);
2. first-observed times (a threshold no longer met forgets its time);
3. node conditions from ``met`` *before* grace periods, held while
   ``now - last observed < eviction-pressure-transition-period``;
4. due thresholds: met for at least their grace period (hard at once);
5. stale stats: a threshold whose signal was not re-observed since the last
   pass drives no eviction (conditions are still updated);
6. local-storage eviction (emptyDir sizeLimit, pod and container
   ephemeral-storage limits), which may evict several pods and ends the pass;
7. the starved resource: memory signals first, else the first due threshold;
8. node-level reclaim (dead containers, unused images) per filesystem layout,
   judged against *all* thresholds with their minimum reclaim and no grace;
9. rank the pods and evict the first one that is not critical (static and
   mirror pods are critical): at most one pod per pass.  Grace: 1s for a hard
   threshold (upstream's immediateEvictionGracePeriodSeconds; the document's
   "0s" is older), ``min(eviction-max-pod-grace-period, the pod's)`` for a
   soft one.

Tie orders that come from Go map iteration upstream (the order of due
thresholds other than memory, the order of conditions in a message) are fixed
here: configuration order, and MemoryPressure, DiskPressure, PIDPressure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.config import EvictionThreshold, KubeletConfig
from kruleset.model.state import FAILED, ClusterState, NodeState, PodState
from kruleset.rules.engine import ActiveRuleSet, Trace
from kruleset.rules.profile import Profile
from kruleset.rules.registry import define_ruleset, rule

from ..admission import condition_order
from .memory import (
    EvictionState,
    QuietMemory,
    compact,
    manager_state,
    peek_state,
    remember_quiet,
)
from .rank import RankContext, disk_stats, ruleset_for
from .signals import (
    CONTAINER_USAGE,
    Layout,
    observe,
    pod_disk_usage,
    pod_usage,
    reclaimable,
    shared_layout,
)
from .thresholds import (
    MEMORY_SIGNALS,
    SIGNAL_CONDITION,
    SIGNAL_RESOURCE,
    by_identity,
    effective_thresholds,
    merge,
    threshold_quantity,
    threshold_signals,
    thresholds_met,
)

__all__ = [
    "EVICTION_REASON",
    "PASS",
    "Eviction",
    "EvictionState",
    "PassResult",
    "QuietMemory",
    "compact",
    "default_steps",
    "eviction_pass",
    "format_binary",
    "format_decimal",
    "kind_of",
    "manager_state",
    "peek_state",
    "remember_quiet",
]

EVICTION_REASON = "Evicted"
HARD_GRACE_MS = 1000  # immediateEvictionGracePeriodSeconds
DISRUPTION_REASON = "TerminationByKubelet"

PASS = define_ruleset(
    "kubelet.eviction.pass", "pipeline",
    "The steps of one eviction-manager pass (synchronize), in upstream order.",
)

_KIND = {"memory": "MemoryPressure", "ephemeral-storage": "DiskPressure",
         "inodes": "DiskPressure", "pids": "PIDPressure"}


def kind_of(resource: str) -> str:
    """The ``expect … evicted reason=`` keyword of a starved resource."""
    return _KIND.get(resource, "EphemeralStorage")


# --- quantity formatting as resource.Quantity.String() -----------------------------

_BIN = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DEC = ("", "k", "M", "G", "T", "P", "E")


def format_decimal(v: int) -> str:
    """A DecimalSI quantity: trailing zeros in groups of three become k, M, G, …"""
    if v == 0:
        return "0"
    i = 0
    while v % 1000 == 0 and i < len(_DEC) - 1:
        v //= 1000
        i += 1
    return f"{v}{_DEC[i]}"


def format_binary(v: int) -> str:
    """A BinarySI quantity: powers of 1024 become Ki, Mi, …; below 1024 it prints as DecimalSI."""
    if -1024 < v < 1024:
        return format_decimal(v)
    i = 0
    while v % 1024 == 0 and i < len(_BIN) - 1:
        v //= 1024
        i += 1
    return f"{v}{_BIN[i]}"


def _format_written(v: int) -> str:
    # A quantity as the user wrote it keeps its format; kruleset keeps only the
    # number, so a multiple of 1024 is taken to be binary (100Mi) and anything
    # else decimal (1G).
    if v and v % 1024 == 0:
        return format_binary(v)
    return format_decimal(v)


def _format_observed(resource: str, v: int) -> str:
    return format_binary(v) if resource in ("memory", "ephemeral-storage") else format_decimal(v)


# --- what one pass decided ------------------------------------------------------------

@attrs.frozen(slots=True)
class Eviction:
    """One pod the pass evicts: why (``kind``, message) and with what grace (ms)."""

    pod: str
    kind: str
    message: str
    grace: int
    signal: str = ""
    rules: tuple[str, ...] = ()


#: A pass's note when it ranked pods none of which reports usage (a dump without
#: usage): the order is by priority and requests alone, and evicting frees nothing.
NO_USAGE = "no-usage"


@attrs.frozen(slots=True)
class PassResult:
    """What one pass decided: conditions reported, thresholds due, reclaim, evictions."""

    node: str
    time: int
    conditions: tuple[str, ...]
    met: tuple[str, ...] = ()
    due: tuple[str, ...] = ()
    starved: str = ""
    reclaimed: bool = False
    evictions: tuple[Eviction, ...] = ()
    notes: tuple[str, ...] = ()


class _Pass:
    """The data the pipeline steps of one pass share."""

    def __init__(self, state: ClusterState, node: NodeState, config: KubeletConfig, now: int,
                 profile: Profile, trace: Trace | None) -> None:
        self.state = state
        self.node = node
        self.config = config
        self.now = now
        self.profile = profile
        self.trace = trace
        self.st = manager_state(node)
        if self.st.config is not config:
            self.st.config = config
            self.st.thresholds = effective_thresholds(config)
            self.st.layout = shared_layout(config, node)
        assert self.st.layout is not None
        self.layout: Layout = self.st.layout
        self.thresholds = self.st.thresholds
        self.signals = threshold_signals(self.thresholds)
        self.obs: dict[str, tuple[int, int]] = {}
        self.met: list[EvictionThreshold] = []
        self.due: list[EvictionThreshold] = []
        self.conditions: list[str] = []
        self.starved: EvictionThreshold | None = None
        self.reclaimed = False
        self.evictions: list[Eviction] = []
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)


# --- the pipeline steps ---------------------------------------------------------------

@rule(PASS, "kubelet.eviction.pass.thresholds-met",
      doc="Thresholds met now (available < quantity), plus last pass's due thresholds still met "
          "with their minimum reclaim added (minimum-reclaim stickiness).",
      source="seed 001 synchronize; seed 003 §12.7; eviction_manager.go synchronize")
def _step_met(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> None:
    p.obs = observe(p.node, p.layout, p.signals)
    met = thresholds_met(p.thresholds, p.obs, False)
    if p.st.thresholds_met:
        met = merge(met, thresholds_met(p.st.thresholds_met, p.obs, True))
    p.met = met


@rule(PASS, "kubelet.eviction.pass.conditions",
      doc="Node conditions come from the thresholds met, grace periods not yet applied, and stay "
          "while last observed within the pressure transition period.",
      source="seed 001; seed 003 §12.4; eviction_manager.go nodeConditionsObservedSince")
def _step_conditions(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> None:
    st, now = p.st, p.now
    first = {t: st.first_observed.get(t, now) for t in p.met}
    for t in p.met:
        st.last_observed[SIGNAL_CONDITION[t.signal]] = now
    period = p.config.pressure_transition_period
    held = {c: at for c, at in st.last_observed.items() if now - at < period}
    p.conditions = condition_order(held)
    st.first_observed = first
    st.conditions = p.conditions


@rule(PASS, "kubelet.eviction.pass.grace-period",
      doc="A threshold drives eviction once met for at least its grace period; hard ones at once.",
      source="seed 003 §12.3; eviction_manager.go thresholdsMetGracePeriod")
def _step_grace(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> None:
    now = p.now
    p.due = [t for t, at in p.st.first_observed.items() if now - at >= t.grace_period]
    p.st.thresholds_met = list(p.due)


@rule(PASS, "kubelet.eviction.pass.stale-stats",
      doc="A threshold whose signal was not observed anew since the last pass is not acted on.",
      source="seed 001; eviction_manager.go thresholdsUpdatedStats")
def _step_stale(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> None:
    last = p.st.last_obs_time
    fresh = [t for t in p.due if t.signal not in last or p.now > last[t.signal]]
    if len(fresh) != len(p.due):
        p.note("stale observations: " + ", ".join(
            t.signal for t in p.due if t not in fresh))
    p.due = fresh
    for signal in p.obs:
        last[signal] = p.now


@rule(PASS, "kubelet.eviction.pass.local-storage",
      doc="Pods over an emptyDir sizeLimit or an ephemeral-storage limit are evicted first, "
          "several in one pass, and then the pass ends.",
      source="seed 003 §12; eviction_manager.go localStorageEviction")
def _step_local_storage(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> Any:
    from kruleset.rules.engine import Stop

    for ps in _active(p.node):
        pod = ps.pod
        # Only a size limit can be exceeded: a container limit also makes the pod's non-zero.
        if not pod.emptydirs and not pod.limits.ephemeral_storage:
            continue
        msg = _local_storage_violation(ps, p.layout)
        if msg is None or ps.pod.critical:
            continue
        p.evictions.append(Eviction(ps.key, "EphemeralStorage", msg, HARD_GRACE_MS,
                                    rules=("kubelet.eviction.pass.local-storage",)))
    if p.evictions:
        return Stop(None, f"{len(p.evictions)} pod(s) over their local storage limits")
    if not p.due:
        return Stop(None, "no threshold due")
    return None


@rule(PASS, "kubelet.eviction.pass.starved-resource",
      doc="The resource to reclaim is the first due threshold's, memory signals first.",
      source="seed 001; eviction_manager.go byEvictionPriority, getReclaimableThreshold")
def _step_starved(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> None:
    ordered = sorted(p.due, key=lambda t: 0 if t.signal in MEMORY_SIGNALS else 1)
    p.due = ordered
    p.starved = ordered[0]


@rule(PASS, "kubelet.eviction.pass.node-reclaim",
      doc="Before any pod: dead containers and unused images are reclaimed (per filesystem "
          "layout); if no threshold is then met counting minimum reclaim, no pod is evicted.",
      source="seed 001 reclaimNodeLevelResources; seed 003 §12.5")
def _step_reclaim(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> Any:
    from kruleset.rules.engine import Stop

    assert p.starved is not None
    funcs = _reclaim_funcs(p.starved.signal, p.layout)
    if not funcs:
        return None
    rec = reclaimable(p.node)
    freed = []
    for f in funcs:
        if rec[f]:
            freed.append(f"{f} {format_binary(rec[f])}")
        rec[f] = 0
    p.note("node-level reclaim: " + (", ".join(freed) or "nothing to free"))
    obs = observe(p.node, p.layout, p.signals)
    if not thresholds_met(p.thresholds, obs, True):
        p.reclaimed = True
        return Stop(None, "node-level reclaim was enough")
    return None


@rule(PASS, "kubelet.eviction.pass.evict-one",
      doc="Rank the pods for the starved signal and evict the first that is not critical; "
          "at most one pod per pass.",
      source="seed 001; seed 003 §12.6; eviction_manager.go synchronize, evictPod")
def _step_evict(ctx: _Pass, args: Mapping[str, Any], p: _Pass) -> Any:
    from kruleset.rules.engine import Stop

    t = p.starved
    assert t is not None
    pods = list(_active(p.node))
    if not pods:
        return Stop(None, "eviction thresholds have been met, but no pods are active to evict")
    if not any(pod_usage(ps) or any(e.usage for e in ps.pod.emptydirs) for ps in pods):
        p.note(NO_USAGE)
    rank_name = ruleset_for(t.signal)
    rctx = RankContext(p.state, p.node, t.signal, disk_stats(t.signal, p.layout), p.trace,
                       p.profile)
    ranking = p.profile.active(rank_name)
    ranked = ranking.sort(rctx, pods)
    if p.trace is not None:
        _trace_ranking(p.trace, ranking, rctx, p.node.name, ranked, t.signal)
    resource = SIGNAL_RESOURCE[t.signal]
    for ps in ranked:
        if ps.pod.critical:
            p.note(f"{ps.key} is critical: not evicted")
            continue
        # Hard: immediateEvictionGracePeriodSeconds; soft: capped by the pod's own.
        soft_grace = min(p.config.max_pod_grace_period, ps.pod.grace_period)
        grace = HARD_GRACE_MS if t.hard else soft_grace
        msg = _message(resource, ps, p.due, p.obs)
        p.evictions.append(Eviction(ps.key, kind_of(resource), msg, grace, t.signal,
                                    ("kubelet.eviction.pass.evict-one", rank_name)))
        return Stop(None, f"evict {ps.key}")
    return Stop(None, "every pod is critical")


def _trace_ranking(trace: Trace, ranking: ActiveRuleSet, rctx: RankContext, node: str,
                   ranked: list[PodState], signal: str) -> None:
    """For --explain: the ranking, and which rule put each pod before the next."""
    trace.add(ranking.name, node, "ranked",
              f"{signal}: " + ", ".join(ps.key for ps in ranked))
    for i, (a, b) in enumerate(zip(ranked, ranked[1:], strict=False)):
        decided = ranking.decider(rctx, a, b)
        why = f"{decided[0]}: {decided[1]}" if decided else "a tie, kept in input order"
        trace.add(ranking.name, a.key, f"#{i + 1} before {b.key}", why)


def _active(node: NodeState) -> list[PodState]:
    # Pods already terminating were asked to go; upstream waits for them to be
    # cleaned up before its next pass, so they are not evicted again.
    return [ps for ps in node.pods.values() if not ps.terminating]


def _reclaim_funcs(signal: str, lay: Layout) -> tuple[str, ...]:
    if signal in MEMORY_SIGNALS or signal == "pid.available":
        return ()
    fs = signal.split(".")[0]
    if not lay.dedicated_imagefs:
        return ("containers", "images")
    if not lay.split:
        return () if fs == "nodefs" else ("containers", "images")
    return ("images",) if fs == "imagefs" else ("containers",)


def _single_container(ps: PodState) -> Any:
    pod = ps.pod
    if len(pod.containers) == 1 and not pod.init_containers:
        return pod.containers[0]
    return None  # per-container usage is not modelled for several containers


def _local_storage_violation(ps: PodState, lay: Layout) -> str | None:
    pod = ps.pod
    for e in pod.emptydirs:
        if e.size_limit and e.usage > e.size_limit:
            return (f'Usage of EmptyDir volume "{e.name}" exceeds the limit '
                    f'"{_format_written(e.size_limit)}". ')
    nodefs, writable, _ = pod_disk_usage(ps)
    limit = pod.limits.ephemeral_storage
    if limit and nodefs + writable > limit:
        return ("Pod ephemeral local storage usage exceeds the total limit of containers "
                f"{_format_written(limit)}. ")
    stats = ps.extra.get(CONTAINER_USAGE)
    if stats:
        # Per container, as the Summary API gave them (containerEphemeralStorageLimitEviction):
        # logs, and the writable layer unless the image filesystem is dedicated.
        limits = {c.name: c.limits.ephemeral_storage for c in pod.containers
                  if c.limits.ephemeral_storage}
        for name, got in stats.items():  # type: ignore[attr-defined]
            used = got["logs"] + (0 if lay.dedicated_imagefs else got["rootfs"])
            if name in limits and used > limits[name]:
                return (f'Container {name} exceeded its local ephemeral storage limit '
                        f'"{_format_written(limits[name])}". ')
        return None
    c = _single_container(ps)
    if c is not None and c.limits.ephemeral_storage:
        used = pod_usage(ps).get("ephemeral-storage", 0)
        if not lay.dedicated_imagefs:
            used += writable
        if used > c.limits.ephemeral_storage:
            return (f'Container {c.name} exceeded its local ephemeral storage limit '
                    f'"{_format_written(c.limits.ephemeral_storage)}". ')
    return None


def _message(resource: str, ps: PodState, due: Sequence[EvictionThreshold],
             obs: Mapping[str, tuple[int, int]]) -> str:
    msg = f"The node was low on resource: {resource}. "
    for t in due:
        if SIGNAL_RESOURCE[t.signal] == resource and t.signal in obs:
            available, capacity = obs[t.signal]
            q = (_format_written(t.quantity) if t.quantity is not None
                 else format_binary(threshold_quantity(t, capacity)))
            msg += f"Threshold quantity: {q}, available: {_format_observed(resource, available)}. "
            break
    c = _single_container(ps)
    if c is None or resource not in ("memory", "ephemeral-storage"):
        return msg
    u = pod_usage(ps)
    if resource == "memory":
        used, req = u.get("memory", 0), c.requests.memory
    else:
        used = u.get("ephemeral-storage", 0) + u.get("writable-layer", 0)
        req = c.requests.ephemeral_storage
    if used > req:
        msg += (f"Container {c.name} was using {format_binary(used)}, request is "
                f"{_format_written(req)}, has larger consumption of {resource}. ")
    return msg


def eviction_pass(state: ClusterState, node: str | NodeState, config: KubeletConfig | None,
                  now: int, *, profile: Profile | None = None, trace: Trace | None = None
                  ) -> PassResult:
    """Run one eviction-manager pass on ``node`` at ``now`` and say what it decides.

    The manager's memory (thresholds met, first-observed times, conditions)
    lives on the node and is updated; pods are not touched: the caller
    terminates the pods in ``evictions`` (the simulation does, see
    ``kruleset.sim.kubelet``; :func:`apply_pass` does it for embedding).
    """
    ns = node if isinstance(node, NodeState) else state.nodes[node]
    from .signals import usage_index

    usage_index(state)
    p = _Pass(state, ns, config or KubeletConfig(), now, profile or Profile.default(), trace)
    active = p.profile.active(PASS.name)
    active.run(p, p, subject=ns.name)
    p.st.last_pass = now
    p.st.idle = not p.met and not p.evictions and default_steps(active)
    p.st.idle_signals = tuple(p.obs)
    p.st.idle_node = ns.node
    return PassResult(
        ns.name, now, tuple(p.conditions), tuple(t.signal for t in p.met),
        tuple(t.signal for t in p.due), p.starved.signal if p.starved else "",
        p.reclaimed, tuple(p.evictions), tuple(p.notes))


_IDLE_STEPS = (_step_met, _step_conditions, _step_grace, _step_stale, _step_local_storage)


_DEFAULT_STEPS: dict[int, tuple[Any, Any]] = {}


def default_steps(active: Any) -> bool:
    """Whether ``active`` starts with the default first five pass steps (kept per rule set).

    The fast paths (:mod:`~kruleset.rules.kubelet.eviction.fast_pass`) reproduce
    those steps; a profile that disables, reorders or adds steps there always takes
    the reference pass.
    """
    return by_identity(_DEFAULT_STEPS, active, lambda a: len(a.rules) >= 5 and all(
        r.rule.fn is fn for r, fn in zip(a.rules, _IDLE_STEPS, strict=False)))


def apply_pass(state: ClusterState, result: PassResult) -> None:
    """Embedding without a simulation: evicted pods fail and leave their node at once."""
    for e in result.evictions:
        ps = state.pods[e.pod]
        ps.outcome, ps.by, ps.reason, ps.message = "evicted", "kubelet", EVICTION_REASON, e.message
        ps.extra["eviction_kind"] = e.kind
        state.unbind(ps, FAILED)
        ps.gone = True
