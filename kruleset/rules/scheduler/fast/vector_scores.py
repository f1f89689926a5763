"""Scoring and picking a node as array operations (the ``node_vectors`` option).

:func:`~kruleset.rules.scheduler.cycle.schedule_one` scores the feasible
nodes rule by rule and walks the totals for the best node, a Python step per
node and rule.  When the feasible nodes came from the vector search
(:class:`~.vector_search.Feasible`, which carries their rows in the node
vectors), :func:`pick` does the same with arrays:

* NodeResourcesFit (LeastAllocated over cpu and memory) and
  BalancedAllocation are computed from the arrays with upstream's
  arithmetic: integer floor division for the first, float64 fractions in
  upstream's order of operations, truncated, for the second;
* TaintToleration scores only the tainted feasible nodes (through its rule)
  and normalises as ``DefaultNormalizeScore`` (reversed);
* a rule that scores nothing for this pod (no preferred node affinity, no
  inter-pod affinity state, no node images, no DRA claims) is the constant
  it normalises to; PodTopologySpread's arrays are in :mod:`.vector_spread`;
* any other rule runs its batch form on the feasible nodes, as the cycle
  does, and is added as an array;
* the best total wins, ties to the lowest rank, as the cycle's walk.

Names, totals and per-rule scores are built into Python values only when the
result is read (or the cycle is traced: the same entries, from the same
values).  None sends the cycle back to its own scoring.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kruleset.model.objects import Pod

from ..cycle import score_entries
from ..defaults import (
    SCORE_BALANCED_ALLOCATION,
    SCORE_DYNAMIC_RESOURCES,
    SCORE_IMAGE_LOCALITY,
    SCORE_INTER_POD_AFFINITY,
    SCORE_NODE_AFFINITY,
    SCORE_NODE_RESOURCES_FIT,
    SCORE_TAINT_TOLERATION,
)
from ..framework import SCORES, PerNode, PerRule, ScheduleContext, ScheduleResult
from ..scores import (  # noqa: F401  (imported for their rules, named below)
    imagelocality,
    interpodaffinity,
    nodeaffinity,
    noderesourcesbalancedallocation,
    noderesourcesfit,
    tainttoleration,
)
from ..scores.normalize import MAX_NODE_SCORE
from ..scores.resource_pairs import default_weights, scored_resources
from .lazy import Lazy, names_at, narrow, values_of
from .node_vectors import VECTOR_SCORES as _VECTOR
from .node_vectors import Scores
from .node_vectors import vector_score as _vector_score
from .vector_search import Feasible

__all__ = ["Lazy", "pick"]

# Set once the forms declared on first use are (see _dra_form).
_LATE: list[bool] = []

# Generic rules' values are taken into int64 only below this (sums stay exact).
_VALUE_LIMIT = 1 << 40


def pick(ctx: ScheduleContext, pod: Pod, feasible: Any) -> ScheduleResult | None:
    """The cycle's scoring and choice over ``feasible``, or None (the cycle scores)."""
    if not isinstance(feasible, Feasible) or ctx.state.node_order() is not feasible.vectors.order:
        return None
    if not _LATE:
        _dra_form()
        _LATE.append(True)
    n = len(feasible)
    per_rule: dict[str, int | np.ndarray] = {}
    raws: dict[str, tuple[int, int | np.ndarray | list[int]]] = {}
    const = 0
    total: np.ndarray | None = None
    for a in ctx.profile.active(SCORES.name).rules:
        got = _rule_scores(ctx, a, pod, feasible)
        if got is None:
            return None
        raw, norm = got
        raws[a.rule.name] = (a.weight, raw)
        per_rule[a.rule.name] = norm
        w = a.weight
        if not w:
            continue
        if isinstance(norm, int):
            const += w * norm
        else:
            total = w * norm if total is None else total + w * norm
    rows = feasible.rows
    # The best total; ties go to the lowest rank (a row is its node's rank).
    best = int(rows.min()) if total is None else int(rows[total == total.max()].min())
    every = feasible.vectors.names
    chosen = every[best]
    trace = ctx.trace
    if trace is not None:
        # The trace keeps these until read: narrowed, they take a fraction of the memory.
        rows, total = narrow(rows), narrow(total)
        kept = {r: narrow(v) for r, v in per_rule.items()}
        raws = {r: (w, kept[r] if raw is per_rule[r] else narrow(raw))
                for r, (w, raw) in raws.items()}
        per_rule = kept
    names = feasible.names
    if names is None:
        names = Lazy(names_at, every, rows)
    totals = Lazy(values_of, const, n) if total is None else Lazy(values_of, total, n, const)
    if trace is not None:
        _trace(trace, pod, chosen, feasible, names, totals, per_rule, raws)
    lazy = {r: Lazy(values_of, v, n) for r, v in per_rule.items()}
    return ScheduleResult(pod.key, chosen, None, PerNode(names, totals),
                          PerRule(names, lazy), names)


