"""Eviction thresholds in force on a node, and when they are met (seed 001; 003 §12.3, §12.7).

Upstream: ``pkg/kubelet/eviction/helpers.go`` (``ParseThresholdConfig``'s
allocatable copy, ``UpdateContainerFsThresholds``, ``thresholdsMet``,
``mergeThresholds``) and ``pkg/kubelet/eviction/api/types.go``
(``GetThresholdQuantity``).  Parsing the flags is the language's job
(``KubeletConfig``); this module turns a config into the ordered list the
eviction manager works with.

* Hard thresholds (the defaults only when none were given: all-or-nothing),
  then soft ones; a threshold with a 0s grace period is hard in every respect.
* With ``enforce-node-allocatable`` containing ``pods``, every hard
  ``memory.available`` threshold is copied to ``allocatableMemory.available``.
* containerfs thresholds are always derived: from nodefs with one filesystem
  or with images and containers split, from imagefs with a dedicated imagefs;
  user-set containerfs thresholds are overwritten in place, missing ones
  appended, and a missing source gives an empty threshold that is never met.
* A percentage is ``float32(pct)/100`` applied as ``int64(float64(capacity) *
  float64(pct32))``, truncated; met means ``available < quantity``, strictly.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from kruleset.model.config import EvictionThreshold, KubeletConfig

__all__ = [
    "MEMORY_SIGNALS",
    "SIGNAL_CONDITION",
    "SIGNAL_RESOURCE",
    "by_identity",
    "effective_thresholds",
    "min_reclaim_quantity",
    "percentage_quantity",
    "threshold_quantity",
    "threshold_signals",
    "thresholds_met",
]

SIGNAL_RESOURCE: Mapping[str, str] = {
    "memory.available": "memory",
    "allocatableMemory.available": "memory",
    "nodefs.available": "ephemeral-storage",
    "nodefs.inodesFree": "inodes",
    "imagefs.available": "ephemeral-storage",
    "imagefs.inodesFree": "inodes",
    "containerfs.available": "ephemeral-storage",
    "containerfs.inodesFree": "inodes",
    "pid.available": "pids",
}
SIGNAL_CONDITION: Mapping[str, str] = {
    "memory.available": "MemoryPressure",
    "allocatableMemory.available": "MemoryPressure",
    "nodefs.available": "DiskPressure",
    "nodefs.inodesFree": "DiskPressure",
    "imagefs.available": "DiskPressure",
    "imagefs.inodesFree": "DiskPressure",
    "containerfs.available": "DiskPressure",
    "containerfs.inodesFree": "DiskPressure",
    "pid.available": "PIDPressure",
}
MEMORY_SIGNALS = frozenset({"memory.available", "allocatableMemory.available"})

Observations = Mapping[str, tuple[int, int]]  # signal -> (available, capacity)


def _f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


def percentage_quantity(pct: Fraction, capacity: int) -> int:
    """``pct`` (a percentage, 10 for 10%) of ``capacity`` as upstream computes it in float32/64."""
    p32 = _f32(_f32(float(pct)) / 100.0)  # float32(value) / 100, a float32 division
    return int(float(capacity) * p32)     # int64(float64(capacity) * float64(p32)) truncates


def threshold_quantity(t: EvictionThreshold, capacity: int) -> int:
    """The threshold's quantity against the signal's capacity (an empty threshold is 0)."""
    if t.quantity is not None:
        return t.quantity
    if t.percentage is not None:
        return percentage_quantity(t.percentage, capacity)
    return 0


def min_reclaim_quantity(t: EvictionThreshold, capacity: int) -> int:
    """The threshold's minimum reclaim against capacity (0 when none)."""
    if t.min_reclaim_quantity is not None:
        return t.min_reclaim_quantity
    if t.min_reclaim_percentage is not None:
        return percentage_quantity(t.min_reclaim_percentage, capacity)
    return 0


