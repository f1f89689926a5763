"""The differential harness itself, without the oracle: generation, comparison, shrinking."""

from __future__ import annotations

from typing import Any

import pytest

from .compare import compare
from .generator import GROUPS, generate
from .kr_side import ARRIVAL_MS, Attempt, run_kruleset
from .shrink import shrink
from .verdict import forgive_wording, node_tree_order


@pytest.mark.parametrize("group", [*GROUPS, "mixed"])
def test_every_group_is_read_and_run_by_kruleset(group: str) -> None:
    case = generate(3, group)
    attempts = run_kruleset(case)
    firsts = {a.pod for a in attempts}
    for pod in case["incoming"]:
        meta = pod["metadata"]
        assert f"{meta['namespace']}/{meta['name']}" in firsts


def _entry(pod: str, result: str = "unschedulable", **kw: Any) -> dict[str, Any]:
    return {"pod": pod, "result": result, "node": kw.get("node", ""),
            "feasible": kw.get("feasible", []), "scores": {}, "message": kw.get("message", ""),
            "nominated": kw.get("nominated", ""), "victims": kw.get("victims"),
            **({"retries": kw["retries"]} if "retries" in kw else {})}


def _case(*names: str) -> dict[str, Any]:
    return {"nodes": [], "incoming": [{"metadata": {"name": n, "namespace": "default"}}
                                      for n in names]}


def _at(i: int, pod: str, result: str = "unschedulable", **kw: Any) -> Attempt:
    a = Attempt(pod, (i + 1) * ARRIVAL_MS, result, **kw)
    a.changed = result == "scheduled" or bool(kw.get("nominated")) or bool(kw.get("victims"))
    return a


def test_a_retry_only_kruleset_makes_is_skipped_when_it_changes_nothing() -> None:
    case = _case("a", "b")
    oracle = [_entry("default/a", message="m"), _entry("default/b", "scheduled", node="n1",
                                                        feasible=["n1"])]
    kr = [_at(0, "default/a", message="m"), _at(1, "default/a", message="other"),
          _at(1, "default/b", "scheduled", node="n1", feasible=["n1"])]
    c = compare(case, oracle, kr)
    assert c.agrees and c.instants == 2 and c.parted is None


def test_states_part_when_only_one_side_retries_and_it_binds() -> None:
    case = _case("a", "b")
    oracle = [_entry("default/a", message="m"), _entry("default/b", message="m2")]
    kr = [_at(0, "default/a", message="m"), _at(1, "default/a", "scheduled", node="n1"),
          _at(1, "default/b", message="m2")]
    c = compare(case, oracle, kr)
    assert c.agrees and c.parted is not None and c.parted[0] == 1 and c.instants == 1


def test_retries_after_a_preemption_are_compared_in_order() -> None:
    case = _case("hi")
    oracle = [_entry("default/hi", message="m", nominated="n1", victims=["default/lo"],
                     retries=[_entry("default/hi", "scheduled", node="n1", feasible=["n1"])])]
    kr = [_at(0, "default/hi", message="m", nominated="n1", victims=["default/lo"]),
          _at(0, "default/hi", "scheduled", node="n2", feasible=["n2"])]
    c = compare(case, oracle, kr)
    assert {m.field for m in c.mismatches} == {"node", "feasible"}


def test_node_tree_order_interleaves_zones() -> None:
    def n(name: str, zone: str | None) -> dict[str, Any]:
        labels = {"topology.kubernetes.io/zone": zone} if zone else {}
        return {"metadata": {"name": name, "labels": labels}}

    nodes = [n("a1", "a"), n("a2", "a"), n("b1", "b"), n("x", None), n("b2", "b")]
    assert [m["metadata"]["name"] for m in node_tree_order(nodes)] == [
        "a1", "b1", "x", "a2", "b2"]


def test_wording_forgiveness_removes_only_the_known_parts() -> None:
    old = "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {a: b}."
    new = ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
           "no new claims to deallocate, preemption: 0/3 nodes are available: 3 x.")
    assert forgive_wording(old) == "0/3 nodes are available: 1 Insufficient cpu."
    assert forgive_wording(new).startswith("0/3 nodes are available: 1 Insufficient cpu. pre")


def test_shrink_keeps_what_the_predicate_needs() -> None:
    case = generate(5, "mixed")
    keep = case["nodes"][-1]["metadata"]["name"]

    def holds(c: dict[str, Any]) -> bool:
        return any(n["metadata"]["name"] == keep for n in c["nodes"])

    small = shrink(case, holds, budget=400)
    assert [n["metadata"]["name"] for n in small["nodes"]] == [keep]
    assert len(small["incoming"]) == 1


def test_reclaim_reprieve_error_without_candidates_is_the_message() -> None:
    # Found by the differential tests: CapacityScheduling's reprieve removes a
    # pod twice (quota checks after a fit failure); the node's dry run errs,
    # and with no candidate anywhere upstream's preemption fails with that
    # error alone (kube-scheduler v1.35.4's message, quoted).  Here in1 is
    # retried after in2 preempted and was nominated on n2.
    import json
    from pathlib import Path

    path = Path(__file__).parent / "cases" / "quota-reprieve-error.json"
    attempts = run_kruleset(json.loads(path.read_text()))
    preempted = next(i for i, a in enumerate(attempts) if a.pod == "ns-a/in2")
    assert attempts[preempted].nominated == "n2"
    retry = next(a for a in attempts[preempted:] if a.pod == "ns-b/in1")
    assert retry.message == (
        "0/4 nodes are available: Pod ns-b/in1 is rejected in PreFilter because total "
        "ElasticQuota used is more than min. no corresponding pod p12 in pods of node n2")


def test_a_nominated_node_rejection_joins_the_narrowed_message() -> None:
    # Found by the differential tests (seed 51691): in3, narrowed to n1 by
    # matchFields, was nominated to n1; in2 then took n1's room.  Retried, in3
    # fails on its nominated node first (NodeResourcesFit), and upstream's one
    # set of unschedulable plugins names that plugin too in the status of the
    # node PreFilter left out.
    import json
    from pathlib import Path

    path = Path(__file__).parent / "cases" / "nominated-node-narrowed.json"
    attempts = run_kruleset(json.loads(path.read_text()))
    tries = [a for a in attempts if a.pod == "default/in3"]
    assert tries[0].nominated == "n1"
    assert "1 node(s) didn't satisfy plugin(s) [NodeAffinity]." in tries[0].message
    assert "1 node(s) didn't satisfy plugin(s) [NodeAffinity NodeResourcesFit]." in tries[1].message
