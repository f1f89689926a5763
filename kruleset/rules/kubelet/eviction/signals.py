"""Eviction signals of a node, computed from its pods' usage and its other consumption.

Seed 003 §12.2; upstream ``pkg/kubelet/eviction/helpers.go``
``makeSignalObservations``.  Each signal is ``(available, capacity)``:

* ``memory.available``: memory capacity minus the pods' memory usage minus
  the node's other consumption;
* ``allocatableMemory.available``: allocatable memory (the pods cgroup)
  minus the pods' memory usage (minus other consumption set for that signal);
* filesystem signals per physical filesystem, following the layout
  (``filesystems``): without an imagefs every signal reads nodefs; with a
  dedicated imagefs, containerfs reads imagefs, which holds writable layers
  and images; with images and containers split, containerfs holds the
  writable layers (it is the node's root filesystem unless the node declares
  a ``containerfs`` size).  Pods' ``ephemeral-storage`` (logs, local volumes)
  and disk-backed emptyDir usage are on nodefs, ``writable-layer`` on the
  writable filesystem; unused images and dead containers occupy the image and
  writable filesystems until node-level reclaim frees them; pods' inodes are
  counted on nodefs;
* ``pid.available``: pid-max minus the pods' processes minus other use.

A filesystem whose size (or inode count) the node does not declare has no
observation, and a threshold with no observation is never met (upstream).
Available amounts never read below 0 (the kernel's counters are unsigned).

Per-node sums of pod usage are kept incrementally by :class:`UsageIndex`
(subscribed to binds and unbinds); ``usage pod`` updates go through
:func:`set_pod_usage`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.model.config import KubeletConfig
from kruleset.model.state import ClusterState, NodeState, PodState

__all__ = [
    "CONTAINER_USAGE",
    "DEFAULT_PID_MAX",
    "USAGE_KEYS",
    "Layout",
    "UsageIndex",
    "layout",
    "local_storage_pods",
    "node_sums",
    "observe",
    "pod_disk_usage",
    "pod_usage",
    "reclaimable",
    "set_node_signal",
    "set_pod_observed",
    "set_pod_usage",
    "usage_index",
]

#: ``PodState.extra`` key: container name -> {"logs": bytes, "rootfs": bytes}, from a
#: Summary API document (local-storage eviction of a container's limit reads it).
CONTAINER_USAGE = "kubelet.container-usage"
USAGE_KEYS = ("memory", "ephemeral-storage", "writable-layer", "inodes", "pids")
# The classic kernel default for /proc/sys/kernel/pid_max, used when a node
# declares no pid-max.
DEFAULT_PID_MAX = 32768

_SUMS = "kubelet.usage"          # node.extra key: per-node pod usage sums
_RECLAIM = "kubelet.reclaimable"  # node.extra key: images / dead containers left
_DIRTY = "kubelet.dirty"          # node.extra key: something changed since the last pass
_LOCAL = "kubelet.local-storage"  # node.extra key: bound pods local storage limits may evict


class Layout:
    """Which physical filesystem each fs signal reads, and where layers and images live."""

    __slots__ = ("fs_of", "writable", "images", "dedicated_imagefs", "split")

    def __init__(self, filesystems: str, node: NodeState) -> None:
        self.dedicated_imagefs = filesystems in ("nodefs+imagefs", "nodefs+imagefs+containerfs")
        self.split = filesystems == "nodefs+imagefs+containerfs"
        if not self.dedicated_imagefs:
            image, container = "nodefs", "nodefs"
        elif not self.split:
            image, container = "imagefs", "imagefs"
        else:
            image = "imagefs"
            container = "containerfs" if node.node.containerfs else "nodefs"
        self.images = image
        self.writable = container
        self.fs_of = {"nodefs": "nodefs", "imagefs": image, "containerfs": container}


def layout(config: KubeletConfig, node: NodeState) -> Layout:
    """The filesystem layout of ``node`` under ``config``."""
    return Layout(config.filesystems, node)


# (filesystems, whether the node has a containerfs) -> its Layout: a layout
# holds no state of its node, so the nodes of a cluster share a few.
_LAYOUTS: dict[tuple[str, bool], Layout] = {}


def shared_layout(config: KubeletConfig, node: NodeState) -> Layout:
    """:func:`layout`, one object for every node it is the same for."""
    key = (config.filesystems, bool(node.node.containerfs))
    lay = _LAYOUTS.get(key)
    if lay is None:
        lay = _LAYOUTS[key] = Layout(config.filesystems, node)
    return lay


def pod_usage(ps: PodState) -> Mapping[str, int]:
    """What the pod consumes now: ``usage pod`` updates, else what it was declared with."""
    return ps.usage if ps.usage else ps.pod.usage


def _emptydir_disk(ps: PodState) -> int:
    return sum(e.usage for e in ps.pod.emptydirs if not e.medium_memory)


def pod_disk_usage(ps: PodState) -> tuple[int, int, int]:
    """``(nodefs bytes, writable-layer bytes, inodes)`` of one pod."""
    u = pod_usage(ps)
    return (u.get("ephemeral-storage", 0) + _emptydir_disk(ps), u.get("writable-layer", 0),
            u.get("inodes", 0))


def node_sums(node: NodeState) -> dict[str, int]:
    """The node's running sums of its bound pods' usage (keys of :data:`USAGE_KEYS`)."""
    sums = node.extra.get(_SUMS)
    if sums is None:
        sums = node.extra[_SUMS] = dict.fromkeys(USAGE_KEYS, 0)
    return sums  # type: ignore[return-value]


def _add(node: NodeState, ps: PodState, sign: int) -> None:
    pod = ps.pod
    if pod.emptydirs or pod.limits.ephemeral_storage:
        node.extra[_LOCAL] = node.extra.get(_LOCAL, 0) + sign  # type: ignore[operator]
    u = pod_usage(ps)
    if not u and not ps.pod.emptydirs:
        # Nothing to add (most pods of a large declared cluster): the sums,
        # made on first read, stay what they are; the node is still re-measured.
        node.extra[_DIRTY] = True
        return
    sums = node_sums(node)
    sums["memory"] += sign * u.get("memory", 0)
    sums["ephemeral-storage"] += sign * (u.get("ephemeral-storage", 0) + _emptydir_disk(ps))
    sums["writable-layer"] += sign * u.get("writable-layer", 0)
    sums["inodes"] += sign * u.get("inodes", 0)
    sums["pids"] += sign * u.get("pids", 0)
    node.extra[_DIRTY] = True


class UsageIndex:
    """Keeps per-node usage sums in step with binds and unbinds (a state listener)."""

    def on_bind(self, state: ClusterState, ps: PodState) -> None:
        """A pod now holds its node: add its usage."""
        if not ps.usage and ps.pod.usage:
            ps.usage = dict(ps.pod.usage)
        if ps.node is not None:
            _add(state.nodes[ps.node], ps, 1)

    def on_unbind(self, state: ClusterState, ps: PodState) -> None:
        """A pod left its node: its usage is freed."""
        if ps.node is not None and ps.node in state.nodes:
            _add(state.nodes[ps.node], ps, -1)


def local_storage_pods(node: NodeState) -> int:
    """How many pods bound to ``node`` have an emptyDir or an ephemeral-storage limit.

    Terminating ones included: a pod counted here may be one local-storage
    eviction would judge, and with none the step can find nothing to evict.
    """
    return node.extra.get(_LOCAL, 0)  # type: ignore[return-value]


def usage_index(state: ClusterState) -> UsageIndex:
    """The state's usage index, subscribing one the first time."""
    for listener in state.listeners:
        if isinstance(listener, UsageIndex):
            return listener
    index = UsageIndex()
    state.subscribe(index)
    return index


