"""The timeline (§3), expectations (§4), include/config and run until."""

from __future__ import annotations

from pathlib import Path

import pytest

from kruleset.errors import ScenarioError
from kruleset.lang import load, parse_text
from kruleset.model import Deployment, Pod, PriorityClass, Taint
from kruleset.model.scenario import (
    Cordon,
    Create,
    DeleteObject,
    DeletePod,
    DrainNode,
    EvictPod,
    KubeletBlock,
    LabelNode,
    NodeReadiness,
    NodeUsage,
    PodPhase,
    PodReadiness,
    PodUsage,
    ScaleDeployment,
    TaintNode,
    Ungate,
)

GI = 2**30
MI = 2**20
HEAD = ("node n1 cpu=4 memory=8Gi\nnode n2 cpu=4\npod a on n1 gates(g1)\n"
        "deployment web replicas=2\npdb p selector(app=web) min-available=1\n"
        "priorityclass old value=3\nquota team min(cpu=1)\n")


def scenario(text: str):  # type: ignore[no-untyped-def]
    return parse_text(HEAD + text, "t.kr")


def refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_text(HEAD + text, "t.kr")
    return info.value


def test_every_timeline_statement() -> None:
    s = scenario(
        "at 0s create pods late-[1..2] cpu=1\n"
        "at 1s create deployment ns/d replicas=1\n"
        "at 2s scale deployment web replicas=5\n"
        "at 3s delete pod a grace-period=0s\n"
        "at 3s delete pod web-1\n"
        "at 4s evict pod web-2 dry-run\n"
        "at 4s evict pod web-3\n"
        "at 5s drain node n1\n"
        "at 5s cordon node n2\n"
        "at 5s uncordon node n2\n"
        "at 6s taint node n2 k=v:NoExecute\n"
        "at 6s untaint node n2 k:NoExecute\n"
        "at 7s label node n2 disk=ssd\n"
        "at 8s node n2 not-ready\n"
        "at 8s node n2 ready\n"
        "at 9s usage pod late-1 memory=1Gi pids=100\n"
        "at 9s usage node n1 memory.available=400Mi nodefs.inodesFree=1k\n"
        "at 10s ungate pod a g1\n"
        "at 10s ready pod late-1\n"
        "at 10s unready pod late-1\n"
        "at 11s complete pod late-1\n"
        "at 11s fail pod late-2\n"
        "at 12s delete priorityclass old\n"
        "at 12s delete quota team\n"
        "at 12s delete pdb p\n"
        "at 1m30s kubelet n1 {\n  eviction-hard memory.available<1Gi\n}\n")
    ev = s.events
    assert [e.seq for e in ev] == list(range(len(ev)))
    assert [e.time for e in ev][:3] == [0, 0, 1000]
    acts = [e.action for e in ev]
    assert isinstance(acts[0], Create) and isinstance(acts[0].obj, Pod)
    assert [a.obj.name for a in acts[:2]] == ["late-1", "late-2"]
    assert isinstance(acts[2].obj, Deployment) and acts[2].obj.key == "ns/d"
    assert acts[3:-1] == [
        ScaleDeployment("default/web", 5),
        DeletePod("default/a", 0),
        DeletePod("default/web-1", None),
        EvictPod("default/web-2", True),
        EvictPod("default/web-3", False),
        DrainNode("n1"),
        Cordon("n2", True),
        Cordon("n2", False),
        TaintNode("n2", Taint("k", "v", "NoExecute"), True),
        TaintNode("n2", Taint("k", "", "NoExecute"), False),
        LabelNode("n2", "disk", "ssd"),
        NodeReadiness("n2", False),
        NodeReadiness("n2", True),
        PodUsage("default/late-1", {"memory": GI, "pids": 100}),
        NodeUsage("n1", {"memory.available": 400 * MI, "nodefs.inodesFree": 1000}),
        Ungate("default/a", "g1"),
        PodReadiness("default/late-1", True),
        PodReadiness("default/late-1", False),
        PodPhase("default/late-1", "Succeeded"),
        PodPhase("default/late-2", "Failed"),
        DeleteObject("priorityclass", "old"),
        DeleteObject("quota", "team"),
        DeleteObject("pdb", "default/p"),
    ]
    last = acts[-1]
    assert isinstance(last, KubeletBlock) and last.node == "n1"
    assert last.config.hard[0].quantity == GI  # type: ignore[index]
    assert ev[-1].time == 90_000


