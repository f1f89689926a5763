"""One scheduling cycle: queue order, filters, scores, and the FitError message.

This module holds the cycle's driver and the rule sets; each filter and score
lives in its own module (``filters_*.py``, ``scores_*.py``) and registers on
:data:`FILTERS` / :data:`SCORES`.  Upstream: ``pkg/scheduler/schedule_one.go``.

Embedding one decision, without a timeline (:func:`schedule_pod`)::

    from kruleset.model.objects import Container, Node, Pod
    from kruleset.model.resources import Resources
    from kruleset.model.selectors import Taint
    from kruleset.model.state import ClusterState
    from kruleset.rules.scheduler.cycle import schedule_pod

    GI = 2**30
    state = ClusterState()
    state.add_node(Node("n1", Resources(cpu=4000, memory=8 * GI, pods=110),
                        taints=(Taint("dedicated", "db", "NoSchedule"),)))
    state.add_node(Node("n2", Resources(cpu=4000, memory=8 * GI, pods=110)))
    busy = state.add_pod(Pod("default", "busy",
                             containers=(Container("c", Resources(cpu=2000)),)))
    state.bind(busy, "n2")
    web = Pod("default", "web", containers=(Container("c", Resources(cpu=3000)),))

    result = schedule_pod(state, web)
    result.node        # None: n1 is tainted, n2 has 2 of its 4 CPUs left
    result.message     # '0/2 nodes are available: 1 Insufficient cpu,
                       #  1 node(s) had untolerated taint(s).'
    {n: f.code for n, f in result.fit_error.failures.items()}
                       # {'n1': 'UnschedulableAndUnresolvable', 'n2': 'Unschedulable'}
                       # (preemption may only try n2)

    small = Pod("default", "small", containers=(Container("c", Resources(cpu=500)),))
    schedule_pod(state, small).node   # 'n2'


``schedule_pod`` changes nothing in the state; pass a
:class:`~kruleset.rules.profile.Profile` (e.g. from
:func:`kruleset.rules.scheduler.config.profile_for`) to use a
KubeSchedulerConfiguration, and a :class:`~kruleset.rules.engine.Trace` to
see every rule that ran.  With several feasible nodes, ``result.scores``
holds each node's weighted total and ``result.per_rule`` each score rule's
normalised 0-100 score per node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, NodeState, PodState

from ..engine import UNRESOLVABLE, Failure, Trace
from ..profile import Profile
from ..registry import define_ruleset, rule

__all__ = [
    "FEASIBLE",
    "FILTERS",
    "PREENQUEUE",
    "QUEUE",
    "SCORES",
    "FitError",
    "ScheduleContext",
    "ScheduleResult",
    "failure_reasons",
    "fit_message",
    "schedule_one",
    "register_batch_score",
    "schedule_pod",
    "score_nodes",
]

QUEUE = define_ruleset(
    "scheduler.queue", "ordering",
    "The order in which the scheduler takes pending pods (queueSort).",
)
PREENQUEUE = define_ruleset(
    "scheduler.preenqueue", "predicate",
    "Checks before a pod may enter the active queue (PreEnqueue), per pod.",
)
PREFILTER = define_ruleset(
    "scheduler.prefilter", "predicate",
    "Per-pod checks run once before filtering nodes (PreFilter); a failure makes every node fail.",
)
FILTERS = define_ruleset(
    "scheduler.filter", "predicate",
    "Per-node filters, in upstream's default plugin order; the first failure is the node's reason.",
)
# ctx.extra key: the feasible nodes of the cycle, for PreScore-style state.
FEASIBLE = "scheduler.feasible"

SCORES = define_ruleset(
    "scheduler.score", "score",
    "Node scores, each normalised to 0-100 and weighted as upstream's defaults.",
)


class ScheduleContext:
    """What rules see during one scheduling cycle.

    ``extra`` holds per-cycle precomputation (PreFilter/PreScore state) that
    rule modules keep under their own keys.
    """

    __slots__ = ("state", "profile", "trace", "now", "pod", "ps", "extra", "memo")

    def __init__(self, state: ClusterState, profile: Profile, trace: Trace | None = None,
                 now: int = 0) -> None:
        self.state = state
        self.profile = profile
        self.trace = trace
        self.now = now
        self.pod: Pod | None = None
        self.ps: PodState | None = None
        self.extra: dict[str, Any] = {}
        # Results kept across cycles (a kruleset.rules.scheduler.fast.cycle_cache.CycleCache);
        # only a caller that keeps the cluster's change log honest sets it.
        self.memo: Any = None


@attrs.frozen(slots=True)
class FitError:
    """No node fits: the reason each node failed (node name -> Failure)."""

    pod: str
    num_nodes: int
    failures: Mapping[str, Failure]
    prefilter: Failure | None = None
    # (reason -> nodes, rule -> nodes) over ``failures``, when the search kept them.
    tally: tuple[Mapping[str, int], Mapping[str, int]] | None = attrs.field(
        default=None, eq=False, repr=False)

    @property
    def message(self) -> str:
        """Upstream's ``0/N nodes are available: …`` message."""
        if self.tally is not None and self.prefilter is None:
            return _format_counts(self.num_nodes, self.tally[0])
        return fit_message(self.num_nodes, self.failures, self.prefilter)

    def rules(self) -> set[str]:
        """The names of the rules that failed some node (``""`` for an unnamed failure)."""
        if self.tally is not None:
            return set(self.tally[1])
        return set(map(_rule_of, self.failures.values()))


