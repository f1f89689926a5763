"""The DynamicResources scheduler plugin (v1.35), as kruleset rules.

Extension points and their rules:

* PreEnqueue ``scheduler.preenqueue.DynamicResources``: every claim must
  exist, not be being deleted, and (template claims) be owned by the pod.
* PreFilter ``scheduler.prefilter.DynamicResources``: the same lookups, then
  each request's device class must exist; allocated claims are remembered
  with where they may be used, unallocated ones are to be allocated.
* Filter ``scheduler.filter.DynamicResources``: an allocated claim must allow
  the node; the unallocated ones must be allocatable there (first fit with
  backtracking, :mod:`.allocator`).  Rejections are
  UnschedulableAndUnresolvable, so preemption never tries such nodes.
  Allocator errors stop the attempt (:class:`SchedulingAborted`).
* PostFilter :func:`postfilter`: deallocate an allocated claim not usable on
  any node and held by nobody else, or say why not.
* Reserve + PreBind :func:`reserve`: write the allocations of the chosen node
  and add the pod to every claim's ``reservedFor`` before binding.

The per-cycle state lives in ``ctx.extra[CYCLE]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from ...model.dra import ALL
from ...model.objects import Pod
from ...model.state import NodeState
from ..engine import UNRESOLVABLE, Failure, Reads, TraceSink
from ..registry import rule
from ..registry import rulesets as _rulesets
from ..scheduler.defaults import (
    FILTER_DYNAMIC_RESOURCES,
    PREENQUEUE_DYNAMIC_RESOURCES,
    PREFILTER_DYNAMIC_RESOURCES,
    SCORE_DYNAMIC_RESOURCES,
)
from ..scheduler.dynamicresources import NO_CLAIMS, register_claims_postfilter, register_pod_claims
from ..scheduler.framework import (
    FILTERS,
    PREENQUEUE,
    PREFILTER,
    SCORES,
    PluginError,
    ScheduleContext,
)
from ..scheduler.paths import pod_shape
from ..scheduler.preemption.postfilter import POSTFILTER_MESSAGE
from ..scheduler.scores.normalize import normalized
from .allocator import (
    INVALID_POOLS,
    Allocation,
    AllocationError,
    ClaimInput,
    Outcome,
    Pool,
    allocate,
)
from .state import ClaimState, DraState, Written
from .state import pod_claim_states as _lookup

__all__ = [
    "CANNOT_ALLOCATE",
    "CYCLE",
    "FILTER_RULE",
    "PLUGIN",
    "RESERVED_FOR_MAX",
    "SchedulingAborted",
    "Cycle",
    "Written",
    "apply_deallocation",
    "explain_node",
    "postfilter",
    "reserve",
]

PLUGIN = "DynamicResources"
PREENQUEUE_RULE = PREENQUEUE_DYNAMIC_RESOURCES
PREFILTER_RULE = PREFILTER_DYNAMIC_RESOURCES
FILTER_RULE = FILTER_DYNAMIC_RESOURCES
SCORE_RULE = SCORE_DYNAMIC_RESOURCES
CYCLE = "dra.cycle"
DEALLOCATED = "dra.deallocated"
CANNOT_ALLOCATE = "cannot allocate all claims"
NOT_AVAILABLE = "resourceclaim not available on the node"
# resourceapi.ResourceClaimReservedForMaxSize in v1.
RESERVED_FOR_MAX = 256
_SOURCE = "seed 003 §8; pkg/scheduler/framework/plugins/dynamicresources (v1.35)"


class SchedulingAborted(PluginError):
    """A plugin error: the attempt stops, the pod stays pending with this message
    (in the preemption dry run: preemption stops with it)."""


class Cycle:
    """PreFilter's findings for one pod, read by Filter, PostFilter and Reserve."""

    __slots__ = ("dra", "claims", "allocated", "to_allocate", "unavailable", "results",
                 "key", "scored")

    def __init__(self, dra: DraState, claims: list[ClaimState]) -> None:
        self.dra = dra
        self.claims = claims
        self.allocated = [c for c in claims if c.allocation is not None]
        self.to_allocate = [c for c in claims if c.allocation is None]
        self.unavailable: set[int] = set()   # indexes into claims (for PostFilter)
        self.results: dict[str, list[Allocation]] = {}  # node -> allocations of to_allocate
        self.key = tuple(id(c.spec) for c in self.to_allocate)
        # Only prioritized lists score (the other nodes all score 0); v1.35's Score
        # also runs (and fails) for a pod with allocated and unallocated claims.
        self.scored = bool(self.to_allocate) and (bool(self.allocated) or any(
            r.first_available for c in self.to_allocate for r in c.spec.requests))


