"""Choosing the node to preempt on among the candidates (seed 002 §6, seed 003 §11.6).

Upstream ``pickOneNodeForPreemption`` (pkg/scheduler/framework/preemption):
each criterion keeps only the candidates with its best score and the first
that leaves one candidate decides.  That is a lexicographic order, so the
criteria form the ordering rule set ``scheduler.preemption.pick``:

1. fewest PDB violations;
2. lowest priority of the most important victim;
3. lowest sum of victim priorities, each shifted by 2^31 so that every term is
   non-negative (more victims never sum lower, even with negative priorities);
4. fewest victims;
5. latest start among the highest-priority victims' earliest start times;
6. kruleset's deterministic tie-break: the first node in the scheduler's node
   order, the node tree's (upstream takes whichever node Go's map iteration
   gives).

Note: seed 002 lists "fewest victims" before "lowest sum"; upstream code
checks the sum first and has criterion 5; kruleset follows upstream.

Reuse: :func:`pick_candidate` works on any
:class:`~kruleset.rules.scheduler.preemption.postfilter.Candidate` list (CapacityScheduling's too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from kruleset.model.quantity import format_duration
from kruleset.rules.engine import ActiveRuleSet
from kruleset.rules.registry import define_ruleset, rule

from ..framework import ScheduleContext
from .postfilter import Candidate

__all__ = ["DEFAULT_PICK", "PICK", "PRIORITY_SHIFT", "decide", "decide_by_keys",
           "default_pick_key", "earliest_start_of_highest", "is_default", "pick_candidate",
           "trace_not_chosen", "trace_others"]

PRIORITY_SHIFT = 2 ** 31  # math.MaxInt32 + 1

PICK = define_ruleset(
    "scheduler.preemption.pick", "ordering",
    "Which candidate node preemption chooses: the criteria in upstream's order, the first that "
    "tells two candidates apart decides.",
)


def _index(ctx: ScheduleContext, c: Candidate) -> int:
    node = ctx.state.nodes.get(c.node)
    return node.rank if node is not None else 1 << 62


@rule(PICK, "scheduler.preemption.pick.fewest-pdb-violations",
      doc="The candidate whose victims violate the fewest PodDisruptionBudgets.",
      source="seed 002 §6; seed 003 §11.6; preemption.go pickOneNodeForPreemption (criterion 1)",
      describe=lambda k: f"{k} PDB violation(s)")
def _fewest_violations(ctx: ScheduleContext, args: Mapping[str, Any], c: Candidate) -> int:
    return c.num_pdb_violations


@rule(PICK, "scheduler.preemption.pick.lowest-highest-priority",
      doc="The candidate whose most important victim has the lowest priority.",
      source="seed 002 §6; seed 003 §11.6; preemption.go pickOneNodeForPreemption (criterion 2)",
      describe=lambda k: f"highest victim priority {k}")
def _lowest_highest(ctx: ScheduleContext, args: Mapping[str, Any], c: Candidate) -> int:
    # Victims are kept most important first, so the first has the highest priority.
    return c.victims[0].pod.effective_priority if c.victims else -PRIORITY_SHIFT


@rule(PICK, "scheduler.preemption.pick.lowest-priority-sum",
      doc="The candidate with the lowest sum of victim priorities, each shifted by 2^31.",
      source="seed 002 §6; preemption.go pickOneNodeForPreemption (criterion 3)",
      describe=lambda k: f"shifted priority sum {k}")
def _lowest_sum(ctx: ScheduleContext, args: Mapping[str, Any], c: Candidate) -> int:
    return sum(v.pod.effective_priority + PRIORITY_SHIFT for v in c.victims)


@rule(PICK, "scheduler.preemption.pick.fewest-victims",
      doc="The candidate with the fewest victims.",
      source="seed 002 §6; preemption.go pickOneNodeForPreemption (criterion 4)",
      describe=lambda k: f"{k} victim(s)")
def _fewest_victims(ctx: ScheduleContext, args: Mapping[str, Any], c: Candidate) -> int:
    return len(c.victims)


def earliest_start_of_highest(c: Candidate) -> int:
    """Upstream ``GetEarliestPodStartTime``: earliest start of the highest-priority victims."""
    if not c.victims:
        return 0
    top = max(v.pod.effective_priority for v in c.victims)
    return min(v.effective_start for v in c.victims if v.pod.effective_priority == top)


@rule(PICK, "scheduler.preemption.pick.latest-start",
      doc="The candidate whose highest-priority victims started latest (their earliest start).",
      source="preemption.go pickOneNodeForPreemption (criterion 5); util.GetEarliestPodStartTime",
      describe=lambda k: f"earliest start {format_duration(-k)}")
def _latest_start(ctx: ScheduleContext, args: Mapping[str, Any], c: Candidate) -> int:
    return -earliest_start_of_highest(c)


@rule(PICK, "scheduler.preemption.pick.first-declared-node",
      doc="Still tied: the first node in the scheduler's node order (zones round-robin, "
          "add order within a zone; upstream: an arbitrary one of the tied nodes). "
          "The name is kept from when that order was declaration order.",
      source="preemption.go pickOneNodeForPreemption (upstream: the first node of a map); "
             "docs/LANGUAGE.md, Meaning in time (the deterministic tie-break)",
      describe=lambda k: f"node #{k + 1}")
def _first_declared(ctx: ScheduleContext, args: Mapping[str, Any], c: Candidate) -> int:
    return _index(ctx, c)


# Rules whose key is the negation of what they compare (a later start wins).
_NEGATED = frozenset({"scheduler.preemption.pick.latest-start"})


def decide(ctx: ScheduleContext, order: ActiveRuleSet, a: Any, b: Any) -> str:
    """``"rule: x < y"``: the first rule of ``order`` that puts ``a`` before ``b``, and how.

    ``""`` when no rule tells them apart.
    """
    for r in order.rules:
        ka, kb = r.rule.fn(ctx, r.args, a), r.rule.fn(ctx, r.args, b)
        if ka == kb:
            continue
        show = r.rule.describe or repr
        first = ka < kb
        if r.rule.name in _NEGATED:  # the key is negated: show the natural comparison
            first = not first
        op = "<" if first else ">"
        return f"{r.rule.name}: {show(ka)} {op} {show(kb)}"
    return ""


# The default criteria's rule names, in order (what default_pick_key computes).
DEFAULT_PICK = (
    "scheduler.preemption.pick.fewest-pdb-violations",
    "scheduler.preemption.pick.lowest-highest-priority",
    "scheduler.preemption.pick.lowest-priority-sum",
    "scheduler.preemption.pick.fewest-victims",
    "scheduler.preemption.pick.latest-start",
    "scheduler.preemption.pick.first-declared-node",
)


def default_pick_key(ctx: ScheduleContext) -> Callable[[Candidate], tuple[int, ...]]:
    """The default rules' composite key (see each rule above), in one function.

    Sorting candidates by it orders them as the default ``scheduler.preemption.pick``
    rules do.
    """
    nodes = ctx.state.nodes

    def key(c: Candidate) -> tuple[int, ...]:
        victims = c.victims
        if victims:
            prios = [v.pod.effective_priority for v in victims]
            top = max(prios)
            earliest = min(v.effective_start for v, p in zip(victims, prios, strict=True)
                           if p == top)
            highest, total = prios[0], sum(prios) + PRIORITY_SHIFT * len(prios)
        else:
            highest, total, earliest = -PRIORITY_SHIFT, 0, 0
        node = nodes.get(c.node)
        index = node.rank if node is not None else 1 << 62
        return (c.num_pdb_violations, highest, total, len(victims), -earliest, index)

    return key


def is_default(ctx: ScheduleContext, order: ActiveRuleSet) -> bool:
    """Whether ``order`` is the default criteria, which :func:`default_pick_key` computes."""
    return ctx.fast.victims and tuple(a.rule.name for a in order.rules) == DEFAULT_PICK


def decide_by_keys(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """:func:`decide` for the default criteria, from two :func:`default_pick_key` keys."""
    for name, ka, kb in zip(DEFAULT_PICK, a, b, strict=True):
        if ka == kb:
            continue
        show = PICK.rule(name).describe or repr
        first = ka < kb
        if name in _NEGATED:
            first = not first
        return f"{name}: {show(ka)} {'<' if first else '>'} {show(kb)}"
    return ""


def trace_not_chosen(trace: Any, subject: str, best_key: tuple[int, ...],
                     nodes: Sequence[str], keys: Sequence[tuple[int, ...]]) -> None:
    """Record one ``<node> not chosen`` entry per node of ``nodes`` (with its default pick
    key in ``keys``), each naming the criterion ``best_key`` wins by, as one deferred group.

    The keys are plain tuples read now, so the entries can be formatted when the
    trace is read; a partial of them (not a closure) is what the trace keeps.
    """
    trace.defer(len(nodes), functools.partial(_not_chosen, subject, best_key, tuple(nodes),
                                              tuple(keys)))


def _not_chosen(subject: str, top: tuple[int, ...], nodes: Sequence[str],
                keys: Sequence[tuple[int, ...]]) -> Iterator[tuple[str, str, str, str]]:
    for node, k in zip(nodes, keys, strict=True):
        yield PICK.name, subject, f"{node} not chosen", decide_by_keys(top, k) or "tied"


def trace_others(trace: Any, subject: str, count: int, source: Any, best: int) -> None:
    """:func:`trace_not_chosen` for each of ``count`` candidates but the one at ``best``:
    ``source.names()`` and ``source.keys()`` give their nodes and default pick keys,
    in one order, only when the trace is read (they must not change meanwhile)."""
    trace.defer(count - 1, functools.partial(_others, subject, source, best))


def _others(subject: str, source: Any, best: int) -> Iterator[tuple[str, str, str, str]]:
    nodes, keys = source.names(), source.keys()
    top = keys[best]
    for i, (node, k) in enumerate(zip(nodes, keys, strict=True)):
        if i != best:
            yield PICK.name, subject, f"{node} not chosen", decide_by_keys(top, k) or "tied"


def pick_candidate(ctx: ScheduleContext, candidates: Sequence[Candidate],
                   order: ActiveRuleSet | None = None) -> tuple[Candidate | None, str]:
    """The chosen candidate and the criterion that decided (upstream ``SelectCandidate``).

    No candidates: ``(None, "")``.  A single candidate is taken without scoring
    (``""``: no criterion decided).  Otherwise the candidates are ordered by the rule
    set and the rule telling the winner from the runner-up is returned, e.g.
    ``"scheduler.preemption.pick.fewest-victims: 1 victim(s) < 2 victim(s)"``.
    """
    if not candidates:
        return None, ""
    if len(candidates) == 1:
        return candidates[0], ""
    act = order if order is not None else ctx.profile.active(PICK.name)
    if is_default(ctx, act):
        # The default criteria's composite key computed inline: the same tuple
        # as the rules give, without seven calls per candidate.
        ranked = sorted(candidates, key=default_pick_key(ctx))
    else:
        ranked = act.sort(ctx, candidates)
    return ranked[0], decide(ctx, act, ranked[0], ranked[1])
