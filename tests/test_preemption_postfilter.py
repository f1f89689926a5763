"""DefaultPreemption end to end on Python-built clusters: eligibility, sampling, messages."""

from __future__ import annotations

import pytest
from test_preemption_builders import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    SMALL,
    VERY_LARGE,
    cluster,
    failed_cycle,
    keys,
    make_pod,
    pdb,
    pending,
    run,
)

from kruleset.errors import ScenarioError
from kruleset.model.objects import NEVER
from kruleset.model.selectors import Taint
from kruleset.rules.engine import UNRESOLVABLE, UNSCHEDULABLE, Failure, Trace
from kruleset.rules.scheduler.cycle import FitError
from kruleset.rules.scheduler.preemption.defaultpreemption import (
    NOT_HELPFUL,
    PLUGIN,
    DefaultJudge,
    num_candidates,
    potential_nodes,
    preempt,
    preempt_for,
    terminating_by_preemption,
    validate_args,
)
from kruleset.rules.scheduler.preemption.evaluator import dry_run_preemption
from kruleset.rules.scheduler.preemption.postfilter import POSTFILTER_MESSAGE, run_postfilter
from kruleset.rules.scheduler.preemption.victims import PdbBudget

# v1.35's default profile runs DynamicResources' PostFilter before DefaultPreemption;
# for a pod without claims it rejects first, and the reasons are joined.
DRA = "no new claims to deallocate, "

# --- eligibility ----------------------------------------------------------------------------

def test_preemption_policy_never_is_not_eligible() -> None:
    st = cluster(["n1"])
    run(st, make_pod("low", LOW, VERY_LARGE), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE, policy=NEVER))
    ps.nominated = "n1"
    ctx, fit = failed_cycle(st, ps)
    assert run_postfilter(ctx, ps, fit) is None
    message = ctx.extra[POSTFILTER_MESSAGE]
    assert message == DRA + "preemption: not eligible due to preemptionPolicy=Never."
    out = preempt_for(st, ps)
    assert out.eligible is False and out.nominated_node == "n1" and out.victims == ()


def _terminating_victim(st, node="n1", reason="PreemptionByScheduler"):
    v = run(st, make_pod("victim", LOW, LARGE), node)
    v.deletion_time = 30_000
    if reason:
        v.conditions["DisruptionTarget"] = reason
    return v


def test_nominated_pod_waits_for_its_terminating_victims() -> None:
    st = cluster(["n1", "n2"])
    _terminating_victim(st)
    run(st, make_pod("other", LOW, VERY_LARGE), "n2")
    ps = pending(st, make_pod("p", HIGH, VERY_LARGE))
    ps.nominated = "n1"
    ctx, fit = failed_cycle(st, ps)
    assert run_postfilter(ctx, ps, fit) is None
    assert ctx.extra[POSTFILTER_MESSAGE] == (
        DRA + "preemption: not eligible due to a terminating pod on the nominated node.")


def test_terminating_pod_without_preemption_condition_does_not_block() -> None:
    # eligible-non-victim-terminating: an evicted or deleted pod is not a preemption victim.
    st = cluster(["n1"])
    v = _terminating_victim(st, reason="")
    assert not terminating_by_preemption(v)
    ps = pending(st, make_pod("p", HIGH, VERY_LARGE))
    ps.nominated = "n1"
    ctx, fit = failed_cycle(st, ps)
    out = run_postfilter(ctx, ps, fit)
    assert out is not None and out.nominated_node == "n1"


