"""Real-world input: a whole cluster dump loads in one go, and mistakes are caught.

The dump comes from tests/dumpgen.py (what ``kubectl get … -A -o yaml`` prints
for every kind); the typos are those a new user makes.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

import kruleset
from kruleset.errors import ScenarioError
from kruleset.model.scenario import NominatePod

sys.path.insert(0, str(Path(__file__).parent))
import dumpgen  # noqa: E402


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dump")
    (folder / "cluster.yaml").write_text(dumpgen.dump_text(), encoding="utf-8")
    (folder / "cluster.json").write_text(json.dumps(dumpgen.dump(), indent=4), encoding="utf-8")
    return folder


@pytest.mark.parametrize("name", ["cluster.yaml", "cluster.json"])
def test_a_dump_of_every_kind_loads_in_one_go_with_one_summary_line(big: Path, name: str) -> None:
    assert len(dumpgen.dump()["items"]) > 3000
    sc = kruleset.load(f'include "{big / name}"\n')
    summary = [n for n in sc.notices if "ignored" in n]
    assert summary == [
        f"{big / name}: ignored 763 objects of 10 kinds that do not affect scheduling or "
        "eviction: ConfigMap (100), EndpointSlice (100), Endpoints (100), Event (100), "
        "Secret (100), Service (100), ServiceAccount (100), Lease (61), Certificate (1), "
        "ClusterRole (1)"]
    assert [n for n in sc.notices if n not in summary] == [
        f"{big / name}: warning: 1 CronJob read but not simulated (batch/nightly): their "
        "schedules create no Jobs here; the Jobs and pods they created are read"]


def test_the_dump_runs_and_its_workload_pods_are_not_created_twice(tmp_path: Path) -> None:
    # A smaller dump of the same shape, to keep the run short.
    (tmp_path / "c.yaml").write_text(dumpgen.dump_text(deployments=12, replicas=20, filler=5))
    res = kruleset.run(f'include "{tmp_path / "c.yaml"}"\nrun until 1m\n')
    created = [d for d in res.decisions if d.kind == "created"]
    # Only what is missing is created: the StatefulSet's last ordinal (the Jobs have
    # their parallelism running, every DaemonSet pod and Deployment replica is there),
    # and replacements of the deployment pods the nominated pod preempts.
    assert [d.pod for d in created if d.rules != ("controllers.replicaset.manage-replicas",)] \
        == \
        ["shop/cache-2"]
    preempted = [d for d in res.decisions if d.kind == "preempted"]
    assert all(d.by == "default/urgent" for d in preempted)
    assert len(created) == 1 + len(preempted)
    running = {d.pod for d in res.decisions if d.kind == "running"}
    assert "kube-system/node-agent-" + dumpgen._uid("worker-000")[:5] in running
    assert sum(1 for p in running if p.startswith("shop/web-")) == 12 * 20
    # The terminating pod ends after the grace its deletionTimestamp leaves (30s).
    assert [(d.time, d.kind) for d in res.decisions if d.pod == "default/leaving"] == \
        [(0, "running"), (0, "deleted")]
    assert res.state.pods["default/leaving"].deletion_time == 30_000
    # The node whose Ready condition is Unknown is not ready; the cordoned one is cordoned.
    assert not res.state.nodes["worker-001"].ready
    assert res.state.nodes["worker-002"].unschedulable
    assert res.state.pods["default/urgent"].node is not None


def test_builtin_priority_classes_are_accepted_only_unchanged(tmp_path: Path) -> None:
    same = _write(tmp_path, "pc.yaml", """\
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: system-node-critical}
        value: 2000001000
        """)
    kruleset.load(f'include "{same}"\n')
    changed = _write(tmp_path, "pc2.yaml", """\
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: system-node-critical}
        value: 5
        """)
    with pytest.raises(ScenarioError, match="cannot be changed"):
        kruleset.load(f'include "{changed}"\n')


# --- typos are refused with the field, the line and a suggestion ---------------------------

TYPOS = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  priorityClasName: high
  containers:
  - name: c
    resources:
      request: {cpu: 1}
"""


