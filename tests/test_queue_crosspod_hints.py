"""PodTopologySpread's and InterPodAffinity's QueueingHints against upstream's tables.

Transcribed from the cases of upstream's ``Test_isSchedulableAfterPodChange``
and ``Test_isSchedulableAfterNodeChange`` in
``pkg/scheduler/framework/plugins/podtopologyspread/plugin_test.go`` and
``interpodaffinity/plugin_test.go`` (v1.35): the waiting pod, the object
before and after the event, and Queue (True) or QueueSkip (False).  The node
cases of InterPodAffinity were also checked on the v1.35.4 scheduler (the
timeline oracle): a label that is no term's topology key does not requeue.
"""

from __future__ import annotations

import pytest

from kruleset.model.objects import Pod, PodAffinityTerm, TopologySpreadConstraint
from kruleset.model.resources import ZERO
from kruleset.model.selectors import EXISTS, IN, LabelSelector, Requirement, Taint, Toleration
from kruleset.rules.scheduler.queue.crosspod_hints import (
    affinity_node_change,
    affinity_pod_change,
    spread_node_change,
    spread_pod_change,
)
from kruleset.rules.scheduler.queue.events import NodeView, PodView
from kruleset.rules.scheduler.queue.hints import registrations_of

ZONE, HOST = "zone", "node"


def _sel(**labels: str) -> LabelSelector:
    return LabelSelector(tuple(Requirement(k, IN, (v,)) for k, v in labels.items()))


def _pod(name: str = "p", ns: str = "ns1", **labels: str) -> Pod:
    return Pod(ns, name, labels=labels)


def _view(pod: Pod, node: str | None = "fake-node") -> PodView:
    return PodView(pod, node, None)


def _node(name: str = "fake-node", taints: tuple[Taint, ...] = (), **labels: str) -> NodeView:
    return NodeView(name, labels, taints, False, ZERO)


# upstream's fooSelector: the label foo exists.
FOO = LabelSelector((Requirement("foo", EXISTS, ()),))


def _spread(*keys: str, honor_taints: bool = False) -> Pod:
    return Pod("ns1", "p", labels={"foo": ""}, spread=tuple(
        TopologySpreadConstraint(1, k, "DoNotSchedule", FOO,
                                 node_taints_policy="Honor" if honor_taints else "Ignore")
        for k in keys))


SPREAD = _spread(ZONE, HOST)
SPREAD_POD_CASES = [
    # (name, waiting pod, old, new, queue)
    ("add pod with labels matching topology spread selector", SPREAD, None,
     _view(_pod("a", foo="")), True),
    ("add un-scheduled pod", SPREAD, None, _view(_pod("a", foo=""), None), False),
    ("update un-scheduled pod", SPREAD, _view(_pod("a", foo=""), None),
     _view(_pod("a", foo="", bar=""), None), False),
    ("delete un-scheduled pod", SPREAD, _view(_pod("a", foo=""), None), None, False),
    ("add pod with different namespace", SPREAD, None, _view(_pod("a", ns="ns2", foo="")),
     False),
    ("add pod with labels don't match topology spread selector", SPREAD, None,
     _view(_pod("a", bar="")), False),
    ("delete pod with labels that match topology spread selector", SPREAD,
     _view(_pod("a", foo="")), None, True),
    ("delete pod with labels that don't match topology spread selector", SPREAD,
     _view(_pod("a", bar="")), None, False),
    ("update pod's non-related label", SPREAD, _view(_pod("a", foo="", bar="")),
     _view(_pod("a", foo="", bar="x")), False),
    ("add pod's label that matches topology spread selector", SPREAD, _view(_pod("a")),
     _view(_pod("a", foo="")), True),
    ("delete pod label that matches topology spread selector", SPREAD,
     _view(_pod("a", foo="", bar="")), _view(_pod("a", bar="")), True),
    ("change pod's label that matches topology spread selector", SPREAD,
     _view(_pod("a", foo="")), _view(_pod("a", foo="x")), False),
    ("the unschedulable pod gets a new toleration (NodeTaintsPolicy Honor)",
     _spread(ZONE, honor_taints=True), _view(_spread(ZONE, honor_taints=True), None),
     _view(_spread(ZONE, honor_taints=True).replace(
         tolerations=(Toleration("foo", "Exists", "", "NoSchedule"),)), None), True),
    ("the unschedulable pod gets a new toleration (NodeTaintsPolicy Ignore)", SPREAD,
     _view(SPREAD, None), _view(SPREAD.replace(
         tolerations=(Toleration("foo", "Exists", "", "NoSchedule"),)), None), False),
]


@pytest.mark.parametrize(("name", "pod", "old", "new", "want"), SPREAD_POD_CASES,
                         ids=[c[0] for c in SPREAD_POD_CASES])
def test_spread_pod_change(name: str, pod: Pod, old: PodView | None, new: PodView | None,
                           want: bool) -> None:
    assert spread_pod_change(pod, old, new) is want