def _rule_of(f: Failure) -> str:
    return f.rule


@attrs.frozen(slots=True)
class ScheduleResult:
    """The outcome of one cycle: a node, or a :class:`FitError`; with scores when placed."""

    pod: str
    node: str | None
    fit_error: FitError | None = None
    scores: Mapping[str, int] = attrs.field(factory=dict)
    per_rule: Mapping[str, Mapping[str, int]] = attrs.field(factory=dict)
    feasible: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """The scheduler's message (empty when placed)."""
        return self.fit_error.message if self.fit_error else ""


class PerNode(Mapping[str, int]):
    """Node name -> score, built into a dict only when read (the hot path never reads it)."""

    __slots__ = ("_names", "_values", "_dict")

    def __init__(self, names: Sequence[str], values: Sequence[int]) -> None:
        self._names = names
        self._values = values
        self._dict: dict[str, int] | None = None

    def _d(self) -> dict[str, int]:
        if self._dict is None:
            self._dict = dict(zip(self._names, self._values, strict=True))
        return self._dict

    def __getitem__(self, key: str) -> int:
        return self._d()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d())

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return repr(self._d())


class _PerRule(Mapping[str, Mapping[str, int]]):
    """Rule name -> node name -> normalised score, built lazily."""

    __slots__ = ("_names", "_raw", "_dict")

    def __init__(self, names: Sequence[str], raw: Mapping[str, Sequence[int]]) -> None:
        self._names = names
        self._raw = raw
        self._dict: dict[str, Mapping[str, int]] | None = None

    def _d(self) -> dict[str, Mapping[str, int]]:
        if self._dict is None:
            self._dict = {r: PerNode(self._names, v) for r, v in self._raw.items()}
        return self._dict

    def __getitem__(self, key: str) -> Mapping[str, int]:
        return self._d()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d())

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return repr(self._d())


def fit_message(num_nodes: int, failures: Mapping[str, Failure],
                prefilter: Failure | None = None) -> str:
    """``0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s).``

    Upstream sorts the ``"<count> <reason>"`` strings as strings, so ``10 X``
    comes before ``2 Y``.
    """
    if prefilter is not None:
        return f"0/{num_nodes} nodes are available: {prefilter.reason}."
    # Many nodes often share one Failure object (batch filters return one per
    # distinct node state): count objects first (in C), then their reasons.
    values = list(failures.values())
    per_object = Counter(map(id, values))
    objects = dict(zip(map(id, values), values, strict=True))
    counts: dict[str, int] = {}
    for oid, times in per_object.items():
        for reason in _reasons(objects[oid]):
            counts[reason] = counts.get(reason, 0) + times
    return _format_counts(num_nodes, counts)


def _format_counts(num_nodes: int, counts: Mapping[str, int]) -> str:
    parts = sorted(f"{n} {r}" for r, n in counts.items() if n)
    return f"0/{num_nodes} nodes are available: {', '.join(parts)}."