def _trace(trace: Any, pod: Pod, chosen: str, feasible: Feasible, names: Sequence[str],
           totals: Lazy,
           per_rule: Mapping[str, int | np.ndarray],
           raws: Mapping[str, tuple[int, int | np.ndarray | list[int]]]) -> None:
    """What the cycle records when traced: its score entries and the attempt, same values.

    Kept as they are (lazy sequences of arrays, one shared tuple per constant
    score): the tuples ``schedule_one`` records are made only when read.
    """
    n = len(feasible)
    listed = {r: _listed(v, n) for r, v in per_rule.items()}
    produce = functools.partial(score_entries, pod.key, names, totals, tuple(listed.items()))
    defer = getattr(trace, "defer", None)
    if defer is None:
        for entry in produce():
            trace.add(*entry)
    else:
        defer(n, produce)
    if getattr(trace, "attempts", None) is None:
        return
    scores = (names, totals, tuple([
        (r, raws[r][0], v if raws[r][1] is per_rule[r] else _listed(raws[r][1], n), v)
        for r, v in listed.items()]))
    trace.attempts.append((trace.now, pod.key, chosen, Lazy(_by_rank, names, feasible.rows),
                           scores))


def _by_rank(names: Sequence[str], rows: np.ndarray) -> tuple[str, ...]:
    """``names`` (those of ``rows``) in rank order, as ``_record_attempt`` lists them.

    The search visits rows in increasing order from its start, wrapping
    around at most once: the names are already in rank order, or two runs
    to swap.
    """
    named = tuple(names)
    down = np.flatnonzero(rows[1:] < rows[:-1])
    if not len(down):
        return named
    if len(down) == 1:
        k = int(down[0]) + 1
        return named[k:] + named[:k]
    return tuple([named[i] for i in np.argsort(rows, kind="stable").tolist()])


def _listed(v: int | np.ndarray | list[int], n: int) -> Sequence[int]:
    if isinstance(v, int):
        return _constant(v, n)
    if isinstance(v, list):
        return tuple(v)
    return Lazy(values_of, v, n)


@functools.lru_cache(maxsize=64)
def _constant(v: int, n: int) -> tuple[int, ...]:
    """One tuple per constant score and node count, shared by every traced cycle.

    A trace keeps each cycle's scores; most rules score one constant for a
    plain pod, and allocating (and collecting) a tuple per rule and cycle
    was most of what tracing the scores cost.
    """
    return (v,) * n


def _rule_scores(ctx: ScheduleContext, a: Any, pod: Pod, feasible: Feasible
                 ) -> tuple[int | np.ndarray | list[int], int | np.ndarray] | None:
    """One rule's raw and normalised scores over ``feasible`` (None: cannot take them)."""
    fn = a.rule.fn
    form = _VECTOR.get(fn)
    if form is not None:
        got = form(ctx, a.args, pod, feasible)
        if got is not None:
            return got
    batch = a.rule.batch
    args = a.args
    raw = batch(ctx, args, pod, feasible) if batch is not None else [
        fn(ctx, args, pod, ns) for ns in feasible]
    norm = a.rule.normalize(ctx, args, pod, feasible, raw) if a.rule.normalize else raw
    if not norm:
        return raw, 0
    first = norm[0]
    if norm.count(first) == len(norm):
        return (raw, first) if -_VALUE_LIMIT < first < _VALUE_LIMIT else None
    if not -_VALUE_LIMIT < min(norm) <= max(norm) < _VALUE_LIMIT:
        return None
    return raw, np.array(norm, np.int64)


