"""Rules, rule sets, traces.

A :class:`Rule` is a named, documented function.  Its name is stable and
dotted (``scheduler.filter.TaintToleration``): users write it in profiles and
read it in traces.  Every rule function has the signature
``fn(ctx, args, *subjects)`` where ``ctx`` is the mechanism's context (it
carries the cluster state, the clock and the trace) and ``args`` the rule's
arguments after the profile applied.

A :class:`RuleSet` is an ordered list of rules with one way of combining them
(:data:`PREDICATE`, :data:`ORDERING`, :data:`SCORE`, :data:`PIPELINE`).  Which
rules run, in which order and with which arguments is decided by a
:class:`~kruleset.rules.profile.Profile`, which turns a rule set into an
:class:`ActiveRuleSet`.

Tracing costs nothing when off: ``ctx.trace`` is ``None`` and every record is
behind ``if trace is not None``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, Protocol

import attrs

__all__ = [
    "ActiveRule",
    "ActiveRuleSet",
    "Failure",
    "ORDERING",
    "PIPELINE",
    "PREDICATE",
    "Reads",
    "Rule",
    "RuleSet",
    "SCORE",
    "Stop",
    "Trace",
    "TraceEntry",
    "TraceSink",
    "Traced",
    "UNSCHEDULABLE",
    "UNRESOLVABLE",
]

PREDICATE, ORDERING, SCORE, PIPELINE = "predicate", "ordering", "score", "pipeline"
KINDS = (PREDICATE, ORDERING, SCORE, PIPELINE)

# Failure codes: the scheduler's two (preemption depends on which), and the
# generic one used by admission-like predicates.
UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
REJECTED = "Rejected"

_NO_ARGS: Mapping[str, Any] = MappingProxyType({})


@attrs.frozen(slots=True)
class Failure:
    """Why a predicate rule refused: an upstream-worded ``reason`` and a ``code``.

    ``rule`` is filled in by the engine; ``detail`` carries structured data
    (for instance the insufficient resources) for later rules.
    """

    reason: str
    code: str = UNSCHEDULABLE
    rule: str = ""
    detail: Any = None

    @property
    def unresolvable(self) -> bool:
        """True for UnschedulableAndUnresolvable."""
        return self.code == UNRESOLVABLE


@attrs.frozen(slots=True)
class Stop:
    """A pipeline step's way of ending the chain, with the result and why."""

    result: Any = None
    why: str = ""


def _frozen_args(m: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(m))


@attrs.frozen(slots=True)
class Reads:
    """What a filter's answer for a pod depends on, declared on its :class:`Rule` for the
    fast paths (victim selection as arithmetic, the cycle cache).

    ``what`` is one of:

    * ``"node"``: the node alone (its labels, taints, name, …; not the pods bound
      to it nor other nodes), so it runs once per node however many pods are away;
    * ``"fit"`` / ``"ports"``: exactly NodeResourcesFit's / NodePorts' check, which
      the fast paths answer as arithmetic on the node's requested totals / host ports;
    * ``"pods"``: other pods (as inter-pod affinity does); the fast paths take the pod
      only when the rule's ``prepare`` step skipped it, which promises that it then
      passes every node, with any pods away.

    ``pod_key`` says what the answer reads of the pod: pods with equal keys get
    equal answers on every node (None from it: the pod is not cached).  A filter
    without ``reads`` is one the fast paths know nothing about: they step aside
    and the filters run one by one, as the reference does.
    """

    what: Literal["node", "fit", "ports", "pods"]
    pod_key: Callable[[Any], Hashable | None] | None = None


@attrs.frozen(slots=True)
class Rule:
    """A named, documented unit of decision.

    ``normalize`` (score rules only) maps the raw scores of all nodes to
    0–100 as the upstream plugin's NormalizeScore does.  The other optional
    attributes declare the forms a fast path may run instead of ``fn``, each
    answering exactly what ``fn`` would: ``prepare(ctx, args, pod) -> bool``
    (a filter's PreFilter step, run once per cycle before any node is
    filtered: it keeps its per-cycle state in ``ctx.extra`` and returns False
    when the filter has nothing to check for this pod, upstream's Skip),
    ``batch(ctx, args, pod, nodes)`` (a filter's answers for many nodes at
    once, None when every node passes; a score rule's raw scores for every
    node) and ``reads`` (:class:`Reads`).  A rule without them runs as
    ``fn``, node by node.
    """

    name: str
    doc: str
    source: str
    fn: Callable[..., Any]
    args: Mapping[str, Any] = attrs.field(default=_NO_ARGS, converter=_frozen_args)
    weight: int = 1
    enabled: bool = True
    normalize: Callable[..., Any] | None = None
    describe: Callable[[Any], str] | None = None  # ordering: how to print a key
    prepare: Callable[..., bool] | None = None
    batch: Callable[..., Any] | None = None
    reads: Reads | None = None

    def __str__(self) -> str:
        return self.name