def test_pod_typos_are_all_refused_in_one_run_with_line_and_suggestion(tmp_path: Path) -> None:
    f = _write(tmp_path, "pod.yaml", TYPOS)
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'include "{f}"\n')
    err = e.value
    assert [(x.file_line, x.field, x.suggestion) for x in err.errors] == [  # type: ignore[attr-defined]
        (5, "spec.priorityClasName", "did you mean 'priorityClassName'?"),
        (9, "spec.containers[0].resources.request", "did you mean 'requests'?")]
    assert f"{f}:5, document 1, field spec.priorityClasName" in str(err)


def test_allow_unknown_fields_turns_them_into_warnings(tmp_path: Path) -> None:
    f = _write(tmp_path, "pod.yaml", TYPOS)
    sc = kruleset.load(f'include "{f}"\n', allow_unknown_fields=True)
    assert any('field spec.priorityClasName: unknown field "priorityClasName", ignored '
               "(did you mean 'priorityClassName'?)" in n for n in sc.notices)


def test_kubelet_configuration_typo_is_refused(tmp_path: Path) -> None:
    f = _write(tmp_path, "kubelet.yaml", """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        evictionHrad: {memory.available: 100Mi}
        """)
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'config kubelet "{f}"\n')
    assert "evictionHrad" in e.value.message and "did you mean 'evictionHard'" in str(e.value)
    assert ":3, document 1" in e.value.message


def test_kubelet_setting_read_but_not_simulated_is_a_warning(tmp_path: Path) -> None:
    f = _write(tmp_path, "kubelet.yaml", """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        maxPods: 250
        """)
    sc = kruleset.load(f'config kubelet "{f}"\n')
    assert any("maxPods is read but not simulated" in n for n in sc.notices)


@pytest.mark.parametrize(("version", "words"), [
    ("kubescheduler.config.k8s.io/v1beta3", "supported: kubescheduler.config.k8s.io/v1"),
    ("kubescheduler.config.k8s.io/v2", "supported: kubescheduler.config.k8s.io/v1"),
])
def test_unsupported_scheduler_config_versions_are_refused(tmp_path: Path, version: str,
                                                           words: str) -> None:
    f = _write(tmp_path, "s.yaml", f"apiVersion: {version}\nkind: KubeSchedulerConfiguration\n")
    with pytest.raises(ScenarioError, match=words):
        kruleset.load(f'config scheduler "{f}"\n')


def test_unsimulated_plugin_enabled_is_a_warning_and_unknown_plugin_an_error(
        tmp_path: Path) -> None:
    ok = _write(tmp_path, "s.yaml", """\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{name: VolumeBinding}]
        """)
    sc = kruleset.load(f'config scheduler "{ok}"\n')
    assert any("VolumeBinding, which kruleset accepts but does not simulate" in n
               for n in sc.notices)
    bad = _write(tmp_path, "s2.yaml", """\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{name: Coscheduling}]
        """)
    with pytest.raises(ScenarioError, match="unknown scheduler plugin 'Coscheduling'"):
        kruleset.load(f'config scheduler "{bad}"\n')


# --- 5. typed pluginConfig args ---------------------------------------------------------------

