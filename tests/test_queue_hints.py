"""QueueingHints of PodTopologySpread and InterPodAffinity, as v1.35's plugins write them.

Upstream ``podtopologyspread/plugin.go`` and ``interpodaffinity/plugin.go``
(``isSchedulableAfterPodChange``, ``isSchedulableAfterNodeChange``): a pod
either plugin rejected is requeued only by an assigned pod (of its namespace,
for spreading) its constraints or terms select, or by a node carrying their
topology keys.  The cases are the ones those functions branch on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kruleset.manifests import load_objects
from kruleset.model.objects import Pod, Resources
from kruleset.rules.scheduler.queue.events import NodeView, PodView
from kruleset.rules.scheduler.queue.hints import REGISTRATIONS


def _pod(tmp: Path, name: str, labels: dict[str, str], ns: str = "default",
         **spec: Any) -> Pod:
    body = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "x"}], **spec}}
    path = tmp / f"{ns}-{name}.json"
    path.write_text(json.dumps(body))
    (pod,) = [o for o in load_objects(path) if isinstance(o, Pod)]
    return pod


def _hint(plugin: str, n: int) -> Any:
    hint = REGISTRATIONS[plugin][n][1]
    assert hint is not None
    return hint


def _node(labels: dict[str, str]) -> NodeView:
    return NodeView("n9", labels, (), False, Resources())


SPREAD = {"topologySpreadConstraints": [
    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
     "labelSelector": {"matchLabels": {"app": "batch"}}}]}


@pytest.mark.parametrize(("labels", "ns", "node", "queue"), [
    ({"app": "batch"}, "default", "n1", True),     # selected, same namespace, assigned
    ({"app": "db"}, "default", "n1", False),       # not selected by the constraint
    ({"app": "batch"}, "other", "n1", False),      # another namespace
    ({"app": "batch"}, "default", None, False),    # not assigned
])
def test_spread_requeues_for_pods_its_constraints_count(tmp_path: Path, labels: dict[str, str],
                                                        ns: str, node: str | None,
                                                        queue: bool) -> None:
    waiting = _pod(tmp_path, "w", {"app": "batch"}, **SPREAD)
    other = PodView(_pod(tmp_path, "o", labels, ns), node, None)
    hint = _hint("PodTopologySpread", 0)
    assert hint(waiting, None, other) is queue   # added
    assert hint(waiting, other, None) is queue   # deleted


def test_spread_ignores_soft_constraints_for_requeueing(tmp_path: Path) -> None:
    soft = {"topologySpreadConstraints": [dict(SPREAD["topologySpreadConstraints"][0],
                                               whenUnsatisfiable="ScheduleAnyway")]}
    waiting = _pod(tmp_path, "w", {"app": "batch"}, **soft)
    other = PodView(_pod(tmp_path, "o", {"app": "batch"}), "n1", None)
    assert _hint("PodTopologySpread", 0)(waiting, None, other) is False


def test_spread_node_events_need_the_topology_keys(tmp_path: Path) -> None:
    waiting = _pod(tmp_path, "w", {"app": "batch"}, **SPREAD)
    hint = _hint("PodTopologySpread", 1)
    assert hint(waiting, None, _node({"zone": "a"})) is True
    assert hint(waiting, None, _node({"rack": "a"})) is False
    assert hint(waiting, _node({"zone": "a"}), _node({"zone": "b"})) is True
    assert hint(waiting, _node({"zone": "a"}), _node({"zone": "a", "x": "y"})) is False


AFFINITY = {"affinity": {
    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "zone"}]},
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "host"}]}}}


def test_interpod_requeues_for_an_added_match_or_a_deleted_anti_match(tmp_path: Path) -> None:
    waiting = _pod(tmp_path, "w", {"app": "x"}, **AFFINITY)
    hint = _hint("InterPodAffinity", 0)
    cache = PodView(_pod(tmp_path, "c", {"app": "cache"}), "n1", None)
    web = PodView(_pod(tmp_path, "web", {"app": "web"}), "n1", None)
    assert hint(waiting, None, cache) is True      # added, matches the affinity term
    assert hint(waiting, cache, None) is False     # deleted: only anti-affinity counts
    assert hint(waiting, None, web) is False       # added, matches only anti-affinity
    assert hint(waiting, web, None) is True        # deleted, matched the anti-affinity
    unbound = PodView(cache.pod, None, None)
    assert hint(waiting, None, unbound) is False   # not assigned
    other_ns = PodView(_pod(tmp_path, "c", {"app": "cache"}, "other"), "n1", None)
    assert hint(waiting, None, other_ns) is False  # the term's namespace is the pod's


def test_interpod_node_events_need_a_term_key(tmp_path: Path) -> None:
    waiting = _pod(tmp_path, "w", {"app": "x"}, **AFFINITY)
    hint = _hint("InterPodAffinity", 1)
    assert hint(waiting, None, _node({"host": "h"})) is True
    assert hint(waiting, None, _node({"zone": "a"})) is True
    # an anti-affinity term queues for any node added (isSchedulableAfterNodeChange)
    assert hint(waiting, None, _node({"rack": "r"})) is True
    affinity_only = {"affinity": {"podAffinity": AFFINITY["affinity"]["podAffinity"]}}
    alone = _pod(tmp_path, "a", {"app": "x"}, **affinity_only)
    assert hint(alone, None, _node({"rack": "r"})) is False
    assert hint(alone, None, _node({"zone": "a"})) is True
