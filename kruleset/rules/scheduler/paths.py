"""The fast paths a cycle takes, as typed strategies chosen once (the joint with the fast paths).

A fast path (``rules/scheduler/fast/``, ``quota/fast_*``,
``disruption/fast_selection.py``, ``kubelet/eviction/fast_pass.py``) answers a
question the reference rules answer, faster, with the same decision and the
same trace.  Each question is a small Protocol here; a :class:`Paths` holds
one implementation of each, or None where the reference answers.  The composition root
(:mod:`kruleset.rules.scheduler.fast.compose`) reads a
:class:`~kruleset.rules.scheduler.framework.FastPaths` once and builds the
:class:`Paths` (:func:`paths_for`); the cycle's context carries it
(``ScheduleContext.paths``; the simulation's kubelets read ``kubelet_pass`` from
``paths_for(sim.fast)``).  A reference module imports only this module,
never a fast one, so the reference reads alone.

A rule declares the forms a fast path may run instead of it on the rule
itself (``prepare=``, ``batch=``, ``reads=`` of
:class:`~kruleset.rules.engine.Rule`); :func:`pod_shape` is the pod key the
built-in filters declare (``Reads.pod_key``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import attrs

if TYPE_CHECKING:
    from kruleset.model.config import KubeletConfig
    from kruleset.model.objects import Pod, PodDisruptionBudget
    from kruleset.model.state import ClusterState, NodeState, PodState

    from ..engine import Failure, Trace
    from ..profile import Profile

# ``C`` is the context a fast path is called with: the cycle's ScheduleContext holds a
# ``Paths[ScheduleContext]``.  The judges, budgets, states and results are the
# evaluator's, quota's and kubelet's types; all of those modules import this one (the
# context holds its Paths), so a type-only import back would close a cycle that
# tests/test_architecture.py forbids: they are named here and typed at each
# implementation.
C = TypeVar("C", contravariant=True)
_Judge = Any  # preemption.evaluator.NodeJudge (defaultpreemption.DefaultJudge)
_Budget = Any  # preemption.victims.PdbBudget
_VictimPredicate = Any  # preemption.victims.VictimPredicate
_PreFilter = Any  # quota.prefilter.PreFilterState
_PassResult = Any  # kubelet.eviction.manager.PassResult

__all__ = [
    "GENERAL",
    "REFERENCE",
    "BatchSearch",
    "DryRunJudge",
    "FitCheck",
    "FitFor",
    "FirstPasses",
    "KubeletPass",
    "Paths",
    "PdbIndex",
    "ReclaimStart",
    "VectorPick",
    "VectorSearch",
    "VictimFit",
    "paths_for",
    "pod_shape",
]

# What a fast path returns when the reference must decide after all.
GENERAL: Any = object()


class BatchSearch(Protocol[C]):
    """``FastPaths.batch_search``: the node search a chunk of nodes at a time."""

    def __call__(self, ctx: C, rules: Any, pod: Pod, order: Sequence[NodeState],
                 start: int, to_find: int, failures: dict[str, Failure]
                 ) -> tuple[Sequence[NodeState], dict[str, Failure], int | None] | None:
        """Feasible nodes, failures, nodes given a status (None: the cache answered); or
        None when it cannot take the search."""


class VectorSearch(Protocol[C]):
    """``FastPaths.node_vectors``: the batch search's chunk loop as array operations."""

    def __call__(self, ctx: C, rules: Any, pod: Pod, order: Sequence[NodeState],
                 start: int, to_find: int, failures: dict[str, Failure],
                 fail_at: dict[str, int] | None = None,
                 nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None = None
                 ) -> Any:
        """``(feasible, processed, extra)`` as the batch search's, or None."""


class VectorPick(Protocol[C]):
    """``FastPaths.node_vectors``: the cycle's scoring and choice as array operations."""

    def __call__(self, ctx: C, pod: Pod, feasible: Any) -> Any:
        """The cycle's ScheduleResult, or None (the cycle scores)."""


class DryRunJudge(Protocol[C]):
    """DefaultPreemption's ``SelectVictimsOnNode`` for one attempt's dry run: a
    :class:`~kruleset.rules.scheduler.preemption.evaluator.NodeJudge` made per attempt
    (``FastPaths.cycle_cache``: from kept judgements; ``FastPaths.victims``: by arithmetic;
    the reference: ``DefaultJudge``)."""

    def __call__(self, ctx: C, ps: PodState, nodes: Sequence[NodeState],
                 budgets: Sequence[_Budget], may_be_victim: _VictimPredicate | None
                 ) -> _Judge:
        """The attempt's judge."""


