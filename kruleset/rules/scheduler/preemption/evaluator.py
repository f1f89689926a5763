"""One preemption evaluator for every PostFilter that preempts (upstream's ``Evaluator``).

Upstream (``pkg/scheduler/framework/preemption/preemption.go``) runs the same
steps for every plugin that preempts, ``Evaluator.Preempt``, and lets the
plugin answer the questions that differ through ``preemption.Interface``.
DefaultPreemption (:mod:`~kruleset.rules.scheduler.preemption.defaultpreemption`)
and scheduler-plugins' CapacityScheduling
(:mod:`~kruleset.rules.quota.capacity_scheduling`) are two such plugins here:

1. **eligibility** — :meth:`Preemptor.eligible` (``PodEligibleToPreemptOthers``);
   a refusal leaves its message and keeps any nomination;
2. **potential nodes** — :meth:`Preemptor.potential_nodes`
   (``nodesWherePreemptionMightHelp``: the nodes whose status is exactly
   Unschedulable, :func:`potential_nodes`);
3. **how many candidates** — :meth:`Preemptor.offset_and_num_candidates`
   (``GetOffsetAndNumCandidates``);
4. **dry run** — :func:`dry_run_preemption` (``DryRunPreemption``): the one
   loop over the potential nodes from the offset, each node through the
   plugin's ``SelectVictimsOnNode`` (:meth:`Preemptor.judge` gives it for the
   attempt, as a :class:`NodeJudge`), until enough candidates: the
   candidates in a :class:`DryRun`;
5. **no candidate** — :meth:`Preemptor.no_candidate_message`: the result
   nominates ``""`` (clearing an old nomination) with that message;
6. **pick** — :func:`~kruleset.rules.scheduler.preemption.pick.pick_candidate`
   with the pick rule set (``SelectCandidate`` and ``OrderedScoreFuncs``; neither
   plugin brings its own; a fast dry run may hand the pick over already, as
   :class:`Pick`), then the lower-priority pods nominated to the chosen node
   lose their nomination (``prepareCandidate``).

What else both plugins share is here too: the eligibility checks each
plugin's ``PodEligibleToPreemptOthers`` starts from (:func:`never_preempts`,
:func:`nominated_node_to_check`) and the reprieve loop of their
``SelectVictimsOnNode`` (:func:`reprieve`).  A plugin answers for one node at
a time; what it computes once per attempt (upstream keeps it in the
CycleState), how it records each node in the trace, and a fast path that
answers the whole dry run at once (DefaultPreemption's judgements kept across
cycles, :mod:`~kruleset.rules.scheduler.fast.dry_run`) are its
:class:`NodeJudge`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from kruleset.model.objects import NEVER
from kruleset.model.state import ClusterState, NodeState, PodState

from ...engine import UNRESOLVABLE, UNSCHEDULABLE, Failure
from ..framework import FitError, PluginError, ScheduleContext
from .pick import pick_candidate
from .postfilter import (
    POSTFILTER_ERROR,
    POSTFILTER_MESSAGE,
    POSTFILTER_STOP,
    Candidate,
    PostFilterResult,
)

__all__ = [
    "DryRun",
    "NodeJudge",
    "NodeVictims",
    "Pick",
    "Preemptor",
    "Reprieve",
    "SKIPPED",
    "lower_nominated",
    "never_preempts",
    "nominated_node_to_check",
    "potential_nodes",
    "candidate",
    "dry_run_preemption",
    "no_victim_error",
    "outcome",
    "preempt",
    "reprieve",
    "resolved_statuses",
]


class Visits(Protocol):
    """Traced, from the cache: a dry run's visited nodes as of its query, each part
    made only when the trace is read (the trace keeps one per preemptor)."""

    log: list[tuple[Any, ...]]  # the kept judgements, shared across cycles

    def own(self) -> Sequence[int]:
        """The places in ``log`` of the visited nodes' judgements, in visiting order."""

    def chosen(self) -> Sequence[int]:
        """The candidates' indexes among :meth:`own`, non-violating first."""

    def names(self) -> Sequence[str]:
        """The candidates' node names, in :meth:`chosen`'s order."""

    def keys(self) -> Sequence[tuple[int, ...]]:
        """The candidates' default pick keys, in :meth:`chosen`'s order."""


@attrs.frozen(slots=True)
class Pick:
    """The pick, when the dry run found it with the candidates (the default criteria).

    ``best`` is ``candidates[place]``; ``decided`` what :func:`pick_candidate`
    would say.
    """

    best: Candidate
    decided: str
    place: int


