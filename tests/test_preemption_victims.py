"""Victims on one node: strictly lower priority, remove-all-then-reprieve, PDB accounting."""

from __future__ import annotations

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
    failed_cycle,
    keys,
    make_pod,
    pdb,
    pending,
    run,
)

from kruleset.model.state import PodState
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure
from kruleset.rules.profile import Profile
from kruleset.rules.scheduler.cycle import ScheduleContext
from kruleset.rules.scheduler.preemption.victims import (
    NO_VICTIMS,
    NodeVictims,
    PdbBudget,
    importance_order,
    pdb_budgets,
    select_victims_on_node,
    split_by_pdb,
)


def _select(st, ps: PodState, node: str = "n1", budgets=(), **kw) -> NodeVictims | Failure:
    ctx, _ = failed_cycle(st, ps)
    return select_victims_on_node(ctx, ps.pod, st.nodes[node], list(budgets), **kw)


def test_equal_priority_pods_are_never_victims() -> None:
    # pf-tied-priority: only strictly lower priority may go; with none, U&U before filtering.
    st = cluster(["n1"])
    run(st, make_pod("same", HIGH, LARGE), "n1")
    run(st, make_pod("higher", HIGH + 1, SMALL), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    out = _select(st, ps)
    assert isinstance(out, Failure)
    assert out.code == UNRESOLVABLE and out.reason == NO_VICTIMS


def test_pod_without_priority_counts_as_zero() -> None:
    st = cluster(["n1"])
    run(st, make_pod("unset", None, LARGE), "n1")
    ps = pending(st, make_pod("p", LOW, LARGE))
    out = _select(st, ps)
    assert isinstance(out, Failure) and out.reason == NO_VICTIMS
    ps2 = pending(st, make_pod("p2", 1, LARGE))
    out2 = _select(st, ps2)
    assert isinstance(out2, NodeVictims) and keys(out2.victims) == ["default/unset"]


def test_no_victims_is_decided_before_any_filter(monkeypatch) -> None:
    # dryrun-higher-priority-pods-no-preemption: zero filter calls on such a node.
    import kruleset.rules.scheduler.preemption.victims as pv

    st = cluster(["n1"])
    run(st, make_pod("hi", VERY_HIGH, LARGE), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    ctx, _ = failed_cycle(st, ps)
    calls = []
    monkeypatch.setattr(pv, "run_filters_with_nominated",
                        lambda *a, **k: calls.append(a) or None)
    out = select_victims_on_node(ctx, ps.pod, st.nodes["n1"], [])
    assert isinstance(out, Failure) and out.reason == NO_VICTIMS
    assert calls == []


def test_node_where_removing_everything_is_not_enough_is_no_candidate() -> None:
    st = cluster(["n1"])
    run(st, make_pod("low", LOW, SMALL), "n1")
    run(st, make_pod("high", VERY_HIGH, LARGE), "n1")  # higher than the preemptor
    ps = pending(st, make_pod("p", HIGH, LARGE))
    out = _select(st, ps)
    assert isinstance(out, Failure)
    assert out.code == UNSCHEDULABLE and out.reason == "Insufficient cpu"


def test_remove_all_then_reprieve_most_important_first() -> None:
    # Node 500m: mid 200m, low 200m, neg 100m; preemptor needs 300m.  After removing all,
    # reprieve mid (fits: 200+300), then low (no: 400+300), then neg (yes: 300+100... ).
    st = cluster(["n1"])
    run(st, make_pod("neg", NEG, SMALL), "n1")
    run(st, make_pod("low", LOW, MEDIUM), "n1")
    run(st, make_pod("mid", MID, MEDIUM), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    out = _select(st, ps)
    assert isinstance(out, NodeVictims)
    assert keys(out.victims) == ["default/low", "default/neg"]
    assert keys(out.reprieved) == ["default/mid"]
    assert out.num_pdb_violations == 0


def test_greedy_not_minimal() -> None:
    # Victims are a greedy result: reprieving the more important 200m pod first forces two
    # 100m pods out although evicting the single 200m pod would have sufficed.
    st = cluster(["n1"], capacity=500)
    run(st, make_pod("big", MID, MEDIUM), "n1")
    run(st, make_pod("a", LOW, SMALL), "n1")
    run(st, make_pod("b", LOW, SMALL), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    out = _select(st, ps)
    assert isinstance(out, NodeVictims)
    assert sorted(keys(out.victims)) == ["default/a", "default/b"]
    assert keys(out.reprieved) == ["default/big"]


def test_equal_priority_later_start_is_preempted() -> None:
    # dryrun-equal-priority-later-start-preempted: older pods are more important.
    st = cluster(["n1"])
    run(st, make_pod("old", MID, MEDIUM, started=-60_000), "n1")
    run(st, make_pod("new", MID, MEDIUM, started=-1_000), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    out = _select(st, ps)
    assert isinstance(out, NodeVictims)
    assert keys(out.victims) == ["default/new"]
    assert keys(out.reprieved) == ["default/old"]


def test_importance_order_priority_then_start() -> None:
    st = cluster(["n1"])
    pods = [run(st, make_pod(n, p, SMALL, started=s), "n1")
            for n, p, s in (("a", LOW, 0), ("b", MID, 5), ("c", MID, 1), ("d", NEG, -9))]
    ctx = ScheduleContext(st, Profile.default())
    assert keys(importance_order(ctx, pods)) == ["default/c", "default/b", "default/a",
                                                 "default/d"]


def test_victim_order_is_a_rule_set_that_a_profile_can_change() -> None:
    from kruleset.rules.profile import Override

    st = cluster(["n1"])
    pods = [run(st, make_pod(n, p, SMALL, started=s), "n1")
            for n, p, s in (("old-low", LOW, 0), ("new-high", MID, 9))]
    prof = Profile({"scheduler.preemption.victims": Override(
        order=("scheduler.preemption.victims.later-start-first",))})
    ctx = ScheduleContext(st, prof)
    assert keys(importance_order(ctx, pods)) == ["default/old-low", "default/new-high"]


# --- PDBs ------------------------------------------------------------------------------------

def _ps(st, name, labels, ns="default"):
    return run(st, make_pod(name, LOW, SMALL, labels=labels, namespace=ns), "n1")


def test_same_pdb_working_copy_decrements_in_order() -> None:
    # dryrun-pdb-same-pdb-violation: allowed 1, three matching pods: the 2nd and 3rd violate.
    st = cluster(["n1"])
    pods = [_ps(st, f"p{i}", {"app": "foo"}) for i in (1, 2, 3)]
    budgets = [PdbBudget(pdb("b", {"app": "foo"}), 1)]
    violating, fine = split_by_pdb(pods, budgets)
    assert keys(fine) == ["default/p1"]
    assert keys(violating) == ["default/p2", "default/p3"]


def test_disrupted_pods_are_skipped() -> None:
    # dryrun-pdb-disrupted-pods: a pod in disruptedPods neither counts nor violates.
    st = cluster(["n1"])
    pods = [_ps(st, f"p{i}", {"app": "foo"}) for i in (1, 2)]
    budgets = [PdbBudget(pdb("b", {"app": "foo"}), 1, frozenset({"p1"}))]
    violating, fine = split_by_pdb(pods, budgets)
    assert violating == [] and keys(fine) == ["default/p1", "default/p2"]


def test_empty_selector_other_namespace_and_unlabelled_pods_never_match() -> None:
    st = cluster(["n1"])
    a = _ps(st, "a", {"app": "foo"})
    b = _ps(st, "b", {})
    c = _ps(st, "c", {"app": "foo"}, ns="other")
    budgets = [PdbBudget(pdb("empty", {}), 0), PdbBudget(pdb("foo", {"app": "foo"}), 0),
               PdbBudget(pdb("all-ns", {"app": "foo"}, namespace="third"), 0)]
    violating, fine = split_by_pdb([a, b, c], budgets)
    assert keys(violating) == ["default/a"]
    assert keys(fine) == ["default/b", "other/c"]


def test_violating_pods_are_reprieved_first_and_counted_when_not() -> None:
    # Node 500m holds pdb-1 (mid, 200m, PDB allowed 0) and free-1 (low, 200m).  The
    # preemptor needs 300m: one must go.  The violating pod is tried first and stays,
    # so the less important unprotected pod is the victim: no violation.
    st = cluster(["n1"])
    run(st, make_pod("free-1", MID, MEDIUM), "n1")
    run(st, make_pod("pdb-1", LOW, MEDIUM, labels={"app": "db"}), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    out = _select(st, ps, budgets=[PdbBudget(pdb("db", {"app": "db"}), 0)])
    assert isinstance(out, NodeVictims)
    assert keys(out.victims) == ["default/free-1"]
    assert out.num_pdb_violations == 0
    assert out.violating == frozenset({"default/pdb-1"})


def test_pdb_violations_count_only_unreprieved_violating_victims() -> None:
    st = cluster(["n1"])
    run(st, make_pod("a", LOW, MEDIUM, labels={"app": "db"}), "n1")
    run(st, make_pod("b", LOW, MEDIUM, labels={"app": "db"}), "n1")
    ps = pending(st, make_pod("p", HIGH, VERY_LARGE))
    out = _select(st, ps, budgets=[PdbBudget(pdb("db", {"app": "db"}), 1)])
    assert isinstance(out, NodeVictims)
    # Both must go; allowed 1 covers the first (more important, started first), the
    # second drives the working copy below zero.
    assert sorted(keys(out.victims)) == ["default/a", "default/b"]
    assert out.num_pdb_violations == 1


def test_mixed_groups_victims_resorted_by_importance() -> None:
    st = cluster(["n1"], capacity=600)
    run(st, make_pod("prot", LOW, SMALL, labels={"app": "db"}), "n1")
    run(st, make_pod("mid", MID, SMALL), "n1")
    run(st, make_pod("neg", NEG, SMALL), "n1")
    ps = pending(st, make_pod("p", HIGH, 600))
    out = _select(st, ps, budgets=[PdbBudget(pdb("db", {"app": "db"}), 0)])
    assert isinstance(out, NodeVictims)
    assert keys(out.victims) == ["default/mid", "default/prot", "default/neg"]
    assert out.num_pdb_violations == 1


def test_pdb_budgets_read_the_disruption_controllers_status() -> None:
    st = cluster(["n1"])
    for i in (1, 2, 3):
        _ps(st, f"w{i}", {"app": "web"})
    st.pdbs["default/web"] = pdb("web", {"app": "web"}, min_available=2)
    (budget,) = pdb_budgets(st, 0)
    assert budget.allowed == 1 and budget.disrupted == frozenset()
    st.pdb_disrupted["default/web"] = {"w1": 0}
    (budget,) = pdb_budgets(st, 0)
    assert budget.disrupted == frozenset({"w1"}) and budget.allowed == 0


def test_victim_predicate_narrows_the_lower_priority_pods() -> None:
    st = cluster(["n1"])
    run(st, make_pod("mine", LOW, LARGE, namespace="a"), "n1")
    run(st, make_pod("theirs", LOW, MEDIUM, namespace="b"), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE, namespace="a"))
    only_own_ns = lambda ctx, pre, v, node: v.pod.namespace == pre.namespace  # noqa: E731
    out = _select(st, ps, may_be_victim=only_own_ns)
    assert isinstance(out, NodeVictims) and keys(out.victims) == ["a/mine"]
    none_allowed = lambda ctx, pre, v, node: False  # noqa: E731
    out2 = _select(st, ps, may_be_victim=none_allowed)
    assert isinstance(out2, Failure) and out2.reason == NO_VICTIMS