def test_higher_priority_terminating_pod_does_not_block() -> None:
    st = cluster(["n1"])
    v = run(st, make_pod("peer", HIGH, SMALL), "n1")
    v.deletion_time = 30_000
    v.conditions["DisruptionTarget"] = "PreemptionByScheduler"
    run(st, make_pod("low", LOW, LARGE), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    ps.nominated = "n1"
    ctx, fit = failed_cycle(st, ps)
    out = run_postfilter(ctx, ps, fit)
    assert out is not None and keys(out.victims) == ["default/low"]


def test_nominated_node_now_unresolvable_makes_the_pod_eligible_again() -> None:
    st = cluster(["n1", "n2"])
    _terminating_victim(st)
    run(st, make_pod("other", LOW, VERY_LARGE), "n2")
    st.nodes["n1"].taints.append(Taint("gone", "", "NoSchedule"))
    ps = pending(st, make_pod("p", HIGH, VERY_LARGE))
    ps.nominated = "n1"
    ctx, fit = failed_cycle(st, ps)
    assert fit.failures["n1"].code == UNRESOLVABLE
    out = run_postfilter(ctx, ps, fit)
    assert out is not None and out.nominated_node == "n2"


# --- where preemption may help -------------------------------------------------------------------

def test_only_unschedulable_nodes_are_potential() -> None:
    st = cluster(["n1", "n2", "n3"])
    fit = FitError("default/p", 3, {
        "n1": Failure("Insufficient cpu", UNSCHEDULABLE),
        "n2": Failure("node(s) had untolerated taint(s)", UNRESOLVABLE),
    })
    assert [n.name for n in potential_nodes(st, fit)] == ["n1"]  # n3 has no status: absent


def test_no_candidate_message_lists_every_node_sorted_as_strings() -> None:
    st = cluster(["n1", "n2", "n3"])
    st.nodes["n1"].taints.append(Taint("dedicated", "x", "NoSchedule"))
    run(st, make_pod("peer-2", HIGH, VERY_LARGE), "n2")
    run(st, make_pod("peer-3", HIGH, VERY_LARGE), "n3")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    ps.nominated = "n2"
    ctx, fit = failed_cycle(st, ps)
    out = run_postfilter(ctx, ps, fit)
    assert out is not None and out.nominated_node == ""  # clears the old nomination
    assert out.message == (DRA + "preemption: 0/3 nodes are available: 1 " + NOT_HELPFUL
                           + ", 2 No preemption victims found for incoming pod.")


def test_resources_beyond_allocatable_are_not_helped() -> None:
    st = cluster(["n1"])
    run(st, make_pod("low", LOW, SMALL), "n1")
    ps = pending(st, make_pod("p", HIGH, VERY_LARGE * 2))
    out = preempt_for(st, ps)
    assert out.nominated_node == ""
    assert out.message == f"{DRA}preemption: 0/1 nodes are available: 1 {NOT_HELPFUL}."


def test_affinity_to_a_lower_priority_pod_blocks_preemption_on_that_node() -> None:
    # seed 003 §11.5: all lower-priority pods are removed before the fit check, so the
    # pod's required affinity to one of them can never be met there.
    from kruleset.model.objects import PodAffinityTerm
    from kruleset.model.selectors import LabelSelector, Requirement

    st = cluster(["n1"])
    run(st, make_pod("cache", LOW, LARGE, labels={"app": "cache"}), "n1")
    run(st, make_pod("filler", LOW, MEDIUM), "n1")
    term = PodAffinityTerm(LabelSelector((Requirement("app", "In", ("cache",)),)),
                           "kubernetes.io/hostname")
    ps = pending(st, make_pod("p", HIGH, LARGE, pod_affinity=(term,)))
    out = preempt_for(st, ps)
    assert out.nominated_node == ""
    assert "node(s) didn't match pod affinity rules" in out.message


# --- sampling ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,pct,absolute,expected", [
    (5, 10, 100, 5), (1000, 10, 100, 100), (5000, 10, 100, 500), (5, 40, 2, 2),
    (10, 0, 3, 3), (10, 50, 0, 5), (7, 100, 0, 7),
])
def test_num_candidates(n, pct, absolute, expected) -> None:
    assert num_candidates(n, pct, absolute) == expected


def _look_past_cluster():
    # Upstream "preemption looks past numCandidates until a non-PDB violating node is found".
    names = [f"node{i}" for i in range(1, 6)]
    st = cluster(names)
    for i, name in enumerate(names, 1):
        labels = {"app": "foo"} if i in (1, 2, 5) else {}
        run(st, make_pod(f"p{i}", MID, LARGE, labels=labels), name)
    ps = pending(st, make_pod("p", HIGH, LARGE))
    return st, ps, [PdbBudget(pdb("foo", {"app": "foo"}), 0)]


def test_dry_run_looks_past_num_candidates_for_a_non_violating_node_upstream_offset() -> None:
    # dryrun-sampling-look-past-for-non-violating, with upstream's offset 4:
    # node5 (pdb), node1 (pdb), node2 (pdb, list full: dropped), node3 (ok) -> stop.
    st, ps, budgets = _look_past_cluster()
    ctx, fit = failed_cycle(st, ps)
    nodes = potential_nodes(st, fit)
    judge = DefaultJudge(ctx, ps, nodes, budgets, None)
    run_ = dry_run_preemption(judge, PLUGIN, nodes, 4, num_candidates(5, 40, 2))
    assert sorted(c.node for c in run_.candidates) == ["node1", "node3", "node5"]
    assert [c.node for c in run_.candidates][0] == "node3"  # non-violating first
    assert {c.node: c.num_pdb_violations for c in run_.candidates} == {
        "node1": 1, "node3": 0, "node5": 1}
    assert run_.visited == 4


def test_dry_run_starts_at_the_first_declared_node() -> None:
    st, ps, budgets = _look_past_cluster()
    st.pdbs["default/foo"] = pdb("foo", {"app": "foo"}, min_available=3)  # allows 0
    ctx, fit = failed_cycle(st, ps)
    out = preempt(ctx, ps, fit, {"minCandidateNodesPercentage": 40,
                                 "minCandidateNodesAbsolute": 2})
    assert out is not None
    assert [c.node for c in out.candidates] == ["node3", "node1", "node2"]
    assert out.nominated_node == "node3"
    assert out.decided_by.startswith("scheduler.preemption.pick.fewest-pdb-violations")


