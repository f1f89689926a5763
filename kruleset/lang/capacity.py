"""How many pods a scenario may declare: the memory-aware guard of large clusters.

A ``pods`` range names at most :data:`~kruleset.lang.values.MAX_RANGE`
pods, and a scenario may hold many ranges (one per node, typically): a
GKE-size cluster of a million pods is about 66,000 lines.  What bounds a
scenario is memory: a declared running pod costs about 2 KiB once the
cluster is built (measured on the GKELoad benchmark, 65,000 nodes and
1,000,000 pods: about 2 GiB at its peak).  Every :data:`CHECK_EVERY` pods
declared, the memory the system still has available is compared with what
the next ones will need, and the scenario is refused with a clear message
while the machine still has room, rather than ending in the out-of-memory
killer.  Where the system does not say (no ``/proc/meminfo``), nothing is
checked.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BYTES_PER_POD", "CHECK_EVERY", "available_memory", "memory_refusal"]

# What one declared pod costs once simulated (the pod, its state, its
# decision, its index entries), with a margin over the ~2 KiB measured.
BYTES_PER_POD = 3 * 1024
# The guard looks at the machine once per this many pods declared.
CHECK_EVERY = 100_000
_MEMINFO = Path("/proc/meminfo")


def available_memory() -> int | None:
    """Bytes the system can still give (``MemAvailable``), or None when it does not say."""
    try:
        for line in _MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def memory_refusal(declared: int) -> str | None:
    """Why the scenario must stop at ``declared`` pods, or None while memory suffices.

    Called each time the count crosses a multiple of :data:`CHECK_EVERY`:
    the next :data:`CHECK_EVERY` pods and the simulation of those declared
    so far (twice the pods' own cost, a margin for the run's own state) must
    fit in what is available.
    """
    left = available_memory()
    if left is None:
        return None
    need = 2 * CHECK_EVERY * BYTES_PER_POD
    if left >= need:
        return None
    return (f"{declared:,} pods are declared so far and only {left / 2**20:,.0f} MiB of memory "
            f"is left, less than the next {CHECK_EVERY:,} would need to be simulated (about "
            f"{BYTES_PER_POD // 1024} KiB a pod, {need / 2**20:,.0f} MiB with the run's own "
            "state): declare fewer pods, or run on a machine with more memory")
