"""Each PodDisruptionBudget's selected pods, kept as pods are added (``FastPaths.pdb_selection``).

The reference (:func:`kruleset.rules.disruption.pdb.selected_pods`) walks the
PDB's namespace for every status it computes; on a cluster of a million pods
in one namespace that is a million selector matches per eviction.  Upstream's
disruption controller keeps its pods in an informer and syncs a PDB when it or
one of its pods changes; this index plays that part: per PDB, the pods its
selector matches, found once (one walk of the namespace for all its PDBs,
looking each pod up by the label one ``In`` requirement names) and then
followed through :attr:`ClusterState.pod_added`.  A pod's labels never change
once added (a replacement under the same name is a new PodState), and pods
that left the API are filtered when read, so the selection is exactly the
walk's; a PDB object the index has not seen (created or replaced later) is
found by walking its namespace once.

The order of the pods may differ from the walk's only for a pod replaced
under the same name; the status counts them and keys ``disruptedPods`` by
name, so the status is the same (the differential tests compare both).
"""

from __future__ import annotations

from collections.abc import Iterable

from kruleset.model.objects import PodDisruptionBudget
from kruleset.model.state import ClusterState, PodState

__all__ = ["PdbSelections", "selected_pods", "sync"]


class PdbSelections:
    """Per PDB key: the PDB object the selection was made for, and its pods by key."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.sets: dict[str, tuple[PodDisruptionBudget, dict[str, PodState]]] = {}
        # namespace -> keys of the PDBs whose selection lives there
        self.by_ns: dict[str, list[str]] = {}
        state.pod_added.append(self.on_add)

    def on_add(self, ps: PodState, old: PodState | None) -> None:
        """Follow one added pod (``old``: the pod of that name it replaces)."""
        keys = self.by_ns.get(ps.pod.namespace)
        if not keys:
            return
        labels = ps.pod.labels
        for key in keys:
            pdb, pods = self.sets[key]
            if pdb.selector.empty or pdb.selector.matches(labels):
                pods[ps.key] = ps
            elif old is not None:
                pods.pop(ps.key, None)

    def sync(self, pdbs: Iterable[PodDisruptionBudget]) -> None:
        """Select the pods of ``pdbs`` not selected yet (or selected for an older object)."""
        todo: dict[str, list[PodDisruptionBudget]] = {}
        for pdb in pdbs:
            have = self.sets.get(pdb.key)
            if have is None or have[0] is not pdb:
                todo.setdefault(pdb.namespace, []).append(pdb)
        live = self.state.pdbs
        for key in [k for k, (p, _) in self.sets.items() if live.get(k) is not p]:
            self._drop(key)
        for ns, group in todo.items():
            self._select(ns, group)

    def _drop(self, key: str) -> None:
        pdb, _ = self.sets.pop(key)
        self.by_ns[pdb.namespace].remove(key)

    def _select(self, ns: str, group: list[PodDisruptionBudget]) -> None:
        """One walk of namespace ``ns`` for every PDB of ``group``."""
        # label key -> label value -> the PDBs one of whose In requirements
        # accepts it; PDBs without such a requirement are tried on every pod.
        by_label: dict[str, dict[str, list[tuple[PodDisruptionBudget, dict[str, PodState]]]]] = {}
        always: list[tuple[PodDisruptionBudget, dict[str, PodState]]] = []
        for pdb in group:
            if pdb.key in self.sets:
                self._drop(pdb.key)
            entry: tuple[PodDisruptionBudget, dict[str, PodState]] = (pdb, {})
            self.sets[pdb.key] = entry
            self.by_ns.setdefault(ns, []).append(pdb.key)
            req = next((r for r in pdb.selector.requirements
                        if r.operator == "In" and r.values), None)
            if req is None:
                always.append(entry)
                continue
            values = by_label.setdefault(req.key, {})
            for v in dict.fromkeys(req.values):
                values.setdefault(v, []).append(entry)
        pods = self.state.by_namespace.get(ns)
        if not pods:
            return
        lookups = list(by_label.items())
        for key, ps in pods.items():
            labels = ps.pod.labels
            for label, values in lookups:
                found = values.get(labels.get(label))  # type: ignore[arg-type]
                if found:
                    for pdb, sel in found:
                        if pdb.selector.matches(labels):
                            sel[key] = ps
            for pdb, sel in always:
                if pdb.selector.empty or pdb.selector.matches(labels):
                    sel[key] = ps


def _index(state: ClusterState) -> PdbSelections:
    """The state's index (the one following its pod additions), made on first use."""
    for watch in state.pod_added:
        owner = getattr(watch, "__self__", None)
        if isinstance(owner, PdbSelections):
            return owner
    return PdbSelections(state)


def sync(state: ClusterState, pdbs: Iterable[PodDisruptionBudget]) -> None:
    """The disruption controller observing ``pdbs``: select their pods now."""
    _index(state).sync(pdbs)


def selected_pods(state: ClusterState, pdb: PodDisruptionBudget) -> list[PodState]:
    """What the reference's walk of the namespace returns for ``pdb``, from the index."""
    index = _index(state)
    have = index.sets.get(pdb.key)
    if have is None or have[0] is not pdb:
        index.sync([pdb])
        have = index.sets[pdb.key]
    return [ps for ps in have[1].values() if not ps.gone]