# --- the vector forms ------------------------------------------------------------------

def _score_rule(name: str) -> Any:
    """The function of the built-in score rule ``name`` (the key of its form)."""
    return SCORES.rule(name).fn


_TAINT_SCORE = _score_rule(SCORE_TAINT_TOLERATION)


@_vector_score(_score_rule(SCORE_NODE_RESOURCES_FIT))
def _fit(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
         feasible: Feasible) -> Scores | None:
    weights = default_weights(args)
    if weights is None or (args.get("type") or "LeastAllocated") != "LeastAllocated":
        return None
    wc, wm = weights
    ac, am = feasible.column("alloc_cpu"), feasible.column("alloc_mem")
    if wc + wm <= 0 or not (ac.all() and am.all()):
        return None
    req = pod.nonzero_requests
    r1 = feasible.column("nz_cpu") + req.cpu
    r2 = feasible.column("nz_mem") + req.memory
    s1 = np.where(r1 > ac, 0, (ac - r1) * 100 // ac)
    s2 = np.where(r2 > am, 0, (am - r2) * 100 // am)
    score = (s1 * wc + s2 * wm) // (wc + wm)
    return score, score


@_vector_score(_score_rule(SCORE_BALANCED_ALLOCATION))
def _balanced(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, feasible: Feasible
              ) -> Scores | None:
    resources = scored_resources(args)
    req = pod.requests
    if all(req.get(name) == 0 for name, _ in resources):
        return 0, 0
    if default_weights(args) is None:
        return None
    ac, am = feasible.column("alloc_cpu"), feasible.column("alloc_mem")
    if not (ac.all() and am.all()):
        return None
    # float64 operands, then divide, clamp at 1, half the difference, as upstream.
    fc = (feasible.column("used_cpu") + req.cpu).astype(np.float64) / ac.astype(np.float64)
    fm = (feasible.column("used_mem") + req.memory).astype(np.float64) / am.astype(np.float64)
    fc = np.where(fc > 1, 1.0, fc)
    fm = np.where(fm > 1, 1.0, fm)
    d = (fc - fm) / 2
    score = ((1 - np.abs(d)) * 100.0).astype(np.int64)
    return score, score


@_vector_score(_TAINT_SCORE)
def _taints(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
            feasible: Feasible) -> Scores | None:
    tainted = np.flatnonzero(feasible.vectors.tainted[feasible.rows]).tolist()
    if not tainted:
        return 0, MAX_NODE_SCORE  # every raw score 0: reversed, 100 each
    raw = np.zeros(len(feasible), np.int64)
    for i in tainted:
        raw[i] = _TAINT_SCORE(ctx, args, pod, feasible[i])
    top = int(raw.max())
    if top <= 0:
        return raw, MAX_NODE_SCORE
    return raw, MAX_NODE_SCORE - MAX_NODE_SCORE * raw // top


@_vector_score(_score_rule(SCORE_NODE_AFFINITY))
def _node_affinity(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, feasible: Feasible
                   ) -> Scores | None:
    na = pod.node_affinity
    added = args.get("addedAffinity")
    if (na is None or not na.preferred) and (added is None or not added.preferred):
        return 0, 0
    return None


@_vector_score(_score_rule(SCORE_INTER_POD_AFFINITY))
def _interpod(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, feasible: Feasible
              ) -> Scores | None:
    if not interpodaffinity.interpod_state(ctx, args, pod):
        return 0, 0
    return None


@_vector_score(_score_rule(SCORE_IMAGE_LOCALITY))
def _images(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
            feasible: Feasible) -> Scores | None:
    if not ctx.state.images:
        return 0, 0
    return None


def _dra_form() -> None:
    """Declare DynamicResources' form, on first use.

    Its plugin module is imported here rather than at the top: imported
    before the built-in rule modules are loaded, it would have them loaded
    from inside itself, and its rules would miss their place in the profile.
    """
    from ...dra import dynamicresources as plugin

    def dra(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
            feasible: Feasible) -> Scores | None:
        cyc = ctx.extra.get(plugin.CYCLE)
        if cyc is None or not cyc.scored:
            return 0, 0
        return None

    _VECTOR.setdefault(_score_rule(SCORE_DYNAMIC_RESOURCES), dra)
