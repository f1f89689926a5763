"""The composition root of the fast paths: a FastPaths read once, typed implementations out.

:func:`compose` is the one place that knows which fast module answers which
question (:class:`~kruleset.rules.scheduler.paths.Paths`) and which
:class:`~kruleset.rules.scheduler.framework.FastPaths` option turns it on.
:func:`~kruleset.rules.scheduler.paths.paths_for` imports this module by
name on first use, so that no reference module imports a fast one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kruleset.model.objects import Pod, PodDisruptionBudget
from kruleset.model.state import ClusterState, NodeState, PodState

from ...disruption import fast_selection
from ...quota.fast_reclaim import start_cycle
from ..framework import FastPaths, ScheduleContext
from ..paths import Paths
from .batch_search import search
from .dry_run import CachedJudge
from .plan import NodeFit, fast_plan, victims_by_arithmetic
from .vector_scores import pick
from .vector_search import vector_find

__all__ = ["compose"]


class _Arithmetic:
    """``FastPaths.victims``: the victim arithmetic (:mod:`.plan`)."""

    def plan(self, ctx: ScheduleContext, pod: Pod, *, traced: bool = False) -> Any:
        """:func:`~.plan.fast_plan`."""
        return fast_plan(ctx, pod, traced=traced)

    def select(self, ctx: ScheduleContext, pod: Pod, node: NodeState, potential: list[PodState],
               budgets: Sequence[Any], order: Any, plan: Any) -> Any:
        """:func:`~.plan.victims_by_arithmetic`."""
        return victims_by_arithmetic(ctx, pod, node, potential, budgets, order, plan)


class _PdbIndex:
    """``FastPaths.pdb_selection``: :mod:`~kruleset.rules.disruption.fast_selection`."""

    def sync(self, state: ClusterState, pdbs: Iterable[PodDisruptionBudget]) -> None:
        """Select the PDBs' pods now."""
        fast_selection.sync(state, pdbs)

    def selected(self, state: ClusterState, pdb: PodDisruptionBudget) -> list[PodState]:
        """The PDB's selected pods, from the index."""
        return fast_selection.selected_pods(state, pdb)


_ARITHMETIC = _Arithmetic()
_PDB_INDEX = _PdbIndex()


def compose(fast: FastPaths) -> Paths:
    """The implementations ``fast`` chooses (an option off: the reference answers)."""
    return Paths(
        search=search if fast.batch_search else None,
        vector_search=vector_find if fast.node_vectors else None,
        vector_pick=pick if fast.node_vectors else None,
        dry_run=CachedJudge if fast.cycle_cache else None,
        victims=_ARITHMETIC if fast.victims else None,
        node_fit=NodeFit.start if fast.victims else None,
        reclaim=start_cycle if fast.reclaim else None,
        pdb_index=_PDB_INDEX if fast.pdb_selection else None,
    )