def test_pdb_best_effort_still_preempts_when_every_choice_violates() -> None:
    st = cluster(["n1"])
    run(st, make_pod("db", LOW, LARGE, labels={"app": "db"}), "n1")
    st.pdbs["default/db"] = pdb("db", {"app": "db"}, min_available=1)
    out = preempt_for(st, make_pod("p", HIGH, LARGE))
    assert out.nominated_node == "n1" and keys(out.victims) == ["default/db"]
    assert out.candidates[0].num_pdb_violations == 1


def test_invalid_args_are_refused() -> None:
    assert validate_args({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})
    assert validate_args({"minCandidateNodesPercentage": 101})
    assert validate_args({"minCandidateNodesAbsolute": -1})
    assert validate_args({"minCandidateNodesPercentage": 5, "minCandidateNodesAbsolute": 0}) is None
    st = cluster(["n1"])
    run(st, make_pod("low", LOW, LARGE), "n1")
    ps = pending(st, make_pod("p", HIGH, LARGE))
    ctx, fit = failed_cycle(st, ps)
    with pytest.raises(ScenarioError):
        preempt(ctx, ps, fit, {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})


# --- nominations and explanations ----------------------------------------------------------------

def test_lower_priority_nominees_of_the_chosen_node_lose_their_nomination() -> None:
    st = cluster(["n1"])
    run(st, make_pod("low", LOW, LARGE), "n1")
    mid = pending(st, make_pod("mid", MID, SMALL))
    mid.nominated = "n1"
    same = pending(st, make_pod("same", HIGH, SMALL))
    same.nominated = "n1"
    ps = pending(st, make_pod("p", HIGH, LARGE))  # fits only with "same" (equal) kept in
    ctx, fit = failed_cycle(st, ps)
    out = run_postfilter(ctx, ps, fit)
    assert out is not None and out.nominated_node == "n1"
    assert keys(out.victims) == ["default/low"]
    assert keys(out.clear_nominations) == ["default/mid"]


def test_trace_explains_candidates_victims_and_reprieves() -> None:
    st = cluster(["n1", "n2"])
    run(st, make_pod("keep", MID, MEDIUM), "n1")
    run(st, make_pod("go", LOW, MEDIUM), "n1")
    run(st, make_pod("other", MID, VERY_LARGE), "n2")
    trace = Trace()
    out = preempt_for(st, make_pod("p", HIGH, LARGE), trace=trace)
    assert out.nominated_node == "n1"
    about_go = [e for e in trace.entries if e.subject == "default/go"]
    assert about_go and "victim of default/p on n1" in about_go[0].result
    assert "Insufficient cpu" in about_go[0].why
    assert "lower-priority-first" in about_go[0].why  # why "keep" stayed and "go" did not
    about_keep = [e for e in trace.entries if e.subject == "default/keep"]
    assert about_keep and about_keep[0].result == "reprieved on n1"
    picks = [e for e in trace.entries if e.subject == "default/p"
             and e.rule == "scheduler.preemption.pick"]
    assert picks[0].result == "chose n1"
    assert "lowest-highest-priority" in picks[0].why
    assert any(e.result == "n2 not chosen" for e in picks)


def test_preempt_for_reports_when_no_preemption_is_needed() -> None:
    st = cluster(["n1"])
    out = preempt_for(st, make_pod("p", HIGH, SMALL))
    assert out.nominated_node == "" and out.victims == ()
    assert "fits node n1" in out.message


def test_preempt_for_resolves_priority_classes() -> None:
    from kruleset.model.objects import Container, Pod, PriorityClass
    from kruleset.model.resources import Resources

    st = cluster(["n1"])
    run(st, make_pod("low", LOW, LARGE), "n1")
    st.priority_classes["high"] = PriorityClass("high", 1000)
    pod = Pod("default", "p", (Container("c", Resources(cpu=LARGE, memory=LARGE)),),
              priority_class="high")
    assert keys(preempt_for(st, pod).victims) == ["default/low"]
    with pytest.raises(ValueError, match="no PriorityClass with name nope"):
        preempt_for(st, Pod("default", "q", priority_class="nope"))


def test_victims_already_terminating_do_not_retry_every_pending_pod_forever() -> None:
    """Two pods re-choose a node whose only victim is already being deleted (not by
    preemption, so they stay eligible): nothing changes, so nothing is retried until
    the victim is gone (this used to loop within one instant)."""
    import kruleset

    text = """scenario "victim already terminating"
node n1 cpu=2 memory=4Gi
pod default/low on n1 priority=0 grace-period=10s requests(cpu=2)
at 1s {
  delete pod default/low
  create pod default/high priority=100 requests(cpu=1)
  create pod default/high2 priority=100 requests(cpu=1)
}
at 5s expect pod default/high nominated n1
expect pod default/high running on n1
expect pod default/high2 running on n1
"""
    result = kruleset.run(text)
    assert [x.passed for x in result.expectations] == [True, True, True]
    assert not any(d.kind == "preempted" for d in result.decisions)