def failure_reasons(f: Failure) -> tuple[str, ...]:
    """The reasons ``f`` counts for in the ``0/N nodes are available`` message."""
    return _reasons(f)


def _reasons(f: Failure) -> tuple[str, ...]:
    # A failure may carry several reasons (NodeResourcesFit reports each short resource).
    if isinstance(f.detail, dict) and "reasons" in f.detail:
        return tuple(f.detail["reasons"])
    return (f.reason,)


# --- queue ---------------------------------------------------------------------

@rule(QUEUE, "scheduler.queue.PrioritySort",
      doc="Higher priority first.",
      source="seed 003 §11.3; pkg/scheduler/framework/plugins/queuesort Less",
      describe=lambda k: f"priority {-k}")
def _queue_priority(ctx: Any, args: Mapping[str, Any], ps: PodState) -> int:
    return -ps.pod.effective_priority


@rule(QUEUE, "scheduler.queue.CreationOrder",
      doc="Then the pod created first (upstream: the earlier queue timestamp).",
      source="pkg/scheduler/framework/plugins/queuesort Less",
      describe=lambda k: f"created #{k}")
def _queue_creation(ctx: Any, args: Mapping[str, Any], ps: PodState) -> int:
    return ps.seq


# --- pre-enqueue -------------------------------------------------------------------

@rule(PREENQUEUE, "scheduler.preenqueue.SchedulingGates",
      doc="A pod with schedulingGates stays SchedulingGated until every gate is removed.",
      source="seed 003 §4; pkg/scheduler/framework/plugins/schedulinggates")
def _gates(ctx: Any, args: Mapping[str, Any], pod: Pod) -> Failure | None:
    if pod.gates:
        return Failure(f"waiting for scheduling gates: [{' '.join(pod.gates)}]", UNRESOLVABLE,
                       detail={"gated": True})
    return None


# --- scoring ---------------------------------------------------------------------

BatchScoreFn = Callable[[Any, Mapping[str, Any], Pod, Sequence[NodeState]], list[int]]
_BATCH_SCORES: dict[Callable[..., Any], BatchScoreFn] = {}


def register_batch_score(fn: Callable[..., Any]) -> Callable[[BatchScoreFn], BatchScoreFn]:
    """Decorator: the all-nodes form of the score rule function ``fn``.

    ``batch(ctx, args, pod, nodes) -> [raw score per node]`` must return what
    ``[fn(ctx, args, pod, n) for n in nodes]`` would; it exists so the hot
    path makes one call per rule and cycle instead of one per node.
    """

    def wrap(batch: BatchScoreFn) -> BatchScoreFn:
        _BATCH_SCORES[fn] = batch
        return batch

    return wrap


def score_nodes(ctx: ScheduleContext, pod: Pod, nodes: Sequence[NodeState]
                ) -> tuple[list[int], dict[str, list[int]]]:
    """Every enabled score rule on ``nodes``: weighted totals and each rule's normalised scores.

    The same result as ``ActiveRuleSet.scores``, using batch forms where rules have them.
    """
    totals = [0] * len(nodes)
    per_rule: dict[str, list[int]] = {}
    for a in ctx.profile.active(SCORES.name).rules:
        fn = a.rule.fn
        batch = _BATCH_SCORES.get(fn)
        if batch is not None:
            raw = batch(ctx, a.args, pod, nodes)
        else:
            args = a.args
            raw = [fn(ctx, args, pod, n) for n in nodes]
        if a.rule.normalize is not None:
            raw = a.rule.normalize(ctx, a.args, pod, nodes, raw)
        per_rule[a.rule.name] = raw
        w = a.weight
        if not w or not raw:
            continue
        first = raw[0]
        if raw.count(first) == len(raw):
            # The same score everywhere (often 0 or 100): one constant to add.
            if first:
                k = w * first
                totals = [t + k for t in totals]
        else:
            totals = [t + w * v for t, v in zip(totals, raw, strict=True)]
    return totals, per_rule


# --- the cycle -----------------------------------------------------------------

