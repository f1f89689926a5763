"""The disruption controller's finders and getExpectedScale, transcribed from disruption_test.go.

Each test names the upstream test it encodes.  Upstream's VerifyPdbStatus
arguments are (disruptionsAllowed, currentHealthy, desiredHealthy,
expectedPods); ``counts`` returns the same tuple.
"""

from __future__ import annotations

import pytest

from kruleset.model.objects import Deployment, Node, Pod, PodDisruptionBudget, Workload
from kruleset.model.resources import Resources
from kruleset.model.selectors import LabelSelector, Requirement
from kruleset.model.state import ClusterState, PodState
from kruleset.rules.disruption.finders import ControllerScale, find_controller
from kruleset.rules.disruption.pdb import pdb_status
from kruleset.rules.engine import Trace

FOO = LabelSelector((Requirement("foo", "In", ("bar",)),))


def cluster() -> ClusterState:
    st = ClusterState()
    st.add_node(Node("n1", Resources(cpu=640_000, memory=640 << 30, pods=1000)))
    return st


def pod(st: ClusterState, name: str, kind: str = "", owner: str = "", *,
        ready: bool = True, labels: dict[str, str] | None = None) -> PodState:
    ps = st.add_pod(Pod("default", name, labels=labels or {"foo": "bar"},
                        owner_kind=kind, owner_name=owner))
    st.bind(ps, "n1")
    ps.ready = ready
    return ps


def replicated(st: ClusterState, kind: str, name: str, replicas: int) -> None:
    """A Deployment, a ReplicaSet no Deployment controls, or a ReplicationController."""
    st.deployments[f"default/{name}"] = Deployment(
        "default", name, replicas, Pod("default", name), kind=kind)


def stateful_set(st: ClusterState, name: str, replicas: int) -> None:
    st.workloads[f"StatefulSet/default/{name}"] = Workload(
        "StatefulSet", "default", name, Pod("default", name), replicas)


def counts(st: ClusterState, pdb: PodDisruptionBudget) -> tuple[int, int, int, int]:
    s = pdb_status(st, pdb, 0)
    return s.disruptions_allowed, s.current_healthy, s.desired_healthy, s.expected_pods


def min_available(value: int | str, selector: LabelSelector = FOO) -> PodDisruptionBudget:
    return PodDisruptionBudget("default", "foobar", selector, min_available=value)


def max_unavailable(value: int | str) -> PodDisruptionBudget:
    return PodDisruptionBudget("default", "foobar", FOO, max_unavailable=value)


# TestBasicFinderFunctions: a ReplicaSet of 10, a ReplicationController of 12, a
# StatefulSet of 14; each finder finds its own kind only.  (Upstream's rows with an
# invalid API group have no counterpart: kruleset's readers refuse such objects.)
@pytest.mark.parametrize(("kind", "name", "finder", "scale"), [
    ("ReplicaSet", "rs", "disruption.finder.replica-set", 10),
    ("ReplicationController", "rc", "disruption.finder.replication-controller", 12),
    ("StatefulSet", "ss", "disruption.finder.stateful-set", 14),
    ("ReplicaSet", "ss", None, None),         # statefulset controller with invalid kind
    ("StatefulSet", "rs", None, None),
])
def test_basic_finder_functions(kind: str, name: str, finder: str | None,
                                scale: int | None) -> None:
    st = cluster()
    replicated(st, "ReplicaSet", "rs", 10)
    replicated(st, "ReplicationController", "rc", 12)
    stateful_set(st, "ss", 14)
    got = find_controller(st, "default", kind, name)
    if finder is None:
        assert got is None
    else:
        assert got == ControllerScale(kind, f"default/{name}", scale or 0, finder)


@pytest.mark.parametrize(("rs_kind", "dep_kind", "finds"), [
    ("ReplicaSet", "Deployment", True),      # happy path
    ("InvalidKind", "Deployment", False),    # invalid rs kind
    ("ReplicaSet", "InvalidKind", False),    # invalid deployment kind
])
def test_deployment_finder_function(rs_kind: str, dep_kind: str, finds: bool) -> None:
    # TestDeploymentFinderFunction: the Deployment's scale (10), never the ReplicaSet's.
    st = cluster()
    replicated(st, dep_kind, "dep", 10)
    got = find_controller(st, "default", rs_kind, "dep")
    if finds:
        assert got == ControllerScale("Deployment", "default/dep", 10,
                                      "disruption.finder.deployment")
    else:
        assert got is None or got.rule != "disruption.finder.deployment"  # type: ignore[union-attr]


