"""``kruleset capacity`` (issue 28): its answer equals creating that many replicas one by one.

The reference is independent of the capacity code: a ``.kr`` scenario that
creates ``api-1``, ``api-2``, … one second apart, run as any scenario.  The
clusters and pods are random (seeded): node sizes, zones, taints, running
pods, and pods with spread constraints, anti-affinity, host ports and
tolerations.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

import kruleset
from kruleset.cli import main
from kruleset.state_manifest import pod_spec

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / "examples" / "dump" / "cluster.json"
POD = ROOT / "examples" / "pods" / "web.yaml"

#: (first line attributes, block lines) of the pod asked about; NAME is replaced.
POD_SHAPES = [
    ("requests(cpu={cpu}, memory={mem})", []),
    ("requests(cpu={cpu}, memory={mem}) labels(app=api)",
     ["spread max-skew=1 topology=topology.kubernetes.io/zone selector(app=api)"]),
    ("requests(cpu={cpu}, memory={mem}) labels(app=api)",
     ["anti-affinity pod required selector(app=api) topology=kubernetes.io/hostname"]),
    ("requests(cpu={cpu}, memory={mem}) host-ports(8080)", []),
    ("requests(cpu={cpu}, memory={mem}) tolerations(dedicated=batch:NoSchedule)", []),
    ("requests(cpu={cpu}, memory={mem}) labels(app=api) node-selector(disk=ssd)",
     ["spread max-skew=2 topology=kubernetes.io/hostname selector(app=api) "
      "when-unsatisfiable=ScheduleAnyway"]),
]


def _cluster(rng: random.Random) -> str:
    lines = ['scenario "random cluster"']
    nodes = rng.randint(2, 7)
    for i in range(1, nodes + 1):
        zone = "abc"[rng.randrange(3)]
        labels = f"topology.kubernetes.io/zone={zone}" + (", disk=ssd" if rng.random() < .5
                                                          else "")
        taint = " taints(dedicated=batch:NoSchedule)" if rng.random() < .25 else ""
        cpu = rng.choice([2, 4, 8])
        lines.append(f"node n{i} cpu={cpu} memory={rng.choice([4, 8, 16])}Gi pods=110 "
                     f"labels({labels}){taint}")
        for j in range(rng.randint(0, 3)):
            lines.append(f"pod run-{i}-{j} on n{i} requests(cpu="
                         f"{rng.choice([100, 250, 500, 1000])}m, memory="
                         f"{rng.choice([128, 512, 1024])}Mi) labels(app="
                         f"{rng.choice(['api', 'db'])}) tolerations(dedicated)")
    return "\n".join(lines) + "\n"


def _pod(rng: random.Random) -> tuple[str, list[str]]:
    first, block = POD_SHAPES[rng.randrange(len(POD_SHAPES))]
    first = first.format(cpu=f"{rng.choice([200, 300, 500, 700, 1000])}m",
                         mem=f"{rng.choice([64, 256, 512, 1024])}Mi")
    return first, block


def _pod_text(name: str, first: str, block: list[str]) -> str:
    text = f"pod {name} {first} preemption=Never"
    if block:
        text += " {\n" + "".join(f"  {b}\n" for b in block) + "}"
    return text


def _capacity(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = main(["capacity", *argv, "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("seed", range(12))
def test_capacity_equals_creating_the_replicas_one_by_one(
        seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(seed)
    cluster = _cluster(rng)
    first, block = _pod(rng)
    (tmp_path / "cluster.kr").write_text(cluster, encoding="utf-8")
    # The pod as a manifest, from the same .kr text the reference uses.
    probe = kruleset.load(cluster + _pod_text("api", first, block).replace(
        " preemption=Never", "") + "\n")
    pod = next(o for o in probe.objects if getattr(o, "name", "") == "api")
    manifest = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "api", "namespace": "default",
                             "labels": dict(pod.labels)}, "spec": pod_spec(pod)}
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    answer = _capacity(capsys, str(tmp_path / "cluster.kr"), "--pod", str(tmp_path / "pod.yaml"),
                       "--max", "80")["pods"][0]  # type: ignore[index]
    count = answer["count"]
    # The reference: the replicas created one by one, a second apart.
    created = [f"at {k}s create " + _pod_text(f"api-{k}", first, block)
               for k in range(1, count + 2)]
    result = kruleset.run(cluster + "\n".join(created) + "\n")
    nodes = [result.state.pods[f"default/api-{k}"].node for k in range(1, count + 1)]
    assert nodes == answer["placements"]
    last = result.state.pods[f"default/api-{count + 1}"]
    if answer["stoppedBy"] is None:
        assert count == 80
    else:
        assert last.node is None
        assert last.schedule_message == answer["stoppedBy"]


def test_capacity_on_the_example_dump(capsys: pytest.CaptureFixture[str]) -> None:
    answer = _capacity(capsys, "--cluster", str(DUMP), "--pod", str(POD))["pods"][0]  # type: ignore[index]
    # node-1 has 1800m of 3800m left, node-2 2300m, node-3 is tainted for batch
    assert answer["count"] == 7
    assert answer["perNode"] == {"node-2": 4, "node-1": 3}
    assert answer["stoppedBy"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")


def test_text_answer_and_max(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capacity", "--cluster", str(DUMP), "--pod", str(POD), "--max", "2"]) == 0
    out = capsys.readouterr().out
    assert "shop/api: the cluster can schedule 2 more instance(s) of the pod" in out
    assert "stopped at --max 2" in out


def test_several_pods_are_placed_in_turn(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    big = yaml.safe_load(POD.read_text(encoding="utf-8"))
    big["metadata"]["name"] = "big"
    big["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(big), encoding="utf-8")
    first, second = _capacity(capsys, "--cluster", str(DUMP), "--pod", str(tmp_path / "big.yaml"),
                              "--pod", str(POD))["pods"]  # type: ignore[misc]
    assert first["count"] == 3  # 1 CPU: one on node-1 (1800m left), two on node-2 (2300m)
    assert second["count"] == 1  # 800m and 300m left: one 500m pod, on node-1
    assert second["perNode"] == {"node-1": 1}


def test_a_deployment_template_is_used(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    pod = yaml.safe_load(POD.read_text(encoding="utf-8"))
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "api", "namespace": "shop"},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "api"}},
                    "template": {"metadata": {"labels": {"app": "api"}},
                                 "spec": pod["spec"]}}}
    (tmp_path / "dep.yaml").write_text(yaml.safe_dump(dep), encoding="utf-8")
    answer = _capacity(capsys, "--cluster", str(DUMP), "--pod", str(tmp_path / "dep.yaml"))
    assert answer["pods"][0]["count"] == 7  # type: ignore[index]


def test_preempt_makes_room_from_lower_priorities(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.kr").write_text(
        'priorityclass high value=1000\n'
        'node n1 cpu=2 memory=4Gi\n'
        'pod low-1 on n1 requests(cpu=1)\npod low-2 on n1 requests(cpu=1)\n',
        encoding="utf-8")
    pod = yaml.safe_load(POD.read_text(encoding="utf-8"))
    pod["metadata"]["namespace"] = "default"
    pod["spec"]["priorityClassName"] = "high"
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    plain = _capacity(capsys, str(tmp_path / "c.kr"), "--pod", str(tmp_path / "p.yaml"))
    assert plain["pods"][0]["count"] == 0  # type: ignore[index]
    preempt = _capacity(capsys, str(tmp_path / "c.kr"), "--pod", str(tmp_path / "p.yaml"),
                        "--preempt")["pods"][0]  # type: ignore[index]
    assert preempt["count"] == 2
    assert sorted(preempt["victims"]) == ["default/low-1", "default/low-2"]


@pytest.mark.parametrize("kind", ["Service", "StatefulSet", "ConfigMap"])
def test_pod_of_another_kind_is_refused_naming_the_accepted_kinds(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.yaml").write_text(f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: x}}\n",
                                     encoding="utf-8")
    code = main(["capacity", "--cluster", str(DUMP), "--pod", str(tmp_path / "x.yaml")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"holds a {kind}; --pod takes one Pod, Deployment or Job" in err
    assert "Traceback" not in err


def test_capacity_needs_one_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capacity", "--pod", str(POD)]) == 2
    assert "give either a FILE.kr" in capsys.readouterr().err


PLAIN_SHAPES = [
    ("requests(cpu={cpu}, memory={mem})", []),
    ("requests(cpu={cpu}, memory={mem}) tolerations(dedicated=batch:NoSchedule)", []),
    ("requests(cpu={cpu}, memory={mem}) node-selector(disk=ssd)", []),
]


@pytest.mark.parametrize("seed", range(8))
def test_a_plain_pods_arithmetic_equals_the_replicas_one_by_one(
        seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """capacity_fast fills the nodes after the first ORDERED (here 3) instances."""
    import kruleset.capacity_fast as fast

    monkeypatch.setattr(fast, "ORDERED", 3)
    rng = random.Random(1000 + seed)
    cluster = _cluster(rng)
    first, block = PLAIN_SHAPES[seed % len(PLAIN_SHAPES)]
    first = first.format(cpu=f"{rng.choice([300, 500, 700])}m",
                         mem=f"{rng.choice([256, 512, 1024])}Mi")
    (tmp_path / "cluster.kr").write_text(cluster, encoding="utf-8")
    probe = kruleset.load(cluster + _pod_text("api", first, block).replace(
        " preemption=Never", "") + "\n")
    pod = next(o for o in probe.objects if getattr(o, "name", "") == "api")
    manifest = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "api", "namespace": "default"}, "spec": pod_spec(pod)}
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    answer = _capacity(capsys, str(tmp_path / "cluster.kr"),
                       "--pod", str(tmp_path / "pod.yaml"))["pods"][0]  # type: ignore[index]
    count = answer["count"]
    if count > 3:
        assert answer["ordered"] == 3  # the arithmetic answered for the rest
    created = [f"at {k}s create " + _pod_text(f"api-{k}", first, block)
               for k in range(1, count + 2)]
    result = kruleset.run(cluster + "\n".join(created) + "\n")
    nodes = [result.state.pods[f"default/api-{k}"].node for k in range(1, count + 1)]
    assert None not in nodes
    assert nodes[:answer["ordered"]] == answer["placements"]
    per_node: dict[str, int] = {}
    for n in nodes:
        per_node[n] = per_node.get(n, 0) + 1
    assert answer["perNode"] == per_node
    last = result.state.pods[f"default/api-{count + 1}"]
    assert last.node is None and last.schedule_message == answer["stoppedBy"]


def test_an_elastic_quota_stops_the_instances_as_one_by_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = ('scenario "quota"\nnamespace team\nquota team min(cpu=1) max(cpu=2)\n'
               "nodes n[1..2] cpu=4 memory=8Gi\n")
    (tmp_path / "c.kr").write_text(cluster, encoding="utf-8")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job", "namespace": "team"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    answer = _capacity(capsys, str(tmp_path / "c.kr"), "--pod", str(tmp_path / "p.yaml"))
    got = answer["pods"][0]  # type: ignore[index]
    created = "".join(f"at {k}s create pod team/job-{k} requests(cpu=500m) preemption=Never\n"
                      for k in range(1, got["count"] + 2))
    result = kruleset.run(cluster + created)
    nodes = [result.state.pods[f"team/job-{k}"].node for k in range(1, got["count"] + 1)]
    assert nodes == got["placements"] and None not in nodes
    last = result.state.pods[f"team/job-{got['count'] + 1}"]
    assert last.node is None and last.schedule_message == got["stoppedBy"]
    assert "ElasticQuota" in got["stoppedBy"]


def test_dra_claims_from_a_template_are_allocated_per_instance(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.kr").write_text(
        'scenario "gpus"\nnodes gpu-[1..2] cpu=32 memory=128Gi\n'
        "devices gpu-[0..3] on gpu-1 driver=gpu.example.com attributes(model=a100) "
        "capacity(memory=80Gi)\n"
        "devices gpu-[0..3] on gpu-2 driver=gpu.example.com attributes(model=t4) "
        "capacity(memory=16Gi)\n"
        "deviceclass gpu.example.com driver=gpu.example.com\n"
        "claimtemplate big-gpu class=gpu.example.com selector(\"device.capacity"
        "['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0\")\n", encoding="utf-8")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train"},
           "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "big-gpu"}],
                    "containers": [{"name": "c", "resources": {
                        "requests": {"cpu": "4", "memory": "16Gi"}, "claims": [{"name": "gpu"}]}}]}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    got = _capacity(capsys, str(tmp_path / "c.kr"), "--pod", str(tmp_path / "p.yaml"))
    answer = got["pods"][0]  # type: ignore[index]
    # four A100s of 80Gi on gpu-1; the T4s (16Gi) do not match the template's selector
    assert answer["count"] == 4 and answer["perNode"] == {"gpu-1": 4}
    assert answer["stoppedBy"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")
