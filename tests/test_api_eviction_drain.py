"""`evict pod` and `drain node` in the simulation: what the report says and which pods stay."""

from __future__ import annotations

import attrs

import kruleset
from kruleset.model.objects import Pod
from kruleset.rules.disruption.eviction_api import VIOLATION_MESSAGE


def run(text: str, *, daemonset: tuple[str, ...] = ()) -> kruleset.Result:
    sc = kruleset.load(text)
    objs = tuple(attrs.evolve(o, owner_kind="DaemonSet", owner_name="agent")
                 if isinstance(o, Pod) and o.name in daemonset else o for o in sc.objects)
    return kruleset.run(attrs.evolve(sc, objects=objs))


STORY = """
nodes n[1..3] cpu=2 memory=8Gi
deployment web replicas=4 labels(app=web) cpu=1
pdb web-pdb selector(app=web) max-unavailable=1
at 10s drain node n1
"""


def test_report_shows_each_eviction_when_and_the_budget_that_held_a_pod_back() -> None:
    res = run(STORY)
    api = [(d.time, d.pod, d.reason, d.message) for d in res.decisions if d.kind == "eviction-api"]
    assert api[0][:3] == (10_000, "default/web-1", "200 OK")
    t, pod, reason, message = api[1]
    assert (t, pod, reason) == (10_000, "default/web-4", "429 Too Many Requests")
    assert message.startswith(VIOLATION_MESSAGE)
    assert "The disruption budget web-pdb needs 3 healthy pods and has 3 currently" in message
    assert "default/web-pdb" in message
    # the replacement of web-1 is Ready at once, so kubectl's retry 5s later succeeds
    assert api[2][:3] == (15_000, "default/web-4", "200 OK")
    assert all(d.by == "kubectl drain n1" for d in res.decisions if d.kind == "eviction-api")
    evicted = [(d.time, d.pod, d.by) for d in res.decisions if d.kind == "evicted"]
    assert evicted == [(10_000, "default/web-1", "API"), (15_000, "default/web-4", "API")]
    drained = [d for d in res.decisions if d.kind == "drain"]
    # kubectl drain waits for the evicted pods to go: web-4's 30s grace ends at 45s
    assert [(d.time, d.reason, d.message) for d in drained] == [
        (45_000, "drained", "node/n1 drained")]
    assert res.state.nodes["n1"].unschedulable


def test_identical_refusals_are_counted_not_repeated() -> None:
    res = run("""
node n1 cpu=2 memory=8Gi
node n2 cpu=1 memory=8Gi
deployment web replicas=3 labels(app=web) cpu=1
pdb web-pdb selector(app=web) min-available=2
at 10s drain node n1
run until 2m
""")
    refusals = [d for d in res.decisions if d.kind == "eviction-api" and d.pod == "default/web-3"]
    assert len(refusals) == 1 and refusals[0].reason == "429 Too Many Requests"
    # never finished: the report's last word on the drain says what blocks it
    ends = [(d.time, d.reason, d.message) for d in res.decisions if d.kind == "drain"]
    assert ends == [(120_000, "blocked", "node/n1 not drained after 1m50s: eviction refused "
                     "for default/web-3: Cannot evict pod as it would violate the pod's "
                     "disruption budget. The disruption budget web-pdb needs 2 healthy pods "
                     "and has 2 currently (23 attempts)")]


def test_daemonset_and_static_pods_stay_on_the_node() -> None:
    res = run("""
nodes n[1..2] cpu=4 memory=8Gi
pod agent-x on n1 cpu=100m
pod etcd on n1 static cpu=100m
pod web on n1 cpu=1
at 10s drain node n1
""", daemonset=("agent-x",))
    pods = res.state.pods
    assert pods["default/agent-x"].outcome is None and pods["default/agent-x"].node == "n1"
    assert pods["default/etcd"].outcome is None
    assert pods["default/web"].outcome == "evicted"
    notes = {(d.pod, d.reason) for d in res.decisions if d.kind == "drain"}
    assert ("default/agent-x", "IgnoredDaemonSet") in notes
    assert ("default/etcd", "SkippedMirrorPod") in notes
    assert ("n1", "drained") in notes


def test_a_refused_pod_fails_the_drain_without_retry() -> None:
    res = run("""
nodes n[1..2] cpu=4 memory=8Gi
pod api on n1 labels(app=web) cpu=1
pdb a selector(app=web) max-unavailable=1
pdb b selector() max-unavailable=1
at 10s drain node n1
run until 1m
""")
    api = [d for d in res.decisions if d.kind == "eviction-api"]
    assert [(d.time, d.reason) for d in api] == [(10_000, "500 Internal Server Error")]
    drained = [d for d in res.decisions if d.kind == "drain"]
    assert [(d.time, d.reason) for d in drained] == [(10_000, "failed")]
    assert "default/api" in drained[0].message


def test_evicting_a_pod_that_does_not_exist_is_404() -> None:
    res = run("""
node n1 cpu=4 memory=8Gi
pod web on n1 cpu=1 grace-period=0s
at 5s delete pod web
at 10s evict pod web
""")
    api = [d for d in res.decisions if d.kind == "eviction-api"]
    assert [(d.time, d.reason) for d in api] == [(10_000, "404 Not Found")]


def test_evicted_pod_carries_the_disruption_target_condition() -> None:
    res = run("""
node n1 cpu=4 memory=8Gi
pod web on n1 cpu=1
at 10s evict pod web
""")
    assert res.state.pods["default/web"].conditions["DisruptionTarget"] == "EvictionByEvictionAPI"


def test_a_deleted_budget_takes_its_disrupted_pods_with_it() -> None:
    text = """
node n1 cpu=4 memory=8Gi
deployment web replicas=3 labels(app=web) cpu=1
pdb web-pdb selector(app=web) max-unavailable=1
at 10s evict pod web-1
"""
    kept = run(text)
    # the controller's next sync drops the entry: web-1 is terminating (buildDisruptedPodMap)
    assert kept.state.pdb_disrupted == {"default/web-pdb": {}}
    gone = run(text + "at 20s delete pdb web-pdb\n")
    assert gone.state.pdb_disrupted == {}
