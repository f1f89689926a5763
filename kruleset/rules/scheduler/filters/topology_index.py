"""Shared, incrementally kept indexes for the topology filters and scores.

PodTopologySpread and InterPodAffinity count pods that match a label
selector in some namespaces, per topology domain.  Rather than walking every
node's pods each cycle, :class:`PodIndex` (a :class:`ClusterState` listener)
keeps the bound pods by namespace, by ``(namespace, label, value)``, and the
bound pods that carry pod (anti-)affinity terms; a cycle then looks only at
the pods a selector can match.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping

from kruleset.model.objects import Pod, PodAffinityTerm
from kruleset.model.selectors import IN, NOT_IN, LabelSelector, Requirement
from kruleset.model.state import ClusterState, PodState

__all__ = ["PodIndex", "ResolvedTerm", "pod_index", "resolve_term"]

# A resolved term by value: selector, topology key, namespaces, namespace selector.
_TermKey = tuple[LabelSelector, str, frozenset[str], "LabelSelector | None"]


class PodIndex:
    """Bound pods (terminating ones included) indexed for selector matching."""

    __slots__ = ("by_ns", "by_label", "with_affinity", "with_required_anti", "_anti_terms",
                 "anti_groups", "_last_labels", "__weakref__")

    def __init__(self) -> None:
        self.by_ns: dict[str, dict[str, PodState]] = {}
        self.by_label: dict[tuple[str, str, str], dict[str, PodState]] = {}
        self.with_affinity: dict[str, PodState] = {}
        self.with_required_anti: dict[str, PodState] = {}
        # pod key -> (the pod object, its required anti-affinity terms resolved)
        self._anti_terms: dict[str, tuple[Pod, tuple[ResolvedTerm, ...]]] = {}
        # Bound pods' required anti-affinity terms grouped by their resolved
        # value (selector, topology key, namespaces, namespace selector): a
        # group's terms match a given pod alike, so it is matched once.  Each
        # group holds its term and pod key -> (pod, how many of its terms are
        # in the group).  Only the pod's gates are ever replaced on a pod
        # object, so the grouping made at bind time stays true.
        self.anti_groups: dict[_TermKey, tuple[ResolvedTerm, dict[str, tuple[PodState, int]]]] = {}
        # (labels dict, namespace, its by_label buckets) of the last pod bound:
        # the pods of a range share one labels dict and are bound one after
        # the other (a million at a large cluster's load), so their buckets
        # are looked up once.  Buckets are never removed from by_label.
        self._last_labels: tuple[object, str, list[dict[str, PodState]]] = (None, "", [])

    def anti_terms(self, ps: PodState) -> tuple[ResolvedTerm, ...]:
        """The required anti-affinity terms of bound ``ps``, resolved once per pod object.

        Resolving depends only on the pod object, which a pod keeps until an
        action replaces it (then it is resolved again).
        """
        entry = self._anti_terms.get(ps.key)
        if entry is None or entry[0] is not ps.pod:
            pod = ps.pod
            entry = (pod, tuple(resolve_term(pod, t) for t in pod.pod_anti_affinity))
            self._anti_terms[ps.key] = entry
        return entry[1]

    def on_bind(self, state: ClusterState, ps: PodState) -> None:
        """Index a pod that was bound."""
        pod = ps.pod
        key = pod.key
        ns = pod.namespace
        self.by_ns.setdefault(ns, {})[key] = ps
        labels = pod.labels
        if labels:
            last = self._last_labels
            if last[0] is labels and last[1] == ns:
                buckets = last[2]
            else:
                by_label = self.by_label
                buckets = [by_label.setdefault((ns, k, v), {}) for k, v in labels.items()]
                self._last_labels = (labels, ns, buckets)
            for bucket in buckets:
                bucket[key] = ps
        if (pod.pod_affinity or pod.pod_anti_affinity or pod.pod_affinity_preferred
                or pod.pod_anti_affinity_preferred):
            self.with_affinity[key] = ps
        if pod.pod_anti_affinity:
            self.with_required_anti[key] = ps
            for rt in self.anti_terms(ps):
                tk = rt.value_key()
                group = self.anti_groups.get(tk)
                if group is None:
                    group = self.anti_groups[tk] = (rt, {})
                members = group[1]
                entry = members.get(key)
                members[key] = (ps, 1 if entry is None else entry[1] + 1)

    def on_unbind(self, state: ClusterState, ps: PodState) -> None:
        """Forget a pod that left its node."""
        pod = ps.pod
        key = pod.key
        ns = self.by_ns.get(pod.namespace)
        if ns is not None:
            ns.pop(key, None)
        for k, v in pod.labels.items():
            d = self.by_label.get((pod.namespace, k, v))
            if d is not None:
                d.pop(key, None)
        self.with_affinity.pop(key, None)
        if self.with_required_anti.pop(key, None) is not None:
            for rt in self.anti_terms(ps):
                group = self.anti_groups.get(rt.value_key())
                if group is not None:
                    group[1].pop(key, None)
                    if not group[1]:
                        del self.anti_groups[rt.value_key()]
        self._anti_terms.pop(key, None)

    def candidates(self, namespace: str, selector: LabelSelector) -> Iterable[PodState]:
        """Bound pods of ``namespace`` that ``selector`` may match (a superset).

        Uses the narrowest ``key in (value)`` requirement of the selector.
        """
        best: Mapping[str, PodState] | None = None
        for r in selector.requirements:
            if r.operator == IN and len(r.values) == 1:
                d = self.by_label.get((namespace, r.key, r.values[0]))
                if d is None:
                    return ()
                if best is None or len(d) < len(best):
                    best = d
        if best is None:
            best = self.by_ns.get(namespace, {})
        return best.values()

    def matching(self, namespace: str, selector: LabelSelector) -> list[PodState]:
        """Bound pods of ``namespace`` whose labels ``selector`` matches."""
        if _exact(selector):
            return list(self.candidates(namespace, selector))
        return [ps for ps in self.candidates(namespace, selector)
                if selector.matches(ps.pod.labels)]


def _exact(selector: LabelSelector) -> bool:
    """Whether :meth:`PodIndex.candidates` gives exactly the pods ``selector`` matches.

    A selector of one ``key in (value)`` requirement picks the pods indexed
    under that label, each of which carries it: no pod there fails it.
    """
    reqs = selector.requirements
    return len(reqs) == 1 and reqs[0].operator == IN and len(reqs[0].values) == 1


_INDEXES: weakref.WeakKeyDictionary[ClusterState, PodIndex] = weakref.WeakKeyDictionary()


def pod_index(state: ClusterState) -> PodIndex:
    """The cluster's :class:`PodIndex`, created (and subscribed) on first use."""
    idx = _INDEXES.get(state)
    if idx is None:
        idx = _INDEXES[state] = PodIndex()
        state.subscribe(idx)
    return idx


