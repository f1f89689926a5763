"""The scheduling framework's vocabulary: extension points, the cycle's context, FitError.

The rule sets of the extension points (:data:`QUEUE`, :data:`PREENQUEUE`,
:data:`PREFILTER`, :data:`FILTERS`, :data:`SCORES`), what a rule sees during
a cycle (:class:`ScheduleContext`), and what a cycle ends with
(:class:`ScheduleResult`, :class:`FitError` and its ``0/N nodes are
available`` message).  Plugins register on these rule sets; the cycle that
runs them is :mod:`kruleset.rules.scheduler.cycle`.  Upstream:
``pkg/scheduler/framework/interface.go``, ``types.go`` (FitError).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import Pod
from kruleset.model.state import ClusterState, PodState

from ..engine import Failure, Trace, TraceSink
from ..profile import Profile
from ..registry import define_ruleset
from .paths import Paths, paths_for

__all__ = [
    "ALL_FAST",
    "FEASIBLE",
    "FILTERS",
    "PREENQUEUE",
    "PREFILTER",
    "PREFILTER_NODES",
    "QUEUE",
    "SCORES",
    "FastPaths",
    "FitError",
    "PerNode",
    "PluginError",
    "ScheduleContext",
    "ScheduleResult",
    "failure_reasons",
    "fit_message",
    "PerRule",
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
# ctx.extra key: a PreFilter result that narrows the nodes (upstream
# PreFilterResult): (node names, the plugins that narrowed, as "[A B]").
PREFILTER_NODES = "scheduler.prefilter.nodes"

SCORES = define_ruleset(
    "scheduler.score", "score",
    "Node scores, each normalised to 0-100 and weighted as upstream's defaults.",
)


@attrs.frozen(slots=True)
class FastPaths:
    """Which fast paths a simulation takes: an explicit option, not a module switch.

    Each decides as the reference rules it shortcuts, with the same trace
    (the differential tests run simulations with each on and off):
    ``batch_search`` filters nodes a chunk at a time through the filters'
    batch forms (:mod:`~kruleset.rules.scheduler.fast.batch_search`; the
    filter search's cache goes with it), ``cycle_cache`` keeps filter searches
    and dry runs across cycles
    (:mod:`~kruleset.rules.scheduler.fast.cycle_cache`), ``victims`` selects
    preemption victims as arithmetic (:mod:`~kruleset.rules.scheduler.fast.plan`),
    ``reclaim`` runs quota reclaim's dry run as arithmetic
    (:mod:`~kruleset.rules.quota.fast_reclaim`), ``pdb_selection`` keeps
    each PodDisruptionBudget's selected pods as pods are added instead of
    walking the namespace for every status
    (:mod:`~kruleset.rules.disruption.fast_selection`), ``quiet_kubelet``
    answers kubelet eviction passes certain to decide nothing without their
    steps (:mod:`~kruleset.rules.kubelet.eviction.fast_pass`), ``node_vectors``
    keeps the nodes' resources as arrays in node order and answers the batch
    search and the scores of common pods with array operations
    (:mod:`~kruleset.rules.scheduler.fast.vector_search`,
    :mod:`~kruleset.rules.scheduler.fast.vector_scores`; its search is a
    form of the batch search, taken only with ``batch_search`` on).
    """

    batch_search: bool = True
    cycle_cache: bool = True
    victims: bool = True
    reclaim: bool = True
    pdb_selection: bool = True
    quiet_kubelet: bool = True
    node_vectors: bool = True


ALL_FAST = FastPaths()


class ScheduleContext:
    """What rules see during one scheduling cycle.

    ``extra`` holds per-cycle precomputation (PreFilter/PreScore state) that
    rule modules keep under their own keys.
    """

    __slots__ = ("state", "profile", "trace", "now", "pod", "ps", "extra", "memo", "_fast",
                 "paths")

    def __init__(self, state: ClusterState, profile: Profile, trace: Trace | None = None,
                 now: int = 0) -> None:
        self.state = state
        self.profile = profile
        # A fast path may record into a stand-in while it judges one node.
        self.trace: TraceSink | None = trace
        self.now = now
        self.pod: Pod | None = None
        self.ps: PodState | None = None
        self.extra: dict[str, Any] = {}
        # Results kept across cycles (a kruleset.rules.scheduler.fast.cycle_cache.CycleCache);
        # only a caller that keeps the cluster's change log honest sets it.
        self.memo: Any = None
        self._fast = ALL_FAST
        # The fast paths this cycle takes, chosen once from ``fast``.
        self.paths: Paths[ScheduleContext] = paths_for(ALL_FAST)

    @property
    def fast(self) -> FastPaths:
        """The fast paths this cycle may take (the simulation's option)."""
        return self._fast

    @fast.setter
    def fast(self, fast: FastPaths) -> None:
        self._fast = fast
        self.paths = paths_for(fast)


class PluginError(Exception):
    """A plugin's error status (not a rejection): upstream stops what ran the plugin
    and reports this text (a scheduling attempt, or the preemption dry run)."""


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
    # The feasible nodes' names in search order (a tuple, or a sequence equal
    # to one that is built when read).
    feasible: Sequence[str] = ()

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


class PerRule(Mapping[str, Mapping[str, int]]):
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