@attrs.frozen(slots=True)
class DryRun:
    """What the dry run found: candidates (non-violating first) and the other nodes' statuses."""

    candidates: tuple[Candidate, ...]
    statuses: Mapping[str, Failure]
    visited: int
    num_candidates: int
    # The pick, when a fast path found it with the candidates (or None).
    pick: Pick | None = None
    # Traced, from the cache: the kept judgements (a log shared across cycles), which
    # of them the visited nodes had, in order, and the candidates' places among those.
    visits: Visits | None = None


@attrs.frozen(slots=True)
class NodeVictims:
    """What a plugin's ``SelectVictimsOnNode`` found on a node that can take the pod.

    ``victims`` in the plugin's order (DefaultPreemption: most important
    first; CapacityScheduling: reprieve order); ``reprieved`` the potential
    victims that stay; ``violating`` the potential victims a PDB protects;
    ``why`` maps each victim's key to why the pod does not fit with it back.
    """

    node: str
    victims: tuple[PodState, ...]
    num_pdb_violations: int
    reprieved: tuple[PodState, ...]
    violating: frozenset[str]
    why: Mapping[str, str]


class NodeJudge(Protocol):
    """One attempt's ``SelectVictimsOnNode``, as the dry-run loop asks it.

    Made by :meth:`Preemptor.judge` once per attempt, holding what the plugin
    computes once (upstream's CycleState: the PDBs, the quota PreFilter
    state, the victim arithmetic's plan).
    """

    def whole(self, nodes: Sequence[NodeState], offset: int, wanted: int) -> DryRun | None:
        """The whole dry run, from a fast path that knows it without the loop; or None."""

    #: Whether :meth:`judged` wants the nodes that failed.
    records_failures: bool
    #: Whether :meth:`judged` wants the candidates.
    records_candidates: bool

    def select_victims_on_node(self, node: NodeState) -> NodeVictims | Failure | None | object:
        """The node's victims, or its failure (None: a failure a fast path leaves
        to :meth:`finish` to build; :data:`SKIPPED`: a fast path leaves the node out,
        no candidate there could change the pick)."""

    def judged(self, node: NodeState, got: Candidate | Failure) -> None:
        """Record a node's outcome as it is judged (see ``records_*``)."""

    def finish(self, run: DryRun) -> DryRun:
        """The dry run as the plugin hands it to the pick (and its trace)."""


class Preemptor(Protocol):
    """What a preempting plugin answers for the evaluator (upstream ``preemption.Interface``)."""

    @property
    def plugin(self) -> str:
        """The PostFilter rule's name (the result's ``plugin``, its trace entries' rule)."""

    def eligible(self, ctx: ScheduleContext, ps: PodState, fit: FitError) -> str | None:
        """``PodEligibleToPreemptOthers``: None, or the message a refusal leaves."""

    def potential_nodes(self, ctx: ScheduleContext, fit: FitError) -> Sequence[NodeState]:
        """The nodes preemption might help, in the scheduler's node order."""

    def offset_and_num_candidates(self, ctx: ScheduleContext, num_nodes: int) -> tuple[int, int]:
        """``GetOffsetAndNumCandidates``: where the dry run starts, how many it wants."""

    def judge(self, ctx: ScheduleContext, ps: PodState, fit: FitError, nodes: Sequence[NodeState]
              ) -> NodeJudge:
        """The plugin's ``SelectVictimsOnNode`` for this attempt's dry run."""

    def no_candidate_message(self, ctx: ScheduleContext, run: DryRun) -> str:
        """The result's message when no node can be helped."""

    def trace_choice(self, ctx: ScheduleContext, ps: PodState, best: Candidate, run: DryRun,
                     decided: str, clear: Sequence[PodState]) -> None:
        """Record the pick and the chosen node's victims (tracing on)."""


