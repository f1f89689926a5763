"""PodTopologySpread's and InterPodAffinity's QueueingHints, as v1.35 has them.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread/plugin.go``
(``isSchedulableAfterPodChange``, ``isSchedulableAfterNodeChange``) and
``interpodaffinity/plugin.go`` (the same two names).  Both plugins read the
waiting pod's own terms against the pod or node that changed:

* PodTopologySpread queues for an assigned pod of the waiting pod's
  namespace (or the waiting pod itself) whose labels match one of its
  ``DoNotSchedule`` constraints' selectors (for an update: whose labels
  changed that match; or a new toleration of the waiting pod when a
  constraint honours taints), and for a node that carries every constraint's
  topology key (added, deleted, gaining or losing a key, changing a key's
  value, or, carrying them all, changing its taints).
* InterPodAffinity queues for an assigned pod added that matches all of the
  waiting pod's required affinity terms, deleted that matches all of its
  required anti-affinity terms (updated: starting to match the former, or
  ceasing to match the latter), and for a node whose labels can change what a
  required term sees (see :func:`affinity_node_change`).  A deleted pod whose own
  anti-affinity kept the waiting pod out does not queue it (upstream reads
  only the waiting pod's terms): the leftover flush retries it.

Terms are matched without namespace labels, as upstream's hint does
(``AffinityTerm.Matches(pod, nil)``): a term's namespace selector admits a
namespace only if it matches an empty label set.  PodTopologySpread's default
constraints are the plugin's system defaults (all ``ScheduleAnyway``, so no
hard constraint comes from them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kruleset.model.objects import Pod

from ..filters.interpodaffinity import required_terms
from ..filters.podtopologyspread import Constraint, constraints_for
from ..filters.topology_index import ResolvedTerm
from .events import NodeView, PodView

__all__ = ["affinity_node_change", "affinity_pod_change", "spread_node_change",
           "spread_pod_change"]


def _hard_constraints(pod: Pod) -> list[Constraint]:
    # getConstraints: the pod's DoNotSchedule constraints, or the defaults' ones.
    return constraints_for(pod, {}, "DoNotSchedule")[0]


def _involved(view: PodView, pod: Pod) -> bool:
    # involvedInTopologySpreading: the waiting pod itself, or an assigned pod
    # of its namespace.
    return view.key == pod.key or (view.node is not None
                                   and view.pod.namespace == pod.namespace)


def _labels_match(constraints: Sequence[Constraint], labels: Mapping[str, str]) -> bool:
    # podLabelsMatchSpreadConstraints: any constraint's selector.
    return any(c.selector.matches(labels) for c in constraints)


def spread_pod_change(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    """PodTopologySpread ``isSchedulableAfterPodChange``."""
    if (new is not None and not _involved(new, pod)) or (old is not None
                                                         and not _involved(old, pod)):
        return False
    constraints = _hard_constraints(pod)
    if old is not None and new is not None:
        if new.key == pod.key and old.pod.tolerations != new.pod.tolerations and any(
                c.honor_taints for c in constraints):
            return True
        before, after = old.pod.labels, new.pod.labels
        if before == after:
            return False
        return any(c.selector.matches(before) != c.selector.matches(after)
                   for c in constraints)
    view = new if new is not None else old
    assert view is not None
    return _labels_match(constraints, view.pod.labels)


def _carries_keys(node: NodeView, constraints: Sequence[Constraint]) -> bool:
    # nodeLabelsMatchSpreadConstraints: every constraint's topology key.
    return all(c.key in node.labels for c in constraints)


def spread_node_change(pod: Pod, old: NodeView | None, new: NodeView | None) -> bool:
    """PodTopologySpread ``isSchedulableAfterNodeChange``."""
    constraints = _hard_constraints(pod)
    was = old is not None and _carries_keys(old, constraints)
    now = new is not None and _carries_keys(new, constraints)
    if old is not None and new is not None:
        if was != now:
            return True
        if not now:
            return False
        # checkTopologyKeyLabelsChanged, or the taints differ.
        return any(old.labels.get(c.key) != new.labels.get(c.key) for c in constraints) \
            or old.taints != new.taints
    return now if new is not None else was


def _term_matches(term: ResolvedTerm, other: Pod) -> bool:
    # AffinityTerm.Matches(pod, nil): the namespace named, or admitted by a
    # namespace selector that matches no labels at all; then the selector.
    if other.namespace not in term.namespaces:
        sel = term.ns_selector
        if sel is None or not sel.matches({}):
            return False
    return term.selector.matches(other.labels)


def _matches_all(terms: Sequence[ResolvedTerm], other: Pod) -> bool:
    # podMatchesAllAffinityTerms: false for no terms.
    return bool(terms) and all(_term_matches(t, other) for t in terms)


def affinity_pod_change(pod: Pod, old: PodView | None, new: PodView | None) -> bool:
    """InterPodAffinity ``isSchedulableAfterPodChange``."""
    if (new is not None and new.node is None) or (old is not None and old.node is None):
        return False  # an unscheduled pod changes no node's pods
    terms, anti = required_terms(pod)
    if old is not None and new is not None:
        if not _matches_all(terms, old.pod) and _matches_all(terms, new.pod):
            return True
        return _matches_all(anti, old.pod) and not _matches_all(anti, new.pod)
    if new is not None:
        return _matches_all(terms, new.pod)
    assert old is not None
    return _matches_all(anti, old.pod)


def affinity_node_change(pod: Pod, old: NodeView | None, new: NodeView | None) -> bool:
    """InterPodAffinity ``isSchedulableAfterNodeChange``.

    Affinity terms: a node added with the term's topology key, or updated to
    gain it or change its value.  Anti-affinity terms: any node added, or one
    updated to lose the key or change its value.
    """
    assert new is not None
    terms, anti = required_terms(pod)
    for t in terms:
        if old is None:
            if t.key in new.labels:
                return True
            continue
        if t.key in new.labels and old.labels.get(t.key) != new.labels[t.key]:
            return True  # gained, or changed value
    for t in anti:
        if old is None:
            return True
        if t.key in old.labels and old.labels[t.key] != new.labels.get(t.key):
            return True  # lost, or changed value
    return False
