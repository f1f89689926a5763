"""PostFilter: what the scheduler does when no node fits (preemption).

The rule set ``scheduler.postfilter`` holds one rule per PostFilter plugin
(DefaultPreemption; CapacityScheduling when enabled).  Each rule function has
the signature ``fn(ctx, args, request) -> PostFilterResult | None`` and the
first enabled rule that returns a result decides, as upstream runs PostFilter
plugins until one succeeds.  ``None`` means "not eligible, keep any existing
nomination" (upstream's nil result).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kruleset.model.state import PodState
from kruleset.rules.registry import define_ruleset

from ..cycle import FitError, ScheduleContext

__all__ = [
    "POSTFILTER",
    "POSTFILTER_MESSAGE",
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
    """Run the enabled PostFilter plugins in order; the first non-``None`` result wins."""
    active = ctx.profile.active(POSTFILTER.name)
    request = PostFilterRequest(ps, fit_error)
    ctx.extra.pop(POSTFILTER_MESSAGE, None)
    result: PostFilterResult | None = None
    for a in active.rules:
        out = a.rule.fn(ctx, a.args, request)
        if ctx.trace is not None:
            ctx.trace.add(a.rule.name, ps.key, "result" if out is not None else "not eligible",
                          getattr(out, "message", "") or getattr(out, "nominated_node", "") or "")
        if out is None:
            continue
        result = attrs.evolve(out, plugin=out.plugin or a.rule.name)
        if result.nominated_node:
            return result
    return result