SPREAD_NODE_CASES = [
    ("node updates label which matches topologyKey", _node(zone="zone1", node="node1"),
     _node(zone="zone2", node="node1"), True),
    ("node that doesn't match topologySpreadConstraints updates non-related label",
     _node(foo="bar1"), _node(foo="bar2"), False),
    ("node that match topologySpreadConstraints adds non-related label",
     _node(zone="zone1", node="node1"), _node(zone="zone1", node="node1", foo="bar"), False),
    ("create node with non-related labels", None, _node(foo="bar"), False),
    ("create node with related labels", None, _node(zone="zone1", node="node1"), True),
    ("delete node with matched labels", _node(zone="zone1", node="node1"), None, True),
    ("delete node with non-related labels", _node(foo="bar"), None, False),
    ("add node label which matches topologyKey", _node(zone="zone1"),
     _node(zone="zone1", node="node1"), True),
    ("delete node label which matches topologyKey", _node(zone="zone1", node="node1"),
     _node(zone="zone1"), True),
    ("change node taints when the node matches",
     _node(zone="zone1", node="node1"),
     _node(taints=(Taint("foo", "bar", "NoSchedule"),), zone="zone1", node="node1"), True),
    ("change node taints when the node does not match", _node(foo="bar"),
     _node(taints=(Taint("foo", "bar", "NoSchedule"),), foo="bar"), False),
]


@pytest.mark.parametrize(("name", "old", "new", "want"), SPREAD_NODE_CASES,
                         ids=[c[0] for c in SPREAD_NODE_CASES])
def test_spread_node_change(name: str, old: NodeView | None, new: NodeView | None,
                            want: bool) -> None:
    assert spread_node_change(SPREAD, old, new) is want


def _affine(kind: str, key: str = "region", **selector: str) -> Pod:
    term = (PodAffinityTerm(_sel(**selector), key),)
    if kind == "affinity":
        return Pod("ns1", "p", pod_affinity=term)
    return Pod("ns1", "p", pod_anti_affinity=term)


AFF = _affine("affinity", service="securityscan")
ANTI = _affine("anti", service="securityscan")
AFFINITY_POD_CASES = [
    ("add a pod which matches the pod affinity", AFF, None,
     _view(_pod("a", service="securityscan")), True),
    ("add an un-scheduled pod", AFF, None, _view(_pod("a", service="securityscan"), None),
     False),
    ("add a pod which doesn't match the pod affinity", AFF, None,
     _view(_pod("a", aaa="a")), False),
    ("update a pod from non-match to match pod affinity", AFF, _view(_pod("a", aaa="a")),
     _view(_pod("a", service="securityscan")), True),
    ("the updating pod matches target pod's affinity both before and after", AFF,
     _view(_pod("a", service="securityscan")),
     _view(_pod("a", service="securityscan", aaa="a")), False),
    ("update an un-scheduled pod", AFF, _view(_pod("a"), None),
     _view(_pod("a", service="securityscan"), None), False),
    ("update a pod from match to non-match the pod anti-affinity", ANTI,
     _view(_pod("a", service="securityscan")), _view(_pod("a", aaa="a")), True),
    ("the updating pod matches target pod's anti-affinity both before and after", ANTI,
     _view(_pod("a", service="securityscan")),
     _view(_pod("a", service="securityscan", aaa="a")), False),
    ("delete a pod which doesn't match target pod's anti-affinity", ANTI,
     _view(_pod("a", aaa="a")), None, False),
    ("delete a pod which matches target pod's anti-affinity", ANTI,
     _view(_pod("a", service="securityscan")), None, True),
    ("delete a pod of another namespace", ANTI,
     _view(_pod("a", ns="ns2", service="securityscan")), None, False),
]


@pytest.mark.parametrize(("name", "pod", "old", "new", "want"), AFFINITY_POD_CASES,
                         ids=[c[0] for c in AFFINITY_POD_CASES])
def test_affinity_pod_change(name: str, pod: Pod, old: PodView | None, new: PodView | None,
                             want: bool) -> None:
    assert affinity_pod_change(pod, old, new) is want


AFFINITY_NODE_CASES = [
    ("add a new node with matched pod affinity topologyKey", AFF, None,
     _node(region="region1"), True),
    ("add a new node without matched topologyKey", AFF, None, _node(zone="zone1"), False),
    ("update node label to gain the pod affinity topologyKey", AFF, _node(zone="zone1"),
     _node(zone="zone1", region="region1"), True),
    ("update node label not related to the pod affinity topologyKey", AFF,
     _node(region="region1"), _node(region="region1", zone="zone1"), False),
    ("update node label removing the pod affinity topologyKey", AFF, _node(region="region1"),
     _node(), False),
    ("add a new node when the pod has anti-affinity", ANTI, None, _node(zone="zone1"), True),
    ("update node label removing the pod anti-affinity topologyKey", ANTI,
     _node(region="region1"), _node(), True),
    ("update node label changing the pod anti-affinity topologyKey's value", ANTI,
     _node(region="region1"), _node(region="region2"), True),
    ("update node label not related to the pod anti-affinity topologyKey", ANTI,
     _node(region="region1"), _node(region="region1", zone="zone1"), False),
]


@pytest.mark.parametrize(("name", "pod", "old", "new", "want"), AFFINITY_NODE_CASES,
                         ids=[c[0] for c in AFFINITY_NODE_CASES])
def test_affinity_node_change(name: str, pod: Pod, old: NodeView | None, new: NodeView,
                              want: bool) -> None:
    assert affinity_node_change(pod, old, new) is want


def test_interpod_affinity_requeues_on_every_taint_change() -> None:
    # Measured on v1.35.4: the UpdateNodeTaint registration has no hint.
    taint = [h for ev, h in registrations_of("InterPodAffinity") if ev.action & 16]
    assert taint == [None]