def _preenqueue(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    if not pod.resource_claims:
        return None
    _claims, err = _lookup(ctx.state.dra, pod)
    return Failure(err, UNRESOLVABLE) if err else None


def _prefilter(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    ctx.extra.pop(CYCLE, None)
    if not pod.resource_claims:
        return None
    dra: DraState | None = ctx.state.dra
    claims, err = _lookup(dra, pod)
    if err:
        return Failure(err, UNRESOLVABLE)
    assert dra is not None
    for cs in claims:
        if cs.allocation is not None:
            if pod.key not in cs.reserved_for and len(cs.reserved_for) >= RESERVED_FOR_MAX:
                return Failure("resourceclaim in use", UNRESOLVABLE)
            continue
        for req in cs.spec.requests:
            if req.first_available and not dra.gates["DRAPrioritizedList"]:
                return Failure(f"resource claim {cs.key}, request {req.name}: has subrequests, "
                               "but the DRAPrioritizedList feature is disabled", UNRESOLVABLE)
            for alt in req.first_available or (req,):
                name = req.name if alt is req else f"{req.name}/{alt.name}"
                if not alt.class_name:
                    raise SchedulingAborted(f"request {name}: unsupported request type")
                if alt.class_name not in dra.classes:
                    return Failure(f"request {name}: device class {alt.class_name} does not "
                                   "exist", UNRESOLVABLE)
    ctx.extra[CYCLE] = Cycle(dra, claims)
    return None


def _prepare(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod) -> bool:
    # PreFilter answered Skip for a pod without claims: Filter does not run.
    return CYCLE in ctx.extra


def _filter(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
            node: NodeState) -> Failure | None:
    cyc: Cycle | None = ctx.extra.get(CYCLE)
    if cyc is None:
        return None
    name = node.name
    unavailable = [i for i, cs in enumerate(cyc.claims)
                   if cs.allocation is not None and not cs.allocation.allows(name, node.labels)]
    # v1.35 runs the allocator first: a node where the unallocated claims do
    # not fit says so, and its unavailable claims are not remembered.
    got = None
    if cyc.to_allocate:
        got = solve(cyc, node)
        if not isinstance(got, list):
            if ctx.trace is not None:
                _trace_devices(ctx.trace, cyc, pod, node)
            return Failure(got or CANNOT_ALLOCATE, UNRESOLVABLE)
    if unavailable:
        cyc.unavailable.update(unavailable)
        return Failure(NOT_AVAILABLE, UNRESOLVABLE)
    if isinstance(got, list):
        cyc.results[name] = got
    return None


# resourceapi.FirstAvailableDeviceRequestMaxSize: earlier alternatives score higher.
FIRST_AVAILABLE_MAX = 8


def _score(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, node: NodeState) -> int:
    cyc: Cycle | None = ctx.extra.get(CYCLE)
    if cyc is None:
        return 0
    got = cyc.results.get(node.name)
    if not got:
        return 0
    if len(cyc.claims) > len(got):
        # v1.35's Score pairs the allocation results (unallocated claims only)
        # with all of the pod's claims by position, and fails when a pod has
        # allocated and unallocated claims and several nodes are scored.
        raise SchedulingAborted(f'running Score plugins: plugin "{PLUGIN}" failed with: number '
                                f"of allocations {len(got)} is smaller than number of claims")
    score = 0
    for cs, alloc in zip(cyc.to_allocate, got, strict=True):
        served = {d.request for d in alloc.devices if "/" in d.request}
        for req in cs.spec.requests:
            for i, alt in enumerate(req.first_available):
                if f"{req.name}/{alt.name}" in served:
                    score += FIRST_AVAILABLE_MAX - i
    return score


def _filter_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState]
                ) -> list[Failure | None] | None:
    """``_filter`` on every node; the usual case (only unallocated claims) inline.

    Traced, a node that cannot hold the claims gets its explanation at the
    same point as ``_filter`` gives it.
    """
    cyc: Cycle | None = ctx.extra.get(CYCLE)
    if cyc is None:
        return None
    if cyc.allocated or not cyc.to_allocate:
        return [_filter(ctx, args, pod, n) for n in nodes]
    trace = ctx.trace
    dra = cyc.dra
    memo = dra.solutions
    versions = dra.pool_versions
    pools_for = dra.pools_for
    results = cyc.results
    key = cyc.key
    # One Failure for every node that cannot hold the claims (the search names it once).
    cannot = Failure(CANNOT_ALLOCATE, UNRESOLVABLE)
    invalid = Failure(INVALID_POOLS, UNRESOLVABLE)
    out: list[Failure | None] = []
    # Traced, the nodes that cannot hold the claims are explained together below
    # (nothing changes the devices in use until this returns).
    failed: list[tuple[NodeState, Any]] | None = (
        [] if trace is not None and hasattr(trace, "defer_groups") else None)
    for node in nodes:
        name = node.node.name
        pools = pools_for(name, node.labels)
        kept = memo.get((key, name))
        if kept is not None and kept[1] is pools and kept[0] == tuple(
                [versions.get((p.driver, p.name), 0) for p in pools]):
            got = kept[2]
        else:
            got = solve(cyc, node)
            kept = memo.get((key, name))
        if not isinstance(got, list):
            if failed is not None:
                failed.append((node, kept))
            elif trace is not None:
                _trace_devices(trace, cyc, pod, node)
            out.append(cannot if got is None else invalid)
        else:
            results[name] = got
            out.append(None)
    if failed:
        _trace_failed(ctx.trace, cyc, pod, failed)
    return out


