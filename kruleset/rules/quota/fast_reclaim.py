"""CapacityScheduling's dry run as arithmetic: the fast path of quota reclaim.

:class:`_Cycle` walks a node's pods, takes potential victims out of integer
copies of the quotas' usage and the node's totals, and reprieves them again,
deciding as the reference (:func:`kruleset.rules.quota.reclaim.select_victims_on_node`
with the default victim rules) and recording the same trace.  With
the simulation's ``FastPaths.reclaim`` off every node goes through the reference; the
differential tests compare both.  The trace it logs is formatted when read, by
:mod:`~kruleset.rules.quota.fast_reclaim_trace`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, cast

from kruleset.model.objects import Pod
from kruleset.model.resources import CPU, EPHEMERAL, MEMORY, PODS, Resources
from kruleset.model.state import NodeState, PodState

from ..engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Trace
from ..scheduler.fast import cycle_cache
from ..scheduler.fast.plan import (
    DEFAULT_ORDER,
    FastPlan,
    NodeFit,
    fast_importance_order,
    fast_plan,
)
from ..scheduler.framework import ScheduleContext
from ..scheduler.node_selection import run_filters_with_nominated
from ..scheduler.preemption.evaluator import reprieve
from ..scheduler.preemption.postfilter import Candidate
from ..scheduler.preemption.victims import (
    VICTIMS,
    PdbBudget,
    split_by_pdb,
)
from .accounting import (
    Bound,
    QuotaUsage,
    QuotaView,
    quota_usage,
)
from .fast_reclaim_trace import (
    ADD,
    CANDIDATE,
    HAS_QUOTA,
    NO_QUOTA,
    NOT_ABOVE_MIN,
    NOT_CANDIDATE,
    NOT_LOWER,
    NS_NO_QUOTA,
    OTHER_NS,
    OWN,
    OWN_WITHIN_MIN,
    RECLAIMING,
    REFUSED,
    RUN,
    SKIP,
    WALK,
    WALK_FIELDS,
    Core,
    cycle_entries,
)
from .prefilter import (
    PreFilterState,
)
from .reclaim import (
    GLOBAL_QUOTA,
    NO_QUOTA_PREEMPTOR,
    NO_QUOTA_SPARED,
    OWN_NAMESPACE,
    PLUGIN,
    RECLAIM,
    VICTIM_RULES,
    NodeVictims,
    reclaim_node_victims,
)

_DEFAULT_RULES = (NO_QUOTA_SPARED, RECLAIM, OWN_NAMESPACE, NO_QUOTA_PREEMPTOR)
def _over(cpu: int, memory: int, eph: int, pods: int, y: Bound) -> tuple[str, int, int] | None:
    """:func:`~kruleset.rules.quota.accounting.over` for amounts without extended resources."""
    if cpu > y.cpu:
        return CPU, cpu, y.cpu
    if memory > y.memory:
        return MEMORY, memory, y.memory
    if eph > y.ephemeral_storage:
        return EPHEMERAL, eph, y.ephemeral_storage
    if pods > y.pods:
        return PODS, pods, y.pods
    return None


def _walk_key(ps: PodState) -> tuple[int, int]:
    # The default victim order's composite key (lower priority, then later start, first).
    return ps.pod.effective_priority, -ps.effective_start


class _Taken:
    """What one node's dry run took out of the cycle's quota usage (counted pods only).

    A delta per namespace and in total against the cycle's integer usage, so
    nothing is copied per node; :meth:`now` is a namespace's usage with it applied.
    """

    __slots__ = ("used", "delta", "total", "reqs", "gone")

    def __init__(self, used: dict[str, Core]) -> None:
        self.used = used
        self.delta: dict[str, list[int]] = {}
        self.total = [0, 0, 0, 0]
        self.reqs: dict[str, tuple[str, Resources]] = {}  # pod key -> (namespace, request)
        self.gone: set[str] = set()

    def now(self, n: str) -> Core:
        c = self.used[n]
        d = self.delta.get(n)
        if d is None:
            return c
        return c[0] - d[0], c[1] - d[1], c[2] - d[2], c[3] - d[3]

    def take(self, key: str, ns: str, r: Resources) -> None:
        """The walk found the counted pod ``key`` (of ``ns``, requesting ``r``) a victim."""
        self.reqs[key] = (ns, r)
        self.gone.add(key)
        self._change(key, 1)

    def back(self, key: str) -> None:
        """``key`` is put back (if it was counted and away)."""
        if key in self.gone:
            self.gone.discard(key)
            self._change(key, -1)

    def away(self, key: str) -> None:
        """``key`` goes again (if it is counted and back)."""
        if key in self.reqs and key not in self.gone:
            self.gone.add(key)
            self._change(key, 1)

    def _change(self, key: str, sign: int) -> None:
        n, r = self.reqs[key]
        d = self.delta.get(n)
        if d is None:
            d = self.delta[n] = [0, 0, 0, 0]
        d[0] += sign * r.cpu
        d[1] += sign * r.memory
        d[2] += sign * r.ephemeral_storage
        d[3] += sign * r.pods
        t = self.total
        t[0] += sign * r.cpu
        t[1] += sign * r.memory
        t[2] += sign * r.ephemeral_storage
        t[3] += sign * r.pods


class _Cycle:
    """:func:`select_victims_on_node` for one preemptor, by arithmetic on core resources.

    The general path copies the quota usage per node (:class:`QuotaView`),
    runs every victim rule per pod through the rule engine and, with tracing
    on, formats every explanation and runs the filters.  Here, for the
    default victim rules and victim order, a preemptor the
    :class:`~kruleset.rules.scheduler.preemption.victims.FastPlan` covers and quotas
    without extended resources, the same walk, checks and reprieve are done
    on four integers per namespace: what a node's dry run took out is a delta
    against the cycle's usage, so nothing is copied.  A node whose pods all
    lie outside the namespaces that could give victims (decided once per
    cycle: used only decreases during a walk) is refused without sorting.
    Trace entries are recorded as deferred groups with the values they need
    captured, and formatted only when read.  :meth:`select` answers ``None``
    where the general path must judge (a node the plan's arithmetic does not
    cover); ``tests/test_quota_reclaim_fastpath.py`` compares both.
    """

    __slots__ = ("ctx", "pod", "ns", "prio", "pre", "mode", "infos", "used", "total", "total_min",
                 "possible", "plan", "order", "budgets", "trace", "no_victims_reason", "log",
                 "logged", "walks", "quota_names")

    def __init__(self, ctx: ScheduleContext, pod: Pod, pre: PreFilterState, mode: int,
                 usage: QuotaUsage, used: dict[str, Core], plan: FastPlan,
                 order: Any, budgets: Sequence[PdbBudget]) -> None:
        self.ctx = ctx
        self.pod = pod
        self.ns = pod.namespace
        self.prio = pod.effective_priority
        self.pre = pre
        self.mode = mode
        self.infos = usage.infos
        self.quota_names = frozenset(usage.infos)
        self.used = used
        t = usage.total
        self.total: Core = (t.cpu, t.memory, t.ephemeral_storage, t.pods)
        self.total_min = usage.total_min
        # Reclaiming: the quota namespaces (not the preemptor's) above their min now.
        self.possible = frozenset(
            n for n, c in used.items()
            if n != self.ns and _over(*c, usage.infos[n].min) is not None)
        self.plan = plan
        self.order = order
        self.budgets = budgets
        self.trace = cast("Trace | None", ctx.trace)  # the run's Trace: groups are deferred into it
        self.no_victims_reason = f"for preemptor pod {pod.name}"
        self.log: list[Any] = []
        self.logged = 0
        # Traced: per node, its pods in walk order (kept until the node is touched).
        memo = getattr(ctx, "memo", None)
        self.walks: dict[str, Any] = (
            cycle_cache.victims_entry(memo, ("reclaim-walk",))
            if self.trace is not None and memo is not None else {})

    @classmethod
    def start(cls, ctx: ScheduleContext, pod: Pod, pre: PreFilterState,
              budgets: Sequence[PdbBudget]) -> _Cycle | None:
        """The cycle's arithmetic dry run, or ``None`` where only the general path applies."""
        if not ctx.fast.reclaim:
            return None
        rules = ctx.profile.active(VICTIM_RULES.name).rules
        if tuple(a.rule.name for a in rules) != _DEFAULT_RULES:
            return None
        order = ctx.profile.active(VICTIMS.name)
        if tuple(a.rule.name for a in order.rules) != DEFAULT_ORDER:
            return None
        if pre.pod_req.scalars or pre.req_in_eq.scalars or pre.req_all.scalars:
            return None
        usage = quota_usage(ctx.state)
        if usage.total.scalars or usage.total_min.scalars:
            return None
        used: dict[str, Core] = {}
        for n, info in usage.infos.items():
            u = info.used
            if u.scalars:
                return None
            used[n] = (u.cpu, u.memory, u.ephemeral_storage, u.pods)
        plan = fast_plan(ctx, pod, traced=True)
        if plan is None:
            return None
        if not pre.has_quota:
            mode = NO_QUOTA
        elif QuotaView(usage).over_min_with(pod.namespace, pre.req_in_eq) is None:
            mode = RECLAIMING
        else:
            mode = OWN
        return cls(ctx, pod, pre, mode, usage, used, plan, order, budgets)

    def _may_go(self, ps: PodState) -> bool:
        """Could ``ps`` be a victim at all in this cycle (ignoring the walk's changes)?"""
        p = ps.pod
        if self.mode == RECLAIMING:
            return p.namespace in self.possible
        if self.mode == OWN:
            return p.namespace == self.ns and p.effective_priority < self.prio
        return p.namespace not in self.infos and p.effective_priority < self.prio

    def select(self, node: NodeState) -> NodeVictims | Failure | None:
        """The general path's answer for ``node``; ``None``: the general path must judge.

        The steps of :func:`~kruleset.rules.quota.reclaim.select_victims_on_node`:
        the walk for potential victims, the filters and the quota checks with
        all of them gone, then the reprieve.
        """
        if not any(self._may_go(ps) for ps in node.pods.values()):
            return self._none_may_go(node)
        taken = _Taken(self.used)
        # With tracing the walk's entries go straight into the cycle's log (dropped
        # again if the general path has to judge the node).
        mark = len(self.log)
        potential = self._walk(node, taken)
        if not potential:
            self._count_walk(mark)
            return self._no_victims(node)
        fit = NodeFit.start(self.ctx, self.pod, node, self.plan, potential)
        if fit is None:
            del self.log[mark:]
            return None  # nothing recorded: the general path starts afresh
        self._count_walk(mark)
        traced = self.trace is not None
        runs: list[tuple[int, str | None, str | None]] | None = None
        if fit.reason() is not None:
            # Not a candidate: the filters give the exact failure (and trace their run).
            self.flush()
            f = run_filters_with_nominated(self.ctx, self.pod, node,
                                           removed=frozenset(ps.key for ps in potential))
            if f is not None:
                return f
            runs = [] if traced else None
        elif traced:
            runs = [(len(potential), None, None)]
        req = self.pre.pod_req
        if self.pre.has_quota and self._quota_hit(taken, req, req) is not None:
            self._trace_runs(node, fit, runs)
            return Failure(GLOBAL_QUOTA, UNSCHEDULABLE, PLUGIN)
        return self._reprieve(node, fit, taken, potential, runs)

    def _no_victims(self, node: NodeState) -> Failure:
        return Failure(f"No victims found on node {node.name} {self.no_victims_reason}",
                       UNRESOLVABLE, PLUGIN)

    def _none_may_go(self, node: NodeState) -> Failure:
        """A node none of whose pods could be a victim in this cycle: refused unsorted."""
        if self.trace is not None:
            # Every pod's entry follows from its namespace and priority and the
            # cycle's usage: logged as the node's walk order, formatted when read.
            walk = self.walks.get(node.name)
            if walk is None:
                walk = self.walks[node.name] = tuple(
                    (ps.key, ps.pod.namespace, ps.pod.effective_priority)
                    for ps in sorted(node.pods.values(), key=_walk_key))
            self.log.extend((REFUSED, node.name, walk))
            self.logged += len(walk)
        return self._no_victims(node)

    def _walk(self, node: NodeState, taken: _Taken) -> list[PodState]:
        """The node's potential victims, least important first (the victim rules' walk).

        Each one found leaves its quota's usage in ``taken`` at once, so the next
        pod is judged with it gone; with tracing every pod's entry is logged.
        """
        notes = self.log if self.trace is not None else None
        infos = self.infos
        reclaiming = self.mode == RECLAIMING
        potential: list[PodState] = []
        for ps in sorted(node.pods.values(), key=_walk_key):   # least important first
            p = ps.pod
            kind, arg = self._refusal(p, taken)
            if kind < 0:
                potential.append(ps)
                ons = p.namespace
                info = infos.get(ons)
                if info is not None:
                    r = info.pods.get(ps.key)
                    if r is not None:
                        taken.take(ps.key, ons, r)
                if reclaiming:
                    arg = taken.now(ons)
            if notes is not None:
                notes.extend((WALK, node.name, ps.key, p.effective_priority, kind, arg))
        return potential

    def _refusal(self, p: Pod, taken: _Taken) -> tuple[int, Core | None]:
        """The refusal kind of the victim rule that spares ``p`` (-1: it may go), and
        for ``NOT_ABOVE_MIN`` its quota's usage."""
        ons = p.namespace
        infos = self.infos
        mode = self.mode
        if mode == RECLAIMING:
            if ons not in infos:
                return NS_NO_QUOTA, None
            if ons == self.ns:
                return OWN_WITHIN_MIN, None
            c = taken.now(ons)
            if _over(*c, infos[ons].min) is None:
                return NOT_ABOVE_MIN, c
        elif mode == OWN:
            if ons not in infos:
                return NS_NO_QUOTA, None
            if ons != self.ns:
                return OTHER_NS, None
            if p.effective_priority >= self.prio:
                return NOT_LOWER, None
        elif ons in infos:
            return HAS_QUOTA, None
        elif p.effective_priority >= self.prio:
            return NOT_LOWER, None
        return -1, None

    def _count_walk(self, mark: int) -> None:
        """Count the walk entries logged since ``mark`` (as the trace will show them)."""
        self.logged += (len(self.log) - mark) // WALK_FIELDS

    def _quota_hit(self, taken: _Taken, own: Resources, whole: Resources
                   ) -> tuple[str, int, int] | None:
        """The quota checks with ``own`` added to the preemptor's quota and ``whole`` to
        the total: the first resource over its bound (own max, then the total of mins)."""
        c = taken.now(self.ns)
        t = taken.total
        total = self.total
        return (_over(own.cpu + c[0], own.memory + c[1], own.ephemeral_storage + c[2],
                      own.pods + c[3], self.infos[self.ns].max)
                or _over(whole.cpu + total[0] - t[0], whole.memory + total[1] - t[1],
                         whole.ephemeral_storage + total[2] - t[2], whole.pods + total[3] - t[3],
                         self.total_min))

    def _reprieve(self, node: NodeState, fit: NodeFit, taken: _Taken,
                  potential: list[PodState], runs: list[tuple[int, str | None, str | None]] | None
                  ) -> NodeVictims | Failure:
        """The evaluator's reprieve loop, its fit and quota checks done on the arithmetic.

        ``runs`` (traced) collects each fit check as the filter run the general path
        makes: how many potential victims are away, the failing filter, its reason.
        """
        pre = self.pre
        away = len(potential)

        def back(ps: PodState) -> str | None:
            nonlocal away
            away -= 1
            taken.back(ps.key)
            fit.put_back(ps)
            why_not = fit.reason()
            if runs is not None:
                runs.append((away, None if why_not is None else self.plan.failing(why_not),
                             why_not))
            return why_not

        def go(ps: PodState) -> None:
            nonlocal away
            away += 1
            taken.away(ps.key)
            fit.take_away(ps)

        def quota_checks(ps: PodState, why_not: str | None) -> str | Failure | None:
            hit = self._quota_hit(taken, pre.req_in_eq, pre.req_all)
            if hit is None:
                return None
            if why_not is not None:
                # Upstream removes the pod a second time: the node reports the error.
                self._trace_runs(node, fit, runs)
                return Failure(f"no corresponding pod {ps.key.split('/', 1)[1]} in "
                               f"pods of node {node.name}", "Error", PLUGIN)
            return f"the quota checks fail with it back: {hit[0]} {hit[1]} > {hit[2]}"

        ordered = fast_importance_order(self.ctx, potential, self.order)
        violating, fine = split_by_pdb(ordered, self.budgets)
        kept = reprieve(violating, fine, back, go, quota_checks if pre.has_quota else None)
        if isinstance(kept, Failure):
            return kept
        self._trace_runs(node, fit, runs)
        return reclaim_node_victims(self.ctx, node, self.order, violating, fine, kept)

    def _trace_runs(self, node: NodeState, fit: NodeFit,
                    runs: list[tuple[int, str | None, str | None]] | None) -> None:
        """Log the filter runs the general path makes (as ``_trace_runs`` of DefaultPreemption).

        Per check, upstream's two passes: with pods nominated to the node, a
        run with them added (its failure stands), then, when it passed, one
        without them.  Every run, pods away or added, uses the filters
        PreFilter kept (a skipped plugin stays skipped for the cycle).  Each
        run records ``pass`` per filter up to the one that fails.
        """
        if not runs:
            return
        names = self.plan.prepared_names
        subject = f"{self.pod.key} on {node.name}"
        log = self.log
        count = 0
        for _away, failed, why in runs:
            log.extend((RUN, subject, names, failed, why))
            count += len(names) if failed is None else names.index(failed) + 1
            if fit.nominated and failed is None:
                log.extend((RUN, subject, names, None, None))
                count += len(names)
        self.logged += count

    def add(self, rule_name: str, subject: str, result: str, why: str) -> None:
        """Log one entry (in order with the deferred ones)."""
        self.log.extend((ADD, rule_name, subject, result, why))
        self.logged += 1

    def add_candidate(self, subject: str, c: Candidate) -> None:
        """Log the ``candidate`` entry of ``c``, formatted when read (from its keys only)."""
        self.log.extend((CANDIDATE, subject, c.node, tuple(v.key for v in c.victims),
                         c.num_pdb_violations, tuple(r.key for r in c.reprieved)))
        self.logged += 1

    def skip(self, node: str, least: tuple[int, ...] | None,
             runner_up: tuple[tuple[int, ...], str]) -> None:
        """Log that ``node`` was not dry-run (formatted by ``capacity_scheduling.skip_entry``)."""
        self.log.extend((SKIP, node, least, runner_up))
        self.logged += 1

    def not_candidate(self, node: str, reason: str) -> None:
        """Log ``node``'s ``not a candidate`` entry (formatted when read: hundreds a cycle)."""
        self.log.extend((NOT_CANDIDATE, node, reason))
        self.logged += 1

    def flush(self) -> None:
        """Record what was logged as one deferred group, before anything recorded at once."""
        trace = self.trace
        if trace is None or not self.log:
            return
        # A tuple of plain values: once the collector has seen it, it is untracked, so the
        # trace's thousands of entries per preemptor are not traversed by every collection.
        log = tuple(self.log)
        self.log = []
        count, self.logged = self.logged, 0
        # A partial of plain values, not a closure (the trace keeps one per flush).
        context = (self.ns, self.prio, self.mode, self.pod.key, self.quota_names, self.used)
        trace.defer(count, functools.partial(cycle_entries, log, context))


def start_cycle(ctx: ScheduleContext, pod: Pod, pre: PreFilterState,
                budgets: Sequence[PdbBudget]) -> _Cycle | None:
    """The attempt's arithmetic dry run (``FastPaths.reclaim``), or None where only the
    reference applies."""
    return _Cycle.start(ctx, pod, pre, budgets)
