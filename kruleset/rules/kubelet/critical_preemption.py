"""Critical-pod admission preemption by the kubelet (seed 000).

Upstream: ``pkg/kubelet/preemption/preemption.go`` (``HandleAdmissionFailure``,
``evictPodsToFreeRequests``, ``getPodsToPreempt``,
``getPodsToPreemptByDistance``, ``distance``, ``smallerResourceRequest``) and
``pkg/kubelet/types/pod_update.go`` (``Preemptable``).

Victims are bucketed by QoS class, not by priority (upstream; an open PR
would change this and is not upstream): Guaranteed victims are solved first as
the minimum that must go if every BestEffort and Burstable pod went, then
Burstable, then BestEffort.  Within a class the greedy choice takes the pod
with the smallest distance (sum of squared missing fractions, float64), ties
to the smaller memory request, then the smaller cpu request, and on a full tie
the *later* pod scanned; a chosen pod is swap-removed, which reorders the
rest.  Pods free their requests (the pod count 1 each; a BestEffort pod frees
no cpu or memory).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import BEST_EFFORT, GUARANTEED, Pod

from ..context import Profiled, Unread
from ..engine import Stop
from ..registry import define_ruleset, rule

__all__ = [
    "PREEMPTABLE",
    "PREEMPT_MESSAGE",
    "PREEMPT_REASON",
    "PreemptionError",
    "Requirement",
    "distance",
    "pods_to_preempt",
    "pods_to_preempt_by_distance",
    "preemptable",
    "requirements_text",
    "subtract",
]

PREEMPT_REASON = "Preempting"          # events.PreemptContainer
PREEMPT_MESSAGE = "Preempted in order to admit critical pod"
DISRUPTION_MESSAGE = "Pod was preempted by Kubelet to accommodate a critical pod."

PREEMPTABLE = define_ruleset(
    "kubelet.preemption.preemptable", "pipeline",
    "Whether a critical pod being admitted may preempt a running pod (upstream Preemptable): "
    "the first rule that decides wins; no rule deciding means no.",
)


@attrs.frozen(slots=True)
class Requirement:
    """What admission is short of: ``quantity`` of ``resource`` (millicores, bytes, pods)."""

    resource: str
    quantity: int


class PreemptionError(Exception):
    """No set of pods can free the requirements (upstream's error text is the message)."""


@rule(PREEMPTABLE, "kubelet.preemption.preemptable.critical-over-non-critical",
      doc="A critical pod may preempt any non-critical pod, whatever their priorities.",
      source="seed 000; pkg/kubelet/types/pod_update.go Preemptable")
def _critical_over_non_critical(ctx: Unread, args: Mapping[str, Any],
                                pair: tuple[Pod, Pod]) -> Stop | None:
    preemptor, preemptee = pair
    if preemptor.critical and not preemptee.critical:
        return Stop(True, "critical preemptor, non-critical pod")
    return None


@rule(PREEMPTABLE, "kubelet.preemption.preemptable.strictly-higher-priority",
      doc="Otherwise only when both pods set a priority and the preemptor's is strictly higher.",
      source="pkg/kubelet/types/pod_update.go Preemptable")
def _strictly_higher(ctx: Unread, args: Mapping[str, Any], pair: tuple[Pod, Pod]) -> Stop:
    preemptor, preemptee = pair
    if preemptor.priority is not None and preemptee.priority is not None:
        ok = preemptor.priority > preemptee.priority
        return Stop(ok, f"priority {preemptor.priority} {'>' if ok else '<='} {preemptee.priority}")
    return Stop(False, "a priority is not set")


def preemptable(preemptor: Pod, preemptee: Pod, ctx: Profiled | None = None) -> bool:
    """Upstream ``Preemptable(preemptor, preemptee)`` under the default rules."""
    from ..profile import Profile

    profile = getattr(ctx, "profile", None) or Profile.default()
    out = profile.active(PREEMPTABLE.name).run(ctx, (preemptor, preemptee),
                                               subject=f"{preemptor.key} over {preemptee.key}")
    return isinstance(out, Stop) and bool(out.result)


def subtract(reqs: Sequence[Requirement], pods: Sequence[Pod]) -> list[Requirement]:
    """What is still missing once ``pods`` are gone (a met requirement drops out)."""
    out: list[Requirement] = []
    for r in reqs:
        q = r.quantity
        for p in pods:
            q -= p.requests.get(r.resource)
            if q <= 0:
                break
        if q > 0:
            out.append(Requirement(r.resource, q))
    return out


def distance(reqs: Sequence[Requirement], pod: Pod) -> float:
    """Sum over requirements of the squared fraction the pod leaves missing (float64)."""
    d = 0.0
    for r in reqs:
        remaining = float(r.quantity - pod.requests.get(r.resource))
        if remaining > 0:
            frac = remaining / float(r.quantity)
            d += frac * frac  # Go math.Pow(x, 2) rounds like x*x
    return d


def requirements_text(reqs: Sequence[Requirement]) -> str:
    """Upstream's ``[(res: cpu, q: 2550), ]`` rendering."""
    return "[" + "".join(f"(res: {r.resource}, q: {r.quantity}), " for r in reqs) + "]"


def _smaller_request(a: Pod, b: Pod) -> bool:
    # Memory first, then cpu; a full tie answers True (so the later pod wins).
    for name in ("memory", "cpu"):
        x, y = a.requests.get(name), b.requests.get(name)
        if x < y:
            return True
        if x > y:
            return False
    return True


def pods_to_preempt_by_distance(pods: Sequence[Pod], reqs: Sequence[Requirement]) -> list[Pod]:
    """The greedy minimal set of ``pods`` that frees ``reqs`` (upstream's scan and swap-remove)."""
    pool = list(pods)
    reqs = list(reqs)
    chosen: list[Pod] = []
    while reqs:
        if not pool:
            raise PreemptionError(
                f"no set of running pods found to reclaim resources: {requirements_text(reqs)}")
        best = float(len(reqs) + 1)
        best_i = 0
        for i, p in enumerate(pool):
            d = distance(reqs, p)
            if d < best or (d == best and _smaller_request(p, pool[best_i])):
                best, best_i = d, i
        pick = pool[best_i]
        reqs = subtract(reqs, [pick])
        chosen.append(pick)
        pool[best_i] = pool[-1]
        pool.pop()
    return chosen


def pods_to_preempt(preemptor: Pod, pods: Sequence[Pod], reqs: Sequence[Requirement],
                    ctx: Profiled | None = None) -> list[Pod]:
    """Victims in kill order: BestEffort, Burstable, Guaranteed (upstream getPodsToPreempt).

    Raises :class:`PreemptionError` when even every candidate together is not enough.
    """
    be: list[Pod] = []
    bu: list[Pod] = []
    gu: list[Pod] = []
    for p in pods:
        if not preemptable(preemptor, p, ctx):
            continue
        (be if p.qos == BEST_EFFORT else gu if p.qos == GUARANTEED else bu).append(p)
    left = subtract(reqs, be + bu + gu)
    if left:
        raise PreemptionError(
            f"no set of running pods found to reclaim resources: {requirements_text(left)}")
    g = pods_to_preempt_by_distance(gu, subtract(reqs, be + bu))
    b = pods_to_preempt_by_distance(bu, subtract(reqs, be + g))
    e = pods_to_preempt_by_distance(be, subtract(reqs, b + g))
    return e + b + g
