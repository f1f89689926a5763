"""The fast paths a cycle takes, as typed strategies chosen once (the joint with the fast paths).

A fast path (``rules/scheduler/fast/``, ``quota/fast_*``,
``disruption/fast_selection.py``) answers a question the reference rules
answer, faster, with the same decision and the same trace.  Each question is
a small Protocol here; a :class:`Paths` holds one implementation of each, or
None where the reference answers.  The composition root
(:mod:`kruleset.rules.scheduler.fast.compose`) reads a
:class:`~kruleset.rules.scheduler.framework.FastPaths` once and builds the
:class:`Paths` (:func:`paths_for`); the cycle's context carries it
(``ScheduleContext.paths``).  A reference module imports only this module,
never a fast one, so the reference reads alone.

A rule declares the forms a fast path may run instead of it on the rule
itself (``prepare=``, ``batch=``, ``reads=`` of
:class:`~kruleset.rules.engine.Rule`); :func:`pod_shape` is the pod key the
built-in filters declare (``Reads.pod_key``).
"""

from __future__ import annotations

import importlib
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    from kruleset.model.objects import Pod, PodDisruptionBudget
    from kruleset.model.state import ClusterState, NodeState, PodState

    from ..engine import Failure

__all__ = [
    "GENERAL",
    "REFERENCE",
    "BatchSearch",
    "DryRunJudge",
    "NodeFitStart",
    "Paths",
    "PdbIndex",
    "ReclaimStart",
    "VectorPick",
    "VictimArithmetic",
    "paths_for",
    "pod_shape",
]

# What a fast path returns when the reference must decide after all.
GENERAL: Any = object()


class BatchSearch(Protocol):
    """``FastPaths.batch_search``: the node search a chunk of nodes at a time."""

    def __call__(self, ctx: Any, rules: Any, pod: Pod, order: Sequence[NodeState], start: int,
                 to_find: int, failures: dict[str, Failure]
                 ) -> tuple[Sequence[NodeState], dict[str, Failure], int | None] | None:
        """Feasible nodes, failures, nodes given a status (None: the cache answered); or
        None when it cannot take the search."""


class VectorSearch(Protocol):
    """``FastPaths.node_vectors``: the batch search's chunk loop as array operations."""

    def __call__(self, ctx: Any, rules: Any, pod: Pod, order: Sequence[NodeState],
                 start: int, to_find: int, failures: dict[str, Failure],
                 fail_at: dict[str, int] | None = None,
                 nom_entries: dict[str, Sequence[tuple[str, str, str, str]]] | None = None
                 ) -> Any:
        """``(feasible, processed, extra)`` as the batch search's, or None."""


class VectorPick(Protocol):
    """``FastPaths.node_vectors``: the cycle's scoring and choice as array operations."""

    def __call__(self, ctx: Any, pod: Pod, feasible: Any) -> Any:
        """The cycle's ScheduleResult, or None (the cycle scores)."""


class DryRunJudge(Protocol):
    """``FastPaths.cycle_cache``: DefaultPreemption's dry run from kept judgements."""

    def __call__(self, ctx: Any, ps: PodState, nodes: Sequence[NodeState],
                 budgets: Sequence[Any], may_be_victim: Any) -> Any:
        """The attempt's NodeJudge (the evaluator's)."""


class VictimArithmetic(Protocol):
    """``FastPaths.victims``: victim selection as arithmetic."""

    def plan(self, ctx: Any, pod: Pod, *, traced: bool = False) -> Any:
        """The pod's plan, or None when the filters must decide."""

    def select(self, ctx: Any, pod: Pod, node: NodeState, potential: list[PodState],
               budgets: Sequence[Any], order: Any, plan: Any) -> Any:
        """NodeVictims, None (no candidate, failure deferred) or :data:`GENERAL`."""


class NodeFitStart(Protocol):
    """``FastPaths.victims``: one node's fit as arithmetic (CapacityScheduling's checks)."""

    def __call__(self, ctx: Any, pod: Pod, node: NodeState, plan: Any,
                 potential: Sequence[PodState], /) -> Any:
        """A NodeFit, or None where the filters must decide."""


class ReclaimStart(Protocol):
    """``FastPaths.reclaim``: quota reclaim's dry run as arithmetic."""

    def __call__(self, ctx: Any, pod: Pod, pre: Any, budgets: Sequence[Any]) -> Any:
        """The attempt's arithmetic cycle, or None where only the reference applies."""


class PdbIndex(Protocol):
    """``FastPaths.pdb_selection``: each PDB's selected pods kept as pods are added."""

    def sync(self, state: ClusterState, pdbs: Iterable[PodDisruptionBudget]) -> None:
        """The disruption controller observing ``pdbs``: select their pods now."""

    def selected(self, state: ClusterState, pdb: PodDisruptionBudget) -> list[PodState]:
        """What the reference's walk of the namespace returns for ``pdb``."""


@attrs.frozen(slots=True)
class Paths:
    """One implementation per question; None: the reference answers."""

    search: BatchSearch | None = None
    vector_search: VectorSearch | None = None
    vector_pick: VectorPick | None = None
    dry_run: DryRunJudge | None = None
    victims: VictimArithmetic | None = None
    node_fit: NodeFitStart | None = None
    reclaim: ReclaimStart | None = None
    pdb_index: PdbIndex | None = None


#: Every question answered by the reference.
REFERENCE = Paths()

_BUILT: dict[Any, Paths] = {}
# The composition root, imported by name (a reference module never imports a fast one).
_ROOT = "kruleset.rules.scheduler.fast.compose"


def paths_for(fast: Any) -> Paths:
    """The :class:`Paths` a FastPaths chooses (None: every option off), built once per value."""
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