@attrs.frozen(slots=True)
class TraceEntry:
    """One record of a trace: which rule ran on what, with what result and why."""

    rule: str
    subject: str
    result: str
    why: str = ""
    time: int = 0

    def __str__(self) -> str:
        why = f": {self.why}" if self.why else ""
        return f"{self.rule} [{self.subject}] {self.result}{why}"


# Marks a deferred group in a trace's flat list, and a run of groups.
_GROUP = object()
_GROUPS = object()


class Trace:
    """An append-only list of :class:`TraceEntry`, optionally for one subject only.

    Recording is cheap: :meth:`add` keeps the entry's five values and
    :meth:`defer` a producer for a whole group of entries (a 5,000-node filter
    search is one group), :meth:`defer_groups` one producer for several
    consecutive groups; :attr:`entries` builds the :class:`TraceEntry`
    objects, in recording order, only when read.  ``len()`` never builds them.
    """

    __slots__ = ("_items", "_entries", "_done", "_count", "now", "attempts")

    def __init__(self) -> None:
        # One flat list of plain values, no container per record: an entry is
        # its five values in a row (rule, subject, result, why, time); a group
        # is _GROUP, its count, time, producer, the number of the producer's
        # arguments and the arguments (a functools.partial is kept as its
        # function and arguments); a run of groups is _GROUPS, the total,
        # time, each group's count, then the producer as for a group.  Each
        # container kept would be one more object for every full collection
        # to walk, and the collections they bring forward promote the run's
        # passing objects.
        self._items: list[Any] = []
        self._entries: list[TraceEntry] = []
        self._done = 0
        self._count = 0
        self.now = 0
        # Every scheduling attempt as plain values (see
        # kruleset.rules.scheduler.cycle._record_attempt; kruleset.report.json
        # writes them as the report's "attempts").
        self.attempts: list[tuple[Any, ...]] = []

    def add(self, rule: str, subject: str, result: str, why: str = "") -> None:
        """Record one evaluation."""
        self._items += rule, subject, result, why, self.now
        self._count += 1

    def defer(self, count: int,
              produce: Callable[[], Iterable[tuple[str, str, str, str]]]) -> None:
        """Record ``count`` evaluations that ``produce()`` lists as (rule, subject, result, why).

        ``produce`` is called at most once, when :attr:`entries` is first read
        after this call; it must yield exactly ``count`` tuples and read only
        values that do not change afterwards.
        """
        self._items += _GROUP, count, self.now
        _keep(self._items, produce)
        self._count += count

    def defer_groups(self, counts: Sequence[int],
                     produce: Callable[[int], Iterable[tuple[str, str, str, str]]]) -> None:
        """Record consecutive groups, group ``i`` of ``counts[i]`` evaluations that
        ``produce(i)`` lists as :meth:`defer`'s ``produce()`` would.

        The same entries as one :meth:`defer` per group, in order, kept as one
        item: a caller with many small groups at once (DRA's explanation of
        every node that cannot hold a pod's claims) keeps one producer instead
        of one per group.  :meth:`walk` still asks about each group apart.
        """
        total = sum(counts)
        self._items += _GROUPS, total, self.now, counts
        _keep(self._items, produce)
        self._count += total

    def _records(self, start: int, expand: Callable[[int], bool] | None
                 ) -> Iterator[tuple[str, str, str, str, int]]:
        """The records from place ``start`` of the flat list on (see ``__init__``);
        a group only if ``expand(count)`` says so (every group without ``expand``)."""
        items = self._items
        i, n = start, len(items)
        while i < n:
            item = items[i]
            if item is _GROUP:
                count, time, fn, k = items[i + 1:i + 5]
                i += 5 + k
                if expand is None or expand(count):
                    for r, s, res, why in fn(*items[i - k:i]):
                        yield r, s, res, why, time
            elif item is _GROUPS:
                time, counts, fn, k = items[i + 2:i + 6]
                i += 6 + k
                args = items[i - k:i]
                for g, count in enumerate(counts):
                    if expand is None or expand(count):
                        for r, s, res, why in fn(*args, g):
                            yield r, s, res, why, time
            else:
                yield item, items[i + 1], items[i + 2], items[i + 3], items[i + 4]
                i += 5

    @property
    def entries(self) -> list[TraceEntry]:
        """Every entry in recording order (built on first read of new records)."""
        out = self._entries
        out.extend(TraceEntry(*record) for record in self._records(self._done, None))
        self._done = len(self._items)
        return out

    def walk(self, expand: Callable[[int], bool]) -> Iterator[tuple[str, str, str, str, int]]:
        """Every record as ``(rule, subject, result, why, time)``, without keeping them.

        A deferred group of ``count`` records is produced only when
        ``expand(count)`` says so, and skipped otherwise: a reader with a
        budget (the HTML report) need not build a 5,000-node search it will
        not show.  Nothing is cached, so walking a huge trace costs no memory;
        once :attr:`entries` has been read, the records come from it.
        """
        if self._done:
            for e in self.entries:
                yield e.rule, e.subject, e.result, e.why, e.time
            return
        yield from self._records(0, expand)

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:  # an empty trace is still "on"
        return True

    def about(self, text: str) -> list[TraceEntry]:
        """Entries whose subject or explanation mentions ``text``."""
        return [e for e in self.entries if text in e.subject or text in e.why]


