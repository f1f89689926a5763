"""PDB status as the disruption controller computes it (disruption.go), with upstream's vectors."""

from __future__ import annotations

import attrs
import pytest

from kruleset.model.objects import Deployment, Node, Pod, PodDisruptionBudget
from kruleset.model.resources import Resources
from kruleset.model.selectors import LabelSelector, Requirement
from kruleset.model.state import ClusterState, PodState
from kruleset.rules.disruption.pdb import DELETION_TIMEOUT, pdb_status, scaled_value

SEL = LabelSelector((Requirement("app", "In", ("web",)),))


def cluster() -> ClusterState:
    st = ClusterState()
    st.add_node(Node("n1", Resources(cpu=64_000, memory=64 << 30, pods=110)))
    return st


def run(st: ClusterState, name: str, *, owner: str = "", kind: str = "ReplicaSet",
        ready: bool = True, ns: str = "default", labels: dict[str, str] | None = None
        ) -> PodState:
    pod = Pod(ns, name, labels=labels if labels is not None else {"app": "web"},
              owner_kind=kind if owner else "", owner_name=owner)
    ps = st.add_pod(pod)
    st.bind(ps, "n1")
    ps.ready = ready
    return ps


def deployment(st: ClusterState, name: str, replicas: int) -> None:
    st.deployments[f"default/{name}"] = Deployment(
        "default", name, replicas, Pod("default", name, labels={"app": "web"}))


def counts(st: ClusterState, pdb: PodDisruptionBudget, now: int = 0) -> tuple[int, ...]:
    """(disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods) as VerifyPdbStatus."""
    s = pdb_status(st, pdb, now)
    return s.disruptions_allowed, s.current_healthy, s.desired_healthy, s.expected_pods


@pytest.mark.parametrize(("value", "total", "want"), [
    ("34%", 3, 2), ("30%", 7, 3), ("30%", 3, 1), ("20%", 10, 2), ("28%", 11, 4),
    ("100%", 5, 5), ("0%", 5, 0), (2, 7, 2), ("10.5%", 10, 2),
])
def test_percentages_round_up(value: int | str, total: int, want: int) -> None:
    assert scaled_value(value, total) == want


def test_integer_min_available_counts_selected_pods_and_unready_ones() -> None:
    # TestUnavailable: minAvailable 3; counts rise as pods arrive, then a pod turns unready.
    st = cluster()
    pdb = PodDisruptionBudget("default", "p", SEL, min_available=3)
    pods = []
    for i in range(3):
        assert counts(st, pdb) == (0, i, 3, i)
        pods.append(run(st, f"yo-{i}"))
    assert counts(st, pdb) == (0, 3, 3, 3)
    run(st, "yo-3")
    assert counts(st, pdb) == (1, 4, 3, 4)
    pods[0].ready = False
    assert counts(st, pdb) == (0, 3, 3, 4)


def test_naked_pod_with_percentage_allows_nothing() -> None:
    # TestNakedPod: minAvailable 28%, one pod without a controller.
    st = cluster()
    pdb = PodDisruptionBudget("default", "p", SEL, min_available="28%")
    assert counts(st, pdb) == (0, 0, 0, 0)
    run(st, "naked")
    assert counts(st, pdb) == (0, 1, 0, 0)
    assert pdb_status(st, pdb, 0).sync_error == ""


def test_max_unavailable_naked_pod_allows_nothing() -> None:
    # pdb-max-unavailable-naked-pod: expectedPods 0 forces disruptionsAllowed 0.
    st = cluster()
    run(st, "naked")
    pdb = PodDisruptionBudget("default", "p", SEL, max_unavailable=1)
    assert counts(st, pdb) == (0, 1, 0, 0)


def test_controller_and_rogue_pod() -> None:
    # TestReplicationController: 34% of 3 rounds up to 2; a rogue pod without a
    # controller adds to currentHealthy but not to expectedPods -> 2 allowed.
    st = cluster()
    deployment(st, "web", 3)
    pdb = PodDisruptionBudget("default", "p", SEL, min_available="34%")
    assert counts(st, pdb) == (0, 0, 0, 0)
    for i in range(3):
        run(st, f"web-{i}", owner="web")
        assert counts(st, pdb) == ((0, i + 1, 2, 3) if i < 2 else (1, 3, 2, 3))
    run(st, "rogue")
    assert counts(st, pdb) == (2, 4, 2, 3)


def test_integer_max_unavailable_follows_scale() -> None:
    # TestIntegerMaxUnavailableWithScaling
    st = cluster()
    deployment(st, "web", 7)
    run(st, "pod", owner="web")
    pdb = PodDisruptionBudget("default", "p", SEL, max_unavailable=2)
    assert counts(st, pdb) == (0, 1, 5, 7)
    deployment(st, "web", 5)
    assert counts(st, pdb) == (0, 1, 3, 5)


