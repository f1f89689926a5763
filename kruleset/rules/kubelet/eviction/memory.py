"""What the eviction manager remembers of each node between passes.

:class:`EvictionState` is a node's memory (upstream's managerImpl fields for
that node); :class:`QuietMemory` is the memory a pass that met nothing
leaves, shared by every node of one shape until one needs a state of its own
(:func:`manager_state` makes it then).  Kept apart from the pass's steps
(:mod:`.manager`) so both the steps and the fast paths read it.
"""

from __future__ import annotations

import attrs

from kruleset.model.config import EvictionThreshold, KubeletConfig
from kruleset.model.state import NodeState

from .signals import Layout

__all__ = [
    "EvictionState",
    "QuietMemory",
    "compact",
    "manager_state",
    "peek_state",
    "remember_quiet",
    "shared_memory",
]


class EvictionState:
    """What the eviction manager remembers between passes on one node."""

    __slots__ = ("thresholds_met", "first_observed", "last_observed", "last_obs_time",
                 "conditions", "config", "thresholds", "layout", "last_pass",
                 "idle", "idle_signals", "idle_node")

    def __init__(self) -> None:
        self.thresholds_met: list[EvictionThreshold] = []
        self.first_observed: dict[EvictionThreshold, int] = {}
        self.last_observed: dict[str, int] = {}   # condition -> last time met
        self.last_obs_time: dict[str, int] = {}   # signal -> time of the last observation
        self.conditions: list[str] = []            # reported after the last pass
        self.config: KubeletConfig | None = None
        self.thresholds: tuple[EvictionThreshold, ...] = ()
        self.layout: Layout | None = None
        self.last_pass: int | None = None
        # Set by a pass that ran the default steps, met no threshold and evicted
        # nothing: the signals it observed and the node object it read.  While
        # nothing the kubelet measures changes, the next pass can only differ in
        # which held conditions expire (the fast path
        # :func:`~kruleset.rules.kubelet.eviction.fast_pass.idle_pass` relies on it).
        self.idle = False
        self.idle_signals: tuple[str, ...] = ()
        self.idle_node: object = None

    def quiet(self) -> bool:
        """Nothing is met, timing or held: a pass with no change would do nothing."""
        return not (self.thresholds_met or self.first_observed or self.conditions)


@attrs.frozen(slots=True)
class QuietMemory:
    """What a pass that met nothing leaves in the manager's memory, shared by many nodes.

    After a node's first pass that observed ``signals`` at ``time`` and met
    nothing, its manager remembers only that (and its configuration): a
    65,000-node cluster's first passes at 0s leave one such memory per node
    shape, each node holding it (and, apart, the node object the pass read)
    until something asks for its full state (:func:`manager_state` makes it
    then): no object per node.
    """

    config: KubeletConfig
    thresholds: tuple[EvictionThreshold, ...]
    layout: Layout
    signals: tuple[str, ...]
    time: int

    @property
    def last_pass(self) -> int:
        """When the pass ran (as :attr:`EvictionState.last_pass`)."""
        return self.time

    def quiet(self) -> bool:
        """Nothing is met, timing or held (as :meth:`EvictionState.quiet`)."""
        return True

    def state(self, node: object) -> EvictionState:
        """The :class:`EvictionState` the pass left, on a node whose object was ``node``."""
        st = EvictionState()
        st.config, st.thresholds, st.layout = self.config, self.thresholds, self.layout
        st.last_obs_time = dict.fromkeys(self.signals, self.time)
        st.last_pass = self.time
        st.idle, st.idle_signals, st.idle_node = True, self.signals, node
        return st


_STATE = "kubelet.eviction"  # node.extra key: EvictionState or QuietMemory
_READ = "kubelet.eviction.read"  # node.extra key: the node object a QuietMemory's pass read


def manager_state(node: NodeState) -> EvictionState:
    """The node's eviction-manager state (created on first use)."""
    st = node.extra.get(_STATE)
    if st is None:
        st = node.extra[_STATE] = EvictionState()
    elif type(st) is QuietMemory:
        st = node.extra[_STATE] = st.state(node.extra.pop(_READ))
    return st  # type: ignore[return-value]


def peek_state(node: NodeState) -> EvictionState | QuietMemory | None:
    """The node's manager memory as kept, for reading ``last_pass`` and ``quiet()`` only."""
    return node.extra.get(_STATE)  # type: ignore[return-value]


# (config, layout, signals, time) by identity -> the QuietMemory nodes share.
_SHARED: dict[tuple[int, int, tuple[str, ...], int], QuietMemory] = {}


def compact(node: NodeState) -> None:
    """Keep the node's memory as a shared :class:`QuietMemory` if that is all it holds.

    After a pass that met nothing on a node that remembered nothing (a traced
    first pass, which runs every step), the manager's state is what a
    QuietMemory makes again on demand; 65,000 nodes' states of their own
    were hundreds of thousands of objects for the collector to walk.
    """
    st = node.extra.get(_STATE)
    if (type(st) is not EvictionState or not st.idle or st.thresholds_met
            or st.first_observed or st.last_observed or st.conditions
            or st.idle_node is not node.node or st.config is None or st.layout is None
            or st.last_pass is None):
        return
    signals, time = st.idle_signals, st.last_pass
    if list(st.last_obs_time.items()) != [(s, time) for s in signals]:
        return
    remember_quiet(node, shared_memory(st.config, st.thresholds, st.layout, signals, time))


def shared_memory(config: KubeletConfig, thresholds: tuple[EvictionThreshold, ...],
                  layout: Layout, signals: tuple[str, ...], time: int) -> QuietMemory:
    """The one :class:`QuietMemory` of these objects (by identity), signals and time."""
    key = (id(config), id(layout), signals, time)
    memory = _SHARED.get(key)
    if (memory is None or memory.config is not config or memory.layout is not layout
            or memory.thresholds is not thresholds):
        if len(_SHARED) > 256:  # memories of past simulations and instants
            _SHARED.clear()
        memory = _SHARED[key] = QuietMemory(config, thresholds, layout, signals, time)
    return memory


def remember_quiet(node: NodeState, memory: QuietMemory) -> None:
    """Leave ``memory`` as the node's manager memory (its first pass met nothing)."""
    node.extra[_STATE] = memory
    node.extra[_READ] = node.node
