"""``at T apply "FILE"`` and ``at T delete "FILE"``: a user's own manifests in time."""

from __future__ import annotations

from pathlib import Path

import pytest

import kruleset
from kruleset.errors import ScenarioError

WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web, resources: {requests: {cpu: %s}}}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
"""


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    v1 = tmp_path / "v1.yaml"
    v1.write_text(WEB % (2, "500m"))
    scaled = tmp_path / "scaled.yaml"
    scaled.write_text(WEB % (3, "500m"))
    v2 = tmp_path / "v2.yaml"
    v2.write_text(WEB % (3, "600m"))
    return v1, scaled, v2


def test_apply_creates_then_scales_then_rolls_out_and_delete_cascades(tmp_path: Path) -> None:
    v1, scaled, v2 = _files(tmp_path)
    res = kruleset.run(f'node n1 cpu=8 memory=8Gi\nat 10s apply "{v1}"\n'
                       f'at 20s apply "{scaled}"\nat 30s apply "{v2}"\nat 40s delete "{v2}"\n'
                       "expect pods default/web-* running count=0\n")
    assert res.passed
    seen = [(d.time // 1000, d.kind, d.pod) for d in res.decisions
            if d.kind in ("created", "deleted")]
    assert seen == [
        (10, "created", "default/web-1"), (10, "created", "default/web-2"),
        (20, "created", "default/web-3"),  # replicas only: the pods stay
        # a new template rolls out (maxSurge 25% of 3 rounds up to 1, maxUnavailable
        # down to 0): one new pod, then an old one deleted once it is available, …
        # (web-3, created later, in a newer log2 bucket, goes first)
        (30, "created", "default/web-4"), (30, "deleted", "default/web-3"),
        (30, "created", "default/web-5"), (30, "deleted", "default/web-1"),
        (30, "created", "default/web-6"), (30, "deleted", "default/web-2"),
        (40, "deleted", "default/web-4"), (40, "deleted", "default/web-5"),
        (40, "deleted", "default/web-6"),
    ]
    assert "default/web" not in res.state.pdbs


def test_objects_applied_later_can_be_named_in_expectations(tmp_path: Path) -> None:
    v1, _, _ = _files(tmp_path)
    res = kruleset.run(f'node n1 cpu=8 memory=8Gi\nat 10s apply "{v1}"\n'
                       "expect pdb web disruptions-allowed=1\n")
    assert res.passed


def test_apply_of_an_existing_pod_leaves_it_and_says_so(tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                 "spec: {containers: [{name: c}]}\n")
    res = kruleset.run(f'node n1 cpu=1 memory=1Gi\npod p on n1 cpu=100m\nat 5s apply "{f}"\n')
    assert [(d.time, d.kind, d.pod) for d in res.decisions if d.kind == "unchanged"] == \
        [(5000, "unchanged", "default/p")]


def test_apply_of_a_file_with_a_mistake_is_refused_at_its_statement(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                 "spec: {containres: [{name: c}]}\n")
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'node n1 cpu=1 memory=1Gi\nat 5s apply "{f}"\n')
    assert e.value.line == 2 and "did you mean 'containers'" in str(e.value)


def test_apply_needs_a_file_and_nodes_are_not_deleted_from_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="file name in double quotes"):
        kruleset.load("at 5s apply web.yaml\n")
    f = tmp_path / "n.yaml"
    f.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
                 "status: {capacity: {cpu: '1'}}\n")
    with pytest.raises(ScenarioError, match="drain node n2"):
        kruleset.load(f'at 5s delete "{f}"\n')
