"""ImageLocality (v1.35 default profile, weight 1): formula, node images, language and manifests.

Expected totals are kube-scheduler v1.35.4's (checked with the oracle).
"""

from __future__ import annotations

import json

import pytest

import kruleset
from kruleset.errors import ScenarioError
from kruleset.model.objects import Container, Node, Pod
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState
from kruleset.rules.scheduler.cycle import schedule_pod
from kruleset.rules.scheduler.scores.imagelocality import image_score, normalized_image_name

MB = 1024 * 1024
RULE = "scheduler.score.ImageLocality"


def test_normalized_names_get_latest_unless_tagged() -> None:
    assert normalized_image_name("nginx") == "nginx:latest"
    assert normalized_image_name("nginx:1.27") == "nginx:1.27"
    assert normalized_image_name("localhost:5000/app") == "localhost:5000/app:latest"
    assert normalized_image_name("reg.io/a/b@sha256:00") == "reg.io/a/b@sha256:00"


def _state(*images: tuple[str, int] | None) -> ClusterState:
    s = ClusterState()
    for i, img in enumerate(images):
        s.add_node(Node(f"n{i + 1}", Resources.of({"cpu": 4000, "memory": 8 << 30, "pods": 110}),
                        images=(((img[0],), img[1]),) if img else ()))
    return s


def _pod(*images: str) -> Pod:
    return Pod("default", "p", containers=tuple(
        Container(f"c{i}", Resources.of({"cpu": 100}), image=img) for i, img in enumerate(images)))


def test_thresholds_and_spread_scaling() -> None:
    s = _state(("nginx:1.27", 500 * MB), ("nginx:1.27", 500 * MB), None, None)
    n1, n3 = s.nodes["n1"], s.nodes["n3"]
    # 500 MiB on 2 of 4 nodes: 250 MiB -> 100 * (250 - 23) // (1000 - 23)
    assert image_score(_pod("nginx:1.27"), n1, s.images, 4) == 100 * 227 // 977
    assert image_score(_pod("nginx:1.27"), n3, s.images, 4) == 0
    # Two containers: the ceiling is 2000 MiB.
    assert image_score(_pod("nginx:1.27", "nginx:1.27"), n1, s.images, 4) == (
        100 * (500 * MB - 23 * MB) // (2000 * MB - 23 * MB))
    small = _state(("tiny:1", 40 * MB), None)
    # 20 MiB after scaling: below the 23 MiB floor, 0.
    assert image_score(_pod("tiny:1"), small.nodes["n1"], small.images, 2) == 0
    big = _state(("huge:1", 5000 * MB))
    assert image_score(_pod("huge:1"), big.nodes["n1"], big.images, 1) == 100


def test_the_first_reported_size_is_kept_and_leaving_nodes_forget_images() -> None:
    s = _state(("nginx:1.27", 500 * MB), ("nginx:1.27", 700 * MB))
    assert s.images["nginx:1.27"][0] == 500 * MB
    s.remove_node("n1")
    assert s.images["nginx:1.27"][1] == {"n2"}
    s.remove_node("n2")
    assert "nginx:1.27" not in s.images


KR = """
node n1 cpu=4 memory=8Gi images(nginx:1.27=500Mi, busybox:latest=30Mi)
node n2 cpu=4 memory=8Gi images(nginx:1.27=700Mi)
node n3 cpu=4 memory=8Gi
"""


def test_scores_with_init_containers_match_upstream() -> None:
    sc = kruleset.load(KR + """
pod p {
  container p image=nginx:1.27 requests(cpu=1)
  init-container i image=busybox
}
""")
    result = kruleset.run(sc, trace=True)
    totals = {e.subject.split(" on ")[1]: int(e.result) for e in result.trace.entries
              if e.rule == "scheduler.score"}
    assert totals == {"n1": 489, "n2": 488, "n3": 473}


def test_a_profile_can_weight_or_disable_it(tmp_path) -> None:
    cfg = tmp_path / "sched.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\nprofiles:\n"
                   "  - schedulerName: default-scheduler\n    plugins:\n"
                   "      score:\n        disabled:\n          - name: ImageLocality\n")
    text = f'config scheduler "{cfg}"\n' + KR + "pod r image=nginx:1.27 requests(cpu=1)\n"
    result = kruleset.run(kruleset.load(text), trace=True)
    assert not [e for e in result.trace.entries if RULE in e.why]


def test_language_errors_are_positioned() -> None:
    with pytest.raises(ScenarioError) as e:
        kruleset.load("node n1 cpu=1 memory=1Gi images(nginx:1.27=lots)\n")
    assert (e.value.line, e.value.column) == (1, 44)  # at "lots"
    with pytest.raises(ScenarioError) as e:
        kruleset.load("node n1 cpu=1 memory=1Gi\npod p image=a!b\n")
    assert (e.value.line, e.value.column) == (2, 13)


def test_manifests_read_status_images_and_container_images(tmp_path) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi"},
                       "images": [{"names": ["docker.io/library/nginx@sha256:ab",
                                             "docker.io/library/nginx:1.27"],
                                   "sizeBytes": 73 * MB}]}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "docker.io/library/nginx:1.27"}]}}
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, pod]}))
    sc = kruleset.load(f'include "{path}"\n')
    n = next(o for o in sc.objects if isinstance(o, Node))
    assert n.images == ((("docker.io/library/nginx@sha256:ab", "docker.io/library/nginx:1.27"),
                         73 * MB),)
    p = next(o for o in sc.objects if isinstance(o, Pod))
    assert p.containers[0].image == "docker.io/library/nginx:1.27"


def test_embedding_scores_it_per_node() -> None:
    s = _state(("nginx:1.27", 500 * MB), None)
    result = schedule_pod(s, _pod("nginx:1.27"))
    assert result.node == "n1"
    assert dict(result.per_rule[RULE]) == {"n1": 100 * (250 - 23) // 977, "n2": 0}