def test_percentage_max_unavailable_rounds_up() -> None:
    # TestPercentageMaxUnavailableWithScaling: 30% of 7 is 3, of 3 is 1.
    st = cluster()
    deployment(st, "web", 7)
    run(st, "pod", owner="web")
    pdb = PodDisruptionBudget("default", "p", SEL, max_unavailable="30%")
    assert counts(st, pdb) == (0, 1, 4, 7)
    deployment(st, "web", 3)
    assert counts(st, pdb) == (0, 1, 2, 3)


def test_percentage_min_available_uses_controller_scale() -> None:
    # TestReplicaSet: 20% of 10 replicas with one pod present.
    st = cluster()
    deployment(st, "web", 10)
    run(st, "pod", owner="web")
    pdb = PodDisruptionBudget("default", "p", SEL, min_available="20%")
    assert counts(st, pdb) == (0, 1, 2, 10)


def test_max_unavailable_counts_each_controller_once() -> None:
    st = cluster()
    deployment(st, "web", 3)
    deployment(st, "api", 2)
    for i in range(3):
        run(st, f"web-{i}", owner="web")
    for i in range(2):
        run(st, f"api-{i}", owner="api")
    pdb = PodDisruptionBudget("default", "p", SEL, max_unavailable=1)
    assert counts(st, pdb) == (1, 5, 4, 5)


def test_disrupted_pods_map_is_rebuilt() -> None:
    # TestUpdateDisruptedPods: entries for terminating, expired and missing pods go.
    st = cluster()
    now = 10 * 60 * 1000
    p1, _, _ = run(st, "p1"), run(st, "p2"), run(st, "p3")
    p1.deletion_time = now + 30_000
    st.pdb_disrupted["default/p"] = {"p1": now, "p2": now - 5 * 60 * 1000, "p3": now,
                                     "notthere": now}
    pdb = PodDisruptionBudget("default", "p", SEL, min_available=1)
    s = pdb_status(st, pdb, now)
    assert (s.disruptions_allowed, s.current_healthy, s.desired_healthy, s.expected_pods) == \
        (0, 1, 1, 3)
    assert s.disrupted_pods == {"p3": now}


def test_disrupted_entry_expires_after_two_minutes() -> None:
    st = cluster()
    run(st, "p1")
    run(st, "p2")
    st.pdb_disrupted["default/p"] = {"p1": 0}
    pdb = PodDisruptionBudget("default", "p", SEL, min_available=1)
    assert counts(st, pdb, DELETION_TIMEOUT - 1) == (0, 1, 1, 2)
    # at exactly added+2m the controller keeps the entry but counts the pod healthy again
    at_edge = pdb_status(st, pdb, DELETION_TIMEOUT)
    assert at_edge.current_healthy == 2 and at_edge.disrupted_pods == {"p1": 0}
    after = pdb_status(st, pdb, DELETION_TIMEOUT + 1)
    assert after.current_healthy == 2 and after.disrupted_pods == {}


def test_terminating_pending_and_finished_pods_are_not_healthy() -> None:
    st = cluster()
    run(st, "ok")
    term = run(st, "term")
    term.deletion_time = 30_000
    st.add_pod(Pod("default", "pending", labels={"app": "web"}))
    done = run(st, "done")
    st.unbind(done, "Succeeded")
    pdb = PodDisruptionBudget("default", "p", SEL, min_available=1)
    # integer minAvailable counts every listed pod, healthy or not
    assert counts(st, pdb) == (0, 1, 1, 4)


def test_empty_selector_selects_the_whole_namespace_only() -> None:
    st = cluster()
    run(st, "a", labels={})
    run(st, "b", labels={"app": "other"})
    run(st, "c", ns="elsewhere")
    pdb = PodDisruptionBudget("default", "p", LabelSelector(), min_available=1)
    assert counts(st, pdb) == (1, 2, 1, 2)


def test_unknown_controller_fails_safe() -> None:
    # A DaemonSet has no scale subresource (getScaleController): SyncFailed, 0 allowed.
    st = cluster()
    run(st, "ds-1", owner="agent", kind="DaemonSet")
    run(st, "ds-2", owner="agent", kind="DaemonSet")
    pdb = PodDisruptionBudget("default", "p", SEL, max_unavailable=1)
    s = pdb_status(st, pdb, 0)
    assert s.disruptions_allowed == 0
    assert s.sync_error == "daemonsets.apps does not implement the scale subresource"
    assert s.observed_generation == 0
    assert s.condition_reason == "SyncFailed"
    # an integer minAvailable never looks for controllers
    assert counts(st, attrs.evolve(pdb, max_unavailable=None, min_available=1)) == (1, 2, 1, 2)


def test_condition_reason() -> None:
    st = cluster()
    run(st, "a")
    assert pdb_status(st, PodDisruptionBudget("default", "p", SEL, min_available=0),
                      0).condition_reason == "SufficientPods"
    assert pdb_status(st, PodDisruptionBudget("default", "p", SEL, min_available=1),
                      0).condition_reason == "InsufficientPods"