@pytest.mark.parametrize(("args", "field", "words"), [
    ("{ignoredResources: [{a: 1}]}", "pluginConfig[0].args.ignoredResources[0]",
     "expected a string"),
    ("{scoringStrategy: {resources: [{name: cpu, weight: heavy}]}}",
     "pluginConfig[0].args.scoringStrategy.resources[0].weight", "expected an integer"),
    ("{scoringStrategy: [1]}", "pluginConfig[0].args.scoringStrategy", "expected a mapping"),
    ("{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
     "{shape: [{utilisation: 0, score: 0}]}}}",
     "requestedToCapacityRatio.shape[0].utilisation", "did you mean 'utilization'"),
])
def test_plugin_config_args_are_typed_with_field_paths(tmp_path: Path, args: str, field: str,
                                                       words: str) -> None:
    f = _write(tmp_path, "s.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                   "kind: KubeSchedulerConfiguration\nprofiles:\n"
                                   f"- pluginConfig: [{{name: NodeResourcesFit, args: {args}}}]\n")
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'config scheduler "{f}"\n')
    assert field in str(e.value) and words in str(e.value)


@pytest.mark.parametrize("args", [
    "{hardPodAffinityWeight: '1'}", "{ignorePreferredTermsOfExistingPods: 3}",
])
def test_interpod_affinity_args_are_typed(tmp_path: Path, args: str) -> None:
    f = _write(tmp_path, "s.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                   "kind: KubeSchedulerConfiguration\nprofiles:\n"
                                   f"- pluginConfig: [{{name: InterPodAffinity, args: {args}}}]\n")
    with pytest.raises(ScenarioError, match="expected"):
        kruleset.load(f'config scheduler "{f}"\n')


# --- 6. YAML refuses what .kr refuses --------------------------------------------------------

@pytest.mark.parametrize(("doc", "words"), [
    ("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: big}\n"
     "value: 1000000001\n", "at most 1000000000"),
    ("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: system-mine}\n"
     "value: 5\n", "reserved"),
    ("kind: Node\napiVersion: v1\nmetadata: {name: Node_1}\n", "not a valid Node name"),
])
def test_yaml_refuses_what_kr_refuses(tmp_path: Path, doc: str, words: str) -> None:
    f = _write(tmp_path, "x.yaml", doc)
    with pytest.raises(ScenarioError, match=words):
        kruleset.load(f'include "{f}"\n')


def test_yaml_refuses_a_second_global_default(tmp_path: Path) -> None:
    f = _write(tmp_path, "x.yaml", """\
        kind: PriorityClass
        apiVersion: scheduling.k8s.io/v1
        metadata: {name: a}
        value: 1
        globalDefault: true
        ---
        kind: PriorityClass
        apiVersion: scheduling.k8s.io/v1
        metadata: {name: b}
        value: 2
        globalDefault: true
        """)
    with pytest.raises(ScenarioError, match="already the default"):
        kruleset.load(f'include "{f}"\n')
    with pytest.raises(ScenarioError, match="already the default"):
        kruleset.load(f'priorityclass c value=3 default\ninclude "{f}"\n')


# --- workloads --------------------------------------------------------------------------------