class FitCheck(Protocol):
    """Whether the preemptor fits on one node as pods are taken away and put back."""

    def reason(self) -> str | None:
        """The first failing filter's reason, or None: the pod fits."""

    def put_back(self, ps: PodState) -> None:
        """``ps``, taken away before, is on the node again."""

    def take_away(self, ps: PodState) -> None:
        """``ps`` is gone from the node."""


#: One attempt's fit checks on a node with ``potential`` taken away (None: the filters
#: must decide on that node).
FitFor = Callable[["NodeState", Sequence["PodState"]], "FitCheck | None"]


class VictimFit(Protocol[C]):
    """``FastPaths.victims``: quota reclaim's fit checks by arithmetic, for one attempt."""

    def __call__(self, ctx: C, pod: Pod, /) -> FitFor | None:
        """The attempt's fit checks, or None where the filters decide."""


class ReclaimStart(Protocol[C]):
    """``FastPaths.reclaim``: quota reclaim's dry run as arithmetic."""

    def __call__(self, ctx: C, pod: Pod, pre: _PreFilter,
                 budgets: Sequence[_Budget]) -> Any:
        """The attempt's arithmetic cycle, or None where only the reference applies."""


class FirstPasses(Protocol):
    """The nodes' first passes at one instant (:meth:`KubeletPass.first_passes`)."""

    def take(self, node: NodeState, config: KubeletConfig) -> bool:
        """True: the node's first pass met nothing (no need to run it)."""


class KubeletPass(Protocol):
    """``FastPaths.quiet_kubelet``: eviction-manager passes certain to decide nothing,
    answered without their steps (the reference runs every pass)."""

    def first_passes(self, profile: Profile, now: int) -> FirstPasses:
        """The nodes' first passes at ``now``, answered together where they meet nothing."""

    def idle(self, state: ClusterState, node: NodeState, config: KubeletConfig, now: int, *,
             profile: Profile, trace: Trace | None) -> _PassResult | None:
        """The pass of a node where nothing changed and conditions are held, or None."""

    def quiet(self, state: ClusterState, node: NodeState, config: KubeletConfig, now: int, *,
              profile: Profile, trace: Trace | None) -> _PassResult | None:
        """The pass of a node whose manager remembers nothing, when certain to decide
        nothing; or None."""


class PdbIndex(Protocol):
    """``FastPaths.pdb_selection``: each PDB's selected pods kept as pods are added."""

    def sync(self, state: ClusterState, pdbs: Iterable[PodDisruptionBudget]) -> None:
        """The disruption controller observing ``pdbs``: select their pods now."""

    def selected(self, state: ClusterState, pdb: PodDisruptionBudget) -> list[PodState]:
        """What the reference's walk of the namespace returns for ``pdb``."""


@attrs.frozen(slots=True)
class Paths(Generic[C]):
    """One implementation per question, called with a context of type ``C``; None: the
    reference answers."""

    search: BatchSearch[C] | None = None
    vector_search: VectorSearch[C] | None = None
    vector_pick: VectorPick[C] | None = None
    dry_run: DryRunJudge[C] | None = None
    victim_judge: DryRunJudge[C] | None = None
    victim_fit: VictimFit[C] | None = None
    reclaim: ReclaimStart[C] | None = None
    pdb_index: PdbIndex | None = None
    kubelet_pass: KubeletPass | None = None


#: Every question answered by the reference.
REFERENCE: Paths[Any] = Paths()

_BUILT: dict[Any, Paths[Any]] = {}
# The composition root, imported by name (a reference module never imports a fast one).
_ROOT = "kruleset.rules.scheduler.fast.compose"


def paths_for(fast: Any) -> Paths[Any]:
    """The :class:`Paths` a FastPaths chooses (None: every option off), built once per value.

    Its context type is the composition root's to name (``Paths[ScheduleContext]``).
    """
    if fast is None:
        return REFERENCE
    got = _BUILT.get(fast)
    if got is None:
        got = _BUILT[fast] = importlib.import_module(_ROOT).compose(fast)
    return got


def pod_shape(pod: Pod) -> Hashable | None:
    """What the built-in filters and victim selection read of ``pod``, or None.

    The ``pod_key`` the built-in filters declare (``Reads``): pods with the same
    shape get the same answer on every node.  None for a pod with inter-pod
    (anti-)affinity, spread constraints or resource claims (their answers depend
    on other nodes, or on devices allocated anywhere) or a field that cannot be
    hashed.
    """
    if pod.pod_affinity or pod.pod_anti_affinity or pod.spread or pod.resource_claims:
        return None
    key = (pod.namespace, pod.requests, pod.host_ports, pod.effective_priority,
           pod.node_name, tuple(pod.node_selector.items()), pod.node_affinity,
           pod.tolerations, tuple(pod.labels.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key