def _score_all(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState]
               ) -> list[int]:
    cyc: Cycle | None = ctx.extra.get(CYCLE)
    if cyc is None or not cyc.scored:
        return [0] * len(nodes)
    return [_score(ctx, args, pod, n) for n in nodes]


def _kept(dra: DraState, memo_key: Any, node: NodeState
          ) -> tuple[list[Pool], tuple[int, ...], Any]:
    """The node's pools, their versions now, and the entry ``dra.solutions`` keeps
    under ``memo_key`` if it was kept for these pools at these versions (else None);
    the value is the entry's last item (itself None for "no allocation")."""
    pools = dra.pools_for(node.name, node.labels)
    versions = dra.pool_versions
    stamp = tuple([versions.get((p.driver, p.name), 0) for p in pools])
    kept = dra.solutions.get(memo_key)
    if kept is not None and kept[0] == stamp and kept[1] is pools:
        return pools, stamp, kept
    return pools, stamp, None


def solve(cyc: Cycle, node: NodeState, note: Any = None,
          names: Sequence[str] | None = None) -> Outcome:
    """Allocate the cycle's unallocated claims on ``node``; raises :class:`SchedulingAborted`.

    Results are kept per (claim specs, node) while the devices in use stay
    the same: pods of one template ask the same question of each node.
    ``names`` stand for the claims' names in what ``note`` hears.
    """
    dra = cyc.dra
    memo_key = (cyc.key, node.name)
    pools, stamp, kept = _kept(dra, memo_key, node)
    if note is None and kept is not None:
        return kept[2]  # type: ignore[no-any-return]
    if names is None:
        names = [c.key for c in cyc.to_allocate]
    inputs = [ClaimInput(k, c.spec) for k, c in zip(names, cyc.to_allocate, strict=True)]
    try:
        got = allocate(inputs, pools, dra.classes, dra.in_use, dra.evaluator, note,
                       dra.selectable)
    except AllocationError as exc:
        raise SchedulingAborted(f'running "{PLUGIN}" filter plugin: {exc}') from None
    if note is None:
        dra.solutions[memo_key] = (stamp, pools, got)
    return got


