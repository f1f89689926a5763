"""Choosing the node: each criterion in upstream order; upstream TestSelectBestCandidate."""

from __future__ import annotations

import pytest
from test_preemption_builders import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    cluster,
    keys,
    make_pod,
    run,
)

from kruleset.model.state import ClusterState
from kruleset.rules.profile import Profile
from kruleset.rules.scheduler.cycle import ScheduleContext
from kruleset.rules.scheduler.preemption.defaultpreemption import preempt_for
from kruleset.rules.scheduler.preemption.pick import (
    PRIORITY_SHIFT,
    earliest_start_of_highest,
    pick_candidate,
)
from kruleset.rules.scheduler.preemption.postfilter import Candidate

Spec = tuple[str, str, int, int, int]  # (name, node, priority, cpu, start)


def _build(nodes: list[str], pods: list[Spec]) -> ClusterState:
    st = cluster(nodes)
    for name, node, prio, cpu, start in pods:
        run(st, make_pod(name, prio, cpu, started=start), node)
    return st


# Upstream TestSelectBestCandidate (default_preemption_test.go), start times in ns there,
# ms here: only their order matters.
VECTORS = [
    ("a pod that fits on both nodes when lower priority pods are preempted",
     ["node1", "node2"], HIGH, LARGE,
     [("p1", "node1", MID, LARGE, 0), ("p2", "node2", MID, LARGE, 0)], "node1"),
    ("node with min highest priority pod is picked",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, 0), ("p1.2", "node1", MID, LARGE, 0),
      ("p2.1", "node2", MID, MEDIUM, 0), ("p2.2", "node2", LOW, MEDIUM, 0),
      ("p3.1", "node3", LOW, MEDIUM, 0), ("p3.2", "node3", LOW, MEDIUM, 0)], "node3"),
    ("when highest priorities are the same, minimum sum of priorities is picked",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, 0), ("p1.2", "node1", MID, LARGE, 0),
      ("p2.1", "node2", MID, LARGE, 0), ("p2.2", "node2", LOW, MEDIUM, 0),
      ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", MID, MEDIUM, 0)], "node2"),
    ("when highest priority and sum are the same, minimum number of pods is picked",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, SMALL, 0), ("p1.2", "node1", NEG, SMALL, 0),
      ("p1.3", "node1", MID, SMALL, 0), ("p1.4", "node1", NEG, SMALL, 0),
      ("p2.1", "node2", MID, LARGE, 0), ("p2.2", "node2", NEG, MEDIUM, 0),
      ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", NEG, SMALL, 0),
      ("p3.3", "node3", LOW, SMALL, 0)], "node2"),
    ("sum of adjusted priorities is considered",  # pick-adjusted-sum
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, SMALL, 0), ("p1.2", "node1", NEG, SMALL, 0),
      ("p1.3", "node1", NEG, SMALL, 0),
      ("p2.1", "node2", MID, LARGE, 0), ("p2.2", "node2", NEG, MEDIUM, 0),
      ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", NEG, SMALL, 0),
      ("p3.3", "node3", LOW, SMALL, 0)], "node2"),
    ("non-overlapping lowest high priority, sum priorities, and number of pods",
     ["node1", "node2", "node3", "node4"], VERY_HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, SMALL, 0), ("p1.2", "node1", LOW, SMALL, 0),
      ("p1.3", "node1", LOW, SMALL, 0),
      ("p2.1", "node2", HIGH, LARGE, 0),
      ("p3.1", "node3", MID, MEDIUM, 0), ("p3.2", "node3", LOW, SMALL, 0),
      ("p3.3", "node3", LOW, SMALL, 0), ("p3.4", "node3", LOW, MEDIUM, 0),
      ("p4.1", "node4", MID, MEDIUM, 0), ("p4.2", "node4", MID, SMALL, 0),
      ("p4.3", "node4", MID, SMALL, 0), ("p4.4", "node4", NEG, SMALL, 0)], "node1"),
    ("same priority, same number of victims, different start time for each node's pod",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, 2), ("p1.2", "node1", MID, MEDIUM, 2),
      ("p2.1", "node2", MID, MEDIUM, 3), ("p2.2", "node2", MID, MEDIUM, 3),
      ("p3.1", "node3", MID, MEDIUM, 1), ("p3.2", "node3", MID, MEDIUM, 1)], "node2"),
    ("same priority, same number of victims, different start time for all pods",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, 4), ("p1.2", "node1", MID, MEDIUM, 2),
      ("p2.1", "node2", MID, MEDIUM, 5), ("p2.2", "node2", MID, MEDIUM, 1),
      ("p3.1", "node3", MID, MEDIUM, 3), ("p3.2", "node3", MID, MEDIUM, 6)], "node3"),
]


@pytest.mark.parametrize("name,nodes,prio,cpu,pods,expected", VECTORS, ids=[v[0] for v in VECTORS])
def test_select_best_candidate_vectors(name, nodes, prio, cpu, pods, expected) -> None:
    st = _build(nodes, pods)
    result = preempt_for(st, make_pod("p", prio, cpu))
    assert result.nominated_node == expected


