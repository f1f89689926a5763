"""Reading Kubernetes files (objects, KubeSchedulerConfiguration, KubeletConfiguration)."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction
from pathlib import Path

import attrs
import pytest

from kruleset.errors import ManifestError, Span
from kruleset.manifests import (
    KubeletConfigFile,
    load_kubelet_config,
    load_manifests,
    load_objects,
    load_scheduler_config,
)
from kruleset.manifests._fields import MATCH_NOTHING
from kruleset.model import (
    Deployment,
    ElasticQuota,
    LabelSelector,
    Namespace,
    Node,
    NodeSelectorTerm,
    PluginSet,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Requirement,
    Resources,
    RuntimeClass,
    Taint,
    Toleration,
)
from kruleset.model.objects import BUILTIN_PRIORITY_CLASSES

DATA = Path(__file__).parent / "data" / "manifests"
MI = 2**20
GI = 2**30


def write(tmp_path: Path, text: str, name: str = "objects.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def by_name(objects: list, cls: type) -> dict:
    return {o.name: o for o in objects if isinstance(o, cls)}


# --- kubectl get -o yaml (kind: List) ------------------------------------------------

@pytest.fixture(scope="module")
def cluster() -> list:
    return load_objects(DATA / "cluster-list.yaml")


def test_list_keeps_file_order_and_folds_the_replicaset(cluster: list) -> None:
    assert [type(o).__name__ for o in cluster] == [
        "Namespace", "Node", "PriorityClass", "PriorityClass", "RuntimeClass", "Deployment",
        "Pod", "Pod", "Pod", "Pod", "PodDisruptionBudget", "ElasticQuota",
    ]


def test_namespace_labels(cluster: list) -> None:
    assert cluster[0] == Namespace("shop", {"kubernetes.io/metadata.name": "shop",
                                            "team": "payments"})


def test_node_capacity_allocatable_taints(cluster: list) -> None:
    node = cluster[1]
    assert isinstance(node, Node)
    assert node.capacity.cpu == 4000
    assert node.capacity.memory == 8029 * MI
    assert node.capacity.pods == 110
    assert node.allocatable.cpu == 3800
    assert node.allocatable.memory == 7629 * MI
    assert node.allocatable.ephemeral_storage == 95551679124
    assert node.labels["topology.kubernetes.io/zone"] == "eu-west-1a"
    assert node.taints == (Taint("dedicated", "payments", "NoSchedule"),
                           Taint("node.kubernetes.io/unreachable", "", "NoExecute"))
    assert not node.unschedulable


def test_priority_classes(cluster: list) -> None:
    classes = by_name(cluster, PriorityClass)
    assert classes["shop-critical"] == PriorityClass(
        "shop-critical", 100000, False, "PreemptLowerPriority",
        "Checkout path; may preempt batch work.")
    # the built-in class as kubectl prints it equals the model's built-in
    assert classes["system-node-critical"] == BUILTIN_PRIORITY_CLASSES[0]


def test_runtime_class_overhead(cluster: list) -> None:
    assert by_name(cluster, RuntimeClass)["gvisor"].overhead == Resources(250, 120 * MI)


def test_deployment_template(cluster: list) -> None:
    dep = by_name(cluster, Deployment)["web"]
    assert (dep.namespace, dep.replicas) == ("shop", 2)
    t = dep.template
    assert (t.name, t.owner_kind, t.owner_name) == ("web", "ReplicaSet", "web")
    assert t.labels == {"app": "web"}
    assert t.priority_class == "shop-critical"
    assert t.grace_period == 45_000
    assert t.requests.cpu == 250 and t.limits.memory == 256 * MI


def test_running_pods_of_the_deployment(cluster: list) -> None:
    pods = by_name(cluster, Pod)
    p = pods["web-7c5ddbdf54-x2x8q"]
    assert p.key == "shop/web-7c5ddbdf54-x2x8q"
    assert (p.owner_kind, p.owner_name) == ("ReplicaSet", "web")
    assert p.node_name == "worker-1"
    assert p.priority == 100000 and p.preemption_policy == "PreemptLowerPriority"
    assert p.ready
    assert p.qos == "Burstable"
    assert Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300) \
        in p.tolerations
    assert Toleration("dedicated", "Equal", "payments", "NoSchedule") in p.tolerations
    assert [(e.name, e.size_limit, e.medium_memory) for e in p.emptydirs] == [
        ("cache", GI, False), ("shm", None, True)]
    assert not pods["web-7c5ddbdf54-k9z7m"].ready


def test_start_times_are_relative_to_the_newest(cluster: list) -> None:
    pods = by_name(cluster, Pod)
    assert pods["migrate-db-6wz2p"].started == 0               # newest
    assert pods["web-7c5ddbdf54-x2x8q"].started == -600_000    # 10 minutes earlier
    assert pods["web-7c5ddbdf54-k9z7m"].started == -540_000
    assert pods["node-agent-worker-1"].started == -1_199_000


def test_mirror_pod_is_static_and_critical(cluster: list) -> None:
    p = by_name(cluster, Pod)["node-agent-worker-1"]
    assert p.static and p.critical
    assert (p.owner_kind, p.owner_name) == ("Node", "worker-1")
    assert p.host_ports == ()


def test_terminated_pods_are_kept_and_reported() -> None:
    loaded = load_manifests(DATA / "cluster-list.yaml")
    assert "shop/migrate-db-6wz2p" in {o.key for o in loaded.objects if isinstance(o, Pod)}
    assert loaded.pod_phases["shop/migrate-db-6wz2p"] == "Succeeded"
    assert loaded.terminated == ("shop/migrate-db-6wz2p",)
    assert any("replicaset shop/web-7c5ddbdf54" in n for n in loaded.notes)


def test_pdb(cluster: list) -> None:
    pdb = by_name(cluster, PodDisruptionBudget)["web"]
    assert pdb.selector == LabelSelector((Requirement("app", "In", ("web",)),
                                          Requirement("tier", "NotIn", ("canary",))))
    assert pdb.max_unavailable == "25%" and pdb.min_available is None
    assert pdb.unhealthy_pod_eviction_policy == "AlwaysAllow"


def test_elastic_quota(cluster: list) -> None:
    eq = cluster[-1]
    assert eq == ElasticQuota("shop", Resources.of({"cpu": 2000, "nvidia.com/gpu": 1}),
                              Resources.of({"cpu": 6000, "memory": 12 * GI}), "shop-quota")


def test_span_is_attached(tmp_path: Path) -> None:
    span = Span("cluster.kr", 3, 1, 'include "x.yaml"')
    objs = load_objects(DATA / "cluster-list.yaml", span)
    assert all(o.span == span for o in objs if hasattr(o, "span"))


# --- hand-written multi-document YAML ------------------------------------------------

@pytest.fixture(scope="module")
def multi() -> list:
    return load_objects(DATA / "multi-doc.yaml")


def test_multi_document(multi: list) -> None:
    assert [type(o).__name__ for o in multi] == ["Namespace", "Deployment", "RuntimeClass",
                                                 "Pod"]
    assert multi[0].labels == {"kubernetes.io/metadata.name": "batch"}


def test_replicaset_without_deployment_becomes_one(multi: list) -> None:
    rs = multi[1]
    t = rs.template
    assert (rs.name, rs.replicas, t.owner_name) == ("crunch", 3, "crunch")
    # sidecar, init container with limits only (requests default to limits), app container
    assert [c.restart_always for c in t.init_containers] == [True, False]
    assert t.init_containers[1].requests == Resources(2000, GI)
    assert t.containers[0].requests == Resources(1000, 512 * MI)
    # the RuntimeClass comes later in the file and its overhead still applies
    assert t.overhead == Resources(250, 120 * MI)
    # max(main + sidecar, warmup + sidecar) + overhead
    assert t.requests.cpu == 2100 + 250


def test_pod_scheduling_fields(multi: list) -> None:
    p = multi[3]
    assert p.gates == ("example.com/wait",)
    assert p.node_selector == {"disktype": "ssd"}
    na = p.node_affinity
    assert na is not None and na.required == (NodeSelectorTerm(
        (Requirement("cores", "Gt", ("8",)),),
        (Requirement("metadata.name", "In", ("n1", "n2")),)),)
    assert na.preferred[0].weight == 20
    (aff,) = p.pod_affinity
    assert aff.namespaces == ("batch", "shared") and aff.namespace_selector is None
    assert aff.match_label_keys == ("pod-template-hash",)
    (anti,) = p.pod_anti_affinity_preferred
    assert anti.weight == 50 and anti.term.namespace_selector == LabelSelector()
    assert anti.term.mismatch_label_keys == ("tenant",)
    assert p.tolerations == (Toleration("dedicated", "Equal", "batch", "NoSchedule"),
                             Toleration("", "Exists"))
    s1, s2 = p.spread
    assert (s1.max_skew, s1.min_domains, s1.node_affinity_policy, s1.node_taints_policy) == \
        (2, 3, "Honor", "Honor")
    assert s2.when_unsatisfiable == "ScheduleAnyway" and s2.selector == MATCH_NOTHING
    assert not MATCH_NOTHING.matches({}) and not MATCH_NOTHING.matches({"": ""})
    assert p.priority_class == "batch-low" and p.priority is None
    assert p.preemption_policy == "Never"
    assert p.grace_period == 5000
    # hostNetwork: containerPort becomes the hostPort; protocol defaults to TCP
    assert p.host_ports == ((8080, "TCP"), (5353, "UDP"))
    c = p.containers[0]
    assert c.requests == Resources.of({"cpu": 250, "memory": 128 * MI, "example.com/fpga": 1})


# --- JSON -----------------------------------------------------------------------------

def test_json_list() -> None:
    objs = load_objects(DATA / "cluster.json")
    node, old, new = objs
    assert node.unschedulable and node.allocatable.cpu == 1930
    assert node.allocatable.get("nvidia.com/gpu") == 1
    assert (old.node_name, old.started) == ("n1", 0)
    assert (new.node_name, new.started) == ("", None)


def test_json_single_object_and_kind_podlist(tmp_path: Path) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c"}]}}
    (tmp_path / "one.json").write_text(json.dumps(pod))
    assert [o.key for o in load_objects(tmp_path / "one.json")] == ["default/p"]
    (tmp_path / "list.json").write_text(json.dumps(
        {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": [pod, pod]}))
    assert len(load_objects(tmp_path / "list.json")) == 2
    (tmp_path / "empty.json").write_text('{"kind": "List", "items": []}')
    assert load_objects(tmp_path / "empty.json") == []


def test_json_and_yaml_agree(tmp_path: Path) -> None:
    import yaml

    data = yaml.safe_load((DATA / "cluster-list.yaml").read_text())
    (tmp_path / "same.json").write_text(json.dumps(data, indent=2))
    assert load_objects(tmp_path / "same.json") == load_objects(DATA / "cluster-list.yaml")


def test_pods_of_a_deployment_without_their_replicaset(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: web-5d4f8-abcde
          labels: {app: web, pod-template-hash: 5d4f8}
          ownerReferences:
          - {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d4f8, controller: true}
        spec:
          containers: [{name: c}]
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: other-1
          labels: {pod-template-hash: zz}
          ownerReferences:
          - {apiVersion: apps/v1, kind: ReplicaSet, name: other-zz, controller: true}
        spec:
          containers: [{name: c}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: c}]}
        """)
    a, b, dep = load_objects(path)
    assert (a.owner_kind, a.owner_name) == ("ReplicaSet", "web")
    assert (b.owner_kind, b.owner_name) == ("ReplicaSet", "other-zz")
    assert dep.replicas == 1


