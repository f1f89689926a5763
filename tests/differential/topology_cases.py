"""Timelines reduced from disagreements over time with terminating preemption victims.

Each was found by ``scripts/differential.py --timeline --topology`` (or the
one-cycle clusters run over time) and reduced by hand; the docstring says
what upstream v1.35 does and where.  ``test_timeline_topology.py`` compares
them with the timeline oracle, ``tests/test_preemption_over_time.py`` checks
kruleset's answer without it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CASES", "force_deleted_victim", "nominated_anti_affinity_skipped",
           "same_instant_bindings", "spread_terminating_victim", "victims_end_together",
           "victims_in_cache_order"]

_CLASSES = [{"metadata": {"name": n}, "value": v}
            for n, v in (("low", 10), ("mid", 100), ("high", 1000), ("urgent", 5000))]


def _node(name: str, cpu: str, taint: str | None = None, **labels: str) -> dict[str, Any]:
    node: dict[str, Any] = {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                   "capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}
    if taint:
        node["spec"] = {"taints": [{"key": taint, "value": "true", "effect": "NoSchedule"}]}
    return node


def _pod(name: str, cpu: str, cls: str, app: str, node: str | None = None, grace: int = 0,
         **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x",
                        "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}],
        "priorityClassName": cls, "terminationGracePeriodSeconds": grace, **spec}
    if node:
        body["nodeName"] = node
    return {"metadata": {"name": name, "labels": {"app": app}}, "spec": body}


def spread_terminating_victim() -> dict[str, Any]:
    """A spreading pod's preemption picks the already terminating pod, and waits for it.

    n1 (zone b) holds ``old`` (db, low, deleted at 1 s with 3 s grace) and
    ``keep`` (db, mid); n2 (zone a) is tainted.  ``spread`` (urgent, db,
    maxSkew 1 over zone) fails on n1 at 2 s: PreFilter counts ``keep`` only
    (``countPodsMatchSelector`` skips a pod with a deletionTimestamp), skew
    1 + 1 - 0.  The dry run removes both lower-priority pods, and
    ``updateWithPod`` (the RemovePod/AddPod extension) counts ``old`` though
    PreFilter did not: zone b goes to -1; reprieving ``keep`` gives 0 (fits),
    reprieving ``old`` gives 1 (fails).  The victim is ``old``, already
    terminating: nominated to n1, no deletion.  When ``old`` is gone (4 s) the
    retry fails again, preempts ``keep`` and binds.
    """
    return {
        "priorityClasses": _CLASSES,
        "nodes": [_node("n1", "6", zone="b"), _node("n2", "4", "maintenance", zone="a")],
        "pods": [_pod("old", "1", "low", "db", "n1", grace=5),
                 _pod("keep", "2", "mid", "db", "n1")],
        "timeline": [
            {"at": 1000, "op": "delete", "kind": "pod", "name": "default/old",
             "gracePeriodSeconds": 3},
            {"at": 2000, "op": "create", "pod": _pod(
                "spread", "2", "urgent", "db", topologySpreadConstraints=[{
                    "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "db"}}}])}],
    }


def nominated_anti_affinity_skipped() -> dict[str, Any]:
    """A nominated pod's anti-affinity does not keep out a pod InterPodAffinity skips.

    ``guard`` (high) preempts ``big`` on n1 and is nominated there; its
    required anti-affinity (app=batch, hostname) matches ``plain`` (batch, no
    affinity terms).  No bound pod's anti-affinity matches ``plain``, so
    InterPodAffinity's PreFilter returns Skip and the framework passes over
    it for the whole cycle, nominated pods added or not (``RunFilterPlugins``
    and ``RunPreFilterExtensionAddPod`` skip the plugins in the cycle state's
    SkipFilterPlugins): ``plain`` binds beside the nomination, and ``guard``
    then preempts it.  From the one-cycle cluster mixed 125975 over time.
    """
    return {
        "priorityClasses": _CLASSES,
        "nodes": [_node("n1", "4")],
        "pods": [_pod("big", "3", "low", "db", "n1")],
        "timeline": [
            {"at": 1000, "op": "create", "pod": _pod("plain", "1500m", "low", "batch")},
            {"at": 2000, "op": "create", "pod": _pod(
                "guard", "2", "high", "web", affinity={"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{
                        "labelSelector": {"matchLabels": {"app": "batch"}},
                        "topologyKey": "kubernetes.io/hostname"}]}})}],
    }


def victims_end_together() -> dict[str, Any]:
    """The victims of one preemption end their grace periods at one instant.

    ``big`` (high) preempts ``v1`` and ``v2`` (30 s grace) at 1 s; ``wait``
    (low, 3 CPU) fails at 2 s.  The preemption goroutine deletes both victims
    with no time passing between its API calls, so both go at 31 s before
    the scheduler's next cycle: ``big`` binds, ``wait`` is retried once.
    """
    return {
        "priorityClasses": _CLASSES,
        "nodes": [_node("n1", "4")],
        "pods": [_pod("v1", "1", "low", "db", "n1", grace=30),
                 _pod("v2", "1", "low", "db", "n1", grace=30),
                 _pod("keep", "2", "urgent", "web", "n1")],
        "timeline": [
            {"at": 1000, "op": "create", "pod": _pod("big", "2", "high", "web")},
            {"at": 2000, "op": "create", "pod": _pod("wait", "3", "low", "cache")}],
    }


def force_deleted_victim() -> dict[str, Any]:
    """Deleting a terminating victim with ``gracePeriodSeconds: 0`` removes it at once.

    ``big`` (urgent) preempts ``victim`` (30 s grace) at 1 s and waits on
    n1; at 5 s ``victim`` is deleted again with grace 0: the API server takes
    the shorter grace period, and 0 deletes the pod immediately
    (``rest.BeforeDelete``), so ``big`` binds at 5 s, not at 31 s.
    """
    return {
        "priorityClasses": _CLASSES,
        "nodes": [_node("n1", "4")],
        "pods": [_pod("victim", "2", "low", "db", "n1", grace=30)],
        "timeline": [
            {"at": 1000, "op": "create", "pod": _pod("big", "3", "urgent", "web")},
            {"at": 5000, "op": "delete", "kind": "pod", "name": "default/victim",
             "gracePeriodSeconds": 0}],
    }


def victims_in_cache_order() -> dict[str, Any]:
    """Equally important pods are reprieved in the scheduler cache's order.

    ``first`` and ``second`` (low, same start time) are bound in that order;
    deleting ``first`` (20 s grace) updates it, and the cache's ``UpdatePod``
    moves it behind ``second`` (``RemovePod`` puts the last pod in its slot,
    ``AddPod`` appends).  ``p`` (high) fits once either is gone: the victims
    are listed in that order and sorted stably by importance, so ``second``
    is reprieved and ``first``, already terminating, is the victim: ``p`` is
    nominated with no deletion and binds when ``first`` is gone (21 s).
    """
    return {
        "priorityClasses": _CLASSES,
        "nodes": [_node("n1", "2")],
        "pods": [_pod("first", "1", "low", "db", "n1", grace=30),
                 _pod("second", "250m", "low", "db", "n1"),
                 _pod("top", "500m", "urgent", "web", "n1")],
        "timeline": [
            {"at": 1000, "op": "delete", "kind": "pod", "name": "default/first",
             "gracePeriodSeconds": 20},
            {"at": 2000, "op": "create", "pod": _pod("p", "500m", "high", "web")}],
    }


def same_instant_bindings() -> dict[str, Any]:
    """Pods the scheduler bound at one instant keep their binding order as start order.

    ``a`` then ``b`` (mid) bind at 1 s; ``early``'s deletion at 2 s moves it
    to the end of the cache's list and its removal at 7 s puts ``b`` before
    ``a`` there.  Upstream's start times still differ (``a`` bound first, a
    moment earlier), so ``a`` is the more important: ``big`` reprieves it and
    preempts ``b``.  From ``--timeline --topology`` seed 1521.
    """
    return {
        "priorityClasses": _CLASSES,
        "nodes": [_node("n1", "6")],
        "pods": [],
        "timeline": [
            {"at": 100, "op": "create", "pod": _pod("early", "250m", "low", "db", grace=5)},
            {"at": 1000, "op": "create", "pod": _pod("a", "250m", "mid", "db")},
            {"at": 1000, "op": "create", "pod": _pod("b", "3", "mid", "web")},
            {"at": 2000, "op": "delete", "kind": "pod", "name": "default/early"},
            {"at": 8000, "op": "create", "pod": _pod("big", "3", "urgent", "web")}],
    }


CASES = {
    "spread-terminating-victim": spread_terminating_victim,
    "nominated-anti-affinity-skipped": nominated_anti_affinity_skipped,
    "victims-end-together": victims_end_together,
    "force-deleted-victim": force_deleted_victim,
    "victims-in-cache-order": victims_in_cache_order,
    "same-instant-bindings": same_instant_bindings,
}