def _trace_devices(trace: TraceSink, cyc: Cycle, pod: Pod, node: NodeState) -> None:
    """Traced runs (``--explain``) note which request passed over which device, and why.

    The lines are recorded as one deferred group where the trace takes one:
    a node that cannot hold a template's claims is explained for each of its
    pods, and the lines are only written out when the trace is read.
    """
    subject = f"{pod.key} on {node.name}"
    text = _explained(cyc, node)
    if text is not None and hasattr(trace, "defer"):
        if text:
            keys = tuple([cs.key for cs in cyc.to_allocate])
            trace.defer(text.count("\x01") + 1, partial(_device_entries, subject, text, keys))
        return
    for line in explain_node(cyc, node):
        trace.add(FILTER_RULE, subject, "device passed over", line)


def _trace_failed(trace: Any, cyc: Cycle, pod: Pod,
                  nodes: Sequence[tuple[NodeState, Any]]) -> None:
    """:func:`_trace_devices` for each of ``nodes`` (each with its solution entry) in order.

    Consecutive explanations are one :meth:`~kruleset.rules.engine.Trace.defer_groups`
    item (one group per node, as :func:`_trace_devices` records them) of the
    nodes' names and kept texts, which the collector stops tracking: one
    partial per pod rather than one per node and pod.  A node whose
    explanation is an allocator error is recorded as :func:`_trace_devices`
    records it, between the groups before and after it.
    """
    keys = tuple([cs.key for cs in cyc.to_allocate])
    names: list[str] = []
    texts: list[str] = []
    for node, solution in nodes:
        text = _explained_for(cyc, node, solution)
        if text is None:
            _flush_failed(trace, pod.key, keys, names, texts)
            names, texts = [], []
            for line in explain_node(cyc, node):
                trace.add(FILTER_RULE, f"{pod.key} on {node.name}", "device passed over", line)
        elif text:
            names.append(node.name)
            texts.append(text)
    _flush_failed(trace, pod.key, keys, names, texts)


def _flush_failed(trace: Any, key: str, keys: tuple[str, ...], names: list[str],
                  texts: list[str]) -> None:
    if names:
        trace.defer_groups(tuple([t.count("\x01") + 1 for t in texts]),
                           partial(_node_entries, key, keys, tuple(names), tuple(texts)))


def _node_entries(key: str, keys: tuple[str, ...], names: tuple[str, ...],
                  texts: tuple[str, ...], i: int) -> list[tuple[str, str, str, str]]:
    """Group ``i`` of :func:`_flush_failed`'s item: node ``names[i]``'s explanation."""
    return _device_entries(f"{key} on {names[i]}", texts[i], keys)


def _device_entries(subject: str, text: str, keys: tuple[str, ...]
                    ) -> list[tuple[str, str, str, str]]:
    """The trace entries of one node's explanation (``text`` as :func:`_explained` keeps it)."""
    return [(FILTER_RULE, subject, "device passed over", line)
            for line in _named(text, keys).split("\x01")]


def _named(text: str, keys: Sequence[str]) -> str:
    for i, key in enumerate(keys):
        text = text.replace(f"\x00{i}\x00", key)
    return text


def explain_node(cyc: Cycle, node: NodeState) -> list[str]:
    """Why each device available to ``node`` was passed over for the cycle's claims."""
    if not cyc.to_allocate:
        return []
    text = _explained(cyc, node)
    if text is None:
        # An allocator error names the claim as it is: not kept with a placeholder.
        try:
            solve(cyc, node, lambda *_: None)
        except SchedulingAborted as exc:
            return [str(exc)]
        return []  # unreachable unless the error went away; nothing to explain
    if not text:
        return []
    return _named(text, [cs.key for cs in cyc.to_allocate]).split("\x01")