WORKLOADS = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  podManagementPolicy: %s
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, resources: {requests: {cpu: 100m}}}]}
"""


@pytest.mark.parametrize(("policy", "rounds"), [("OrderedReady", 3), ("Parallel", 1)])
def test_statefulset_pods_have_ordinal_names_and_follow_pod_management(
        tmp_path: Path, policy: str, rounds: int) -> None:
    f = _write(tmp_path, "s.yaml", WORKLOADS % policy)
    res = kruleset.run(f'node n1 cpu=4 memory=8Gi\ninclude "{f}"\n'
                       'expect pods default/db-* running count=3\n')
    assert res.passed
    order = [d.pod for d in res.decisions if d.kind in ("created", "scheduled")]
    if policy == "OrderedReady":  # each ordinal waits for the one before to run
        assert order == ["default/db-0", "default/db-0", "default/db-1", "default/db-1",
                         "default/db-2", "default/db-2"]
    else:
        assert order[:3] == ["default/db-0", "default/db-1", "default/db-2"]


def test_daemonset_runs_one_pod_per_eligible_node_through_the_scheduler(tmp_path: Path) -> None:
    f = _write(tmp_path, "ds.yaml", """\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: agent}
        spec:
          selector: {matchLabels: {app: agent}}
          template:
            metadata: {labels: {app: agent}}
            spec:
              nodeSelector: {pool: a}
              containers: [{name: agent, resources: {requests: {cpu: 100m}}}]
        """)
    res = kruleset.run(
        "node a1 cpu=1 memory=1Gi labels(pool=a)\n"
        "node a2 cpu=1 memory=1Gi labels(pool=a) unschedulable\n"
        "node a3 cpu=1 memory=1Gi labels(pool=a) taints(gpu=yes:NoSchedule)\n"
        "node b1 cpu=1 memory=1Gi labels(pool=b)\n"
        f'include "{f}"\n'
        "at 10s create node a4 cpu=1 memory=1Gi labels(pool=a)\n")
    placed = sorted((d.pod, d.node) for d in res.decisions if d.kind == "scheduled")
    # a2 is cordoned but daemon pods tolerate unschedulable; a3's taint is not tolerated.
    assert placed == [("default/agent-a1", "a1"), ("default/agent-a2", "a2"),
                      ("default/agent-a4", "a4")]
    pod = res.state.pods["default/agent-a1"].pod
    assert pod.node_affinity.required[0].fields[0].values == ("a1",)
    assert any(t.key == "node.kubernetes.io/unschedulable" for t in pod.tolerations)


def test_job_runs_parallelism_pods_until_completions(tmp_path: Path) -> None:
    f = _write(tmp_path, "job.yaml", """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: work}
        spec:
          parallelism: 2
          completions: 3
          template:
            spec:
              restartPolicy: Never
              containers: [{name: w, resources: {requests: {cpu: 100m}}}]
        """)
    res = kruleset.run(f'node n1 cpu=4 memory=8Gi\ninclude "{f}"\n'
                       "at 10s complete pod work-1\nat 20s complete pod work-2\n"
                       "at 30s complete pod work-3\nrun until 1m\n")
    created = [(d.time, d.pod) for d in res.decisions if d.kind == "created"]
    assert created == [(0, "default/work-1"), (0, "default/work-2"), (10_000, "default/work-3")]


def test_limitrange_and_resourcequota_admit_pods_created_during_the_run(tmp_path: Path) -> None:
    f = _write(tmp_path, "ns.yaml", """\
        apiVersion: v1
        kind: LimitRange
        metadata: {name: lr, namespace: team}
        spec:
          limits: [{type: Container, default: {cpu: 500m}}]
        ---
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: rq, namespace: team}
        spec:
          hard: {requests.cpu: "1"}
        """)
    res = kruleset.run(f'node n1 cpu=4 memory=8Gi\ninclude "{f}"\n'
                       "pod team/old on n1 memory=1Gi\n"
                       "at 1s create pod team/a memory=1Gi\n"
                       "at 2s create pod team/b memory=1Gi\n"
                       "at 3s create pod team/c memory=1Gi\n")
    refused = [(d.pod, d.message) for d in res.decisions if d.kind == "refused"]
    # "old" was there before (no defaults, not counted against new pods' room beyond its 0).
    assert refused == [("team/c", 'pods "c" is forbidden: exceeded quota: rq, requested: '
                                  "requests.cpu=500m, used: requests.cpu=1, limited: "
                                  "requests.cpu=1")]
    assert res.state.pods["team/a"].pod.requests.get("cpu") == 500
    assert res.state.pods["team/old"].pod.requests.get("cpu") == 0


def test_pending_pod_nomination_is_read(tmp_path: Path) -> None:
    f = _write(tmp_path, "p.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: waiting}
        spec:
          schedulingGates: [{name: later}]
          containers: [{name: c, resources: {requests: {cpu: "2"}}}]
        status: {phase: Pending, nominatedNodeName: n1}
        """)
    sc = kruleset.load(f'node n1 cpu=2 memory=8Gi\ninclude "{f}"\nrun until 1s\n')
    assert [e.action for e in sc.events if isinstance(e.action, NominatePod)] == \
        [NominatePod("default/waiting", "n1")]
    res = kruleset.run(sc)
    assert res.state.pods["default/waiting"].nominated == "n1"