def preempt(ctx: ScheduleContext, preemptor: Preemptor, ps: PodState, fit: FitError
            ) -> PostFilterResult | None:
    """Upstream ``Evaluator.Preempt`` for ``ps`` after its cycle failed with ``fit``.

    ``None`` when the pod may not preempt now (its nomination stays; the reason
    is left in ``ctx.extra[POSTFILTER_MESSAGE]``).  Otherwise a
    :class:`PostFilterResult`: ``nominated_node == ""`` with the plugin's
    message when no node can be helped, else the chosen node, its victims, the
    candidates and the criterion that decided between them.
    """
    refusal = preemptor.eligible(ctx, ps, fit)
    if refusal is not None:
        ctx.extra[POSTFILTER_MESSAGE] = refusal
        return None
    nodes = preemptor.potential_nodes(ctx, fit)
    offset, wanted = preemptor.offset_and_num_candidates(ctx, len(nodes))
    try:
        run = dry_run_preemption(preemptor.judge(ctx, ps, fit, nodes), preemptor.plugin,
                                 nodes, offset, wanted)
    except PluginError as exc:
        # A filter's error in the dry run (DynamicResources' allocator): upstream's
        # DryRunPreemption returns it, Preempt reports it and nominates nobody.
        ctx.extra[POSTFILTER_MESSAGE] = f"preemption: {exc}"
        ctx.extra[POSTFILTER_ERROR] = ctx.extra[POSTFILTER_STOP] = True
        return None
    trace = ctx.trace
    if not run.candidates:
        # DefaultPreemption's Preempt returns the dry run's errors (an aggregate)
        # as its error status when no node is a candidate (CapacityScheduling's
        # preemptor words its own errors in its no-candidate message).
        errors = dry_run_errors(run) if getattr(preemptor, "errors_stop", False) else ""
        if errors:
            # With a candidate the errors are ignored.
            text = f"preemption: {errors}"
            ctx.extra[POSTFILTER_MESSAGE] = text
            ctx.extra[POSTFILTER_ERROR] = ctx.extra[POSTFILTER_STOP] = True
            return None
        message = preemptor.no_candidate_message(ctx, run)
        if trace is not None:
            trace.add(preemptor.plugin, ps.key, "no candidate", message)
        return PostFilterResult("", message=message, plugin=preemptor.plugin)
    if run.pick is not None:
        best, decided = run.pick.best, run.pick.decided
    else:
        found, decided = pick_candidate(ctx, run.candidates)
        assert found is not None
        best = found
    clear = lower_nominated(ctx.state, ps, best.node)
    if trace is not None:
        preemptor.trace_choice(ctx, ps, best, run, decided, clear)
    return PostFilterResult(best.node, best.victims, "", run.candidates, decided,
                            preemptor.plugin, clear)


# The code of a filter's error status (not a rejection) in the dry run.
ERROR = "Error"
# A node a fast dry run leaves out (no candidate there could change the pick).
SKIPPED: Any = object()


def dry_run_preemption(judge: NodeJudge, plugin: str, nodes: Sequence[NodeState],
                       offset: int, wanted: int) -> DryRun:
    """Upstream ``DryRunPreemption``: victims on ``nodes[(offset + i) % n]`` until enough.

    Non-violating and violating candidates go into two lists of capacity
    ``wanted``; a full list drops further candidates silently.  The search stops
    once there is a non-violating candidate and the two lists hold ``wanted``
    candidates together, so it looks past ``wanted`` nodes while only
    violating candidates were found.  A node whose selection succeeds with no
    victim is an ``Error`` status (upstream's ``expected at least one victim``).
    """
    whole = judge.whole(nodes, offset, wanted)
    if whole is not None:
        return judge.finish(whole)
    n = len(nodes)
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    failed: dict[str, Failure | None] = {}
    visited = 0
    # Bound once: the loop runs per potential node of every attempt.
    select = judge.select_victims_on_node
    on_failure = judge.judged if judge.records_failures else None
    on_candidate = judge.judged if judge.records_candidates else None
    for i in range(n):
        node = nodes[(offset + i) % n]
        visited += 1
        got = select(node)
        if got is SKIPPED:
            continue
        if got is None or isinstance(got, Failure):
            failed[node.name] = got
            if got is not None and on_failure is not None:
                on_failure(node, got)
            continue
        assert isinstance(got, NodeVictims)
        if not got.victims:
            failed[node.name] = no_victim_error(node.name, plugin)
            continue
        c = candidate(got)
        if on_candidate is not None:
            on_candidate(node, c)
        if got.num_pdb_violations == 0:
            if len(non_violating) < wanted:
                non_violating.append(c)
        elif len(violating) < wanted:
            violating.append(c)
        if non_violating and len(non_violating) + len(violating) >= wanted:
            break
    # A deferred failure (None) is built by the judge's finish.
    return judge.finish(DryRun(tuple(non_violating + violating),
                               failed, visited, wanted))  # type: ignore[arg-type]


def no_victim_error(node: str, plugin: str) -> Failure:
    """The status of a node whose selection succeeded without a victim (an error upstream)."""
    return Failure(f"expected at least one victim pod on node {node}", ERROR, plugin)


def outcome(found: NodeVictims | Failure | None, node: str, plugin: str
            ) -> Candidate | Failure | None:
    """What the dry run makes of one node's selection: a candidate or the node's status."""
    if found is None or isinstance(found, Failure):
        return found
    if not found.victims:
        return no_victim_error(node, plugin)
    return candidate(found)


def candidate(found: NodeVictims) -> Candidate:
    """The dry run's candidate for what victim selection found on a node."""
    return Candidate(found.node, found.victims, found.num_pdb_violations, found.reprieved,
                     {"violating": found.violating, "why": found.why})


def dry_run_errors(run: DryRun) -> str:
    """The dry run's error statuses as upstream's ``utilerrors.NewAggregate`` prints
    them: distinct texts in node order, ``[a, b]`` when more than one."""
    found = resolved_statuses(run)
    texts: list[str] = []
    for f in found.values():
        if f is not None and f.code == ERROR and f.reason not in texts:
            texts.append(f.reason)
    if len(texts) > 1:
        return "[" + ", ".join(texts) + "]"
    return texts[0] if texts else ""