def test_no_selector_matches_all_pods() -> None:
    # TestNoSelector (policy/v1: an empty selector selects the whole namespace)
    st = cluster()
    pdb = min_available(3, LabelSelector())
    assert counts(st, pdb) == (0, 0, 3, 0)
    pod(st, "yo-yo-yo", labels={"other": "x"})
    assert counts(st, pdb) == (0, 1, 3, 1)


def test_integer_max_unavailable_without_controller() -> None:
    # TestIntegerMaxUnavailable
    st = cluster()
    pdb = max_unavailable(1)
    assert counts(st, pdb)[0] == 0
    pod(st, "naked")
    assert counts(st, pdb)[0] == 0
    assert pdb_status(st, pdb, 0).sync_error == ""  # TestStatusForUnmanagedPod


@pytest.mark.parametrize(("value", "first", "second"), [
    (2, (0, 1, 5, 7), (0, 1, 3, 5)),          # TestIntegerMaxUnavailableWithScaling
    ("30%", (0, 1, 4, 7), (0, 1, 2, 3)),      # TestPercentageMaxUnavailableWithScaling
])
def test_max_unavailable_with_scaling(value: int | str, first: tuple[int, ...],
                                      second: tuple[int, ...]) -> None:
    st = cluster()
    replicated(st, "ReplicaSet", "rs", 7)
    pod(st, "pod", "ReplicaSet", "rs")
    assert counts(st, max_unavailable(value)) == first
    replicated(st, "ReplicaSet", "rs", 5 if value == 2 else 3)
    assert counts(st, max_unavailable(value)) == second


def test_naked_pod() -> None:
    # TestNakedPod, TestTotalUnmanagedPods: 28% with one pod without a controller
    st = cluster()
    pdb = min_available("28%")
    assert counts(st, pdb)[0] == 0
    pod(st, "unmanaged")
    assert counts(st, pdb) == (0, 1, 0, 0)
    assert pdb_status(st, pdb, 0).condition_reason == "InsufficientPods"


def test_replica_set() -> None:
    # TestReplicaSet: the scale of a ReplicaSet without a Deployment counts.
    st = cluster()
    replicated(st, "ReplicaSet", "rs", 10)
    pod(st, "pod", "ReplicaSet", "rs")
    assert counts(st, min_available("20%")) == (0, 1, 2, 10)


def test_multiple_controllers() -> None:
    # TestMultipleControllers: no controller yet -> 0; one RC of 1 and 200% > 1% -> 1.
    st = cluster()
    pdb = min_available("1%")
    for i in range(2):
        pod(st, f"pod-{i}")
    assert counts(st, pdb)[0] == 0
    st2 = cluster()
    replicated(st2, "ReplicationController", "rc-1", 1)
    for i in range(2):
        pod(st2, f"pod-{i}", "ReplicationController", "rc-1")
    assert counts(st2, pdb)[0] == 1


@pytest.mark.parametrize("kind", ["ReplicationController", "StatefulSet"])
def test_controller_pods_arrive(kind: str) -> None:
    # TestReplicationController, TestStatefulSetController: 34% of 3 rounds up to 2.
    st = cluster()
    if kind == "StatefulSet":
        stateful_set(st, "foobar", 3)
    else:
        replicated(st, kind, "foobar", 3)
    pdb = min_available("34%")
    assert counts(st, pdb) == (0, 0, 0, 0)
    for i in range(3):
        pod(st, f"foobar-{i}", kind, "foobar", labels={"foo": "bar", "baz": "quux"})
        assert counts(st, pdb) == ((0, i + 1, 2, 3) if i < 2 else (1, 3, 2, 3))
    if kind == "ReplicationController":
        pod(st, "rogue")
        assert counts(st, pdb)[0] == 2