class TraceSink(Protocol):
    """Where a rule records: a :class:`Trace`, or a fast path's stand-in that keeps
    what one node's judgement records, to replay it in order."""

    @property
    def now(self) -> int: ...

    def add(self, rule: str, subject: str, result: str, why: str = "") -> None: ...


class Traced(Protocol):
    """What the engine reads from any rule's context: where to record (``None``: tracing off).

    Every context a predicate or pipeline rule set runs with has it; the
    contexts themselves are in :mod:`kruleset.rules.context`.
    """

    @property
    def trace(self) -> TraceSink | None: ...


def _keep(items: list[Any], produce: Callable[..., Any]) -> None:
    """Append ``produce`` to a trace's flat list as its function, the number of its
    arguments and the arguments (a plain callable: itself and no arguments)."""
    if type(produce) is functools.partial and not produce.keywords:
        args = produce.args
        items += produce.func, len(args), *args
    else:
        items += produce, 0


@attrs.frozen(slots=True)
class ActiveRule:
    """A rule as a profile enables it: with its arguments and weight."""

    rule: Rule
    args: Mapping[str, Any]
    weight: int

    @property
    def name(self) -> str:
        """The rule's name."""
        return self.rule.name


@attrs.define(slots=True)
class RuleSet:
    """An ordered list of rules combined one way (see module doc)."""

    name: str
    kind: str
    doc: str
    rules: list[Rule] = attrs.field(factory=list)

    def __attrs_post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown rule-set kind {self.kind!r}")

    def add(self, rule: Rule, *, before: str | None = None, after: str | None = None) -> Rule:
        """Add ``rule`` (at the end, or before/after a named rule)."""
        if any(r.name == rule.name for r in self.rules):
            raise ValueError(f"rule {rule.name!r} is already in rule set {self.name!r}")
        anchor = before or after
        if anchor is None:
            self.rules.append(rule)
            return rule
        for i, r in enumerate(self.rules):
            if r.name == anchor:
                self.rules.insert(i if before else i + 1, rule)
                return rule
        raise ValueError(f"rule set {self.name!r} has no rule {anchor!r}")

    def rule(self, name: str) -> Rule:
        """The rule called ``name``."""
        for r in self.rules:
            if r.name == name:
                return r
        raise KeyError(name)

    def defaults(self) -> ActiveRuleSet:
        """The rule set as upstream's defaults enable it."""
        return ActiveRuleSet(
            self, tuple(ActiveRule(r, r.args, r.weight) for r in self.rules if r.enabled)
        )