def _explained(cyc: Cycle, node: NodeState) -> str | None:
    """:func:`explain_node`'s lines joined by ``\\x01``, claims' names as placeholders.

    The lines depend on the claims' specs and the devices in use, not on the
    claims' names: they are kept with the solutions (see :func:`_explained_for`),
    so that a traced run does not run the allocator again for every pod of a
    template on every node that cannot hold it.  None: the allocator failed.
    """
    if not cyc.to_allocate:
        return ""
    _pools, _stamp, kept = _kept(cyc.dra, (cyc.key, node.name), node)
    if kept is None:
        try:
            solve(cyc, node)
        except SchedulingAborted:
            # Nothing kept to tie the lines to: explained afresh each time.
            return _explain_text(cyc, node, _pools)
        _pools, _stamp, kept = _kept(cyc.dra, (cyc.key, node.name), node)
        assert kept is not None
    return _explained_for(cyc, node, kept)


def _explained_for(cyc: Cycle, node: NodeState, solution: Any) -> str | None:
    """:func:`_explained` given the node's valid entry in ``dra.solutions``.

    The lines are kept beside that entry and hold while it is the one kept:
    solving and explaining read the same pools and devices in use, and a
    change to them replaces the entry.  A traced filter looking at many
    nodes thus finds each node's lines with one lookup.
    """
    dra = cyc.dra
    memo_key = (cyc.key, node.name, _EXPLAINED)
    kept = dra.solutions.get(memo_key)
    if kept is not None and kept[0] is solution:
        return kept[1]  # type: ignore[no-any-return]
    text = _explain_text(cyc, node, solution[1])
    dra.solutions[memo_key] = (solution, text)
    return text


def _explain_text(cyc: Cycle, node: NodeState, pools: Sequence[Any]) -> str | None:
    marks = [f"\x00{i}\x00" for i in range(len(cyc.to_allocate))]
    try:
        # One string, so that naming the claims is one replace per claim.
        return "\x01".join(_explain(cyc, node, pools, marks))
    except SchedulingAborted:
        return None


# Marks the explanations kept in ``DraState.solutions`` beside the solutions.
_EXPLAINED = "explained"


def _explain(cyc: Cycle, node: NodeState, pools: Sequence[Any], marks: list[str]) -> list[str]:
    """:func:`explain_node`'s lines with ``marks`` for the claims' names."""
    lines: list[str] = []

    def note(claim: str, request: str, device: str, why: str) -> None:
        line = f"claim {claim}, request {request}: {device}: {why}"
        if line not in lines:
            lines.append(line)

    got = solve(cyc, node, note, marks)
    if not pools:
        lines.append("no ResourceSlice offers devices to this node")
    for p in pools:
        if p.incomplete:
            lines.append(f"pool {p.id} incomplete")
        if p.duplicate:
            lines.append(f"pool {p.id} invalid: duplicate device name {p.duplicate}")
    if isinstance(got, list):
        for mark, alloc in zip(marks, got, strict=True):
            lines.append(f"claim {mark}: would get "
                         + ", ".join(d.id for d in alloc.devices))
    return lines


def postfilter(ctx: ScheduleContext, pod: Pod) -> str:
    """DynamicResources' PostFilter: deallocate a claim that pins the pod nowhere usable.

    Returns upstream's status message; a deallocated claim (upstream picks one
    of the unavailable claims at random, kruleset the first in the pod's
    order) lets the next attempt allocate afresh, and ``ctx.extra[DEALLOCATED]``
    tells the scheduler the cluster changed.
    """
    cyc: Cycle | None = ctx.extra.get(CYCLE)
    if cyc is None:
        return NO_CLAIMS
    for i in sorted(cyc.unavailable):
        cs = cyc.claims[i]
        if not cs.reserved_for or cs.reserved_for == [pod.key]:
            # Written through the API: the cycle's own later PostFilter plugins
            # (the preemption dry run) still see the claim allocated, as upstream's
            # do (its informer has not delivered the update yet).
            ctx.extra[DEALLOCATED] = (cyc.dra, cs)
            return "deallocation of ResourceClaim completed"
    return "still not schedulable"