def test_pods_sharing_a_controller_are_read_apart(tmp_path: Path) -> None:
    """Pods of one controller reuse each other's spec only when it is really equal."""
    docs = []
    for i, cpu in enumerate(["100m", "100m", "300m"]):
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"p{i}", "ownerReferences": [
                         {"kind": "DaemonSet", "name": "ds", "controller": True}]},
                     "spec": {"nodeName": f"n{i}", "containers": [
                         {"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})
    (tmp_path / "ds.json").write_text(json.dumps({"kind": "List", "items": docs}))
    pods = load_objects(tmp_path / "ds.json")
    assert [(p.node_name, p.requests.cpu) for p in pods] == [("n0", 100), ("n1", 100),
                                                              ("n2", 300)]
    for p in pods:  # copied derived facts equal freshly computed ones
        fresh = attrs.evolve(p)
        for a in attrs.fields(Pod):
            assert getattr(p, a.name) == getattr(fresh, a.name), a.name


def test_pod_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: v1
        kind: Pod
        metadata: {name: bare}
        spec:
          containers: [{name: c}]
        """)
    (p,) = load_objects(path)
    assert p == Pod("default", "bare", p.containers)
    assert p.grace_period == 30_000 and p.qos == "BestEffort" and p.started is None


def test_pdb_selectors(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: all, namespace: ns}
        spec: {selector: {}, minAvailable: 1}
        ---
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: none, namespace: ns}
        spec: {minAvailable: 50%}
        """)
    a, b = load_objects(path)
    assert a.selector == LabelSelector() and a.min_available == 1
    assert b.selector == MATCH_NOTHING and b.min_available == "50%"


def test_elastic_quota_groups_and_absent_lists(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: scheduling.sigs.k8s.io/v1alpha1
        kind: ElasticQuota
        metadata: {name: q, namespace: eq1}
        spec:
          max: {cpu: 6}
        ---
        apiVersion: scheduling.x-k8s.io/v1alpha1
        kind: ElasticQuota
        metadata: {name: q, namespace: eq2}
        spec:
          min: {}
        """)
    a, b = load_objects(path)
    assert a == ElasticQuota("eq1", None, Resources(6000), "q")
    assert b == ElasticQuota("eq2", Resources(), None, "q")


# --- errors name file, document and field ---------------------------------------------

BAD = [
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {name: p}
     spec:
       containers:
       - name: c
         resources:
           requests: {cpu: lots}
     """, 1, "spec.containers[0].resources.requests.cpu", "is not a quantity"),
    ("""\
     apiVersion: v1
     kind: Namespace
     metadata: {name: ok}
     ---
     apiVersion: v1
     kind: Frobnicator
     metadata: {name: s}
     """, 2, "kind", "kinds read: Node, Pod"),
    ("""\
     apiVersion: v1
     kind: List
     items:
     - apiVersion: v1
       kind: Node
       metadata: {name: n}
     - apiVersion: v1
       kind: Node
       metadata: {name: m}
       spec:
         taints: [{key: k, effect: NoSchedul}]
     """, 1, "items[1].spec.taints[0].effect", "did you mean 'NoSchedule'"),
    ("""\
     apiVersion: policy/v1
     kind: PodDisruptionBudget
     metadata: {name: p}
     spec: {minAvailable: 1, maxUnavailable: 1, selector: {}}
     """, 1, "spec", "minAvailable and maxUnavailable cannot be both set"),
    ("""\
     apiVersion: policy/v1beta1
     kind: PodDisruptionBudget
     metadata: {name: p}
     spec: {minAvailable: 1}
     """, 1, "apiVersion", "policy/v1 only"),
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {name: p}
     spec:
       containers:
       - name: c
         resources:
           requests: {memory: 2Gi}
           limits: {memory: 1Gi}
     """, 1, "spec.containers[0].resources.requests.memory", "above the limit"),
    ("""\
     apiVersion: apps/v1
     kind: Deployment
     metadata: {name: d}
     spec:
       replicas: two
       template: {spec: {containers: [{name: c}]}}
     """, 1, "spec.replicas", "expected an integer"),
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {name: p}
     spec:
       containers: [{name: c}]
       tolerations: [{key: k, operator: Exist}]
     """, 1, "spec.tolerations[0].operator", "did you mean 'Exists'"),
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {name: p}
     spec:
       containers: [{name: c}]
       affinity:
         nodeAffinity:
           requiredDuringSchedulingIgnoredDuringExecution:
             nodeSelectorTerms:
             - matchExpressions: [{key: a, operator: Gt, values: [x]}]
     """, 1, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
             ".nodeSelectorTerms[0].matchExpressions[0].values[0]", "not an integer"),
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {name: p}
     spec:
       containers: [{name: c}]
       topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone}]
     """, 1, "spec.topologySpreadConstraints[0].whenUnsatisfiable", "needs whenUnsatisfiable"),
    ("""\
     apiVersion: v1
     kind: Node
     metadata: {name: n}
     status:
       capacity: {cpu: "2"}
       allocatable: {cpu: "3"}
     """, 1, "status.allocatable.cpu", "above its capacity"),
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {generateName: p-}
     spec: {containers: [{name: c}]}
     """, 1, "metadata.name", "has no name"),
    ("""\
     apiVersion: v1
     kind: Pod
     metadata: {name: p, labels: {version: 1.0}}
     spec: {containers: [{name: c}]}
     """, 1, "metadata.labels.version", "quote the value"),
    ("""\
     kind: Pod
     metadata: {name: p}
     status: {startTime: yesterday}
     """, 1, "status.startTime", "RFC 3339"),
]


@pytest.mark.parametrize(("text", "document", "field", "words"), BAD)
def test_errors_name_file_document_and_field(tmp_path: Path, text: str, document: int,
                                             field: str, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ManifestError) as info:
        load_objects(path)
    err = info.value
    assert (err.document, err.field) == (document, field)
    assert str(path) in str(err) and f"document {document}" in str(err)
    assert field in str(err) and words in str(err)


def test_yaml_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, "kind: Namespace\nmetadata: {name: a}\n---\nkind: [\n")
    with pytest.raises(ManifestError) as info:
        load_objects(path)
    assert info.value.document == 2 and "not valid YAML" in str(info.value)


def test_json_syntax_error(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"kind": "List", "items": [{"kind": "Pod",}]}')
    with pytest.raises(ManifestError, match="not valid JSON.*line 1"):
        load_objects(tmp_path / "bad.json")


def test_missing_file_names_the_include(tmp_path: Path) -> None:
    span = Span("main.kr", 4, 9, 'include "gone.yaml"')
    with pytest.raises(ManifestError) as info:
        load_objects(tmp_path / "gone.yaml", span)
    assert info.value.line == 4 and "no such file" in str(info.value)


def test_internal_errors_are_wrapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kruleset.manifests import reader

    def boom(*args: object, **kwargs: object) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(reader, "namespace_from", boom)
    path = write(tmp_path, "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    with pytest.raises(ManifestError, match="internal error.*bug in kruleset"):
        load_objects(path)


# --- KubeSchedulerConfiguration ---------------------------------------------------------

def test_seed_004_scheduler_config() -> None:
    cfg = load_scheduler_config(DATA / "scheduler-seed004.yaml")
    assert cfg.scheduler_name == "default-scheduler"
    assert cfg.plugins["preFilter"] == PluginSet((("CapacityScheduling", None),))
    assert cfg.plugins["postFilter"] == PluginSet((("CapacityScheduling", None),), ("*",))
    assert cfg.plugins["reserve"] == PluginSet((("CapacityScheduling", None),))
    assert cfg.plugins["postBind"] == PluginSet()
    assert cfg.plugin_args == {"CapacityScheduling": {
        "kubeConfigPath": "/etc/kubernetes/scheduler.conf"}}
    assert cfg.percentage_of_nodes_to_score is None
    assert cfg.source.endswith("scheduler-seed004.yaml")


def test_scheduler_config_picks_default_scheduler_profile() -> None:
    cfg = load_scheduler_config(DATA / "scheduler-profiles.yaml")
    assert cfg.scheduler_name == "default-scheduler"
    assert cfg.percentage_of_nodes_to_score == 70
    assert cfg.plugins["score"] == PluginSet((("NodeResourcesFit", 3),),
                                             ("NodeResourcesBalancedAllocation",))
    assert cfg.plugins["multiPoint"].enabled == (("MyPlugin", None),)
    assert cfg.plugin_args["NodeResourcesFit"]["scoringStrategy"]["type"] == "MostAllocated"
    assert cfg.plugin_args["DefaultPreemption"]["minCandidateNodesAbsolute"] == 100


def test_scheduler_config_first_profile_and_top_level_percentage(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        percentageOfNodesToScore: 30
        profiles:
        - schedulerName: a
        - schedulerName: b
        """)
    cfg = load_scheduler_config(path)
    assert (cfg.scheduler_name, cfg.percentage_of_nodes_to_score) == ("a", 30)


