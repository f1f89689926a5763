"""The DynamicResources plugin's PostFilter, as far as pods without claims go.

v1.35's default profile has the DynamicResources plugin (DRA is GA), and its
PostFilter comes before DefaultPreemption's.  For a pod with no
ResourceClaims it does nothing but reject: ``no new claims to deallocate``
(Unschedulable), so the framework runs the next PostFilter plugin and joins
the rejection reasons of every plugin that ran with ``", "``.  A
FailedScheduling message therefore reads::

    0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate,
    preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.

(:func:`kruleset.rules.scheduler.preemption.postfilter.run_postfilter` does
the joining; a plugin that nominates a node ends the run and drops the reasons before it.)

When the cycle was rejected at PreFilter as UnschedulableAndUnresolvable by a
plugin ordered before DynamicResources (NodeAffinity's conflicting
``matchFields`` terms), the plugin's PreFilter never ran and its PostFilter
finds no cycle state: upstream ends the PostFilter run with the error text
``not found`` (no preemption is tried and any nomination stays).

Pods with claims are the DRA mechanism's business: a module that simulates
claims calls :func:`register_claims_postfilter` with its own PostFilter for
them, and :func:`register_pod_claims` with how to read a pod's claims.
Without those, every pod counts as having none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod

from ..engine import UNRESOLVABLE
from ..registry import rule
from .defaults import POSTFILTER_DYNAMIC_RESOURCES, PREFILTER_NODE_AFFINITY
from .framework import ScheduleContext
from .preemption.postfilter import (
    POSTFILTER,
    POSTFILTER_MESSAGE,
    POSTFILTER_STOP,
    PostFilterRequest,
    PostFilterResult,
)

__all__ = [
    "NO_CLAIMS",
    "PLUGIN",
    "register_claims_postfilter",
    "register_pod_claims",
]

PLUGIN = POSTFILTER_DYNAMIC_RESOURCES
NO_CLAIMS = "no new claims to deallocate"
# The error text of a PostFilter that finds no PreFilter state (upstream's cycle
# state lookup: "not found").
_NO_STATE = "not found"

ClaimsPostFilter = Callable[[ScheduleContext, Mapping[str, Any], PostFilterRequest],
                            "PostFilterResult | None"]
_hooks: dict[str, Any] = {}


def register_claims_postfilter(fn: ClaimsPostFilter) -> None:
    """Use ``fn(ctx, args, request)`` as the PostFilter for pods that have claims.

    It returns what a PostFilter rule returns (a result, or ``None`` with its
    reason left in ``ctx.extra[POSTFILTER_MESSAGE]``).
    """
    _hooks["postfilter"] = fn


def register_pod_claims(fn: Callable[[Pod], Sequence[Any]]) -> None:
    """Read a pod's ResourceClaims with ``fn`` (empty: the pod has none)."""
    _hooks["claims"] = fn


def _claims(pod: Pod) -> Sequence[Any]:
    read = _hooks.get("claims")
    return read(pod) if read is not None else ()


def _prefilter_never_ran(ctx: ScheduleContext, request: PostFilterRequest) -> bool:
    """Whether PreFilter stopped, unresolvable, before DynamicResources' own ran.

    Only NodeAffinity's PreFilter (before DynamicResources in every order a
    configuration can give) rejects that way.
    """
    pre = request.fit_error.prefilter
    return (pre is not None and pre.code == UNRESOLVABLE
            and pre.rule.startswith(PREFILTER_NODE_AFFINITY))


@rule(POSTFILTER, PLUGIN,
      doc="DynamicResources' PostFilter: a pod without ResourceClaims has no claim to "
          "deallocate, so it rejects with 'no new claims to deallocate' and the next "
          "PostFilter plugin (preemption) runs.",
      source="v1.35 pkg/scheduler/framework/plugins/dynamicresources PostFilter; "
             "framework runtime RunPostFilterPlugins")
def _dynamic_resources(ctx: ScheduleContext, args: Mapping[str, Any], request: PostFilterRequest
                       ) -> PostFilterResult | None:
    if _prefilter_never_ran(ctx, request):
        ctx.extra[POSTFILTER_MESSAGE] = _NO_STATE
        ctx.extra[POSTFILTER_STOP] = True
        return None
    pod = request.ps.pod
    if _claims(pod):
        handler: ClaimsPostFilter | None = _hooks.get("postfilter")
        if handler is not None:
            return handler(ctx, args, request)
    ctx.extra[POSTFILTER_MESSAGE] = NO_CLAIMS
    return None