def test_at_block_and_timed_expectations() -> None:
    s = scenario("at 5s {\n  create priorityclass later value=7\n"
                 "  create pod p7 priorityclass=later\n"
                 "  expect pod p7 pending reason=\"Insufficient cpu\"\n}\n"
                 "at 40s expect pod p7 running on n1\n")
    assert isinstance(s.events[0].action.obj, PriorityClass)
    assert s.events[1].action.obj.priority_class == "later"
    e1, e2 = s.expectations
    assert (e1.form, e1.state, e1.args, e1.time) == ("pod", "pending",
                                                     {"reason": "Insufficient cpu"}, 5000)
    assert e1.text == 'expect pod p7 pending reason="Insufficient cpu"'
    assert (e2.time, e2.args, e2.span.line) == (40_000, {"node": "n1"}, 13)


def test_every_expectation_form() -> None:
    s = scenario(
        "at 1s evict pod web-1\n"
        "expect pod a running\n"
        "expect pod a running on n1\n"
        "expect pod a pending\n"
        "expect pod a nominated n2\n"
        "expect pod a preempted\n"
        "expect pod a preempted by web-1\n"
        "expect pod a evicted\n"
        "expect pod a evicted reason=MemoryPressure\n"
        "expect pod a rejected reason=\"OutOfcpu\"\n"
        "expect pod a deleted\n"
        "expect pod a not preempted\n"
        "expect pod a not evicted\n"
        "expect pod a terminating\n"
        "expect pod a succeeded\n"
        "expect pod a failed\n"
        "expect pods web-* running count=2\n"
        "expect pods */web-* evicted count=0\n"
        "expect victims of a = []\n"
        "expect victims of a = [web-1, ns/x-1]\n"
        "expect evictions = [web-1]\n"
        "expect eviction web-1 status 429\n"
        "expect node n1 condition MemoryPressure\n"
        "expect node n1 condition DiskPressure false\n"
        "expect node n1 taint k=v:NoExecute\n"
        "expect node n1 taint k:NoSchedule absent\n"
        "expect quota team used(cpu=1, memory=0)\n"
        "expect pdb p disruptions-allowed=1\n"
        "expect pod a qos=BestEffort\n"
        "expect pod a priority=0\n"
        "expect pod a priority=5 preemption=Never\n"
        "expect pod a critical\n"
        "expect pod a not critical\n"
        "expect pod a oom-score-adj=1000\n"
        "expect pod a container a oom-score-adj=-997\n"
        "at 2s create pod ns/x-1\n")
    got = [(e.form, e.ref, e.state, e.negated, dict(e.args)) for e in s.expectations]
    assert got == [
        ("pod", "default/a", "running", False, {}),
        ("pod", "default/a", "running", False, {"node": "n1"}),
        ("pod", "default/a", "pending", False, {}),
        ("pod", "default/a", "nominated", False, {"node": "n2"}),
        ("pod", "default/a", "preempted", False, {}),
        ("pod", "default/a", "preempted", False, {"by": "default/web-1"}),
        ("pod", "default/a", "evicted", False, {}),
        ("pod", "default/a", "evicted", False, {"reason": "MemoryPressure"}),
        ("pod", "default/a", "rejected", False, {"reason": "OutOfcpu"}),
        ("pod", "default/a", "deleted", False, {}),
        ("pod", "default/a", "preempted", True, {}),
        ("pod", "default/a", "evicted", True, {}),
        ("pod", "default/a", "terminating", False, {}),
        ("pod", "default/a", "succeeded", False, {}),
        ("pod", "default/a", "failed", False, {}),
        ("pods-count", "default/web-*", "running", False, {"count": 2}),
        ("pods-count", "*/web-*", "evicted", False, {"count": 0}),
        ("victims", "default/a", "", False, {"refs": ()}),
        ("victims", "default/a", "", False, {"refs": ("default/web-1", "ns/x-1")}),
        ("evictions", "", "", False, {"refs": ("default/web-1",)}),
        ("eviction-status", "default/web-1", "", False, {"status": 429}),
        ("node-condition", "n1", "", False, {"condition": "MemoryPressure", "value": True}),
        ("node-condition", "n1", "", True, {"condition": "DiskPressure", "value": False}),
        ("node-taint", "n1", "", False, {"taint": Taint("k", "v", "NoExecute"), "absent": False}),
        ("node-taint", "n1", "", False, {"taint": Taint("k", "", "NoSchedule"), "absent": True}),
        ("quota-used", "team", "", False, {"used": {"cpu": 1000, "memory": 0}}),
        ("pdb-status", "default/p", "", False,
         {"fields": {"disruptions-allowed": 1}, "value": 1}),
        ("qos", "default/a", "", False, {"value": "BestEffort"}),
        ("priority", "default/a", "", False, {"value": 0}),
        ("priority", "default/a", "", False, {"value": 5, "preemption": "Never"}),
        ("critical", "default/a", "", False, {}),
        ("critical", "default/a", "", True, {}),
        ("oom-score-adj", "default/a", "", False, {"value": 1000}),
        ("oom-score-adj", "default/a", "", False, {"container": "a", "value": -997}),
    ]
    assert all(e.time is None for e in s.expectations)
    assert s.expectations[0].text == "expect pod a running"
    assert s.expectations[0].span.line == 9


