"""The CapacityScheduling PostFilter: elastic quota reclaim over the nodes (seed 004 §2-§4).

Upstream: ``capacity_scheduling.go`` ``PostFilter`` run by the scheduler's
preemption ``Evaluator``: eligibility, every node with an Unschedulable
status dry-run (:mod:`~kruleset.rules.quota.reclaim` holds the rules and one
node's victims, :mod:`~kruleset.rules.quota.fast_reclaim` the same as
arithmetic), then the pick.  Embedding: :func:`reclaim_victims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, NodeState, PodState

from ..engine import UNRESOLVABLE, Failure, Trace, TraceSink
from ..profile import Profile
from ..registry import rule
from ..scheduler.config import profile_for, register_plugin
from ..scheduler.cycle import FitError, ScheduleContext, fit_message, schedule_one
from ..scheduler.preemption.defaultpreemption import NOT_HELPFUL
from ..scheduler.preemption.evaluator import SKIPPED, DryRun, NodeVictims, potential_nodes
from ..scheduler.preemption.evaluator import preempt as evaluate
from ..scheduler.preemption.pick import (
    DEFAULT_PICK,
    PICK,
    PRIORITY_SHIFT,
    decide,
    decide_by_keys,
    default_pick_key,
    trace_not_chosen,
)
from ..scheduler.preemption.postfilter import (
    POSTFILTER,
    Candidate,
    PostFilterRequest,
    PostFilterResult,
)
from ..scheduler.preemption.victims import pdb_budgets
from .accounting import (
    QuotaView,
    quota_usage,
)
from .prefilter import (
    MAX_RULE,
    RESERVE_RULE,
    TOTAL_MIN_RULE,
    PreFilterState,
    prefilter_state,
)
from .reclaim import (
    ELIGIBILITY,
    PLUGIN,
    mode_text,
    select_victims_on_node,
    select_victims_with,
)

__all__ = ["reclaim", "reclaim_victims"]

# --- the PostFilter plugin --------------------------------------------------------------------

def reclaim(ctx: ScheduleContext, ps: PodState, fit: FitError) -> PostFilterResult | None:
    """Upstream ``Evaluator.Preempt`` with CapacityScheduling's preemptor, for ``ps``.

    ``None``: not eligible (the reason is left in ``ctx.extra[POSTFILTER_MESSAGE]``;
    any nomination stays).  Otherwise the chosen node and victims, or
    ``nominated_node == ""`` with the ``0/N nodes are available: …`` message.
    The steps are the shared evaluator's
    (:mod:`~kruleset.rules.scheduler.preemption.evaluator`); :class:`CapacityScheduling`
    gives the plugin's answers.
    """
    return evaluate(ctx, CapacityScheduling(), ps, fit)


class CapacityScheduling:
    """CapacityScheduling's answers to the evaluator (scheduler-plugins' preemptor).

    In a simulation with the default pick criteria, a node where even the best
    key a candidate could have loses to the runner-up so far is not dry-run
    (upstream dry-runs it; it could be neither chosen nor the runner-up, so
    the result is the same); the trace says ``<node>: not dry-run`` and which
    criterion the runner-up wins by.
    """

    plugin = PLUGIN

    def eligible(self, ctx: ScheduleContext, ps: PodState, fit: FitError) -> str | None:
        """The ``scheduler.quota.eligibility`` rules' first refusal, as it is (no prefix)."""
        refusal = ctx.profile.active(ELIGIBILITY.name).first_failure(ctx, ps, fit,
                                                                     subject=ps.key)
        return None if refusal is None else refusal.reason

    def potential_nodes(self, ctx: ScheduleContext, fit: FitError) -> Sequence[NodeState]:
        """The nodes with an Unschedulable status."""
        return potential_nodes(ctx.state, fit)

    def offset_and_num_candidates(self, ctx: ScheduleContext, num_nodes: int) -> tuple[int, int]:
        """``(0, n)``: every potential node is dry-run."""
        return 0, num_nodes

    def judge(self, ctx: ScheduleContext, ps: PodState, fit: FitError, nodes: Sequence[NodeState]
              ) -> QuotaJudge:
        """Every node's victims under the quota rules, each traced as it is judged."""
        return QuotaJudge(ctx, ps)

    def no_candidate_message(self, ctx: ScheduleContext, run: DryRun) -> str:
        """``0/N nodes are available: …``, or the nodes' errors when there are some."""
        statuses = run.statuses
        all_statuses = {name: statuses.get(name) or Failure(NOT_HELPFUL, UNRESOLVABLE, PLUGIN)
                        for name in ctx.state.nodes}
        # Upstream's dry run collects the nodes' errors; with no candidate the
        # preemption fails with them (an aggregate: one, or "[a, b]") instead
        # of the per-node statuses.
        errors = list(dict.fromkeys(f.reason for f in statuses.values() if f.code == "Error"))
        if errors:
            return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return fit_message(len(ctx.state.nodes), all_statuses)

    def trace_choice(self, ctx: ScheduleContext, ps: PodState, best: Candidate, run: DryRun,
                     decided: str, clear: Sequence[PodState]) -> None:
        """The pick, each other candidate, the victims and reprieved pods."""
        trace = ctx.trace
        assert trace is not None  # called with tracing on
        pick = ctx.profile.active(PICK.name)
        trace.add(PICK.name, ps.key, f"chose {best.node}", decided or "the only candidate")
        _trace_not_chosen(ctx, trace, pick, ps.key, best, run.candidates)
        why: Mapping[str, str] = best.details.get("why", {})
        for v in best.victims:
            trace.add(PLUGIN, v.key, f"victim of {ps.key} on {best.node}", why.get(v.key, ""))
        for r in best.reprieved:
            trace.add(PLUGIN, r.key, f"reprieved on {best.node}",
                      f"{ps.key} still fits and the quotas still hold with it back")