def resolved_statuses(run: DryRun) -> Mapping[str, Failure | None]:
    """The dry run's statuses with every deferred failure built (a fast dry run may
    leave the exact failure of a node it knows is no candidate until read)."""
    statuses = run.statuses
    resolve = getattr(statuses, "resolve", None)
    return resolve() if resolve is not None else dict(statuses)


def potential_nodes(state: ClusterState, fit: FitError) -> list[NodeState]:
    """Nodes whose filter status is exactly Unschedulable, in the scheduler's node order.

    Upstream ``NodesForStatusCode(Unschedulable)``: UnschedulableAndUnresolvable
    nodes and nodes without a status (absent status: U&U) are never tried.
    """
    failures = fit.failures
    out = []
    for node in state.node_order():
        f = failures.get(node.name)
        if f is not None and f.code == UNSCHEDULABLE:
            out.append(node)
    return out


def lower_nominated(state: ClusterState, ps: PodState, node: str) -> tuple[PodState, ...]:
    """Upstream ``getLowerPriorityNominatedPods``: strictly lower priority, nominated there."""
    prio = ps.pod.effective_priority
    at = state.nominations.get(node)
    if not at:
        return ()
    return tuple(sorted((o for o in at.values()
                         if o is not ps and o.node is None and not o.gone
                         and o.pod.effective_priority < prio), key=_seq))


def _seq(ps: PodState) -> int:
    return ps.seq


# --- eligibility: what every plugin's PodEligibleToPreemptOthers starts from ----------------

def never_preempts(ctx: ScheduleContext, args: Mapping[str, Any], ps: PodState, fit: FitError
                   ) -> Failure | None:
    """A pod with preemptionPolicy Never never preempts (an eligibility rule of each plugin)."""
    if ps.pod.effective_preemption_policy == NEVER:
        return Failure("not eligible due to preemptionPolicy=Never.", UNSCHEDULABLE)
    return None


def nominated_node_to_check(ctx: ScheduleContext, ps: PodState, fit: FitError) -> NodeState | None:
    """The node a nominated pod's terminating victims are looked for on, or None.

    None when the pod is not nominated, when that node is gone, or when its
    status in the failed cycle is UnschedulableAndUnresolvable — upstream's
    ``NodeToStatus`` gives a node without a status that absent status too
    (seed 002's older code treated it as not eligible) — so preemption may
    run again.
    """
    name = ps.nominated
    if not name:
        return None
    status = fit.failures.get(name)
    if status is None or status.code == UNRESOLVABLE:
        return None
    node: NodeState | None = ctx.state.nodes.get(name)
    return node


# --- the reprieve loop of SelectVictimsOnNode ----------------------------------------------------

@attrs.frozen(slots=True)
class Reprieve:
    """The end of the reprieve loop: who goes, who stays, why, and the PDB violations."""

    victims: list[PodState]
    reprieved: list[PodState]
    why: dict[str, str]
    num_pdb_violations: int


def reprieve(violating: Sequence[PodState], fine: Sequence[PodState],
             back: Callable[[PodState], str | None], away: Callable[[PodState], None],
             veto: Callable[[PodState, str | None], str | Failure | None] | None = None
             ) -> Reprieve | Failure:
    """Put the potential victims back one at a time; those the pod cannot do without go.

    The PDB-violating pods first, then the others, each group most important
    first (upstream's ``reprieveVictim`` loops).  ``back(ps)`` puts ``ps``
    back on the node and says why the pod no longer fits (None: it fits);
    ``away(ps)`` takes it off again.  A pod that makes the pod not fit is a
    victim, a PDB violation if it is in ``violating``.  ``veto(ps, why)``
    (CapacityScheduling's quota checks) then may name a reason for a pod the
    fit kept to go all the same (not counted as a violation), or stop the
    node with a :class:`Failure`.
    """
    victims: list[PodState] = []
    reprieved: list[PodState] = []
    why: dict[str, str] = {}
    num_violations = 0
    for group, counts in ((violating, True), (fine, False)):
        for ps in group:
            why_not = back(ps)
            if why_not is not None:
                away(ps)
                victims.append(ps)
                why[ps.key] = why_not
                if counts:
                    num_violations += 1
            if veto is not None:
                vetoed = veto(ps, why_not)
                if isinstance(vetoed, Failure):
                    return vetoed
                if vetoed is not None:
                    away(ps)
                    victims.append(ps)
                    why[ps.key] = vetoed
                    continue
            if why_not is None:
                reprieved.append(ps)
    return Reprieve(victims, reprieved, why, num_violations)