def test_run_until_and_title() -> None:
    s = scenario('scenario "t"\nat 10s delete pod a\nrun until 1h\n')
    assert (s.title, s.run_until) == ("t", 3_600_000)
    assert parse_text("node n1 cpu=1\n").run_until is None


def test_created_objects_become_known_from_their_instant() -> None:
    s = scenario("at 10s create node n3 cpu=1\nat 10s create pod b on n3\n"
                 "at 20s delete pod b\nat 30s create pod b\n")
    assert [e.time for e in s.events] == [10_000, 10_000, 20_000, 30_000]


@pytest.mark.parametrize(("text", "message", "line", "column"), [
    ("at 10s delete pod nope\n", "unknown pod 'default/nope'", 8, 19),
    ("at 10s evict pod web-x\n", "unknown pod 'default/web-x'", 8, 18),
    ("at 10s create pod b\nat 5s delete pod b\n", "time goes backwards: at 5s comes after at "
     "10s (line 8)", 9, 4),
    ("at 10s expect pod late running\nat 20s create pod late\n", "unknown pod 'default/late'",
     8, 19),
    ("at 10s delete pod late\nat 20s create pod late\n", "unknown pod 'default/late'", 8, 19),
    ("at 10s create pod a\n", "pod 'default/a' is already declared (line 3)", 8, 19),
    ("at 10s drain node n3\n", "unknown node 'n3'", 8, 19),
    ("at 10s cordon pod a\n", "unknown keyword 'pod'", 8, 15),
    ("at 10s scale deployment webb replicas=3\n", "unknown deployment 'default/webb', did "
     "you mean 'default/web'?", 8, 25),
    ("at 10s delete priorityclass system-node-critical\n", "cannot be deleted", 8, 29),
    ("at 10s delete quota other\n", "unknown quota for namespace 'other'", 8, 21),
    ("at 10s ungate pod a g2\n", "unknown scheduling gate of pod default/a 'g2'", 8, 21),
    ("at 10s usage pod a cpu=1\n", "unknown usage key 'cpu'", 8, 20),
    ("at 10s usage node n1 memory.avail=1Gi\n", "did you mean 'memory.available'?", 8, 22),
    ("at 10s node n1 cpu=4\n", "a node is added in the timeline with 'create node", 8, 16),
    ("at 10s pod x\n", "declarations in the timeline are written 'create pod …'", 8, 8),
    ("at 10s create widget x\n", "unknown kind to create 'widget'", 8, 15),
    ("at 10s frobnicate\n", "unknown timeline statement 'frobnicate'", 8, 8),
    ("at 10s\n", "expected a statement after the time", 8, 7),
    ("at -1s delete pod a\n", "time may not be negative", 8, 4),
    ("at soon delete pod a\n", "time: 'soon' is not a duration", 8, 4),
    ("at 1s {\n  at 2s delete pod a\n}\n", "'at' cannot be nested", 9, 3),
    ("at 1s run until 2s\n", "'run' is not allowed inside the timeline", 8, 7),
    ("delete pod a\n", "'delete' is a timeline statement and needs a time", 8, 1),
    ("frobnicate\n", "unknown statement 'frobnicate'", 8, 1),
    ("expect pod zzz running\n", "unknown pod 'default/zzz'", 8, 12),
    ("expect pod a runing\n", "unknown pod state 'runing', did you mean 'running'?", 8, 14),
    ("expect pod a running on n9\n", "unknown node 'n9'", 8, 25),
    ("expect eviction a status 429\n", "no 'evict pod default/a' statement", 8, 17),
    ("at 1s evict pod a\nexpect eviction a status 404\n", "200, 429 or 500", 9, 26),
    ("expect victims of a = [web-*]\n", "a glob is not allowed in a list", 8, 24),
    ("expect victims of a = [web-1, web-1]\n", "listed twice", 8, 31),
    ("expect pods web-* running\n", "expected count=…", 8, 26),
    ("expect pods web-* sleeping count=1\n", "unknown pod state 'sleeping'", 8, 19),
    ("expect pdb q disruptions-allowed=1\n", "unknown pdb 'default/q'", 8, 12),
    ("expect quota nope used(cpu=1)\n", "unknown quota for namespace 'nope'", 8, 14),
    ("expect quota team used()\n", "used(…) names no resource", 8, 19),
    ("expect node n1 condition Hungry\n", "unknown condition 'Hungry'", 8, 26),
    ("expect pod a evicted reason=Memory\n", "unknown eviction reason 'Memory'", 8, 29),
    ("expect pod a pending reason=x\n", "reason is a string here", 8, 29),
    ("expect pod a qos=Gold\n", "unknown QoS class 'Gold'", 8, 18),
    ("expect pod a running extra\n", "unexpected 'extra'", 8, 22),
    ("expect widget a\n", "unknown keyword 'widget'", 8, 8),
    ("run until 5s\nat 10s delete pod a\n", "stops before the last timeline entry", 8, 11),
    ("run until 1h\nrun until 2h\n", "'run until' is given twice", 9, 1),
    ("run 1h\n", "unknown keyword '1h'", 8, 5),
])
def test_timeline_refusals(text: str, message: str, line: int, column: int) -> None:
    err = refused(text)
    assert message in err.message, err.render()
    assert (err.line, err.column) == (line, column), err.render()