class ResolvedTerm:
    """A pod (anti-)affinity term as its owner pod resolves it.

    ``namespaces`` is the set named (or the owner's namespace when neither
    ``namespaces`` nor ``namespaceSelector`` is given); ``ns_selector`` also
    admits namespaces by their labels (empty: every namespace).  The
    selector includes the owner's ``matchLabelKeys`` (key in owner's value)
    and ``mismatchLabelKeys`` (key notin owner's value), as the API server
    merges them at creation.
    """

    __slots__ = ("selector", "key", "namespaces", "ns_selector", "weight")

    def __init__(self, selector: LabelSelector, key: str, namespaces: frozenset[str],
                 ns_selector: LabelSelector | None, weight: int = 0) -> None:
        self.selector = selector
        self.key = key
        self.namespaces = namespaces
        self.ns_selector = ns_selector
        self.weight = weight

    def value_key(self) -> _TermKey:
        """What the term matches by: equal keys match the same pods alike."""
        return (self.selector, self.key, self.namespaces, self.ns_selector)

    def matches(self, pod: Pod, state: ClusterState) -> bool:
        """Upstream ``AffinityTerm.Matches``: namespace admitted and selector matches."""
        if pod.namespace not in self.namespaces:
            sel = self.ns_selector
            if sel is None:
                return False
            ns = state.namespaces.get(pod.namespace)
            if not sel.matches(ns.labels if ns is not None else {}):
                return False
        return self.selector.matches(pod.labels)

    def namespaces_in(self, state: ClusterState) -> Iterable[str]:
        """Every namespace this term can match pods in."""
        if self.ns_selector is None:
            return self.namespaces
        sel = self.ns_selector
        return [n for n, ns in state.namespaces.items()
                if n in self.namespaces or sel.matches(ns.labels)]

    def matching_pods(self, index: PodIndex, state: ClusterState) -> Iterable[PodState]:
        """Bound pods this term matches."""
        exact = _exact(self.selector)
        for ns in self.namespaces_in(state):
            if exact:
                yield from index.candidates(ns, self.selector)
                continue
            for ps in index.candidates(ns, self.selector):
                if self.selector.matches(ps.pod.labels):
                    yield ps


def resolve_term(owner: Pod, term: PodAffinityTerm, weight: int = 0) -> ResolvedTerm:
    """Resolve ``term`` of ``owner`` (namespaces, matchLabelKeys, mismatchLabelKeys)."""
    reqs: list[Requirement] = list(term.selector.requirements)
    labels = owner.labels
    for k in term.match_label_keys:
        if k in labels:
            reqs.append(Requirement(k, IN, (labels[k],)))
    for k in term.mismatch_label_keys:
        if k in labels:
            reqs.append(Requirement(k, NOT_IN, (labels[k],)))
    selector = LabelSelector(tuple(reqs)) if len(reqs) != len(term.selector.requirements) \
        else term.selector
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((owner.namespace,))
    else:
        namespaces = frozenset(term.namespaces)
    return ResolvedTerm(selector, term.topology_key, namespaces, term.namespace_selector, weight)