def apply_deallocation(ctx: ScheduleContext) -> Written | None:
    """After the PostFilter run: clear the claim :func:`postfilter` deallocated, if any;
    the claim with its status before (its update is a queue event)."""
    done = ctx.extra.pop(DEALLOCATED, None)
    if done is None:
        return None
    dra, cs = done
    before = (cs, cs.allocation, tuple(cs.reserved_for))
    cs.reserved_for = []
    dra.set_allocation(cs, None)
    return before


def _claims_postfilter(ctx: ScheduleContext, args: Mapping[str, Any], request: Any) -> None:
    ctx.extra[POSTFILTER_MESSAGE] = postfilter(ctx, request.ps.pod)


register_claims_postfilter(_claims_postfilter)
register_pod_claims(lambda pod: pod.resource_claims)


def reserve(ctx: ScheduleContext, pod: Pod, node: NodeState) -> list[Written]:
    """Reserve + PreBind: allocate for ``node`` and add the pod to each claim's reservedFor;
    the claims whose status PreBind wrote, each with its status before."""
    cyc: Cycle | None = ctx.extra.get(CYCLE)
    if cyc is None:
        return []
    written: dict[str, Written] = {
        cs.key: (cs, cs.allocation, tuple(cs.reserved_for)) for cs in cyc.claims
        if cs.allocation is None or pod.key not in cs.reserved_for}
    if cyc.to_allocate:
        got: Outcome = cyc.results.get(node.name)
        if got is None:
            got = solve(cyc, node)
        assert isinstance(got, list), "Reserve on a node the claims cannot be allocated on"
        for cs, alloc in zip(cyc.to_allocate, got, strict=True):
            cyc.dra.set_allocation(cs, alloc)
    for cs in cyc.claims:
        if pod.key not in cs.reserved_for:
            cs.reserved_for.append(pod.key)
    return list(written.values())


def all_mode(cs: ClaimState) -> bool:
    """Whether a claim has an All request (for reports)."""
    return any(r.mode == ALL for r in cs.spec.requests)


# Registered last, whoever imports this module first (the scheduler controller
# does, before the built-in rule modules may have loaded): rule order is filter order.
_rulesets()
rule(PREENQUEUE, PREENQUEUE_RULE,
      doc="A pod whose claims are missing, not yet created, being deleted or not its own "
          "waits outside the active queue with the plugin's message.",
      source=_SOURCE + " PreEnqueue")(_preenqueue)
rule(PREFILTER, PREFILTER_RULE,
      doc="Claims are looked up again; every request of an unallocated claim needs an "
          "existing device class; allocated claims pin the pod to where they may be used.",
      source=_SOURCE + " PreFilter")(_prefilter)
rule(FILTERS, FILTER_RULE,
      doc="Allocated claims must allow the node; unallocated claims must all be allocatable "
          "on it from free devices (every request validated first, then first fit with full "
          "backtracking; a node whose pools include an invalid one says so).",
      source=_SOURCE + " Filter; dynamic-resource-allocation/structured allocator "
             "(v1.35.4: Allocate, validateDeviceRequest, allocateOne, GatherPools)",
      prepare=_prepare, batch=_filter_all, reads=Reads("pods", pod_shape))(_filter)
rule(SCORES, SCORE_RULE,
      doc="Nodes where a prioritized list (firstAvailable) gets an earlier alternative score "
          "higher: 8 - i per claim request served by alternative i.",
      source=_SOURCE + " Score", weight=2, normalize=normalized, batch=_score_all)(_score)