class QuotaJudge:
    """CapacityScheduling's ``SelectVictimsOnNode`` for one attempt's dry run (the
    evaluator's :class:`~kruleset.rules.scheduler.preemption.evaluator.NodeJudge`).

    The quota PreFilter state, the PDBs and the victim arithmetic's fit checks
    (``FastPaths.victims``) are read once; with ``FastPaths.reclaim`` the arithmetic dry run
    (:mod:`~kruleset.rules.quota.fast_reclaim`) answers the nodes it can and
    records their trace, the reference the others.  In a simulation with the
    default pick only the two best candidates matter (the winner and the
    runner-up it is told apart from), so a node whose least possible key is
    above the runner-up's is skipped.
    """

    def __init__(self, ctx: ScheduleContext, ps: PodState) -> None:
        pod = ps.pod
        self.ctx = ctx
        self.ps = ps
        self.trace: TraceSink | None = ctx.trace
        self.pre = pre = prefilter_state(ctx, pod)
        if self.trace is not None:
            _trace_mode(ctx, ps, pre)
        self.budgets = budgets = pdb_budgets(ctx.state, ctx.now, ctx.fast)
        fit = ctx.paths.victim_fit
        self.fit_for = fit(ctx, pod) if fit is not None else None  # once for every node
        start = ctx.paths.reclaim
        self.cycle = start(ctx, pod, pre, budgets) if start is not None else None
        self.bounds: dict[str, Any] | None = None
        self.key_of: Any = None
        # The best two (key, node) so far, ascending.
        self.top: list[tuple[tuple[int, ...], str]] = []
        if (isinstance(ctx, ScheduleContext) and ctx.memo is not None
                and tuple(a.rule.name for a in ctx.profile.active(PICK.name).rules)
                == DEFAULT_PICK):
            self.bounds = ctx.memo.pick_bounds()
            self.key_of = default_pick_key(ctx)
        self.records_failures = self.trace is not None
        self.records_candidates = self.trace is not None or self.bounds is not None

    def whole(self, nodes: Sequence[NodeState], offset: int, wanted: int) -> DryRun | None:
        """None: every node is walked."""
        return None

    def select_victims_on_node(self, node: NodeState) -> NodeVictims | Failure | object:
        """The arithmetic's answer where it has one, else the reference's (SKIPPED: a
        node no candidate of which could be the pick or the runner-up)."""
        top = self.top
        cycle = self.cycle
        if len(top) == 2:  # only with the pick bounds
            least = self.ctx.memo.pick_bound(self.bounds, node, PRIORITY_SHIFT)
            if least is None or least > top[1][0]:
                if self.trace is not None:
                    self._trace_skip(node, least, top[1])
                return SKIPPED
        if cycle is not None:
            found = cycle.select(node)
            if found is not None:
                return found
            cycle.flush()  # the general path records at once
        return select_victims_with(self.ctx, self.ps.pod, node, self.budgets, self.pre,
                                   self.fit_for)

    def _trace_skip(self, node: NodeState, least: tuple[int, ...] | None,
                    runner_up: tuple[tuple[int, ...], str]) -> None:
        if self.cycle is not None:
            self.cycle.skip(node.name, least, runner_up)
        elif self.trace is not None:
            self.trace.add(*skip_entry(self.ps.key, node.name, least, runner_up))

    def judged(self, node: NodeState, got: Candidate | Failure) -> None:
        """Trace the node's outcome; keep the best two candidates' keys."""
        trace, cycle, key = self.trace, self.cycle, self.ps.key
        if isinstance(got, Failure):
            if cycle is not None and trace is not None:
                cycle.not_candidate(node.name, got.reason)
            elif trace is not None:
                trace.add(PLUGIN, key, f"{node.name}: not a candidate", got.reason)
            return
        if self.bounds is not None:
            top = self.top
            top.append((self.key_of(got), got.node))
            top.sort()
            del top[2:]
        if cycle is not None and trace is not None:
            cycle.add_candidate(key, got)
        elif trace is not None:
            trace.add(PLUGIN, key, f"{node.name}: candidate",
                      f"victims [{', '.join(v.key for v in got.victims)}], "
                      f"{got.num_pdb_violations} PDB violation(s), reprieved "
                      f"[{', '.join(r.key for r in got.reprieved)}]")

    def finish(self, run: DryRun) -> DryRun:
        """``run``, once the arithmetic's pending trace is recorded."""
        if self.cycle is not None:
            self.cycle.flush()
        return run


