"""PostFilter: what the scheduler does when no node fits (preemption).

The rule set ``scheduler.postfilter`` holds one rule per PostFilter plugin
(DynamicResources, then DefaultPreemption, in v1.35's default profile;
CapacityScheduling when enabled).  Each rule function has the signature
``fn(ctx, args, request) -> PostFilterResult | None``.  As upstream's
``RunPostFilterPlugins``, the plugins run in order until one nominates a
node; each one that does not leaves a rejection reason (``result.message``,
or ``ctx.extra[POSTFILTER_MESSAGE]`` when it returns ``None``, "not
eligible, keep any existing nomination", upstream's nil result), and the
reasons are joined with ``", "`` into the text the FailedScheduling message
ends with.  A nomination drops the reasons (the message is the filters' alone).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kruleset.model.state import PodState
from kruleset.rules.registry import define_ruleset

from ..framework import FitError, ScheduleContext

__all__ = [
    "POSTFILTER",
    "POSTFILTER_ERROR",
    "POSTFILTER_MESSAGE",
    "POSTFILTER_STOP",
    "Candidate",
    "PostFilterRequest",
    "PostFilterResult",
    "run_postfilter",
]

POSTFILTER = define_ruleset(
    "scheduler.postfilter", "pipeline",
    "PostFilter plugins, tried in order until one makes the pod schedulable (preemption).",
)
# ctx.extra key: a plugin that returns None (not eligible) leaves upstream's status
# message here (e.g. "preemption: not eligible due to preemptionPolicy=Never."),
# which upstream appends to the FailedScheduling message.
POSTFILTER_MESSAGE = "scheduler.postfilter.message"
# ctx.extra key: set by a plugin whose failure is an error, which ends the
# PostFilter run at once (upstream returns a non-rejection status).
POSTFILTER_STOP = "scheduler.postfilter.stop"
# ctx.extra key: set with POSTFILTER_STOP by a plugin that failed with an error:
# upstream's RunPostFilterPlugins returns that status alone, so the reasons of
# the plugins before it are dropped from the message.
POSTFILTER_ERROR = "scheduler.postfilter.error"


@attrs.frozen(slots=True)
class PostFilterRequest:
    """What a PostFilter plugin gets: the pod and why every node failed."""

    ps: PodState
    fit_error: FitError


@attrs.frozen(slots=True)
class Candidate:
    """A node where preemption would make the pod fit, with its victims."""

    node: str
    victims: tuple[PodState, ...]
    num_pdb_violations: int = 0
    reprieved: tuple[PodState, ...] = ()
    details: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class PostFilterResult:
    """The outcome of preemption for one pod.

    ``nominated_node`` is the node chosen, or ``""`` when no candidate was
    found (which clears an earlier nomination).  ``victims`` are the pods to
    delete; ``message`` is upstream's ``preemption: …`` text when it failed;
    ``candidates`` and ``decided_by`` explain the choice.
    """

    nominated_node: str
    victims: tuple[PodState, ...] = ()
    message: str = ""
    candidates: tuple[Candidate, ...] = ()
    decided_by: str = ""
    plugin: str = ""
    clear_nominations: tuple[PodState, ...] = ()  # lower-priority pods losing their nomination
    eligible: bool = True  # False only from embedding APIs: the pod may not preempt now


def run_postfilter(ctx: ScheduleContext, ps: PodState, fit_error: FitError
                   ) -> PostFilterResult | None:
    """Run the enabled PostFilter plugins in order until one nominates a node.

    Returns that plugin's result, else the last result any plugin returned
    (``None`` if none did) with ``message`` set to the plugins' joined
    rejection reasons; the same text is left in ``ctx.extra[POSTFILTER_MESSAGE]``
    (``""`` after a nomination).
    """
    active = ctx.profile.active(POSTFILTER.name)
    request = PostFilterRequest(ps, fit_error)
    extra = ctx.extra
    reasons: list[str] = []
    result: PostFilterResult | None = None
    for a in active.rules:
        extra.pop(POSTFILTER_MESSAGE, None)
        extra.pop(POSTFILTER_STOP, None)
        extra.pop(POSTFILTER_ERROR, None)
        out = a.rule.fn(ctx, a.args, request)
        if ctx.trace is not None:
            verdict = ("result" if out is not None else
                       "error" if extra.get(POSTFILTER_ERROR) else "not eligible")
            ctx.trace.add(a.rule.name, ps.key, verdict,
                          getattr(out, "message", "") or getattr(out, "nominated_node", "")
                          or extra.get(POSTFILTER_MESSAGE, ""))
        if out is None:
            reason = extra.get(POSTFILTER_MESSAGE, "")
        else:
            result = attrs.evolve(out, plugin=out.plugin or a.rule.name)
            if result.nominated_node:
                extra[POSTFILTER_MESSAGE] = ""
                return result
            reason = result.message
        if extra.pop(POSTFILTER_ERROR, False):
            reasons = []
        if reason:
            reasons.append(reason)
        if extra.pop(POSTFILTER_STOP, False):
            break
    joined = ", ".join(reasons)
    extra[POSTFILTER_MESSAGE] = joined
    if result is not None and result.message != joined:
        result = attrs.evolve(result, message=joined)
    return result
