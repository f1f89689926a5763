"""The public API a tool author uses (docs/API.md): typed, answers as a run decides,
quantities and durations as users write them, refusals as ScenarioError, and rules
plugins from the command line and from installed packages."""

from __future__ import annotations

import importlib
import os
import pydoc
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import attrs
import pytest
from cli_files import python_with_plugins

import kruleset
from kruleset.model import Container, Pod
from kruleset.rules.plugins import DISABLE_ENV

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ["kruleset/__init__.py", "kruleset/api.py", "kruleset/embed.py",
          "kruleset/rules/engine.py", "kruleset/rules/plugins.py", "kruleset/sim/result.py",
          "kruleset/model/resources.py"]

CLUSTER = """\
priorityclass high value=1000
priorityclass batch value=10
namespace batch
node node-1 cpu=4 memory=8Gi
node node-2 cpu=4 memory=8Gi
pod web-1 on node-1 requests(cpu=1500m)
pod web-2 on node-1 requests(cpu=1500m)
pod batch/etl on node-2 priorityclass=batch requests(cpu=3)
"""


def test_mypy_strict_is_clean_on_the_public_api_and_a_client(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), *PUBLIC, "tests/typed_client.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_typed_client_runs() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("KRULESET_RULES", None)
    done = subprocess.run([sys.executable, "tests/typed_client.py"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("('n1', ())")


def _urgent(cpu: str = "2", namespace: str = "default", priority_class: str = "high") -> Pod:
    return Pod(namespace, "urgent", priority_class=priority_class,
               containers=(Container("c", kruleset.Resources.of({"cpu": cpu})),))


PDB_CLUSTER = """\
priorityclass high value=1000
node node-1 cpu=4 memory=8Gi
node node-2 cpu=4 memory=8Gi
pod a-1 on node-1 labels(app=a) requests(cpu=3)
pod b-1 on node-2 labels(app=b) requests(cpu=3)
pdb a selector(app=a) min-available=1
"""
QUOTA_CLUSTER = """\
nodes worker-[1..2] cpu=8 memory=32Gi
quota ns-a min(cpu=6) max(cpu=10)
quota ns-b min(cpu=12) max(cpu=14)
pod ns-a/a-1 on worker-1 requests(cpu=4) limits(cpu=4)
pod ns-a/a-2 on worker-2 requests(cpu=4) limits(cpu=4)
pod ns-b/b-1 on worker-1 requests(cpu=3) limits(cpu=3)
"""


@pytest.mark.parametrize("cluster,created,pod", [
    (CLUSTER, "pod urgent priorityclass=high requests(cpu=2)", _urgent()),
    (PDB_CLUSTER, "pod urgent priorityclass=high requests(cpu=2)", _urgent()),
    (QUOTA_CLUSTER, "pod ns-b/urgent requests(cpu=5) limits(cpu=5)",
     Pod("ns-b", "urgent", containers=(Container(
         "c", kruleset.Resources.of({"cpu": "5"}), kruleset.Resources.of({"cpu": "5"})),))),
], ids=["priority", "pdb", "elastic-quota"])
def test_schedule_pod_preempts_as_a_run_decides(cluster: str, created: str, pod: Pod) -> None:
    state = kruleset.cluster(cluster)
    answer = kruleset.schedule_pod(state, pod)
    run = kruleset.run(cluster + f"at 1s create {created}\n")
    nominated = [d for d in run.decisions if d.kind == "nominated"]
    preempted = [d.pod for d in run.decisions if d.kind == "preempted"]
    pending = [d for d in run.decisions if d.kind == "pending" and d.pod == pod.key]
    assert nominated and preempted, "the case must preempt in a run"
    assert answer.node is None
    assert (answer.nominated, sorted(answer.victims)) == (nominated[0].node, sorted(preempted))
    assert answer.message == pending[0].message
    assert answer.decided_by == nominated[0].message
    # Asking changed nothing; without preemption the pod just does not fit.
    assert all(not ps.terminating and ps.nominated is None for ps in state.pods.values())
    plain = kruleset.schedule_pod(state, pod, preempt=False)
    assert (plain.node, plain.nominated, plain.victims) == (None, None, ())


def test_schedule_pod_places_a_pod_that_fits() -> None:
    state = kruleset.cluster(CLUSTER)
    answer = kruleset.schedule_pod(state, _urgent("500m"))
    assert answer.node in ("node-1", "node-2") and answer.message == ""
    assert set(answer.scores) == set(answer.feasible) == {"node-1", "node-2"}


def test_a_state_from_a_dump_without_a_run() -> None:
    dump = ROOT / "examples" / "manifests" / "cluster.yaml"
    declared = kruleset.cluster(dump, settle=False)
    settled = kruleset.cluster(dump)
    assert set(declared.nodes) == {"node-a", "node-b"}
    # Settling lets the Deployment controller create the replica the dump misses.
    assert len(settled.pods) == len(declared.pods) + 1


def test_evict_drain_advance_on_a_state() -> None:
    state = kruleset.cluster(CLUSTER + "pdb web selector(app=web) min-available=1\n")
    dry = kruleset.evict(state, "batch/etl", dry_run=True)
    assert (dry.allowed, dry.status) == (True, 200)
    assert not state.pods["batch/etl"].terminating
    gone = kruleset.evict(state, "nosuch")
    assert gone.status == 404
    done = kruleset.drain(state, "node-1", timeout="2m")
    assert done.drained and done.evicted == ("default/web-1", "default/web-2")
    assert isinstance(done.took, timedelta) and done.took > timedelta(0)
    assert state.nodes["node-1"].unschedulable
    before = kruleset.advance(state, 0)
    assert kruleset.advance(state, "1m30s") == before + timedelta(seconds=90)


def test_acting_on_a_state_not_made_by_cluster_is_refused() -> None:
    state = kruleset.ClusterState()
    with pytest.raises(kruleset.ScenarioError, match=r"not made by kruleset.cluster\(\)"):
        kruleset.drain(state, "n1")
    with pytest.raises(kruleset.ScenarioError, match="unknown priority class|nope"):
        kruleset.schedule_pod(state, Pod("default", "p", priority_class="nope"))


@pytest.mark.parametrize("value", ["half", "5x", 0.5, True, None])
def test_a_quantity_that_is_not_one_is_refused(value: object) -> None:
    with pytest.raises(kruleset.ScenarioError, match="resource cpu"):
        kruleset.Resources.of({"cpu": value})  # type: ignore[dict-item]


def test_quantities_as_written() -> None:
    r = kruleset.Resources.of({"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "2"})
    assert (r.cpu, r.memory, r.get("nvidia.com/gpu")) == (500, 2**30, 2)
    assert kruleset.Resources.of({"cpu": 250}).cpu == 250


@pytest.mark.parametrize("until,ms", [("1m", 60_000), ("1m30s", 90_000),
                                      (timedelta(seconds=5), 5_000), (250, 250)])
def test_durations_as_written(until: kruleset.Duration, ms: int) -> None:
    assert kruleset.duration_ms(until) == ms
    result = kruleset.run("node n1 cpu=1\n", until=until)
    assert result.end_time == ms and result.end == timedelta(milliseconds=ms)


@pytest.mark.parametrize("until", ["1x", "-5s", timedelta(microseconds=5), 1.5])
def test_a_duration_that_is_not_one_is_refused(until: object) -> None:
    with pytest.raises(kruleset.ScenarioError, match="until"):
        kruleset.run("node n1 cpu=1\n", until=until)  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [kruleset.Result, kruleset.Decision, kruleset.ExpectationResult,
                                 kruleset.Expectation, kruleset.Placement,
                                 kruleset.EvictionAnswer, kruleset.DrainAnswer,
                                 kruleset.CapacityAnswer])
def test_help_lists_every_field(cls: type) -> None:
    shown = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    for field in attrs.fields(cls):
        assert f"``{field.name}``" in shown, f"help({cls.__name__}) does not say what " \
                                             f"{field.name} is"


def test_rule_failure_register_are_exported() -> None:
    assert {"Rule", "Failure", "register", "cluster", "schedule_pod", "evict", "drain",
            "eviction_pass", "capacity"} <= set(kruleset.__all__)
    assert all(hasattr(kruleset, name) for name in kruleset.__all__)
    # The module of the same name, once imported, does not hide the function.
    importlib.import_module("kruleset.capacity")
    assert callable(kruleset.capacity) and callable(kruleset.pod)


# --- plugins ------------------------------------------------------------------------------

def _kruleset(args: list[str], cwd: Path, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess[str]:
    return python_with_plugins(["-m", "kruleset", *args], cwd, env, timeout=300)


GOOD = """\
import kruleset


def no_node_2(ctx, args, pod, node):
    return kruleset.Failure("node-2 is closed") if node.name == "node-2" else None


kruleset.register(kruleset.Rule("test.filter.NoNode2", doc="node-2 is closed", source="test",
                                fn=no_node_2), "scheduler.filter")
"""


@pytest.mark.parametrize("body,words,line", [
    ("import kruleset\nx = 1\nimport no_such_module_here\n", "ModuleNotFoundError", 3),
    ("import kruleset\n\nkruleset.register(kruleset.Rule('bad name', doc='', source='', "
     "fn=print), 'scheduler.filter')\n", "bad rule name 'bad name'", 0),
    ("import kruleset\n\nkruleset.register(kruleset.Rule('a.b', doc='', source='', fn=print),"
     " 'scheduler.filtr')\n", "unknown rule set 'scheduler.filtr'", 3),
    ("def broken(:\n", "SyntaxError", 1),
])
def test_a_refused_plugin_names_its_file(tmp_path: Path, body: str, words: str,
                                         line: int) -> None:
    (tmp_path / "plug.py").write_text(body, encoding="utf-8")
    (tmp_path / "s.kr").write_text("node n1 cpu=1\n", encoding="utf-8")
    for command in (["run", "s.kr"], ["sweep", "s.kr"], ["rules"]):
        done = _kruleset([*command, "--rules", "plug.py"], tmp_path)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        first = done.stderr.splitlines()[0]
        assert "plug.py" in first and words in first
        if line:
            assert f"plug.py:{line}:" in first


def test_a_missing_plugin_is_refused(tmp_path: Path) -> None:
    for spec in ("missing.py", "no_such_pkg.rules"):
        done = _kruleset(["rules", "--rules", spec], tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert f"rules plugin {spec} refused" in done.stderr


def test_rules_loaded_by_file_and_by_module(tmp_path: Path) -> None:
    (tmp_path / "closed.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "s.kr").write_text(
        "node node-1 cpu=1\nnode node-2 cpu=4\npod p requests(cpu=2)\n"
        "expect pod p pending\n", encoding="utf-8")
    assert _kruleset(["run", "s.kr"], tmp_path).returncode == 1  # p runs on node-2
    for spec in ("closed.py", "closed"):
        done = _kruleset(["run", "--rules", spec, "s.kr"], tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        listed = _kruleset(["rules", "--plugins", "--rules", spec], tmp_path)
        assert "test.filter.NoNode2" in listed.stdout


ENTRY_POINTS = """\
import importlib.metadata as md
import sys

from kruleset.cli import main

ep = md.EntryPoint(name="closed", value="closed", group="kruleset.rules")
real = md.entry_points
md.entry_points = lambda **kw: (md.EntryPoints([ep]) if kw.get("group") == "kruleset.rules"
                                else real(**kw))
sys.exit(main(sys.argv[1:]))
"""


def test_installed_plugins_come_from_the_entry_point_group(tmp_path: Path) -> None:
    (tmp_path / "closed.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "ep.py").write_text(ENTRY_POINTS, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    env.pop("KRULESET_RULES", None)
    listed = subprocess.run([sys.executable, "ep.py", "rules", "--plugins"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=300, check=False)
    assert listed.returncode == 0, listed.stderr
    assert "closed (entry point): closed" in listed.stdout
    assert "scheduler.filter/test.filter.NoNode2" in listed.stdout
    env[DISABLE_ENV] = "1"
    off = subprocess.run([sys.executable, "ep.py", "rules", "--plugins"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300, check=False)
    assert "rules: none" in off.stdout


FEATURE = """\
Feature: a closed node
  Scenario: the user rule keeps node-2 closed
    Given node node-1 cpu=1
    And node node-2 cpu=4
    And pod p requests(cpu=2)
    Then expect pod p pending
"""


def _pytest(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(cwd)]))
    env.pop("KRULESET_RULES", None)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_the_gherkin_plugin_loads_rules_from_its_options(tmp_path: Path) -> None:
    (tmp_path / "closed.py").write_text(GOOD, encoding="utf-8")
    (tmp_path / "features").mkdir()
    (tmp_path / "features" / "closed.feature").write_text(FEATURE, encoding="utf-8")
    (tmp_path / "test_features.py").write_text(
        'from pytest_bdd import scenarios\n\nscenarios("features")\n', encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    without = _pytest([], tmp_path)
    assert without.returncode == 1, without.stdout  # p runs on node-2
    assert _pytest(["--kruleset-rules", "closed.py"], tmp_path).returncode == 0
    (tmp_path / "pytest.ini").write_text("[pytest]\nkruleset_rules =\n    closed.py\n",
                                         encoding="utf-8")
    ini = _pytest([], tmp_path)
    assert ini.returncode == 0, ini.stdout + ini.stderr
    (tmp_path / "bad.py").write_text("import no_such_module_here\n", encoding="utf-8")
    bad = _pytest(["--kruleset-rules", "bad.py"], tmp_path)
    assert bad.returncode == 2
    assert "bad.py:1:1: rules plugin bad.py refused: ModuleNotFoundError" in \
        bad.stdout + bad.stderr


def test_a_refused_plugin_leaves_the_rule_sets_as_they_were(tmp_path: Path) -> None:
    (tmp_path / "half.py").write_text(
        "import kruleset\n\n"
        "kruleset.register(kruleset.Rule('half.filter.One', doc='', source='', fn=print),\n"
        "                  'scheduler.filter')\n"
        "raise RuntimeError('broken halfway')\n", encoding="utf-8")
    program = (
        "from kruleset.rules import plugins\nfrom kruleset.rules.registry import get_ruleset\n"
        "try:\n    plugins.load('half.py')\nexcept plugins.PluginError as e:\n"
        "    print(e.message)\n"
        "print([r.name for r in get_ruleset('scheduler.filter').rules if 'half' in r.name])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("KRULESET_RULES", None)
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "rules plugin half.py refused: RuntimeError: broken halfway", "[]"]


def _installed(site: Path, body: str) -> None:
    """A distribution as pip leaves it in site-packages: a module and its .dist-info."""
    site.mkdir()
    (site / "closedplug.py").write_text(body, encoding="utf-8")
    info = site / "closedplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: closedplug\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("[kruleset.rules]\nclosed = closedplug\n",
                                           encoding="utf-8")


def test_an_installed_distribution_provides_rules(tmp_path: Path) -> None:
    _installed(tmp_path / "site", GOOD)
    (tmp_path / "s.kr").write_text(
        "node node-1 cpu=1\nnode node-2 cpu=4\npod p requests(cpu=2)\n"
        "expect pod p pending\n", encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path / "site")])}
    listed = _kruleset(["rules", "--plugins"], tmp_path, env)
    assert listed.returncode == 0, listed.stderr
    assert "closed (entry point from closedplug 1.0): closedplug" in listed.stdout
    assert "rules: scheduler.filter/test.filter.NoNode2" in listed.stdout
    ran = _kruleset(["run", "s.kr"], tmp_path, env)  # loaded without being asked for
    assert ran.returncode == 0, ran.stdout + ran.stderr
    off = _kruleset(["run", "s.kr"], tmp_path, {**env, DISABLE_ENV: "1"})
    assert off.returncode == 1


def test_a_broken_installed_plugin_is_refused_by_name(tmp_path: Path) -> None:
    _installed(tmp_path / "site", "import kruleset\nraise ImportError('needs gpu-lib')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path / "site")])}
    done = _kruleset(["rules"], tmp_path, env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert "closedplug.py:2:1: rules plugin closed (closedplug) refused: ImportError: " \
           "needs gpu-lib" in first
    assert f"{DISABLE_ENV}=1" in done.stderr


def test_a_module_plugin_is_found_in_the_current_folder(tmp_path: Path) -> None:
    # As the console script starts: sys.path[0] is the script's folder, not the
    # current one.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "launch.py").write_text(
        "import sys\nfrom kruleset.cli import main\nsys.exit(main(sys.argv[1:]))\n",
        encoding="utf-8")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "closed.py").write_text(GOOD, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("KRULESET_RULES", None)
    done = subprocess.run([sys.executable, str(tmp_path / "bin" / "launch.py"), "rules",
                           "--rules", "closed", "NoNode2"], cwd=tmp_path / "work", env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "test.filter.NoNode2" in done.stdout