@attrs.frozen(slots=True)
class ActiveRuleSet:
    """The enabled rules of a rule set, in order, with their arguments."""

    ruleset: RuleSet
    rules: tuple[ActiveRule, ...]

    @property
    def name(self) -> str:
        """The rule set's name."""
        return self.ruleset.name

    def names(self) -> tuple[str, ...]:
        """Enabled rule names in order."""
        return tuple(a.rule.name for a in self.rules)

    def enabled(self, name: str) -> bool:
        """Whether the rule called ``name`` is enabled."""
        return any(a.rule.name == name for a in self.rules)

    def get(self, name: str) -> ActiveRule | None:
        """The enabled rule called ``name``, if any."""
        for a in self.rules:
            if a.rule.name == name:
                return a
        return None

    # --- predicate ------------------------------------------------------------
    def first_failure(self, ctx: Traced | None, *subjects: Any, subject: str = ""
                      ) -> Failure | None:
        """Run every rule in order; the first failure wins (``None``: all passed)."""
        trace = getattr(ctx, "trace", None)
        for a in self.rules:
            f: Failure | None = a.rule.fn(ctx, a.args, *subjects)
            if f is not None:
                if not f.rule:
                    f = attrs.evolve(f, rule=a.rule.name)
                if trace is not None:
                    trace.add(a.rule.name, subject, "fail", f.reason)
                return f
            if trace is not None:
                trace.add(a.rule.name, subject, "pass")
        return None

    def all_failures(self, ctx: Traced | None, *subjects: Any, subject: str = "") -> list[Failure]:
        """Run every rule; collect every failure (kubelet admission reports them all)."""
        trace = getattr(ctx, "trace", None)
        out: list[Failure] = []
        for a in self.rules:
            f: Failure | None = a.rule.fn(ctx, a.args, *subjects)
            if f is not None:
                if not f.rule:
                    f = attrs.evolve(f, rule=a.rule.name)
                out.append(f)
                if trace is not None:
                    trace.add(a.rule.name, subject, "fail", f.reason)
            elif trace is not None:
                trace.add(a.rule.name, subject, "pass")
        return out

    # --- ordering -------------------------------------------------------------
    def key(self, ctx: object) -> Callable[[Any], tuple[Any, ...]]:
        """A sort key: the tuple of every rule's key, lexicographic."""
        fns = [(a.rule.fn, a.args) for a in self.rules]

        def composite(item: Any) -> tuple[Any, ...]:
            return tuple(fn(ctx, args, item) for fn, args in fns)

        return composite

    def sort(self, ctx: object, items: Iterable[Any]) -> list[Any]:
        """Items sorted by the rules (stable: ties keep input order)."""
        return sorted(items, key=self.key(ctx))

    def decider(self, ctx: object, a: Any, b: Any) -> tuple[str, str] | None:
        """Which rule put ``a`` and ``b`` in their order, and how: ``(rule, "x < y")``."""
        for r in self.rules:
            ka, kb = r.rule.fn(ctx, r.args, a), r.rule.fn(ctx, r.args, b)
            if ka != kb:
                show = r.rule.describe or repr
                op = "<" if ka < kb else ">"
                return r.rule.name, f"{show(ka)} {op} {show(kb)}"
        return None

    # --- score ----------------------------------------------------------------
    def scores(
        self, ctx: object, pod: Any, nodes: Sequence[Any]
    ) -> tuple[list[int], dict[str, list[int]]]:
        """Weighted total per node, and each rule's normalised scores."""
        totals = [0] * len(nodes)
        per_rule: dict[str, list[int]] = {}
        for a in self.rules:
            fn = a.rule.fn
            raw = [fn(ctx, a.args, pod, n) for n in nodes]
            if a.rule.normalize is not None:
                raw = a.rule.normalize(ctx, a.args, pod, nodes, raw)
            per_rule[a.rule.name] = raw
            w = a.weight
            for i, s in enumerate(raw):
                totals[i] += w * s
        return totals, per_rule

    # --- pipeline -------------------------------------------------------------
    def run(self, ctx: Traced | None, data: Any, subject: str = "") -> Any:
        """Run the steps in order; a step returning :class:`Stop` ends the chain."""
        trace = getattr(ctx, "trace", None)
        for a in self.rules:
            out = a.rule.fn(ctx, a.args, data)
            if isinstance(out, Stop):
                if trace is not None:
                    trace.add(a.rule.name, subject, "stop", out.why)
                return out
            if trace is not None:
                trace.add(a.rule.name, subject, "continue")
            if out is not None:
                data = out
        return data