@pytest.mark.parametrize(("text", "field", "words"), [
    ("profiles: [{plugins: {filters: {}}}]", "profiles[0].plugins.filters",
     "did you mean 'filter'"),
    ("profiles: [{plugins: {score: {enabled: [{name: '*'}]}}}]",
     "profiles[0].plugins.score.enabled[0].name", "only be used in disabled"),
    ("percentageOfNodesToScore: 150", "percentageOfNodesToScore", "maximum 100"),
    ("profiles: [{pluginConfig: [{name: A}, {name: A}]}]", "profiles[0].pluginConfig[1].name",
     "repeated"),
    ("profiles: [{}, {}]", "profiles[1].schedulerName", "duplicate profile"),
])
def test_scheduler_config_errors(tmp_path: Path, text: str, field: str, words: str) -> None:
    path = write(tmp_path, "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n" + text + "\n")
    with pytest.raises(ManifestError) as info:
        load_scheduler_config(path)
    assert info.value.field == field and words in str(info.value)


def test_scheduler_config_wrong_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "apiVersion: v1\nkind: Pod\n")
    with pytest.raises(ManifestError, match="expected kind KubeSchedulerConfiguration"):
        load_scheduler_config(path)


# --- KubeletConfiguration --------------------------------------------------------------

def test_kubelet_config_every_eviction_field() -> None:
    cfg = load_kubelet_config(DATA / "kubelet-full.yaml")
    assert isinstance(cfg, KubeletConfigFile)
    hard = {t.signal: t for t in cfg.effective_hard}
    # imagefs.available: 0% drops the threshold; the defaults are replaced, not merged
    assert set(hard) == {"memory.available", "nodefs.available"}
    assert hard["memory.available"].quantity == 200 * MI
    assert hard["memory.available"].min_reclaim_quantity == 0
    assert hard["nodefs.available"].percentage == Fraction(10)
    assert hard["nodefs.available"].min_reclaim_quantity == 500 * MI
    soft = {t.signal: t for t in cfg.soft}
    assert soft["memory.available"].grace_period == 90_000
    assert soft["nodefs.inodesFree"].grace_period == 120_000
    assert soft["nodefs.inodesFree"].min_reclaim_percentage == Fraction(5)
    assert cfg.pressure_transition_period == 30_000
    assert cfg.max_pod_grace_period == 60_000
    assert cfg.enforce_node_allocatable == ("pods", "system-reserved")
    assert cfg.system_reserved == Resources(500, GI)
    assert cfg.kube_reserved == Resources(250, 512 * MI, GI)
    assert cfg.reserved == Resources(750, GI + 512 * MI, GI)