def _trace_mode(ctx: ScheduleContext, ps: PodState, pre: PreFilterState) -> None:
    """Which victims the preemptor's quota mode allows, before any node is judged."""
    pod = ps.pod
    trace = ctx.trace
    assert trace is not None  # called with tracing on
    if pre.has_quota:
        view = QuotaView(quota_usage(ctx.state))
        trace.add(PLUGIN, ps.key, "mode",
                  mode_text(pod, pre, view, view.over_min_with(pod.namespace, pre.req_in_eq)))
    else:
        trace.add(PLUGIN, ps.key, "mode",
                  f"namespace {pod.namespace} has no ElasticQuota: victims are "
                  f"lower-priority pods of namespaces without one")


def skip_entry(subject: str, node: str, least: tuple[int, ...] | None,
               runner_up: tuple[tuple[int, ...], str]) -> tuple[str, str, str, str]:
    """The entry of a node left out of the dry run: no candidate there could be
    chosen, nor be the runner-up that the criterion is read against."""
    if least is None:
        why = "no pod runs there, so there is no victim"
    else:
        why = (f"no candidate there can come before the runner-up so far, {runner_up[1]}: "
               f"even its best possible keys lose "
               f"({decide_by_keys(runner_up[0], least) or 'tied'})")
    return PLUGIN, subject, f"{node}: not dry-run", why


