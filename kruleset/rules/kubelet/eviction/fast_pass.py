"""The eviction pass's fast paths: passes certain to decide nothing, without their steps.

Both answer for :func:`kruleset.rules.kubelet.eviction.manager.eviction_pass`
(the reference) where they can prove what it would decide, and return None
otherwise; the simulation takes them with ``FastPaths.quiet_kubelet`` on
(the default) and runs the reference alone with it off.

* :func:`quiet_pass`: a node whose manager remembers nothing.  A large
  cluster's every node takes its first pass at 0s; on 65,000 nodes running
  the pipeline for each was seconds before the first scheduling decision.
* :class:`FirstPasses`: :func:`quiet_pass` for the nodes of a large cluster at
  their first pass, one after another at the same instant, leaving each a
  shared memory (:class:`~.memory.QuietMemory`) instead of a state of its own.
* :func:`idle_pass`: a node where nothing changed since a pass that met no
  threshold and evicted nothing, with conditions still held (the pressure
  transition period): only their expiry is left to compute.

``tests/test_kubelet_idle_pass.py`` and ``tests/test_fast_paths_off.py`` compare
them with the reference: decisions, conditions, the manager's memory, traces.
"""

from __future__ import annotations

from typing import Any

from kruleset.model.config import EvictionThreshold, KubeletConfig
from kruleset.model.state import ClusterState, NodeState
from kruleset.rules.engine import Trace
from kruleset.rules.profile import Profile

from ..admission import condition_order
from .manager import PASS, PassResult, default_steps
from .memory import QuietMemory, manager_state, peek_state, remember_quiet, shared_memory
from .signals import (
    Layout,
    clear_dirty,
    local_storage_pods,
    observation_key,
    observe,
    shared_layout,
)
from .thresholds import by_identity, effective_thresholds, threshold_signals, thresholds_met

__all__ = ["FirstPasses", "idle_pass", "quiet_pass"]

# The steps an idle pass goes through before local-storage stops it (its trace).
_IDLE_CONTINUE = ("kubelet.eviction.pass.thresholds-met", "kubelet.eviction.pass.conditions",
                  "kubelet.eviction.pass.grace-period", "kubelet.eviction.pass.stale-stats")


def quiet_pass(state: ClusterState, node: NodeState, config: KubeletConfig, now: int, *,
               profile: Profile, trace: Trace | None = None) -> PassResult | None:
    """The pass :func:`eviction_pass` would run now on a node with nothing to remember, cheaply.

    None unless it is certain to decide nothing: no trace is kept, the
    profile runs the default steps, the manager remembers nothing of the
    node (no threshold met, timing or held: its first pass, typically, at
    time 0 on every node of a large cluster), no threshold is met by what is
    observed now, and no active pod could break a local-storage limit (none
    has an emptyDir or an ephemeral-storage limit).  Then the steps would
    only record the observations' time and end at local-storage with "no
    threshold due"; that is done here without running them, and the node
    is marked idle as :func:`eviction_pass` marks it.
    """
    if trace is not None:
        return None
    st = manager_state(node)
    if st.thresholds_met or st.first_observed or st.last_observed:
        return None
    active = profile.active(PASS.name)
    if not default_steps(active):
        return None
    for ps in node.pods.values():
        pod = ps.pod
        if (pod.emptydirs or pod.limits.ephemeral_storage) and not ps.terminating:
            return None
    if st.config is not config:
        st.config = config
        st.thresholds = effective_thresholds(config)
        st.layout = shared_layout(config, node)
    assert st.layout is not None
    signals = _quiet_signals(node, st.thresholds, st.layout)
    if signals is None:
        return None
    st.conditions = []
    last = st.last_obs_time
    for signal in signals:
        last[signal] = now
    st.last_pass = now
    st.idle = True
    st.idle_signals = signals
    st.idle_node = node.node
    return PassResult(node.name, now, ())