def set_pod_usage(state: ClusterState, ps: PodState, values: Mapping[str, int]) -> None:
    """``usage pod REF KEY=Q …``: replace those keys of the pod's usage, keeping the sums right."""
    usage_index(state)
    node = state.nodes.get(ps.node) if ps.bound and ps.node is not None else None
    if node is not None:
        _add(node, ps, -1)
    merged = dict(pod_usage(ps))
    merged.update(values)
    ps.usage = merged
    if node is not None:
        _add(node, ps, 1)


def set_pod_observed(state: ClusterState, ps: PodState, values: Mapping[str, int],
                     emptydirs: Mapping[str, int]) -> None:
    """A Summary API pod entry: its usage replaced, and each named emptyDir's usage set.

    An emptyDir's usage is what its ``sizeLimit`` is checked against; it is
    part of the pod's object, so the pod's object is replaced (the sums kept right).
    """
    import attrs

    usage_index(state)
    node = state.nodes.get(ps.node) if ps.bound and ps.node is not None else None
    if node is not None:
        _add(node, ps, -1)
    if emptydirs and ps.pod.emptydirs:
        ps.pod = ps.pod.replace(emptydirs=tuple(
            attrs.evolve(e, usage=emptydirs.get(e.name, e.usage)) for e in ps.pod.emptydirs))
    merged = dict(pod_usage(ps))
    merged.update(values)
    ps.usage = merged
    if node is not None:
        _add(node, ps, 1)


def reclaimable(node: NodeState) -> dict[str, int]:
    """Bytes node-level reclaim can still free: ``images`` unused, ``containers`` dead."""
    r = node.extra.get(_RECLAIM)
    if r is None:
        r = node.extra[_RECLAIM] = {"images": node.node.images_unused,
                                    "containers": node.node.containers_dead}
    return r  # type: ignore[return-value]