def test_check_reports_every_error_of_a_kr_file_in_one_run() -> None:
    with pytest.raises(ScenarioError) as e:
        kruleset.load("node n1 cpu=2 memory=4Gi\nnode n2 cpux=2\npod p on n2 cpu=1\n"
                      "pod q on n1 cpu=1 lables(a=b)\nat 5s evict pod zz\n"
                      "expect pod p running\nexpect pod q runnin\n", file="m.kr")
    errors = e.value.errors  # type: ignore[attr-defined]
    # Refusals that only follow from an earlier one (n2, then p, were never declared) are
    # not repeated.
    assert [(x.line, x.column) for x in errors] == [(2, 9), (4, 19), (5, 17), (7, 14)]
    assert (e.value.line, e.value.column) == (2, 9)
    assert "m.kr:7:14: unknown pod state 'runnin', did you mean 'running'?" in str(e.value)


def test_pod_level_resources_are_read_but_not_simulated_a_warning(tmp_path: Path) -> None:
    f = _write(tmp_path, "p.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          resources: {requests: {cpu: "1"}}
          containers: [{name: c}]
        """)
    sc = kruleset.load(f'include "{f}"\n')
    assert sc.notices == (f"{f}: warning: spec.resources is read but not simulated by kruleset: "
                          "pod-level resources are not simulated; the containers' requests and "
                          "limits are used",)


# --- what the audit of the issue found untested -----------------------------------------------

@pytest.mark.parametrize(("doc", "words"), [
    ("apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d}\n",
     "apps/v1beta1 is not a version of Deployment kruleset reads; supported: apps/v1"),
    ("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\n",
     "batch/v1beta1 is not a version of CronJob kruleset reads; supported: batch/v1"),
    ("apiVersion: v2\nkind: Pod\nmetadata: {name: p}\n",
     "v2 is not a version of Pod kruleset reads; supported: v1"),
    ("apiVersion: scheduling.x-k8s.io/v1\nkind: ElasticQuota\nmetadata: {name: q}\n",
     "supported: scheduling.x-k8s.io/v1alpha1"),
    ("apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n",
     "PodDisruptionBudget is read from policy/v1 only"),
    ("apiVersion: resource.k8s.io/v1alpha1\nkind: ResourceClaim\nmetadata: {name: c}\n",
     "ResourceClaim is read from resource.k8s.io/v1, v1beta2, v1beta1, v1alpha3, not "
     "resource.k8s.io/v1alpha1"),
    ("apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata: {name: d}\n",
     "DaemonSet is read from apiVersion apps/…, not extensions/v1beta1"),
])
def test_unsupported_object_versions_are_refused_naming_the_supported_ones(
        tmp_path: Path, doc: str, words: str) -> None:
    f = _write(tmp_path, "x.yaml", doc)
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'include "{f}"\n')
    assert words in str(e.value)
    assert e.value.field == "apiVersion" and e.value.file_line == 1  # type: ignore[attr-defined]


def test_replicationcontroller_pods_in_the_dump_count_toward_its_replicas(tmp_path: Path) -> None:
    f = _write(tmp_path, "rc.yaml", """\
        apiVersion: v1
        kind: ReplicationController
        metadata: {name: legacy, uid: rc-1}
        spec:
          replicas: 3
          selector: {app: legacy}
          template:
            metadata: {labels: {app: legacy}}
            spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: legacy-abcde
          labels: {app: legacy}
          ownerReferences:
          - {apiVersion: v1, kind: ReplicationController, name: legacy, uid: rc-1,
             controller: true}
        spec:
          nodeName: n1
          containers: [{name: c, resources: {requests: {cpu: 100m}}}]
        status: {phase: Running}
        """)
    res = kruleset.run(f'node n1 cpu=4 memory=8Gi\ninclude "{f}"\nrun until 10s\n')
    created = [d.pod for d in res.decisions if d.kind == "created"]
    assert len(created) == 2 and "default/legacy-abcde" not in created
    owned = [p for p in res.state.pods.values() if p.pod.owner_name == "legacy"]
    assert len(owned) == 3 and all(p.node == "n1" for p in owned)


def test_dump_node_taints_and_cordon_keep_pods_away(tmp_path: Path) -> None:
    f = _write(tmp_path, "nodes.yaml", """\
        apiVersion: v1
        kind: Node
        metadata: {name: tainted}
        spec:
          taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
        status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: cordoned}
        spec: {unschedulable: true}
        status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: free}
        status: {allocatable: {cpu: "1", memory: 8Gi, pods: "110"}}
        """)
    res = kruleset.run(f'include "{f}"\npod a cpu=1\npod b cpu=1\n'
                       "expect pod a running on free\nexpect pod b pending\n")
    assert res.passed, [r.message for r in res.expectations]
    message = next(d.message for d in res.decisions if d.pod == "default/b")
    assert "1 node(s) had untolerated taint(s)" in message
    assert "1 node(s) were unschedulable" in message


def test_allow_unknown_fields_on_the_command_line_and_for_component_configs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kruleset.cli import ExitCode, main

    _write(tmp_path, "pod.yaml", TYPOS)
    _write(tmp_path, "kubelet.yaml", """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        evictionHrad: {memory.available: 100Mi}
        """)
    _write(tmp_path, "sched.yaml", """\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfg: []
        """)
    kr = _write(tmp_path, "c.kr", 'node n1 cpu=4 memory=8Gi\ninclude "pod.yaml"\n'
                                  'config kubelet "kubelet.yaml"\n'
                                  'config scheduler "sched.yaml"\n')
    assert main(["check", "--no-color", str(kr)]) == ExitCode.REFUSED
    refused = capsys.readouterr().err
    for field in ("priorityClasName", "evictionHrad", "profiles[0].pluginConfg"):
        assert field in refused, refused
    assert main(["check", "--no-color", "--allow-unknown-fields", str(kr)]) == ExitCode.OK
    warned = capsys.readouterr().err
    assert "unknown field \"priorityClasName\", ignored (did you mean 'priorityClassName'?)" \
        in warned
    assert "evictionHrad" in warned and "did you mean 'evictionHard'?" in warned
    assert "pluginConfg" in warned and "did you mean 'pluginConfig'?" in warned


QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq, namespace: team}
spec:
  hard: {pods: "2"}
---
"""
TEMPLATE = ("  template:\n    metadata: {labels: {app: w}}\n"
            "    spec: {restartPolicy: Never, containers: [{name: c, resources: "
            "{requests: {cpu: 100m}}}]}\n")


