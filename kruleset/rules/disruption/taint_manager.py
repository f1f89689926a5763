"""Taint-based eviction: node conditions as taints, and the NoExecute taint manager (seed 003 §6).

Upstream: ``pkg/controller/nodelifecycle`` (conditions to taints:
TaintNodesByCondition, and the not-ready / unreachable NoExecute taints),
``pkg/controller/tainteviction/taint_eviction.go`` (``processPodOnNode``,
``getMinTolerationTime``) and ``plugin/pkg/admission/defaulttolerationseconds``.

* MemoryPressure, DiskPressure and PIDPressure become the NoSchedule taints
  ``node.kubernetes.io/memory-pressure`` (…disk-pressure, …pid-pressure),
  which the scheduler's TaintToleration honours.  The memory-pressure
  toleration the documentation says non-BestEffort pods get is added by the
  PodTolerationRestriction admission plugin, which is not enabled by default,
  so it is not added here.
* A not-ready node gets ``node.kubernetes.io/not-ready`` with NoSchedule and
  NoExecute.
* DefaultTolerationSeconds gives a pod created through the API tolerations of
  not-ready and unreachable NoExecute for 300s unless it already tolerates
  them (a toleration with that key, or an empty key, and effect NoExecute or
  empty).
* The taint manager: a pod not tolerating every NoExecute taint of its node is
  deleted at once; otherwise at the smallest ``tolerationSeconds`` of the
  tolerations used (a toleration without one tolerates forever); an eviction
  already scheduled keeps its time; removing the taints cancels it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.selectors import Taint, Toleration

from ..context import Profiled, Unread
from ..registry import define_ruleset, rule

__all__ = [
    "CONDITION_TAINTS",
    "DEFAULT_TOLERATION_SECONDS",
    "NOT_READY",
    "TAINT_MANAGER",
    "UNREACHABLE",
    "default_toleration_changes",
    "default_tolerations",
    "min_toleration_seconds",
]

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_TOLERATION_SECONDS = 300
CONDITION_TAINTS: Mapping[str, Taint] = {
    "MemoryPressure": Taint("node.kubernetes.io/memory-pressure", "", "NoSchedule"),
    "DiskPressure": Taint("node.kubernetes.io/disk-pressure", "", "NoSchedule"),
    "PIDPressure": Taint("node.kubernetes.io/pid-pressure", "", "NoSchedule"),
}
NOT_READY_TAINTS = (Taint(NOT_READY, "", "NoSchedule"), Taint(NOT_READY, "", "NoExecute"))
TAINT_MESSAGE = "Taint manager: deleting due to NoExecute taint"
TAINT_REASON = "TaintManagerEviction"

TAINT_MANAGER = define_ruleset(
    "kubelet.taint-manager", "pipeline",
    "When the taint manager deletes a pod on a node with NoExecute taints: at once, later, "
    "or never.",
)


def default_tolerations(pod: Pod, seconds: int = DEFAULT_TOLERATION_SECONDS) -> Pod:
    """The pod as the DefaultTolerationSeconds admission plugin leaves it."""
    changes = default_toleration_changes(pod, seconds)
    # Pod.replace: attrs.evolve's result, cheaper (every pod created comes here).
    return pod.replace(**changes) if changes else pod


def default_toleration_changes(pod: Pod, seconds: int = DEFAULT_TOLERATION_SECONDS
                               ) -> dict[str, Any]:
    """What :func:`default_tolerations` sets on ``pod`` (``{}``: nothing); reads the
    tolerations only."""
    # Pods of one template share their tolerations tuple: one answer for all.
    tolerations = pod.tolerations
    got = _CHANGES.get((id(tolerations), seconds))
    if got is not None and got[0] is tolerations:
        return got[1]
    if len(_CHANGES) > 4096:
        _CHANGES.clear()
    changes = _toleration_changes(pod, seconds)
    _CHANGES[(id(tolerations), seconds)] = (tolerations, changes)
    return changes


# (id of a tolerations tuple, seconds) -> (that tuple, kept alive so the id stays
# its own, and the changes).  The changes are read, never modified, by callers.
_CHANGES: dict[tuple[int, int], tuple[tuple[Toleration, ...], dict[str, Any]]] = {}


def _toleration_changes(pod: Pod, seconds: int) -> dict[str, Any]:
    not_ready = unreachable = False
    for t in pod.tolerations:
        if t.effect in ("", "NoExecute"):
            if t.key in (NOT_READY, ""):
                not_ready = True
            if t.key in (UNREACHABLE, ""):
                unreachable = True
    if not_ready and unreachable:
        return {}
    return {"tolerations": pod.tolerations + _added(not_ready, unreachable, seconds)}


_ADDED: dict[tuple[bool, bool, int], tuple[Toleration, ...]] = {}


def _added(not_ready: bool, unreachable: bool, seconds: int) -> tuple[Toleration, ...]:
    """The tolerations DefaultTolerationSeconds adds (frozen, so shared between pods)."""
    key = (not_ready, unreachable, seconds)
    hit = _ADDED.get(key)
    if hit is None:
        extra: list[Toleration] = []
        if not not_ready:
            extra.append(Toleration(NOT_READY, "Exists", "", "NoExecute", seconds))
        if not unreachable:
            extra.append(Toleration(UNREACHABLE, "Exists", "", "NoExecute", seconds))
        hit = _ADDED[key] = tuple(extra)
    return hit


def min_toleration_seconds(used: Sequence[Toleration]) -> int | None:
    """The smallest tolerationSeconds (negative counts as 0); None: tolerated forever."""
    best: int | None = None
    for t in used:
        if t.toleration_seconds is None:
            continue
        s = max(t.toleration_seconds, 0)
        if best is None or s < best:
            best = s
    return best


@attrs.frozen(slots=True)
class TaintDecision:
    """``delay`` ms until deletion (0: now), or None: the pod may stay."""

    delay: int | None
    why: str


@rule(TAINT_MANAGER, "kubelet.taint-manager.untolerated",
      doc="A NoExecute taint the pod does not tolerate deletes it at once.",
      source="seed 003 §6.3; taint_eviction.go processPodOnNode")
def _untolerated(ctx: Unread, args: Mapping[str, Any], subject: tuple[Pod, Sequence[Taint]]
                 ) -> Any:
    from ..engine import Stop

    pod, taints = subject
    for taint in taints:
        if not any(t.tolerates(taint) for t in pod.tolerations):
            return Stop(TaintDecision(0, f"untolerated taint {taint}"))
    return None


@rule(TAINT_MANAGER, "kubelet.taint-manager.toleration-seconds",
      doc="Otherwise the pod stays for the smallest tolerationSeconds of the tolerations used; "
          "without any it stays for good.",
      source="seed 003 §6.3, §6.5; taint_eviction.go getMinTolerationTime")
def _toleration_seconds(ctx: Unread, args: Mapping[str, Any],
                        subject: tuple[Pod, Sequence[Taint]]) -> Any:
    from ..engine import Stop

    pod, taints = subject
    used: list[Toleration] = []
    for taint in taints:
        for t in pod.tolerations:
            if t.tolerates(taint):
                used.append(t)
                break
    secs = min_toleration_seconds(used)
    if secs is None:
        return Stop(TaintDecision(None, "tolerated without tolerationSeconds"))
    return Stop(TaintDecision(secs * 1000, f"tolerationSeconds {secs}"))


def decide(ctx: Profiled | None, pod: Pod, taints: Sequence[Taint]) -> TaintDecision:
    """The taint manager's decision for ``pod`` on a node with these NoExecute ``taints``."""
    from ..engine import Stop
    from ..profile import Profile

    if not taints:
        return TaintDecision(None, "no NoExecute taint")
    profile = getattr(ctx, "profile", None) or Profile.default()
    out = profile.active(TAINT_MANAGER.name).run(ctx, (pod, tuple(taints)), subject=pod.key)
    if isinstance(out, Stop) and isinstance(out.result, TaintDecision):
        return out.result
    return TaintDecision(None, "no rule decided")