def _fs_capacity(node: NodeState, fs: str) -> int | None:
    if fs == "nodefs":
        return node.node.capacity.ephemeral_storage or None
    if fs == "imagefs":
        return node.node.imagefs or None
    return node.node.containerfs or None


def _fs_key(fs: str, kind: str) -> str:
    return f"{fs}.{kind}"


def _fs_used(node: NodeState, lay: Layout, fs: str) -> int:
    sums = node_sums(node)
    rec = reclaimable(node)
    used = 0
    if fs == "nodefs":
        used += sums["ephemeral-storage"]
    if fs == lay.writable:
        used += sums["writable-layer"] + rec["containers"]
    if fs == lay.images:
        used += rec["images"]
    return used


def _canonical(signal: str, lay: Layout) -> str:
    """The signal of the physical filesystem ``signal`` reads (imagefs.* may read nodefs)."""
    fs, _, kind = signal.partition(".")
    if fs in lay.fs_of:
        return _fs_key(lay.fs_of[fs], kind)
    return signal


def _raw(node: NodeState, lay: Layout, signal: str) -> tuple[int, int] | None:
    """``(available before the node's other consumption, capacity)`` of a canonical signal."""
    sums = node_sums(node)
    if signal == "memory.available":
        cap = node.node.capacity.memory
        return cap - sums["memory"], cap
    if signal == "allocatableMemory.available":
        cap = node.node.allocatable.memory
        return cap - sums["memory"], cap
    if signal == "pid.available":
        cap = node.node.pid_max or DEFAULT_PID_MAX
        return cap - sums["pids"], cap
    fs, _, kind = signal.partition(".")
    if kind == "available":
        size = _fs_capacity(node, fs)
        if size is None:
            return None
        return size - _fs_used(node, lay, fs), size
    inodes = node.node.inodes.get(fs)
    if not inodes:
        return None
    used = sums["inodes"] if fs == "nodefs" else 0
    return inodes - used, inodes


def observe(node: NodeState, lay: Layout, signals: set[str] | frozenset[str] | None = None
            ) -> dict[str, tuple[int, int]]:
    """Observations ``signal -> (available, capacity)`` for ``signals`` (all when None)."""
    from .thresholds import SIGNAL_RESOURCE

    out: dict[str, tuple[int, int]] = {}
    other = node.usage
    for signal in signals if signals is not None else SIGNAL_RESOURCE:
        canon = _canonical(signal, lay)
        raw = _raw(node, lay, canon)
        if raw is None:
            continue
        available, cap = raw
        available -= other.get(canon, 0)
        out[signal] = (max(available, 0), cap)
    return out


def observation_key(node: NodeState, lay: Layout) -> tuple[Any, ...] | None:
    """Everything :func:`observe` reads of ``node`` under ``lay``, or None if it has usage.

    For a node none of whose pods reports usage and with no usage of its own
    (every node of a large declared cluster, typically), the observations
    depend only on its capacities, reclaimable bytes and layout: nodes with
    equal keys observe the same.  Kept beside :func:`_raw`, which it mirrors.
    """
    if node.usage:
        return None
    sums = node.extra.get(_SUMS)
    if sums is not None and any(sums.values()):  # type: ignore[attr-defined]
        return None
    n = node.node
    rec = node.extra.get(_RECLAIM)
    images, containers = ((rec["images"], rec["containers"]) if rec is not None  # type: ignore[index]
                          else (n.images_unused, n.containers_dead))
    return (lay.images, lay.writable, n.capacity.memory, n.allocatable.memory, n.pid_max,
            n.capacity.ephemeral_storage, n.imagefs, n.containerfs, images, containers,
            tuple(n.inodes.items()) if n.inodes else ())


def set_node_signal(node: NodeState, lay: Layout, signal: str, value: int) -> None:
    """``usage node NAME SIGNAL=Q``: set the node's other consumption so ``signal`` reads Q now.

    Later changes (evictions, reclaim) move the signal from there.
    """
    canon = _canonical(signal, lay)
    raw = _raw(node, lay, canon)
    if raw is None:
        # No capacity is declared for that filesystem: there is nothing to read.
        raise ValueError(f"node {node.name} has no {signal.split('.')[0]} to observe")
    node.usage[canon] = raw[0] - value
    node.extra[_DIRTY] = True


def is_dirty(node: NodeState) -> bool:
    """Whether something the kubelet measures changed since its last pass."""
    return bool(node.extra.get(_DIRTY, True))


def clear_dirty(node: NodeState) -> None:
    """Mark the node as seen by a pass."""
    node.extra[_DIRTY] = False