def schedule_one(ctx: ScheduleContext, ps: PodState, *, advance: bool = True) -> ScheduleResult:
    """One scheduling cycle for ``ps``: PreFilter, filters, scores, the best node.

    Ties between top-scoring nodes go to the first node in the scheduler's
    node order (``ClusterState.node_order``; upstream picks one at random).
    ``advance=False`` keeps the node-search start offset unchanged (what-if
    questions).
    """
    from . import node_selection

    pod = ps.pod
    ctx.pod, ctx.ps = pod, ps
    ctx.extra.clear()
    state = ctx.state
    num_nodes = len(state.nodes)
    trace = ctx.trace
    pre = ctx.profile.active(PREFILTER.name).first_failure(ctx, pod, subject=pod.key)
    if pre is not None:
        failures = {name: pre for name in state.nodes}
        return ScheduleResult(pod.key, None, FitError(pod.key, num_nodes, failures, pre))
    feasible, failures = node_selection.find_feasible(ctx, pod, ps, advance=advance)
    if not feasible:
        tally = None
        if ctx.memo is not None:
            from .fast.cycle_cache import tally_for

            tally = tally_for(ctx.memo, failures)
        return ScheduleResult(pod.key, None, FitError(pod.key, num_nodes, failures, None, tally))
    if len(feasible) == 1:
        only = feasible[0]
        if trace is not None:
            trace.add("scheduler.score", f"{pod.key} on {only.name}", "only feasible node")
        return ScheduleResult(pod.key, only.name, feasible=(only.name,))
    ctx.extra[FEASIBLE] = feasible
    totals, per_rule = score_nodes(ctx, pod, feasible)
    # Highest total; ties go to the first node in the scheduler's node order
    # (upstream: random).
    best = 0
    top = totals[0]
    for i in range(1, len(feasible)):
        t = totals[i]
        if t > top or (t == top and feasible[i].rank < feasible[best].rank):
            best, top = i, t
    names = tuple([n.node.name for n in feasible])
    if trace is not None:
        _trace_scores(trace, pod.key, names, totals, per_rule)
    return ScheduleResult(
        pod.key, feasible[best].name, None, PerNode(names, totals),
        _PerRule(names, per_rule), names,
    )


def _trace_scores(trace: Any, key: str, names: Sequence[str], totals: Sequence[int],
                  per_rule: Mapping[str, Sequence[int]]) -> None:
    """One ``scheduler.score`` entry per scored node: the total and each rule's score.

    Recorded as a deferred group when the trace supports it, so the entries
    (the same, in the same order) are formatted only if the trace is read;
    formatting them eagerly cost more than scoring.
    """
    # Tuples of numbers: the collector stops tracking them, so the trace keeping
    # them until it is read costs full collections nothing.
    rules = tuple([(r, tuple(v)) for r, v in per_rule.items()])
    totals = tuple(totals)

    def produce() -> Iterator[tuple[str, str, str, str]]:
        for i, name in enumerate(names):
            parts = ", ".join(f"{r}={v[i]}" for r, v in rules)
            yield "scheduler.score", f"{key} on {name}", str(totals[i]), parts

    defer = getattr(trace, "defer", None)
    if defer is None:
        for entry in produce():
            trace.add(*entry)
    else:
        defer(len(names), produce)


def schedule_pod(state: ClusterState, pod: Pod | PodState, profile: Profile | None = None,
                 *, trace: Trace | None = None) -> ScheduleResult:
    """Embed one scheduling decision: where would ``pod`` go in ``state`` now?

    Nothing in ``state`` is changed (not even the scheduler's node-search
    offset).  ``pod`` may be a :class:`Pod` not yet in the state (it is
    considered as if just created) or one of its pending
    :class:`PodState`\\ s.  See the module docstring for an example.
    """
    ps = pod if isinstance(pod, PodState) else PodState(pod, 1 << 62, state.now)
    ctx = ScheduleContext(state, profile or Profile.default(), trace, state.now)
    return schedule_one(ctx, ps, advance=False)


def feasible_names(result: ScheduleResult) -> Sequence[str]:
    """Names of the nodes that passed every filter."""
    return result.feasible


def node_list(state: ClusterState) -> list[NodeState]:
    """Nodes in the scheduler's node order (the node tree's; the tie-break order)."""
    return list(state.node_order())