def _trace_not_chosen(ctx: ScheduleContext, trace: TraceSink, pick: Any, subject: str,
                      best: Candidate, candidates: Sequence[Candidate]) -> None:
    """One ``not chosen`` entry per other candidate, with the criterion that ruled it out.

    With the default pick rules (which read the candidates' victims and the
    nodes' declaration index only) each candidate's keys are taken now and
    the entries formatted when read; otherwise they are formatted at once.
    """
    others = [c for c in candidates if c is not best]
    if not others:
        return
    if (not ctx.fast.reclaim or tuple(a.rule.name for a in pick.rules) != DEFAULT_PICK
            or not hasattr(trace, "defer")):
        for c in others:
            trace.add(PICK.name, subject, f"{c.node} not chosen",
                      decide(ctx, pick, best, c) or "tied")
        return
    key_of = default_pick_key(ctx)
    trace_not_chosen(trace, subject, key_of(best), [c.node for c in others],
                     [key_of(c) for c in others])


@rule(POSTFILTER, PLUGIN,
      doc="Preempt for a quota pod on one node: within its min it reclaims from quotas above "
          "their min whatever their priority; above its min only its own lower-priority pods.",
      source="seed 004 §3; capacity_scheduling.go PostFilter, SelectVictimsOnNode; "
             "pkg/scheduler/framework/preemption Evaluator.Preempt",
      enabled=False)
def _capacity_scheduling(ctx: ScheduleContext, args: Mapping[str, Any], request: PostFilterRequest
                         ) -> PostFilterResult | None:
    return reclaim(ctx, request.ps, request.fit_error)


register_plugin("CapacityScheduling", {
    "preFilter": (MAX_RULE, TOTAL_MIN_RULE),
    "postFilter": (PLUGIN,),
    "reserve": (RESERVE_RULE,),
})


# --- embedding --------------------------------------------------------------------------------

def reclaim_victims(state: ClusterState, pod: Pod | PodState, node: str | None = None, *,
                    profile: Profile | None = None, trace: Trace | None = None
                    ) -> tuple[PodState, ...]:
    """The pods CapacityScheduling would preempt for ``pod`` now (``()``: none, or it fits).

    With ``node``, only that node is dry-run (its victims, or ``()`` when it is
    no candidate); otherwise the node preemption would pick.  ``profile``
    defaults to upstream's with CapacityScheduling on.  Nothing changes.

    Example (seed 004 §6: tenant B reclaims what tenant A borrowed)::

        >>> from kruleset.model.objects import Container, ElasticQuota, Node
        >>> from kruleset.model.resources import Resources
        >>> st = ClusterState()
        >>> _ = st.add_node(Node("w1", Resources(cpu=8000, memory=32 << 30, pods=110)))
        >>> st.quotas["ns-a"] = ElasticQuota("ns-a", Resources(cpu=6000), Resources(cpu=10_000))
        >>> st.quotas["ns-b"] = ElasticQuota("ns-b", Resources(cpu=12_000), Resources(cpu=14_000))
        >>> def pod(ns, name, cpu, prio=0, started=0):
        ...     return Pod(ns, name, (Container("c", Resources(cpu=cpu)),), priority=prio,
        ...                started=started)
        >>> st.bind(st.add_pod(pod("ns-a", "notebook", 2000, 1_000_000)), "w1")
        >>> for i in range(3):   # job-2 started last: the least important at equal priority
        ...     st.bind(st.add_pod(pod("ns-a", f"job-{i}", 2000, started=i * 1000)), "w1")
        >>> [v.key for v in reclaim_victims(st, pod("ns-b", "job-2", 2000))]
        ['ns-a/job-2']
    """
    ps = pod if isinstance(pod, PodState) else PodState(pod, 1 << 62, state.now)
    prof = profile if profile is not None else profile_for(None, quotas_present=True)
    ctx = ScheduleContext(state, prof, trace, state.now)
    result = schedule_one(ctx, ps, advance=False)
    if result.node is not None or result.fit_error is None:
        return ()
    if node is not None:
        target = state.nodes.get(node)
        if target is None:
            raise KeyError(f"no node {node!r}")
        found = select_victims_on_node(ctx, ps.pod, target, pdb_budgets(state, ctx.now, ctx.fast))
        return () if isinstance(found, Failure) else found.victims
    out = reclaim(ctx, ps, result.fit_error)
    return out.victims if out is not None else ()
