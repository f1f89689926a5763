"""Which pod the kubelet evicts first, per starved signal (seed 001; 003 §12.6).

Upstream: ``pkg/kubelet/eviction/helpers.go`` ``rankMemoryPressure``,
``rankPIDPressure``, ``rankDiskPressureFunc`` and ``buildSignalToRankFunc``.
Each is an ordering rule set applied with a stable sort (Go's sort is not
stable, but leaves lists of 12 or fewer in input order, which an upstream test
relies on):

* ``kubelet.eviction.rank.memory``: usage strictly above the memory request
  first, then lower priority, then larger ``usage - request``.  The QoS class
  is not consulted.
* ``kubelet.eviction.rank.disk`` / ``kubelet.eviction.rank.inodes``: usage of
  the resource above the pod's request for the *same* resource name first
  (pods request no inodes, so any inode use counts), then lower priority,
  then larger ``usage - ephemeral-storage request`` (the ephemeral-storage
  request is subtracted for inodes too).  What usage counts depends on the
  filesystem layout and the signal (see :func:`disk_stats`).
* ``kubelet.eviction.rank.pid``: lower priority, then more processes.

Upstream first sorts pods without stats to the front; in kruleset every pod
has stats (zero when no usage is declared), so that rule never decides and is
not listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kruleset.model.state import ClusterState, NodeState, PodState
from kruleset.rules.engine import Trace
from kruleset.rules.profile import Profile
from kruleset.rules.registry import define_ruleset, rule

from .signals import Layout, pod_disk_usage, pod_usage

__all__ = [
    "DISK",
    "INODES",
    "MEMORY",
    "PID",
    "RankContext",
    "disk_stats",
    "rank_pods",
    "ruleset_for",
]

MEMORY = define_ruleset("kubelet.eviction.rank.memory", "ordering",
                        "Eviction order under memory pressure (memory.available, "
                        "allocatableMemory.available).")
DISK = define_ruleset("kubelet.eviction.rank.disk", "ordering",
                      "Eviction order under disk-space pressure (*.available of a filesystem).")
INODES = define_ruleset("kubelet.eviction.rank.inodes", "ordering",
                        "Eviction order under inode pressure (*.inodesFree).")
PID = define_ruleset("kubelet.eviction.rank.pid", "ordering",
                     "Eviction order under PID pressure (pid.available).")


class RankContext:
    """What ranking rules see: the node, the starved signal and what its usage counts."""

    __slots__ = ("state", "node", "signal", "stats", "trace", "profile")

    def __init__(self, state: ClusterState | None, node: NodeState | None, signal: str,
                 stats: frozenset[str] = frozenset(), trace: Trace | None = None,
                 profile: Profile | None = None) -> None:
        self.state = state
        self.node = node
        self.signal = signal
        self.stats = stats
        self.trace = trace
        self.profile = profile or Profile.default()


def disk_stats(signal: str, lay: Layout) -> frozenset[str]:
    """The pod stats a disk signal ranks by: ``root``, ``logs``, ``volumes``, ``images``."""
    fs = signal.split(".")[0]
    every = frozenset({"images", "root", "logs", "volumes"})
    if not lay.dedicated_imagefs:
        return every
    if not lay.split:
        if fs == "nodefs":
            return frozenset({"logs", "volumes"})
        return frozenset({"root", "images"})  # imagefs and containerfs
    if fs == "imagefs":
        return frozenset({"images"})
    return frozenset({"logs", "volumes", "root"})  # nodefs and containerfs


def _disk_usage(ctx: RankContext, ps: PodState) -> int:
    nodefs, writable, inodes = pod_disk_usage(ps)
    stats = ctx.stats
    if ctx.signal.endswith(".inodesFree"):
        # Pods' inodes are one number: they count when any per-pod stat is measured.
        return inodes if stats & {"root", "logs", "volumes"} else 0
    used = 0
    if "root" in stats:
        used += writable
    if stats & {"logs", "volumes"}:
        used += nodefs
    return used  # images add nothing per pod


def _show_first(k: int) -> str:
    return "over requests" if k == 0 else "within requests"


# --- memory ------------------------------------------------------------------------

@rule(MEMORY, "kubelet.eviction.rank.memory.exceeds-requests",
      doc="Pods using more memory than they request come first.",
      source="seed 003 §12.6; helpers.go exceedMemoryRequests", describe=_show_first)
def _mem_exceeds(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    return 0 if pod_usage(ps).get("memory", 0) > ps.pod.requests.memory else 1


@rule(MEMORY, "kubelet.eviction.rank.memory.priority",
      doc="Then lower priority first (no priority counts as 0).",
      source="seed 003 §12.6; helpers.go priority", describe=lambda k: f"priority {k}")
def _mem_priority(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.pod.effective_priority


@rule(MEMORY, "kubelet.eviction.rank.memory.usage-over-requests",
      doc="Then the larger memory usage minus request first (it may be negative).",
      source="seed 003 §12.6; helpers.go memory", describe=lambda k: f"usage-request {-k}")
def _mem_usage(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    return -(pod_usage(ps).get("memory", 0) - ps.pod.requests.memory)


# --- disk and inodes -----------------------------------------------------------------

def _disk_exceeds(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    # Compared with the request for the same resource name: pods request no inodes.
    request = 0 if ctx.signal.endswith(".inodesFree") else ps.pod.requests.ephemeral_storage
    return 0 if _disk_usage(ctx, ps) > request else 1


def _disk_priority(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.pod.effective_priority


def _disk_usage_over(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    # The ephemeral-storage request is subtracted even when ranking inodes (upstream).
    return -(_disk_usage(ctx, ps) - ps.pod.requests.ephemeral_storage)


for _rs, _what in ((DISK, "disk"), (INODES, "inodes")):
    rule(_rs, f"kubelet.eviction.rank.{_what}.exceeds-requests",
         doc=f"Pods whose {_what} usage exceeds their request for it come first.",
         source="seed 003 §12.6; helpers.go exceedDiskRequests",
         describe=_show_first)(_disk_exceeds)
    rule(_rs, f"kubelet.eviction.rank.{_what}.priority",
         doc="Then lower priority first.", source="seed 003 §12.6; helpers.go priority",
         describe=lambda k: f"priority {k}")(_disk_priority)
    rule(_rs, f"kubelet.eviction.rank.{_what}.usage-over-requests",
         doc=f"Then larger {_what} usage minus the ephemeral-storage request first.",
         source="seed 003 §12.6; helpers.go disk",
         describe=lambda k: f"usage-request {-k}")(_disk_usage_over)


# --- pids --------------------------------------------------------------------------

@rule(PID, "kubelet.eviction.rank.pid.priority",
      doc="Lower priority first.", source="seed 003 §12.6; helpers.go rankPIDPressure",
      describe=lambda k: f"priority {k}")
def _pid_priority(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.pod.effective_priority


@rule(PID, "kubelet.eviction.rank.pid.usage",
      doc="Then more processes first.", source="helpers.go process",
      describe=lambda k: f"pids {-k}")
def _pid_usage(ctx: RankContext, args: Mapping[str, Any], ps: PodState) -> int:
    return -pod_usage(ps).get("pids", 0)


def ruleset_for(signal: str) -> str:
    """The rank rule set of a signal."""
    if signal in ("memory.available", "allocatableMemory.available"):
        return MEMORY.name
    if signal == "pid.available":
        return PID.name
    if signal.endswith(".inodesFree"):
        return INODES.name
    return DISK.name


def rank_pods(state: ClusterState, node: str | NodeState, signal: str, *,
              filesystems: str = "nodefs", profile: Profile | None = None,
              pods: list[PodState] | None = None) -> list[PodState]:
    """Embed one ranking: ``node``'s pods (or ``pods``) in the order the kubelet evicts them
    for ``signal``.  Critical pods are ranked like any other (the manager skips them)."""
    ns = node if isinstance(node, NodeState) else state.nodes[node]
    lay = Layout(filesystems, ns)
    ctx = RankContext(state, ns, signal, disk_stats(signal, lay), None, profile)
    items = pods if pods is not None else [p for p in ns.pods.values() if not p.terminating]
    return ctx.profile.active(ruleset_for(signal)).sort(ctx, items)