def thresholds_met(thresholds: Iterable[EvictionThreshold], obs: Observations,
                   enforce_min_reclaim: bool) -> list[EvictionThreshold]:
    """Thresholds whose signal reads below their quantity (plus min-reclaim when enforced).

    A threshold whose signal has no observation is never met.
    """
    out: list[EvictionThreshold] = []
    for t in thresholds:
        o = obs.get(t.signal)
        if o is None:
            continue
        available, capacity = o
        q = threshold_quantity(t, capacity)
        if enforce_min_reclaim:
            q += min_reclaim_quantity(t, capacity)
        if q > available:
            out.append(t)
    return out


def merge(a: Sequence[EvictionThreshold], b: Iterable[EvictionThreshold]
          ) -> list[EvictionThreshold]:
    """``a`` then the thresholds of ``b`` not already in it (upstream mergeThresholds)."""
    out = list(a)
    for t in b:
        if t not in out:
            out.append(t)
    return out


_CONTAINERFS = {"containerfs.available": "available", "containerfs.inodesFree": "inodesFree"}


_T = TypeVar("_T")
_R = TypeVar("_R")


def by_identity(cache: dict[int, tuple[Any, Any]], obj: _T, compute: Callable[[_T], _R]) -> _R:
    """``compute(obj)``, kept in ``cache`` per object (by identity; the object is kept so
    its id is not reused), for facts every node's pass asks of the few objects they share."""
    got = cache.get(id(obj))
    if got is not None and got[0] is obj:
        return got[1]  # type: ignore[no-any-return]
    if len(cache) > 256:  # objects of past simulations
        cache.clear()
    out = compute(obj)
    cache[id(obj)] = (obj, out)
    return out


# Per configuration object: every node's first pass asks, and most nodes share
# one configuration (a 65,000-node cluster computed the same tuple 65,000 times).
_EFFECTIVE: dict[int, tuple[Any, Any]] = {}
_SIGNALS: dict[int, tuple[Any, Any]] = {}


def effective_thresholds(config: KubeletConfig) -> tuple[EvictionThreshold, ...]:
    """Every threshold the eviction manager checks on a node with ``config``, in upstream order."""
    return by_identity(_EFFECTIVE, config, _effective_thresholds)


def threshold_signals(thresholds: tuple[EvictionThreshold, ...]) -> frozenset[str]:
    """The signals ``thresholds`` read (kept per tuple: nodes of one configuration share it)."""
    return by_identity(_SIGNALS, thresholds, lambda ts: frozenset(t.signal for t in ts))


def _effective_thresholds(config: KubeletConfig) -> tuple[EvictionThreshold, ...]:
    hard = config.effective_hard
    results: list[EvictionThreshold] = list(hard) + list(config.soft)
    if "pods" in config.enforce_node_allocatable and not any(
            t.signal == "allocatableMemory.available" for t in results):
        extra = [EvictionThreshold("allocatableMemory.available", t.quantity, t.percentage, 0,
                                   t.min_reclaim_quantity, t.min_reclaim_percentage)
                 for t in results if t.signal == "memory.available" and t.hard]
        results += extra
    return tuple(_containerfs(results, config.filesystems))


def _containerfs(ts: list[EvictionThreshold], filesystems: str) -> list[EvictionThreshold]:
    # Which filesystem the containerfs thresholds copy (UpdateContainerFsThresholds).
    source = "imagefs" if filesystems == "nodefs+imagefs" else "nodefs"
    found: dict[tuple[str, bool], EvictionThreshold] = {}
    for t in ts:
        if t.signal.startswith(source + "."):
            found[(t.signal.split(".", 1)[1], t.hard)] = t
    out = list(ts)
    for signal, kind in _CONTAINERFS.items():
        for hard in (True, False):
            src = found.get((kind, hard))
            if src is None:
                copy = EvictionThreshold(signal)  # empty: never met
            else:
                copy = EvictionThreshold(signal, src.quantity, src.percentage,
                                         0 if hard else src.grace_period,
                                         src.min_reclaim_quantity, src.min_reclaim_percentage)
            for i, t in enumerate(out):
                if t.signal == signal and t.hard == hard:
                    out[i] = copy  # a user-set containerfs threshold is overwritten
                    break
            else:
                out.append(copy)
    return out
