"""Attempts compared from kruleset's state (``resync.py``): where the node search starts.

Under percentageOfNodesToScore a scheduler searches from where its previous
cycle stopped (``nextStartNodeIndex``); the one-cycle oracle is a fresh
scheduler and starts at node 0.  On 110 nodes with percentageOfNodesToScore
5 (so 100 nodes are looked for), ``in1`` takes nodes 1-100 and leaves the
search at index 100: ``in2`` then sees n101-n110 and n1-n90, where the big
node is n110, not n100.  These tests need the one-cycle oracle
(``$KRULESET_ORACLE`` or ``../shared/oracle/bin/kr-oracle``) and skip, saying
so, without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .oracle import find_oracle, run_oracle
from .resync import WARM_UP, check_resynced, oracle_input, run_snapshots, search_start

ORACLE, WHY = find_oracle()
NODES = 110


def _node(i: int) -> dict[str, Any]:
    cpu = {NODES: "64", 100: "32"}.get(i, "4")
    res = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
            "status": {"allocatable": res, "capacity": res}}


def _pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "app",
                                     "resources": {"requests": {"cpu": "1"}}}]}}


def wide_case(*, node_affinity: bool) -> dict[str, Any]:
    profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
    if not node_affinity:
        profile["plugins"] = {"multiPoint": {"disabled": [{"name": "NodeAffinity"}]}}
    return {"nodes": [_node(i) for i in range(1, NODES + 1)], "pods": [],
            "incoming": [_pod("in1"), _pod("in2")],
            "config": {"apiVersion": "kubescheduler.config.k8s.io/v1",
                       "kind": "KubeSchedulerConfiguration", "percentageOfNodesToScore": 5,
                       "profiles": [profile]}}


def test_kruleset_starts_the_second_search_where_the_first_stopped() -> None:
    # Without any oracle: the premise of the two tests below.
    runs = run_snapshots(wide_case(node_affinity=True))
    assert [(a.pod, a.node, search_start(wide_case(node_affinity=True), s))
            for s, a in runs] == [("default/in1", "n100", 0), ("default/in2", "n110", 100)]
    assert runs[1][1].feasible[:3] == ["n1", "n2", "n3"] and "n91" not in runs[1][1].feasible


def test_the_warm_up_pod_names_as_many_nodes_as_the_start() -> None:
    case = wide_case(node_affinity=True)
    state, a = run_snapshots(case)[1]
    warm, arriving = oracle_input(case, state, a.pod)["incoming"]
    assert warm["metadata"]["name"] == WARM_UP and arriving["metadata"]["name"] == "in2"
    (term,) = warm["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchFields"][0]["values"] == [f"n{i}" for i in range(1, 101)]
    assert warm["spec"]["preemptionPolicy"] == "Never"
    # No start to move, no warm-up.
    first_state, first = run_snapshots(case)[0]
    assert len(oracle_input(case, first_state, first.pod)["incoming"]) == 1


def _oracle_node(case: dict[str, Any]) -> str:
    assert ORACLE is not None
    return str(run_oracle(Path(ORACLE), case)[-1]["node"])


@pytest.mark.skipif(ORACLE is None, reason=WHY or "the oracle is absent")
def test_the_oracle_moved_by_the_warm_up_agrees_with_kruleset_over_time() -> None:
    assert ORACLE is not None
    case = wide_case(node_affinity=True)
    r = check_resynced(Path(ORACLE), case)
    assert r.agreed, r.mismatches
    assert (r.attempts, r.warmed, r.restarted) == (2, 1, 0)
    # Not vacuous: the oracle left at node 0 takes n100 for in2.
    state, a = run_snapshots(case)[1]
    given = oracle_input(case, state, a.pod)
    assert _oracle_node(given) == "n110"
    given["incoming"] = given["incoming"][1:]
    assert _oracle_node(given) == "n100"


@pytest.mark.skipif(ORACLE is None, reason=WHY or "the oracle is absent")
def test_without_node_affinity_kruleset_restarts_its_search_instead() -> None:
    assert ORACLE is not None
    case = wide_case(node_affinity=False)
    r = check_resynced(Path(ORACLE), case)
    assert r.agreed, r.mismatches
    assert (r.attempts, r.warmed, r.restarted) == (2, 0, 1)
    # What was compared is kruleset's attempt from node 0, which differs from its own.
    state, over_time = run_snapshots(case)[1]
    again = run_snapshots(case, restart=1)[1][1]
    assert (over_time.node, again.node) == ("n110", "n100")
    assert _oracle_node(oracle_input(case, state, "default/in2")) == "n100"
