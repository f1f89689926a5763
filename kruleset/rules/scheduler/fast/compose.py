"""The composition root of the fast paths: a FastPaths read once, typed implementations out.

:func:`compose` is the one place that knows which fast module answers which
question (:class:`~kruleset.rules.scheduler.paths.Paths`) and which
:class:`~kruleset.rules.scheduler.framework.FastPaths` option turns it on.
:func:`~kruleset.rules.scheduler.paths.paths_for` imports this module by
name on first use, so that no reference module imports a fast one.
"""

from __future__ import annotations

from collections.abc import Iterable

from kruleset.model.objects import PodDisruptionBudget
from kruleset.model.state import ClusterState, PodState

from ...disruption import fast_selection
from ...kubelet.eviction.fast_pass import FirstPasses, idle_pass, quiet_pass
from ...quota.fast_reclaim import start_cycle
from ..framework import FastPaths, ScheduleContext
from ..paths import Paths
from .batch_search import search
from .dry_run import ArithmeticJudge, CachedJudge
from .plan import node_fit_for
from .vector_scores import pick
from .vector_search import vector_find

__all__ = ["compose"]


class _PdbIndex:
    """``FastPaths.pdb_selection``: :mod:`~kruleset.rules.disruption.fast_selection`."""

    def sync(self, state: ClusterState, pdbs: Iterable[PodDisruptionBudget]) -> None:
        """Select the PDBs' pods now."""
        fast_selection.sync(state, pdbs)

    def selected(self, state: ClusterState, pdb: PodDisruptionBudget) -> list[PodState]:
        """The PDB's selected pods, from the index."""
        return fast_selection.selected_pods(state, pdb)


class _KubeletPass:
    """``FastPaths.quiet_kubelet``: :mod:`~kruleset.rules.kubelet.eviction.fast_pass`'s
    functions themselves (no call in between: a pass runs per node and instant)."""

    def __init__(self) -> None:
        self.first_passes = FirstPasses
        self.idle = idle_pass
        self.quiet = quiet_pass


_PDB_INDEX = _PdbIndex()
_KUBELET_PASS = _KubeletPass()


def compose(fast: FastPaths) -> Paths[ScheduleContext]:
    """The implementations ``fast`` chooses (an option off: the reference answers)."""
    return Paths(
        search=search if fast.batch_search else None,
        vector_search=vector_find if fast.node_vectors else None,
        vector_pick=pick if fast.node_vectors else None,
        dry_run=CachedJudge if fast.cycle_cache else None,
        victim_judge=ArithmeticJudge if fast.victims else None,
        victim_fit=node_fit_for if fast.victims else None,
        reclaim=start_cycle if fast.reclaim else None,
        pdb_index=_PDB_INDEX if fast.pdb_selection else None,
        kubelet_pass=_KUBELET_PASS if fast.quiet_kubelet else None,
    )
