"""schedule_pod, as the module docstring (and docs/API.md) shows it."""

from __future__ import annotations

from kruleset.model.objects import Container, Node, Pod
from kruleset.model.resources import Resources
from kruleset.model.selectors import Taint
from kruleset.model.state import ClusterState
from kruleset.rules.engine import Trace
from kruleset.rules.scheduler.cycle import schedule_pod

GI = 2**30


def _state() -> ClusterState:
    state = ClusterState()
    state.add_node(Node("n1", Resources(cpu=4000, memory=8 * GI, pods=110),
                        taints=(Taint("dedicated", "db", "NoSchedule"),)))
    state.add_node(Node("n2", Resources(cpu=4000, memory=8 * GI, pods=110)))
    busy = state.add_pod(Pod("default", "busy", containers=(Container("c", Resources(cpu=2000)),)))
    state.bind(busy, "n2")
    return state


def test_docstring_example():
    state = _state()
    web = Pod("default", "web", containers=(Container("c", Resources(cpu=3000)),))
    result = schedule_pod(state, web)
    assert result.node is None
    assert result.message == ("0/2 nodes are available: 1 Insufficient cpu, "
                              "1 node(s) had untolerated taint(s).")
    assert {n: f.code for n, f in result.fit_error.failures.items()} == {
        "n1": "UnschedulableAndUnresolvable", "n2": "Unschedulable"}
    small = Pod("default", "small", containers=(Container("c", Resources(cpu=500)),))
    assert schedule_pod(state, small).node == "n2"


def test_schedule_pod_changes_nothing_and_traces_on_request():
    state = _state()
    before = (dict(state.pods), state.nodes["n2"].requested.cpu)
    trace = Trace()
    r = schedule_pod(state, Pod("default", "p"), trace=trace)
    assert r.node == "n2"
    assert (dict(state.pods), state.nodes["n2"].requested.cpu) == before
    assert any(e.rule == "scheduler.filter.TaintToleration" and e.result == "fail"
               for e in trace.entries)