class FirstPasses:
    """Nodes' first passes at ``now``, answered as :func:`quiet_pass` answers, in bulk.

    For a node whose manager remembers nothing, with no pod that local
    storage limits could evict (kept count, not a walk over its pods),
    :meth:`take` settles what :func:`quiet_pass` would and leaves the node a
    :class:`~.memory.QuietMemory` shared by every node of its shape; it
    answers False where :func:`quiet_pass` may not apply (the caller then
    runs the pass).  Untraced only: the caller makes one per instant when no
    trace is kept.  What the nodes of one configuration and filesystem
    layout share (thresholds, layout, the observation memo, memories) is
    looked up once per node, not once per fact.
    """

    def __init__(self, profile: Profile, now: int) -> None:
        self.usable = default_steps(profile.active(PASS.name))
        self.now = now
        self._shapes: dict[tuple[int, bool], _Shape] = {}

    def take(self, node: NodeState, config: KubeletConfig) -> bool:
        """Settle ``node``'s first pass as met-nothing; False if the pass must run."""
        if not self.usable or peek_state(node) is not None or local_storage_pods(node):
            return False
        at = (id(config), bool(node.node.containerfs))
        shape = self._shapes.get(at)
        if shape is None:
            shape = self._shapes[at] = _Shape(config, node)
        key = observation_key(node, shape.layout)
        signals: Any = shape.observed.get(key, _UNKNOWN) if key is not None else _UNKNOWN
        if signals is _UNKNOWN:
            signals = _quiet_signals(node, shape.thresholds, shape.layout)
        if signals is None:
            return False
        memory = shape.memories.get(signals)
        if memory is None:
            memory = shape.memories[signals] = shared_memory(config, shape.thresholds,
                                                             shape.layout, signals, self.now)
        clear_dirty(node)
        remember_quiet(node, memory)
        return True


_UNKNOWN = object()


class _Shape:
    """What the first passes of nodes with one configuration and layout share."""

    __slots__ = ("thresholds", "layout", "observed", "memories")

    def __init__(self, config: KubeletConfig, node: NodeState) -> None:
        self.thresholds = effective_thresholds(config)
        self.layout = shared_layout(config, node)
        self.observed = by_identity(_QUIET, self.thresholds, _new_memo)
        self.memories: dict[tuple[str, ...], QuietMemory] = {}


# Per thresholds tuple: observation key -> the signals observed, or None if a
# threshold is met (nodes of one shape observe alike: see observation_key).
_QUIET: dict[int, tuple[Any, Any]] = {}


def _new_memo(_: object) -> dict[Any, tuple[str, ...] | None]:
    return {}


def _quiet_signals(node: NodeState, thresholds: tuple[EvictionThreshold, ...],
                   lay: Layout) -> tuple[str, ...] | None:
    """The signals observed on ``node`` if no threshold is met by them, else None."""
    key = observation_key(node, lay)
    memo: dict[Any, tuple[str, ...] | None] | None = None
    if key is not None:
        memo = by_identity(_QUIET, thresholds, _new_memo)
        if key in memo:
            return memo[key]
    obs = observe(node, lay, threshold_signals(thresholds))
    out = None if thresholds_met(thresholds, obs, False) else tuple(obs)
    if memo is not None:
        if len(memo) > 4096:  # many shapes: keep the memo small
            memo.clear()
        memo[key] = out
    return out


def idle_pass(state: ClusterState, node: NodeState, config: KubeletConfig, now: int, *,
              profile: Profile, trace: Trace | None = None) -> PassResult | None:
    """The pass :func:`eviction_pass` would run now, computed cheaply, or None if it may differ.

    The caller guarantees that nothing the kubelet measures changed on ``node``
    since its last pass (no bind, unbind or usage update: the node is not
    dirty).  If that pass met no threshold and evicted nothing, this one
    observes the same signals, so it meets nothing, no threshold is timing or
    due, and local storage finds no pod to evict (the active pods are the same
    or fewer, each judged alone); only the held conditions may expire.  The
    manager's memory is updated exactly as the steps would update it, and with
    a trace the same entries are recorded.
    """
    st = manager_state(node)
    if not st.idle or st.config is not config or st.idle_node is not node.node:
        return None
    active = profile.active(PASS.name)
    if not default_steps(active):
        return None
    # conditions: no threshold met, so nothing is newly observed.
    period = config.pressure_transition_period
    held = {c: at for c, at in st.last_observed.items() if now - at < period}
    conditions = condition_order(held)
    st.first_observed = {}
    st.conditions = conditions
    # grace-period: nothing is due.
    st.thresholds_met = []
    # stale-stats: the same signals are observed now.
    last = st.last_obs_time
    for signal in st.idle_signals:
        last[signal] = now
    st.last_pass = now
    if trace is not None:
        name = node.name
        for step in _IDLE_CONTINUE:
            trace.add(step, name, "continue")
        trace.add("kubelet.eviction.pass.local-storage", name, "stop", "no threshold due")
    return PassResult(node.name, now, tuple(conditions))
