"""Scheduler preemption: the DefaultPreemption PostFilter (seed 002, seed 003 §11.4-§11.7).

When no node fits a pod, ``scheduler.postfilter.DefaultPreemption`` decides
whether evicting lower-priority pods would make room.  The steps are the
shared evaluator's (:mod:`kruleset.rules.scheduler.preemption.evaluator`,
upstream's ``Evaluator.Preempt`` in pkg/scheduler/framework/preemption);
:class:`DefaultPreemption` gives DefaultPreemption's answers:

1. **eligibility** (predicate rule set ``scheduler.preemption.eligibility``):
   preemptionPolicy Never never preempts; a pod nominated to a node where
   lower-priority pods are still terminating because the scheduler preempted
   them waits instead of preempting again, unless that node is now
   UnschedulableAndUnresolvable.  Not eligible: the rule returns ``None`` and
   any nomination stays;
2. **potential nodes**: only nodes whose filter status is exactly
   Unschedulable; UnschedulableAndUnresolvable nodes and nodes without a status
   are never tried;
3. **dry run** over a sample of them (minCandidateNodesPercentage /
   minCandidateNodesAbsolute; kruleset starts at the first node of the
   scheduler's node order instead of a random offset): victims per node
   (:mod:`kruleset.rules.scheduler.preemption.victims`), candidates kept in two capped
   lists (PDB-violating or not), stopping once there is a non-violating
   candidate and enough candidates;
4. **no candidate**: a result nominating ``""`` (clears an old nomination)
   with upstream's ``preemption: 0/N nodes are available: …`` message;
5. **pick** (ordering rule set ``scheduler.preemption.pick``,
   :mod:`kruleset.rules.scheduler.preemption.pick`) and the lower-priority pods nominated
   to the chosen node, which lose their nomination.

Carrying it out (victims deleted with their grace period, the preemptor
nominated) is the scheduler controller's job (``kruleset.sim.scheduler``).

Limitations upstream has and kruleset keeps (seed 003 §11.5): the pod's
inter-pod affinity to lower-priority pods is not taken into account (they are
removed before the fit check, so the node is not a candidate), and there is no
cross-node preemption (only pods on the candidate node are victims).

Embedding: :func:`preempt_for` answers "if this pod came now, what would
preemption do?" without a timeline.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

import attrs

from kruleset.errors import ScenarioError
from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, NodeState, PodState
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Trace, TraceSink
from kruleset.rules.profile import Profile
from kruleset.rules.registry import define_ruleset, rule

from .. import defaults
from ..cycle import FitError, ScheduleContext, fit_message, schedule_one
from ..defaults import POSTFILTER_DEFAULT_PREEMPTION
from .evaluator import (
    DryRun,
    NodeVictims,
    Visits,
    lower_nominated,
    never_preempts,
    nominated_node_to_check,
    potential_nodes,
    resolved_statuses,
)
from .evaluator import preempt as evaluate
from .pick import (
    PICK,
    decide,
    is_default,
    trace_others,
)
from .postfilter import (
    POSTFILTER,
    POSTFILTER_MESSAGE,
    Candidate,
    PostFilterRequest,
    PostFilterResult,
    run_postfilter,
)
from .victims import (
    VICTIMS,
    PdbBudget,
    VictimPredicate,
    pdb_budgets,
    select_victims_on_node,
)

__all__ = [
    "DEFAULT_ARGS",
    "ELIGIBILITY",
    "NOT_HELPFUL",
    "PLUGIN",
    "DefaultJudge",
    "DryRun",
    "lower_nominated",
    "num_candidates",
    "potential_nodes",
    "preempt",
    "preempt_for",
    "terminating_by_preemption",
    "validate_args",
]

PLUGIN = POSTFILTER_DEFAULT_PREEMPTION
NOT_HELPFUL = "Preemption is not helpful for scheduling"
DEFAULT_ARGS: Mapping[str, int] = defaults.DEFAULT_ARGS[PLUGIN]
_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

ELIGIBILITY = define_ruleset(
    "scheduler.preemption.eligibility", "predicate",
    "Whether a pod that fits nowhere may preempt now (upstream PodEligibleToPreemptOthers).",
)


# --- eligibility -----------------------------------------------------------------------------

def terminating_by_preemption(ps: PodState) -> bool:
    """Upstream ``podTerminatingByPreemption``: deleted, DisruptionTarget PreemptionByScheduler.

    A pod terminating for another reason (an eviction, a plain delete) does not
    count (older releases counted any terminating pod).
    """
    return ps.terminating and ps.conditions.get("DisruptionTarget") == _PREEMPTION_BY_SCHEDULER


rule(ELIGIBILITY, "scheduler.preemption.eligibility.preemption-policy",
     doc="A pod with preemptionPolicy Never never preempts (it still queues by priority).",
     source="seed 002 §1-§2; seed 003 §11.2; default_preemption.go "
            "PodEligibleToPreemptOthers")(never_preempts)


@rule(ELIGIBILITY, "scheduler.preemption.eligibility.nominated-node-terminating",
      doc="A pod nominated to a node where lower-priority pods it preempted are still terminating "
          "waits, unless that node is now UnschedulableAndUnresolvable.",
      source="seed 002 §2; seed 003 §11.4-§11.5; default_preemption.go "
             "PodEligibleToPreemptOthers, podTerminatingByPreemption")
def _nominated(ctx: ScheduleContext, args: Mapping[str, Any], ps: PodState, fit: FitError
               ) -> Failure | None:
    node = nominated_node_to_check(ctx, ps, fit)
    if node is None:
        return None
    prio = ps.pod.effective_priority
    for other in node.pods.values():
        if other.pod.effective_priority < prio and terminating_by_preemption(other):
            return Failure("not eligible due to a terminating pod on the nominated node.",
                           UNSCHEDULABLE, detail={"terminating": other.key})
    return None


# --- sampling -------------------------------------------------------------

def num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    """Upstream ``calculateNumCandidates``: ``clamp(n * pct // 100, >= absolute, <= n)``."""
    n = num_nodes * percentage // 100
    if n < absolute:
        n = absolute
    if n > num_nodes:
        n = num_nodes
    return n


def validate_args(args: Mapping[str, Any]) -> str | None:
    """Upstream ``ValidateDefaultPreemptionArgs``: the refusal, or ``None``."""
    pct = args.get("minCandidateNodesPercentage", DEFAULT_ARGS["minCandidateNodesPercentage"])
    absolute = args.get("minCandidateNodesAbsolute", DEFAULT_ARGS["minCandidateNodesAbsolute"])
    if not isinstance(pct, int) or isinstance(pct, bool) or not 0 <= pct <= 100:
        return "minCandidateNodesPercentage: Invalid value: not in valid range [0, 100]"
    if not isinstance(absolute, int) or isinstance(absolute, bool) or absolute < 0:
        return "minCandidateNodesAbsolute: Invalid value: not in valid range [0, inf)"
    if pct == 0 and absolute == 0:
        return ("minCandidateNodesPercentage and minCandidateNodesAbsolute: Invalid value: "
                "both cannot be zero")
    return None


# --- the dry run's SelectVictimsOnNode ----------------------------------------------------------

class DefaultJudge:
    """DefaultPreemption's ``SelectVictimsOnNode`` for one attempt's dry run (the
    evaluator's :class:`~kruleset.rules.scheduler.preemption.evaluator.NodeJudge`):
    :func:`~kruleset.rules.scheduler.preemption.victims.select_victims_on_node`
    node by node, the dry run traced as one group at its end."""

    def __init__(self, ctx: ScheduleContext, ps: PodState, nodes: Sequence[NodeState],
                 budgets: Sequence[PdbBudget], may_be_victim: VictimPredicate | None) -> None:
        self.ctx = ctx
        self.ps = ps
        self.nodes = nodes
        self.budgets = budgets
        self.may_be_victim = may_be_victim
        self.order = ctx.profile.active(VICTIMS.name)

    def whole(self, nodes: Sequence[NodeState], offset: int, wanted: int) -> DryRun | None:
        """None: the reference walks the nodes."""
        return None

    def select_victims_on_node(self, node: NodeState) -> NodeVictims | Failure | None:
        """:func:`~kruleset.rules.scheduler.preemption.victims.select_victims_on_node`."""
        return select_victims_on_node(self.ctx, self.ps.pod, node, self.budgets,
                                      may_be_victim=self.may_be_victim, order=self.order)

    # The dry run is traced as one group when it ends: nothing recorded per node.
    records_failures = False
    records_candidates = False

    def judged(self, node: NodeState, got: Candidate | Failure) -> None:
        """Nothing (see ``records_*``)."""

    def finish(self, run: DryRun) -> DryRun:
        """``run``, traced as one group."""
        if self.ctx.trace is not None:
            # Only a real Trace is on the context once the dry run ends.
            _trace_dry_run(cast(Trace, self.ctx.trace), self.ps, self.nodes, run)
        return run


# --- the PostFilter plugin -----------------------------------------------------------------------

@rule(POSTFILTER, PLUGIN,
      doc="Preempt lower-priority pods on one node so the pod fits there.",
      source="seed 002; seed 003 §11.4-§11.7; pkg/scheduler/framework/preemption "
             "Evaluator.Preempt, plugins/defaultpreemption",
      args=DEFAULT_ARGS)
def _default_preemption(ctx: ScheduleContext, args: Mapping[str, Any], request: PostFilterRequest
                        ) -> PostFilterResult | None:
    return preempt(ctx, request.ps, request.fit_error, args)


def preempt(ctx: ScheduleContext, ps: PodState, fit: FitError,
            args: Mapping[str, Any] = DEFAULT_ARGS, *, plugin: str = PLUGIN,
            may_be_victim: VictimPredicate | None = None,
            eligibility: str = ELIGIBILITY.name) -> PostFilterResult | None:
    """Upstream ``Evaluator.Preempt`` for ``ps`` after the cycle failed with ``fit``.

    ``None`` when the pod may not preempt now (its nomination stays; the reason,
    prefixed ``preemption: ``, is left in ``ctx.extra[POSTFILTER_MESSAGE]``).
    Otherwise a :class:`PostFilterResult`: ``nominated_node == ""`` with
    upstream's message when no node can be helped, else the chosen node, its
    victims, the candidates and the criterion that decided between them.
    ``may_be_victim`` and ``eligibility`` let another plugin reuse the pipeline.
    """
    error = validate_args(args)
    if error is not None:
        raise ScenarioError(f"DefaultPreemption args: {error}")
    return evaluate(ctx, DefaultPreemption(args, plugin, may_be_victim, eligibility), ps, fit)


@attrs.frozen(slots=True)
class DefaultPreemption:
    """DefaultPreemption's answers to the evaluator (upstream ``defaultpreemption`` Interface)."""

    args: Mapping[str, Any]
    plugin: str = PLUGIN
    may_be_victim: VictimPredicate | None = None
    eligibility: str = ELIGIBILITY.name
    # The dry run's errors, with no candidate, are the PostFilter's error status.
    errors_stop = True

    def eligible(self, ctx: ScheduleContext, ps: PodState, fit: FitError) -> str | None:
        """The eligibility rule set's first refusal, prefixed ``preemption: ``."""
        refusal = ctx.profile.active(self.eligibility).first_failure(ctx, ps, fit, subject=ps.key)
        return None if refusal is None else f"preemption: {refusal.reason}"

    def potential_nodes(self, ctx: ScheduleContext, fit: FitError) -> Sequence[NodeState]:
        """The nodes with an Unschedulable status (kept by the cycle cache when it has them)."""
        memo = ctx.memo
        kept = memo.potential_from(fit.failures) if memo is not None else None
        return kept or potential_nodes(ctx.state, fit)

    def offset_and_num_candidates(self, ctx: ScheduleContext, num_nodes: int) -> tuple[int, int]:
        """From the first node (upstream: a random offset), ``calculateNumCandidates``."""
        args = self.args
        return 0, num_candidates(num_nodes, int(args.get("minCandidateNodesPercentage", 10)),
                                 int(args.get("minCandidateNodesAbsolute", 100)))

    def judge(self, ctx: ScheduleContext, ps: PodState, fit: FitError, nodes: Sequence[NodeState]
              ) -> DefaultJudge:
        """:class:`DefaultJudge` over the PDBs' current status, or the form the fast
        paths chose (:mod:`~kruleset.rules.scheduler.fast.dry_run`: the cycle cache's,
        else the victim arithmetic's)."""
        budgets = pdb_budgets(ctx.state, ctx.now, ctx.fast)
        paths = ctx.paths
        make = paths.dry_run or paths.victim_judge or DefaultJudge
        return make(ctx, ps, nodes, budgets, self.may_be_victim)

    def no_candidate_message(self, ctx: ScheduleContext, run: DryRun) -> str:
        """``preemption: 0/N nodes are available: …``, nodes not dry-run as not helpful."""
        state = ctx.state
        found = resolved_statuses(run)
        unhelpful = Failure(NOT_HELPFUL, UNRESOLVABLE, self.plugin)
        statuses = {name: found.get(name) or unhelpful for name in state.nodes}
        return f"preemption: {fit_message(len(state.nodes), statuses)}"

    def trace_choice(self, ctx: ScheduleContext, ps: PodState, best: Candidate, run: DryRun,
                     decided: str, clear: Sequence[PodState]) -> None:
        """The pick, each other candidate, the victims and reprieved pods."""
        assert ctx.trace is not None  # called with tracing on
        _trace_choice(ctx, ctx.trace, ps, best, run, decided, clear)


# --- explanations ------------------------------------------------------------------------

def _keys(pods: Sequence[PodState]) -> str:
    return "[" + ", ".join(p.key for p in pods) + "]"


def _trace_dry_run(trace: Trace, ps: PodState, nodes: Sequence[NodeState], run: DryRun) -> None:
    # One deferred group: a dry run lists every potential node and candidate
    # (hundreds), and nothing read here changes afterwards (names, keys,
    # resolved failures, candidates).  A partial of plain values, not a
    # closure: the trace keeps one per preemptor until it is read.
    head = (len(nodes), nodes, run.num_candidates, run.visited)  # flat in the partial
    if run.visits is None:
        resolved = resolved_statuses(run)
        trace.defer(1 + len(resolved) + len(run.candidates), functools.partial(
            _dry_run_entries, ps.key, *head, resolved, run.candidates, None))
    else:
        # Kept judgements are exact and already read: the statuses know their number.
        trace.defer(1 + len(run.statuses) + len(run.candidates), functools.partial(
            _dry_run_entries, ps.key, *head, None, None, run.visits))


def _dry_run_entries(key: str, size: int, nodes: Sequence[NodeState], num_candidates: int,
                     visited: int,
                     statuses: Mapping[str, Any] | None,
                     candidates: Sequence[Candidate] | None,
                     visits: Visits | None
                     ) -> Iterator[tuple[str, str, str, str]]:
    yield (PLUGIN, key, "potential nodes",
           f"{size} node(s) failed only with Unschedulable: "
           f"{', '.join(n.name for n in nodes) or 'none'}; "
           f"{num_candidates} candidate(s) wanted, {visited} visited from the first")
    found: Iterable[tuple[str, Failure]] = statuses.items() if statuses is not None else ()
    listed: Iterable[Candidate] = candidates or ()
    if visits is not None:
        # Kept judgements are exact: each is a candidate or the node's failure.
        log, own = visits.log, visits.own()
        found = ((log[at][4], log[at][0]) for at in own if isinstance(log[at][0], Failure))
        listed = (log[own[i]][0] for i in visits.chosen())
    for name, f in found:
        yield "scheduler.preemption.victims", key, f"{name}: not a candidate", f.reason
    for c in listed:
        yield ("scheduler.preemption.victims", key, f"{c.node}: candidate",
               f"victims {_keys(c.victims)}, {c.num_pdb_violations} PDB violation(s), "
               f"reprieved {_keys(c.reprieved)}")


def _trace_choice(ctx: ScheduleContext, trace: TraceSink, ps: PodState, best: Candidate,
                  run: DryRun, decided: str, clear: Sequence[PodState]) -> None:
    pick = ctx.profile.active(PICK.name)
    candidates = run.candidates
    trace.add(PICK.name, ps.key, f"chose {best.node}", decided or "the only candidate")
    if (run.pick is not None and run.visits is not None and len(candidates) > 1
            and is_default(ctx, pick)):
        # The default criteria: each comparison follows from the two keys; the
        # candidates' names and keys are read from the dry run's visits when the
        # trace is.
        trace_others(trace, ps.key, len(candidates), run.visits, run.pick.place)
    else:
        for c in candidates:
            if c is not best:
                trace.add(PICK.name, ps.key, f"{c.node} not chosen",
                          decide(ctx, pick, best, c) or "tied")
    order = ctx.profile.active(VICTIMS.name)
    prio = ps.pod.effective_priority
    why: Mapping[str, str] = best.details.get("why", {})
    violating: frozenset[str] = best.details.get("violating", frozenset())
    for v in best.victims:
        kept = [(r.key, decide(ctx, order, v, r)) for r in best.reprieved]
        ahead = "; ".join(f"{key} kept: {d}" for key, d in kept if d)
        trace.add("scheduler.preemption.victims", v.key, f"victim of {ps.key} on {best.node}",
                  f"priority {v.pod.effective_priority} < {prio}; {ps.key} does not fit if it "
                  f"stays ({why.get(v.key, '')})"
                  + ("; it violates a PodDisruptionBudget" if v.key in violating else "")
                  + (f"; {ahead}" if ahead else ""))
    for r in best.reprieved:
        trace.add("scheduler.preemption.victims", r.key, f"reprieved on {best.node}",
                  f"{ps.key} still fits with it back (tried most important first"
                  + (", PDB-protected pods before the others)" if violating else ")"))
    for o in clear:
        trace.add(PLUGIN, o.key, "nomination cleared",
                  f"{ps.key} (priority {prio}) preempts on {best.node}, which was nominated "
                  f"for this lower-priority pod")


# --- embedding ------------------------------------------------------------------------------------

def preempt_for(state: ClusterState, pod: Pod | PodState, profile: Profile | None = None,
                *, trace: Trace | None = None) -> PostFilterResult:
    """What preemption would decide for ``pod`` in ``state`` now, without a timeline.

    ``pod`` is a :class:`Pod` not yet in the state (admitted for priority if
    its priority is not resolved yet) or one of its pending
    :class:`PodState`\\ s.  Nothing in ``state`` changes.  The result:

    * the pod fits a node already: ``nominated_node == ""``, no victims, and a
      message ``preemption is not needed: the pod fits node N``;
    * the pod may not preempt: ``eligible`` is False and the message says why;
    * no node can be helped: ``nominated_node == ""`` with upstream's message;
    * else the node, its victims, every candidate and ``decided_by``.

    Example::

        >>> from kruleset.model.objects import Container, Node, Pod
        >>> from kruleset.model.resources import Resources
        >>> from kruleset.model.state import ClusterState
        >>> st = ClusterState()
        >>> _ = st.add_node(Node("n1", Resources(cpu=2000, memory=4 << 30, pods=110)))
        >>> def pod(name, prio, cpu):
        ...     return Pod("default", name, (Container("c", Resources(cpu=cpu)),), priority=prio)
        >>> st.bind(st.add_pod(pod("low", 10, 1500)), "n1")
        >>> r = preempt_for(st, pod("high", 100, 1000))
        >>> r.nominated_node, [v.key for v in r.victims]
        ('n1', ['default/low'])
    """
    if isinstance(pod, PodState):
        ps = pod
    else:
        if pod.priority is None:
            from kruleset.rules.priority import admit_priority

            admitted = admit_priority(pod, state.priority_classes, profile)
            if isinstance(admitted, Failure):
                raise ValueError(admitted.reason)
            pod = admitted
        ps = PodState(pod, 1 << 62, state.now)
    ctx = ScheduleContext(state, profile or Profile.default(), trace, state.now)
    result = schedule_one(ctx, ps, advance=False)
    if result.node is not None:
        return PostFilterResult("", message=f"preemption is not needed: the pod fits node "
                                             f"{result.node}")
    assert result.fit_error is not None
    out = run_postfilter(ctx, ps, result.fit_error)
    if out is None:
        return PostFilterResult(ps.nominated or "", message=ctx.extra.get(POSTFILTER_MESSAGE, ""),
                                eligible=False)
    return out