@pytest.mark.parametrize(("kind", "spec", "first", "longest"), [
    ("apps/v1\nkind: Deployment", "  replicas: 3\n  selector: {matchLabels: {app: w}}\n",
     5, 1_000_000),
    ("apps/v1\nkind: StatefulSet", "  replicas: 3\n  podManagementPolicy: Parallel\n"
     "  selector: {matchLabels: {app: w}}\n", 5, 1_000_000),
    ("apps/v1\nkind: DaemonSet", "  selector: {matchLabels: {app: w}}\n", 5, 1_000_000),
    ("batch/v1\nkind: Job", "  parallelism: 3\n  completions: 3\n", 1_000, 60_000),
])
def test_a_controller_refused_by_quota_retries_with_its_work_queue_backoff(
        tmp_path: Path, kind: str, spec: str, first: int, longest: int) -> None:
    # Without a backoff the controller retried at the same instant for ever ("did not
    # settle").  Upstream requeues a failed sync with a delay doubling per consecutive
    # failure, up to its rate limiter's longest delay.
    f = _write(tmp_path, "w.yaml", QUOTA + f"apiVersion: {kind}\n"
               "metadata: {name: w, namespace: team}\nspec:\n" + spec + TEMPLATE)
    res = kruleset.run(f'nodes n[1..3] cpu=4 memory=8Gi\ninclude "{f}"\nrun until 10m\n')
    assert len([d for d in res.decisions if d.kind == "created"]) == 2
    refused = [d for d in res.decisions if d.kind == "refused"]
    assert all("exceeded quota: rq" in d.message for d in refused)
    times = [d.time for d in refused]
    # Refused at 0, and again at 0 when its two pods were bound (a pod event requeues
    # it at once); then after 2, 4, 8 … times the first delay.
    assert times[:2] == [0, 0]
    gaps = [b - a for a, b in zip(times[1:], times[2:], strict=False)]
    assert len(gaps) > 5
    assert gaps == [min(first << (i + 1), longest) for i in range(len(gaps))]