def _only(rule: str, result) -> None:
    assert result.decided_by.startswith(rule + ":"), result.decided_by


def test_fewest_pdb_violations_alone_decides() -> None:
    from kruleset.model.objects import PodDisruptionBudget
    from kruleset.model.selectors import LabelSelector, Requirement

    # n1's victim is protected (allowed 0); n2's victim has higher priority but no PDB.
    st = cluster(["n1", "n2"])
    run(st, make_pod("a", LOW, LARGE, labels={"app": "db"}), "n1")
    run(st, make_pod("b", MID, LARGE), "n2")
    st.pdbs["default/db"] = PodDisruptionBudget(
        "default", "db", LabelSelector((Requirement("app", "In", ("db",)),)), min_available=1)
    result = preempt_for(st, make_pod("p", HIGH, LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.fewest-pdb-violations", result)


def test_lowest_highest_priority_alone_decides() -> None:
    st = _build(["n1", "n2"], [("a", "n1", MID, LARGE, 0), ("b", "n2", LOW, LARGE, 0)])
    result = preempt_for(st, make_pod("p", HIGH, LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.lowest-highest-priority", result)


def test_lowest_sum_alone_decides() -> None:
    # Same highest (MID), same count (2): sums MID+MID vs MID+LOW.
    st = _build(["n1", "n2"], [("a1", "n1", MID, MEDIUM, 0), ("a2", "n1", MID, LARGE, 0),
                               ("b1", "n2", MID, MEDIUM, 0), ("b2", "n2", LOW, LARGE, 0)])
    result = preempt_for(st, make_pod("p", HIGH, VERY_LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.lowest-priority-sum", result)


def test_shifted_sum_counts_more_negative_victims_higher() -> None:
    # Unshifted, two victims of -10 would sum lower than one; shifted they do not.
    st = _build(["n1", "n2"], [("a1", "n1", -10, MEDIUM, 0), ("a2", "n1", -10, LARGE, 0),
                               ("b1", "n2", -10, VERY_LARGE, 0)])
    result = preempt_for(st, make_pod("p", HIGH, VERY_LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.lowest-priority-sum", result)


def test_fewest_victims_alone_decides() -> None:
    # Equal highest priority and equal shifted sums need a victim at -2^31 (it adds 0).
    lowest = -PRIORITY_SHIFT
    st = _build(["n1", "n2"], [("a1", "n1", MID, MEDIUM, 0), ("a2", "n1", lowest, LARGE, 0),
                               ("b1", "n2", MID, VERY_LARGE, 0)])
    result = preempt_for(st, make_pod("p", HIGH, VERY_LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.fewest-victims", result)


def test_latest_start_alone_decides() -> None:
    st = _build(["n1", "n2"], [("a", "n1", MID, LARGE, 10_000), ("b", "n2", MID, LARGE, 20_000)])
    result = preempt_for(st, make_pod("p", HIGH, LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.latest-start", result)
    assert "earliest start 20s > earliest start 10s" in result.decided_by


def test_full_tie_goes_to_the_node_declared_first() -> None:
    st = _build(["n2", "n1"], [("a", "n1", MID, LARGE, 0), ("b", "n2", MID, LARGE, 0)])
    result = preempt_for(st, make_pod("p", HIGH, LARGE))
    assert result.nominated_node == "n2"
    _only("scheduler.preemption.pick.first-declared-node", result)


def test_single_candidate_is_taken_without_scoring() -> None:
    st = _build(["n1"], [("a", "n1", MID, LARGE, 0)])
    result = preempt_for(st, make_pod("p", HIGH, LARGE))
    assert result.nominated_node == "n1" and result.decided_by == ""
    assert keys(result.victims) == ["default/a"]


def test_earliest_start_looks_only_at_highest_priority_victims() -> None:
    st = cluster(["n1"])
    a = run(st, make_pod("a", MID, SMALL, started=50), "n1")
    b = run(st, make_pod("b", LOW, SMALL, started=1), "n1")
    c = run(st, make_pod("c", MID, SMALL, started=30), "n1")
    assert earliest_start_of_highest(Candidate("n1", (a, c, b))) == 30


def test_pick_order_can_be_changed_by_a_profile() -> None:
    from kruleset.rules.profile import Override

    st = _build(["n1", "n2"], [("a", "n1", MID, LARGE, 0),
                               ("b1", "n2", LOW, MEDIUM, 0), ("b2", "n2", LOW, MEDIUM, 0)])
    default = preempt_for(st, make_pod("p", HIGH, VERY_LARGE))
    assert default.nominated_node == "n2"  # lower highest priority wins by default
    prof = Profile({"scheduler.preemption.pick": Override(
        order=("scheduler.preemption.pick.fewest-victims",))})
    changed = preempt_for(st, make_pod("p", HIGH, VERY_LARGE), prof)
    assert changed.nominated_node == "n1"
    ctx = ScheduleContext(st, prof)
    best, why = pick_candidate(ctx, changed.candidates)
    assert best is not None and best.node == "n1"
    assert why.startswith("scheduler.preemption.pick.fewest-victims")
