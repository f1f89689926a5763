"""OOM score adjust the kubelet gives each container (seed 003 §12.8).

Upstream: ``pkg/kubelet/qos/policy.go`` ``GetContainerOOMScoreAdjust``.

* node-critical pods (critical, and priorityClassName ``system-node-critical``:
  the class *name* decides) get -997;
* Guaranteed -997, BestEffort 1000;
* Burstable ``1000 - (1000 * memoryRequest) / memoryCapacity`` in int64
  arithmetic with truncating division, a sidecar (an init container with
  restartPolicy Always) capped at the score of the regular container with the
  smallest memory request, then clamped to [3, 999]: below 3 gives 3 (the
  document's ``max(2, …)`` is upstream's older bound; upstream wins), exactly
  1000 gives 999.

Pod-level resources (``spec.resources``) are not modelled, so their share of
the unassigned pod request is not added.
"""

from __future__ import annotations

from kruleset.model.objects import BEST_EFFORT, GUARANTEED, Container, Pod

__all__ = [
    "BESTEFFORT_OOM_SCORE_ADJ",
    "GUARANTEED_OOM_SCORE_ADJ",
    "KUBELET_OOM_SCORE_ADJ",
    "oom_score_adj",
]

KUBELET_OOM_SCORE_ADJ = -999
GUARANTEED_OOM_SCORE_ADJ = -997
BESTEFFORT_OOM_SCORE_ADJ = 1000


def _go_div(a: int, b: int) -> int:
    """int64 division truncating toward zero, as Go does."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _find(pod: Pod, name: str | None) -> Container:
    if name is None:
        if len(pod.containers) != 1:
            raise ValueError(f"pod {pod.key} has {len(pod.containers)} containers: name one")
        return pod.containers[0]
    for c in pod.containers + pod.init_containers:
        if c.name == name:
            return c
    raise KeyError(f"pod {pod.key} has no container {name!r}")


def oom_score_adj(pod: Pod, container_name: str | None = None,
                  memory_capacity: int = 0) -> int:
    """The oom_score_adj of one container of ``pod`` on a node with ``memory_capacity`` bytes.

    ``container_name`` None means the pod's only regular container (a
    ``ValueError`` if it has several); a name may be a regular or an init
    container.  ``memory_capacity`` is the node's memory capacity (not
    allocatable), as upstream passes ``machineInfo.MemoryCapacity``; it is only
    needed for Burstable pods.
    """
    container = _find(pod, container_name)
    if pod.node_critical:
        return GUARANTEED_OOM_SCORE_ADJ
    if pod.qos == GUARANTEED:
        return GUARANTEED_OOM_SCORE_ADJ
    if pod.qos == BEST_EFFORT:
        return BESTEFFORT_OOM_SCORE_ADJ
    if memory_capacity <= 0:
        raise ValueError("memory capacity must be positive")
    request = container.requests.memory
    adj = 1000 - _go_div(1000 * request, memory_capacity)
    if container.restart_always and container in pod.init_containers and pod.containers:
        # A sidecar must not be more killable than the regular container with
        # the smallest memory request.
        smallest = min(c.requests.memory for c in pod.containers)
        min_adj = 1000 - _go_div(1000 * smallest, memory_capacity)
        if adj > min_adj:
            adj = min_adj
    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ
    if adj == BESTEFFORT_OOM_SCORE_ADJ:
        return BESTEFFORT_OOM_SCORE_ADJ - 1
    return adj