def test_two_controllers() -> None:
    # TestTwoControllers: an RC of 11 and a ReplicaSet of 11 under 28%: 4 with one, 7 with two.
    st = cluster()
    pdb = min_available("28%")
    replicated(st, "ReplicationController", "rc", 11)
    assert counts(st, pdb) == (0, 0, 0, 0)
    unavailable = 11 - 4 - 1
    for i in range(1, 12):
        pod(st, f"quux-{i}", "ReplicationController", "rc", ready=i > unavailable)
        healthy = max(0, i - unavailable)
        assert counts(st, pdb) == (1 if healthy > 4 else 0, healthy, 4, 11)
    replicated(st, "Deployment", "d", 11)  # selects nothing of the budget's
    assert counts(st, pdb) == (1, 5, 4, 11)
    replicated(st, "ReplicaSet", "rs", 11)
    assert counts(st, pdb) == (1, 5, 4, 11)
    unavailable = 2 * 11 - (7 + 2) - unavailable
    rs_pods = []
    for i in range(1, 12):
        rs_pods.append(pod(st, f"quuux-{i}", "ReplicaSet", "rs", ready=i > unavailable))
        healthy = 5 + max(0, i - unavailable)
        assert counts(st, pdb) == (max(0, healthy - 7), healthy, 7, 22)
    assert counts(st, pdb) == (2, 9, 7, 22)
    rs_pods[-1].ready = False
    assert counts(st, pdb) == (1, 8, 7, 22)
    rs_pods[-2].ready = False
    assert counts(st, pdb) == (0, 7, 7, 22)
    rs_pods[-1].ready = True
    assert counts(st, pdb) == (1, 8, 7, 22)


@pytest.mark.parametrize(("kind", "error"), [
    ("DaemonSet", "daemonsets.apps does not implement the scale subresource"),
    ("Job", "jobs.batch does not implement the scale subresource"),
    ("Node", "nodes does not implement the scale subresource"),
    ("StatefulSet", 'found no controllers for pod "p-0"'),   # not in the cluster
    ("CronTab", 'found no controllers for pod "p-0"'),       # a kind kruleset holds none of
])
def test_unresolvable_controller_fails_the_sync(kind: str, error: str) -> None:
    # TestScaleFinderNoResource, getExpectedScale's "found no controllers"; failSafe.
    st = cluster()
    pod(st, "p-0", kind, "x")
    for pdb in (max_unavailable(1), min_available("50%")):
        s = pdb_status(st, pdb, 0)
        assert (s.disruptions_allowed, s.sync_error, s.condition_reason, s.condition_status) == \
            (0, error, "SyncFailed", "False")
        assert s.observed_generation == 0
    # an integer minAvailable never asks for controllers
    assert pdb_status(st, min_available(0), 0).condition_reason == "SufficientPods"


def test_static_pod_is_controlled_by_its_node() -> None:
    st = cluster()
    ps = st.add_pod(Pod("default", "etcd-n1", labels={"foo": "bar"}, static=True,
                        node_name="n1"))
    st.bind(ps, "n1")
    assert pdb_status(st, max_unavailable(1), 0).sync_error == \
        "nodes does not implement the scale subresource"


def test_controllers_add_up_and_count_once() -> None:
    st = cluster()
    replicated(st, "Deployment", "web", 3)
    stateful_set(st, "db", 2)
    for i in range(3):
        pod(st, f"web-{i}", "ReplicaSet", "web")
    for i in range(2):
        pod(st, f"db-{i}", "StatefulSet", "db")
    assert counts(st, max_unavailable("20%")) == (1, 5, 4, 5)


def test_status_steps_are_traced_with_the_controllers_found() -> None:
    st = cluster()
    stateful_set(st, "redis", 2)
    pod(st, "redis-0", "StatefulSet", "redis")
    pod(st, "redis-1", "StatefulSet", "redis")
    trace = Trace()
    pdb_status(st, max_unavailable(1), 0, trace=trace, subject="default/redis-0")
    whys = [(e.rule, e.why) for e in trace.entries]
    assert whys[0] == ("disruption.finder.stateful-set",
                       "StatefulSet default/redis: replicas 2")
    assert whys[1] == ("disruption.pdb.expected-pods", "default/foobar: expectedPods 2 "
                       "(StatefulSet default/redis replicas 2), desiredHealthy 1")
    assert whys[-1] == ("disruption.pdb.disruptions-allowed",
                        "default/foobar: disruptionsAllowed 1 (SufficientPods)")