def test_kubelet_config_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                           "kind: KubeletConfiguration\n")
    cfg = load_kubelet_config(path)
    assert cfg.hard is None and cfg.soft == ()
    assert cfg.pressure_transition_period == 300_000
    assert cfg.enforce_node_allocatable == ("pods",)
    assert cfg.reserved == Resources()


def test_kubelet_config_merge_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        mergeDefaultEvictionSettings: true
        evictionHard: {memory.available: 1Gi}
        """)
    hard = {t.signal: t for t in load_kubelet_config(path).effective_hard}
    assert hard["memory.available"].quantity == GI
    assert hard["nodefs.available"].percentage == Fraction(10)


@pytest.mark.parametrize(("body", "field", "words"), [
    ("evictionHard: {memory.available: '0'}", "evictionHard.memory.available", "positive"),
    ("evictionSoft: {memory.available: 1Gi}", "evictionSoft.memory.available",
     "grace period must be specified"),
    ("evictionMinimumReclaim: {memory.available: '0%'}",
     "evictionMinimumReclaim.memory.available", "above 0%"),
    ("evictionHard: {memory.availble: 1Gi}", "evictionHard.memory.availble",
     "unsupported eviction signal"),
    ("evictionSoftGracePeriod: {memory.available: soon}",
     "evictionSoftGracePeriod.memory.available", "not a duration"),
    ("evictionMaxPodGracePeriod: -1", "evictionMaxPodGracePeriod", "negative"),
    ("enforceNodeAllocatable: [pod]", "enforceNodeAllocatable", "did you mean 'pods'"),
    ("systemReserved: {gpu: 1}", "systemReserved.gpu", "cannot be reserved"),
])
def test_kubelet_config_refusals(tmp_path: Path, body: str, field: str, words: str) -> None:
    path = write(tmp_path, "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                           "kind: KubeletConfiguration\n" + body + "\n")
    with pytest.raises(ManifestError) as info:
        load_kubelet_config(path)
    assert info.value.field == field and words in str(info.value)
    assert info.value.document == 1


def test_kubelet_config_zero_percent_needs_no_grace(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        evictionSoft: {memory.available: "100%"}
        """)
    assert load_kubelet_config(path).soft == ()


def test_examples_load() -> None:
    examples = Path(__file__).parent.parent / "examples" / "manifests"
    objs = load_objects(examples / "cluster.yaml")
    dep = by_name(objs, Deployment)["checkout"]
    running = [o for o in objs if isinstance(o, Pod) and o.owner_name == dep.name]
    assert len(running) == 1 and running[0].owner_kind == "ReplicaSet"
    assert load_scheduler_config(examples / "scheduler.yaml").plugin_args["NodeResourcesFit"]
    assert load_kubelet_config(examples / "kubelet.yaml").reserved == Resources(300, 768 * MI)
