"""`kruleset sweep`: axes, node and zone failure, executors agreeing, the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kruleset
from kruleset.cli import main
from kruleset.sweep import SweepError, sweep
from kruleset.sweep.axes import parse_set
from kruleset.sweep.variants import apply_sets, shuffle_arrivals

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sweep-n1.kr"

SMALL = """\
scenario "small"
priorityclass high value=1000
priorityclass low value=10 default
nodes a-[1..2] cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=za)
nodes b-[1..2] cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=zb)
deployment web replicas=4 priorityclass=high requests(cpu=2) labels(app=web)
deployment batch replicas=6 requests(cpu=1) labels(app=batch)
pod solo on a-1 requests(cpu=500m)
pdb web-pdb selector(app=web) min-available=3
at 20s create pod late-1 requests(cpu=1)
at 20s create pod late-2 priorityclass=high requests(cpu=1)
at 20s create pod late-3 requests(cpu=1)
expect pods default/web-* running count=4
expect pods default/batch-* running count=6
expect pod solo running
"""


@pytest.fixture()
def small(tmp_path: Path) -> Path:
    p = tmp_path / "small.kr"
    p.write_text(SMALL)
    return p


def _key(s: kruleset.sweep.Sweep) -> list[tuple[str, dict]]:
    return [(v.name, o) for v, o in s.rows()]


def test_node_failure_deletes_pods_and_controllers_replace_them(small: Path) -> None:
    s = sweep(small, fail_each="node", jobs=1)
    assert [v.name for v in s.variants] == ["node=a-1", "node=a-2", "node=b-1", "node=b-2"]
    assert s.base["status"] == "passed"
    by = {v.name: o for v, o in zip(s.variants, s.outcomes, strict=True)}
    a1 = by["node=a-1"]
    # solo is a naked pod: nothing recreates it; the deployments' pods come back.
    assert a1["status"] == "failed"
    assert "expect pod solo running" in [f["text"] for f in a1["failing"]]
    assert a1["removed"] >= 2
    # Another node: solo stays; 12 cpu hold web (8) but not all of batch (6).
    a2 = by["node=a-2"]
    assert [f["text"] for f in a2["failing"]] == ["expect pods default/batch-* running count=6"]
    assert a2["pending"] > s.base["pending"]
    assert all(o["removed"] > 0 for o in s.outcomes)


def test_failure_decisions_name_pod_gc(small: Path) -> None:
    from kruleset.sweep.axes import Variant
    from kruleset.sweep.executors import Job, _simulation

    scenario = kruleset.load(small)
    from kruleset.sweep.failure import POD_GC_REASON, remove_nodes

    sim = _simulation(Job(scenario, {}, 0), Variant(-1))
    sim.wake(0)
    fired = []

    def hook(s):  # type: ignore[no-untyped-def]
        if fired:
            return False
        fired.append(remove_nodes(s, ["a-1"], "test"))
        return True

    sim.on_settled = hook
    result = sim.run()
    kinds = [(d.kind, d.pod, d.reason) for d in result.decisions if d.reason == POD_GC_REASON]
    assert kinds and all(k == "deleted" for k, _, _ in kinds)
    assert ("deleted", "default/solo", POD_GC_REASON) in kinds
    assert "a-1" not in result.state.nodes
    # The replacements were created by the deployment controller and placed elsewhere.
    created = [d for d in result.decisions if d.kind == "created"]
    assert len(created) > 10  # 4 web + 6 batch, then replacements
    assert all(ps.node != "a-1" for ps in result.state.live_pods())
    assert result.state.pods["default/solo"].gone


def test_zone_failure_and_at(small: Path) -> None:
    s = sweep(small, fail_each="zone", at=30_000, jobs=2)
    assert [v.name for v in s.variants] == ["zone=za", "zone=zb"]
    for o in s.outcomes:
        assert o["removed"] > 0
        assert o["pending"] > 0  # half the cluster cannot hold everything
    with pytest.raises(SweepError, match="no node has a topology"):
        p = small.with_name("nozone.kr")
        p.write_text('scenario "x"\nnode n cpu=1 memory=1Gi\n')
        sweep(p, fail_each="zone")


def test_snapshot_copies_decide_as_fresh_runs(small: Path) -> None:
    """Forked copies of the paused simulation give what re-running every variant gives."""
    kw = {"fail_each": "node", "at": 20_000, "sets": ["deployment:web:replicas=3,5"]}
    forked = sweep(small, jobs=2, **kw)
    replayed = sweep(small, replay=True, **kw)
    assert forked.outcomes == replayed.outcomes
    assert forked.base == replayed.base
    assert len({o["digest"] for o in forked.outcomes}) > 1  # the variants really differ


def test_deterministic_across_jobs(small: Path) -> None:
    kw = {"fail_each": "node", "sets": ["pdb:web-pdb:min-available=2,4"], "seeds": 2}
    one = sweep(small, jobs=1, **kw)
    two = sweep(small, jobs=2, **kw)
    three = sweep(small, jobs=3, **kw)
    assert one.to_json() == two.to_json() == three.to_json()
    assert one.text() == two.text()


def test_dask_local_cluster_matches_local(small: Path) -> None:
    distributed = pytest.importorskip(
        "dask.distributed", reason="dask.distributed is not installed (pip install '.[dask]')")
    kw = {"fail_each": "node", "sets": ["priorityclass:high:value=5,2000"], "at": 20_000}
    local = sweep(small, jobs=2, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = sweep(small, dask=client, **kw)
        by_address = sweep(small, dask=cluster.scheduler_address, **kw)
    assert on_dask.to_json() == local.to_json()
    assert by_address.to_json() == local.to_json()


def test_set_paths_change_only_their_object(small: Path) -> None:
    scenario = kruleset.load(small)
    for text, check in (
        ("priorityclass:high:value=7", lambda o: getattr(o, "value", None) == 7),
        ("pdb:web-pdb:max-unavailable=50%",
         lambda o: getattr(o, "max_unavailable", None) == "50%"
         and o.min_available is None),
        ("deployment:batch:replicas=0", lambda o: getattr(o, "replicas", None) == 0),
    ):
        path, values = parse_set(text)
        changed = apply_sets(scenario, ((path, values[0]),))
        diff = [(a, b) for a, b in zip(scenario.objects, changed.objects, strict=True)
                if a is not b]
        assert len(diff) == 1 and check(diff[0][1]), text
        assert changed.expectations is scenario.expectations
    path, values = parse_set("kubelet:*:eviction-hard.memory.available=1Gi")
    changed = apply_sets(scenario, ((path, values[0]),))
    (block,) = changed.kubelets
    hard = {t.signal: t.quantity for t in block.config.effective_hard}
    assert hard["memory.available"] == 1 << 30 and "nodefs.available" in hard


def test_quota_path(tmp_path: Path) -> None:
    p = tmp_path / "q.kr"
    p.write_text('scenario "q"\nnode n cpu=8 memory=8Gi\nnamespace team\n'
                 "quota team min(cpu=2) max(cpu=8)\n"
                 "pods team/p-[1..6] requests(cpu=1)\n"
                 "expect pods team/p-* running count=4\n")
    # The only quota: its min is the cluster's total min, which caps borrowing.
    s = sweep(p, sets=["quota:team:min.cpu=2,4,6"], jobs=1)
    assert [o["pending"] for o in s.outcomes] == [4, 2, 0]
    assert [o["status"] for o in s.outcomes] == ["failed", "passed", "failed"]


def test_seeds_reorder_only_pending_pods_of_one_instant(small: Path) -> None:
    scenario = kruleset.load(small)
    a = shuffle_arrivals(scenario, 1)
    b = shuffle_arrivals(scenario, 1)
    assert a == b
    names = lambda sc: [e.action.obj.name for e in sc.events]  # noqa: E731
    assert sorted(names(a)) == sorted(names(scenario))
    assert any(names(shuffle_arrivals(scenario, k)) != names(scenario) for k in range(1, 6))
    assert [e.time for e in a.events] == [e.time for e in scenario.events]


@pytest.mark.parametrize(("args", "needle"), [
    (["--set", "pdb:nope:min-available=1"], "no pdb 'default/nope'"),
    (["--set", "pdb:web-pdb:min-available=x"], "not an integer"),
    (["--set", "deployment:web:replica=2"], "has no field"),
    (["--set", "widget:web:replicas=2"], "unknown kind"),
    (["--set", "deployment:web:replicas"], "no '='"),
    (["--fail-each", "node", "--at", "soon"], "--at"),
    (["--fail-each", "node", "--at", "2h"], "after the scenario ends"),
    ([], "at least one axis"),
    (["--profile", "missing.yaml"], "cannot read"),
])
def test_bad_options_are_refused_with_exit_2(small: Path, capsys: pytest.CaptureFixture[str],
                                             args: list[str], needle: str) -> None:
    assert main(["sweep", str(small), *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_cli_text_and_json(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sweep", str(small), "--fail-each", "node", "-j", "2", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert out["version"] == 1 and out["axes"] == {"fail-each": "node"}
    names = [v["name"] for v in out["variants"]]
    assert sorted(names) == ["node=a-1", "node=a-2", "node=b-1", "node=b-2"]
    ranks = [(v["status"] != "failed", -len(v["failing"]), -v["pending"]) for v in
             out["variants"]]
    assert ranks == sorted(ranks)  # worst first
    for v in out["variants"]:
        assert v["diff"]["pending"] == v["pending"] - out["base"]["pending"]
    main(["sweep", str(small), "--fail-each", "zone", "-j", "1"])
    text = capsys.readouterr().out
    assert "zone=za" in text and "first failing expectation" in text


def test_profile_axis(small: Path, tmp_path: Path) -> None:
    prof = tmp_path / "no-taints.yaml"
    prof.write_text("rulesets:\n  scheduler.filter:\n"
                    "    disable: [scheduler.filter.NodeResourcesFit]\n")
    sched = tmp_path / "sched.yaml"
    sched.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                     "kind: KubeSchedulerConfiguration\nprofiles:\n"
                     "- schedulerName: default-scheduler\n")
    s = sweep(small, profiles=[str(prof), str(sched)], jobs=2)
    by = {v.profile: o for v, o in zip(s.variants, s.outcomes, strict=True)}
    assert by[str(prof)]["pending"] == 0  # nothing is too big without NodeResourcesFit
    assert by[str(sched)]["digest"] == s.base["digest"]  # upstream defaults: the base run


def test_example_runs_with_the_readme_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", str(EXAMPLE), "--fail-each", "node"]) == 1
    out = capsys.readouterr().out
    assert "node=c-1" in out and "✗" in out


def test_docs_table_is_what_the_command_prints(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import re

    # The sweeps' documentation is docs/SWEEPS.md (every command there: test_docs_sweeps.py).
    readme = (ROOT / "docs" / "SWEEPS.md").read_text(encoding="utf-8")
    command, table = re.search(
        r"```sh\n(kruleset sweep [^\n]*)\n```\n\n```text\n(.*?)```", readme, re.S).groups()
    monkeypatch.chdir(ROOT)
    main(command.split()[1:])
    assert capsys.readouterr().out == table


def test_statements_about_a_deleted_node_answer_not_found(tmp_path: Path) -> None:
    p = tmp_path / "later.kr"
    p.write_text('scenario "later"\nnodes n-[1..2] cpu=2 memory=4Gi\n'
                 "deployment web replicas=2 requests(cpu=1)\n"
                 "at 40s cordon node n-1\nat 50s drain node n-1\n"
                 "at 60s usage node n-1 memory.available=1Gi\n"
                 "expect node n-1 condition MemoryPressure\n"
                 "expect pods default/web-* running count=2\n")
    s = sweep(p, fail_each="node", at=20_000, jobs=1)
    by = {v.name: o for v, o in zip(s.variants, s.outcomes, strict=True)}
    assert by["node=n-1"]["status"] == "failed"  # not an error
    assert [f["message"] for f in by["node=n-1"]["failing"]][0] == "node n-1 does not exist"
    assert by["node=n-2"]["status"] == "failed"
    assert s.outcomes == sweep(p, fail_each="node", at=20_000, replay=True).outcomes