def test_quota_freed_by_the_deployments_own_pod_is_used_at_once(tmp_path: Path) -> None:
    f = _write(tmp_path, "w.yaml", QUOTA + "apiVersion: apps/v1\nkind: Deployment\n"
               "metadata: {name: w, namespace: team}\nspec:\n  replicas: 3\n"
               "  selector: {matchLabels: {app: w}}\n" + TEMPLATE)
    res = kruleset.run(f'node n1 cpu=4 memory=8Gi\ninclude "{f}"\n'
                       "at 90s delete pod team/w-1 grace-period=0s\nrun until 2m\n")
    created = [(d.time, d.pod) for d in res.decisions if d.kind == "created"]
    # The deleted pod's replacement is created when it is gone (a pod event requeues the
    # deployment at once), not at the next backoff retry.
    assert created[:2] == [(0, "team/w-1"), (0, "team/w-2")]
    assert created[2][0] == 90_000


def test_a_cronjobs_job_template_is_checked_as_a_job_although_not_simulated(
        tmp_path: Path) -> None:
    f = _write(tmp_path, "cj.yaml", """\
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: nightly}
        spec:
          schedule: "0 3 * * *"
          jobTemplate:
            spec:
              paralelism: 2
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: c, resources: {requests: {cpu: 100m}}}]
        """)
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'include "{f}"\n')
    assert (e.value.file_line, e.value.field) == (  # type: ignore[attr-defined]
        8, "spec.jobTemplate.spec.paralelism")
    assert "did you mean 'parallelism'?" in str(e.value)


def test_other_built_in_kinds_of_a_v1_35_dump_are_counted_not_refused(tmp_path: Path) -> None:
    kinds = [("coordination.k8s.io/v1beta1", "LeaseCandidate"),
             ("certificates.k8s.io/v1beta1", "PodCertificateRequest"),
             ("internal.apiserver.k8s.io/v1alpha1", "StorageVersion"),
             ("storagemigration.k8s.io/v1alpha1", "StorageVersionMigration"),
             ("resource.k8s.io/v1alpha3", "DeviceTaintRule"),
             ("scheduling.k8s.io/v1alpha1", "Workload")]
    f = tmp_path / "dump.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": v, "kind": k, "metadata": {"name": "x"}} for v, k in kinds]}))
    sc = kruleset.load(f'include "{f}"\n')
    # (metrics.k8s.io's PodMetrics and NodeMetrics are read: they set memory usage)
    assert sc.notices == (f"{f}: ignored 6 objects of 6 kinds that do not affect scheduling "
                          "or eviction: DeviceTaintRule (1), LeaseCandidate (1), "
                          "PodCertificateRequest (1), "
                          "StorageVersion (1), StorageVersionMigration (1), Workload (1)",)
