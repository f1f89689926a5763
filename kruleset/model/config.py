"""Kubelet and scheduler configuration as the model sees it."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import attrs

from ..errors import NO_SPAN, Span

__all__ = [
    "SIGNALS",
    "EvictionThreshold",
    "KubeletConfig",
    "PluginSet",
    "SchedulerConfig",
    "DEFAULT_HARD_THRESHOLDS",
]

SIGNALS = (
    "memory.available",
    "allocatableMemory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "containerfs.available",
    "containerfs.inodesFree",
    "pid.available",
)


@attrs.frozen(slots=True)
class EvictionThreshold:
    """One eviction threshold ``signal<quantity`` or ``signal<pct%``.

    ``quantity`` is in the signal's unit (bytes, inodes, pids); ``percentage``
    is a Fraction of 100.  ``grace_period`` 0 makes it hard.
    ``min_reclaim_quantity`` / ``min_reclaim_percentage`` come from
    eviction-minimum-reclaim.
    """

    signal: str
    quantity: int | None = None
    percentage: Fraction | None = None
    grace_period: int = 0  # ms
    min_reclaim_quantity: int | None = None
    min_reclaim_percentage: Fraction | None = None
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)

    @property
    def hard(self) -> bool:
        """A threshold with no grace period is hard in every respect (upstream)."""
        return self.grace_period == 0


DEFAULT_HARD_THRESHOLDS: tuple[EvictionThreshold, ...] = (
    EvictionThreshold("memory.available", quantity=100 * 2**20),
    EvictionThreshold("nodefs.available", percentage=Fraction(10)),
    EvictionThreshold("nodefs.inodesFree", percentage=Fraction(5)),
    EvictionThreshold("imagefs.available", percentage=Fraction(15)),
    EvictionThreshold("imagefs.inodesFree", percentage=Fraction(5)),
)


@attrs.frozen(slots=True)
class KubeletConfig:
    """The eviction manager's settings for one node (or all nodes).

    ``hard`` / ``soft`` are the thresholds as the user wrote them (``None``:
    not given, so the upstream default applies to ``hard``).
    """

    hard: tuple[EvictionThreshold, ...] | None = None
    soft: tuple[EvictionThreshold, ...] = ()
    max_pod_grace_period: int = 0                 # ms
    pressure_transition_period: int = 300_000     # ms (5m)
    housekeeping_interval: int = 10_000           # ms
    # nodefs | nodefs+imagefs | nodefs+imagefs+containerfs
    filesystems: str = "nodefs"
    enforce_node_allocatable: tuple[str, ...] = ("pods",)
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)

    @property
    def effective_hard(self) -> tuple[EvictionThreshold, ...]:
        """The hard thresholds in force: the defaults unless any were given."""
        return DEFAULT_HARD_THRESHOLDS if self.hard is None else self.hard


def _frozen_map(m: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(m or {}))


@attrs.frozen(slots=True)
class PluginSet:
    """Enabled and disabled plugins for one extension point (``*`` disables all defaults)."""

    enabled: tuple[tuple[str, int | None], ...] = ()  # (name, weight)
    disabled: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class SchedulerConfig:
    """A KubeSchedulerConfiguration profile, as far as kruleset uses it.

    ``plugins`` maps an extension point (``filter``, ``score``, ``postFilter``,
    ``preFilter``, ``reserve``, ``queueSort``, …, and ``multiPoint``) to its
    :class:`PluginSet`; ``plugin_args`` maps a plugin name to its args as
    written in pluginConfig.
    """

    scheduler_name: str = "default-scheduler"
    plugins: Mapping[str, PluginSet] = attrs.field(factory=dict, converter=_frozen_map)
    plugin_args: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict,
                                                                converter=_frozen_map)
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    source: str = ""  # the file it came from, for explanations
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)