def test_glob_matching_nothing_is_not_an_error() -> None:
    s = scenario("expect pod nothing-* running\nexpect pods zz/* pending count=0\n")
    assert [e.ref for e in s.expectations] == ["default/nothing-*", "zz/*"]


def test_deployment_pod_names_are_known() -> None:
    s = scenario("expect pod web-17 running\nat 1s create deployment ns/d replicas=1\n"
                 "expect pod ns/d-1 running\n")
    assert [e.ref for e in s.expectations] == ["default/web-17", "ns/d-1"]
    err = refused("expect pod web-0 running\n")
    assert "unknown pod 'default/web-0'" in err.message


def test_include_and_config_use_the_manifest_loaders(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import kruleset.manifests as manifests
    from kruleset.model import KubeletConfig, Node, Resources, SchedulerConfig

    calls: list[tuple[str, Path, int]] = []

    def objects(path: Path, span):  # type: ignore[no-untyped-def]
        calls.append(("objects", path, span.line))
        return manifests.LoadedManifests(
            (Node("y1", Resources.of({"cpu": 1000})), PriorityClass("yhigh", 5)))

    def scheduler(path: Path, span):  # type: ignore[no-untyped-def]
        calls.append(("scheduler", path, span.line))
        return SchedulerConfig(scheduler_name="custom")

    def kubelet(path: Path, span):  # type: ignore[no-untyped-def]
        calls.append(("kubelet", path, span.line))
        return KubeletConfig(housekeeping_interval=1)

    monkeypatch.setattr(manifests, "load_manifests", objects)
    monkeypatch.setattr(manifests, "load_scheduler_config", scheduler)
    monkeypatch.setattr(manifests, "load_kubelet_config", kubelet)
    for name in ("objs.yaml", "sched.yaml", "kubelet.yaml"):
        (tmp_path / name).write_text("{}\n")
    kr = tmp_path / "s.kr"
    kr.write_text('pod a on y1 priorityclass=yhigh\ninclude "objs.yaml"\n'
                  'config scheduler "sched.yaml"\nconfig kubelet "kubelet.yaml"\n')
    s = load(kr)
    assert calls == [("objects", tmp_path / "objs.yaml", 2),
                     ("scheduler", tmp_path / "sched.yaml", 3),
                     ("kubelet", tmp_path / "kubelet.yaml", 4)]
    assert [getattr(o, "name", "") for o in s.objects] == ["a", "y1", "yhigh"]
    assert s.scheduler is not None and s.scheduler.scheduler_name == "custom"
    assert s.kubelets[0].node == "*" and s.kubelets[0].config.housekeeping_interval == 1
    kr.write_text('node y1 cpu=1\ninclude "objs.yaml"\n')
    with pytest.raises(ScenarioError) as info:
        load(kr)
    assert "node 'y1' is already declared (line 1)" in info.value.message
    assert (info.value.line, info.value.column) == (2, 9)
    kr.write_text('kubelet * {\n}\nconfig kubelet "kubelet.yaml"\n')
    with pytest.raises(ScenarioError, match="already configured"):
        load(kr)
