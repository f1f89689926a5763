"""PodDisruptionBudget specs refused as ValidatePodDisruptionBudgetSpec refuses them
(pkg/apis/policy/validation/validation.go), each with its field path and what is allowed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kruleset.errors import ManifestError
from kruleset.manifests import load_objects


def write(tmp_path: Path, spec: str) -> Path:
    path = tmp_path / "pdb.yaml"
    path.write_text(textwrap.dedent("""\
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: p, namespace: shop}
        spec:
        """) + textwrap.indent(textwrap.dedent(spec), "  "))
    return path


@pytest.mark.parametrize(("spec", "field", "words"), [
    ("minAvailable: 1\nmaxUnavailable: 1\n", "spec",
     "minAvailable and maxUnavailable cannot be both set"),
    ("minAvailable: -1\n", "spec.minAvailable", "must be greater than or equal to 0"),
    ("maxUnavailable: -2\n", "spec.maxUnavailable", "must be greater than or equal to 0"),
    ("maxUnavailable: 'abc'\n", "spec.maxUnavailable",
     "a valid percent string must be a numeric string followed by an ending '%'"),
    ("minAvailable: '5.5%'\n", "spec.minAvailable", "regex used for validation is '[0-9]+%'"),
    ("minAvailable: '-5%'\n", "spec.minAvailable", "a valid percent string"),
    ("maxUnavailable: '2'\n", "spec.maxUnavailable", "write 2 without quotes or as 2%"),
    ("minAvailable: 101%\n", "spec.minAvailable", "must not be greater than 100%"),
    ("maxUnavailable: true\n", "spec.maxUnavailable", "must be an integer or percentage"),
    ("maxUnavailable: 1\nunhealthyPodEvictionPolicy: Sometimes\n",
     "spec.unhealthyPodEvictionPolicy",
     "Unsupported value: 'Sometimes': supported values: \"AlwaysAllow\", \"IfHealthyBudget\""),
])
def test_refused(tmp_path: Path, spec: str, field: str, words: str) -> None:
    with pytest.raises(ManifestError) as info:
        load_objects(write(tmp_path, spec))
    err = info.value
    assert err.field == field
    assert words in str(err)


@pytest.mark.parametrize(("spec", "min_available", "max_unavailable", "policy"), [
    ("minAvailable: 0\n", 0, None, "IfHealthyBudget"),
    ("maxUnavailable: 100%\n", None, "100%", "IfHealthyBudget"),
    ("maxUnavailable: 0%\nunhealthyPodEvictionPolicy: AlwaysAllow\n", None, "0%", "AlwaysAllow"),
    # policy/v1 defaults neither: the budget is valid and allows nothing
    ("selector: {matchLabels: {app: web}}\n", None, None, "IfHealthyBudget"),
])
def test_accepted(tmp_path: Path, spec: str, min_available: object, max_unavailable: object,
                  policy: str) -> None:
    (pdb,) = load_objects(write(tmp_path, spec))
    assert (pdb.min_available, pdb.max_unavailable, pdb.unhealthy_pod_eviction_policy) == \
        (min_available, max_unavailable, policy)


def test_budget_with_neither_field_allows_no_disruption(tmp_path: Path) -> None:
    from kruleset.model.objects import Node, Pod
    from kruleset.model.resources import Resources
    from kruleset.model.state import ClusterState
    from kruleset.rules.disruption.eviction_api import evict
    from kruleset.rules.disruption.pdb import pdb_status

    (pdb,) = load_objects(write(tmp_path, "selector: {matchLabels: {app: web}}\n"))
    st = ClusterState()
    st.add_node(Node("n1", Resources(cpu=4000, memory=8 << 30, pods=110)))
    ps = st.add_pod(Pod("shop", "web-1", labels={"app": "web"}))
    st.bind(ps, "n1")
    st.pdbs[pdb.key] = pdb
    s = pdb_status(st, pdb, 0)
    assert (s.expected_pods, s.desired_healthy, s.current_healthy, s.disruptions_allowed) == \
        (0, 0, 1, 0)
    assert evict(st, ps, 0).cause == "The disruption budget p needs 0 healthy pods and has 1 " \
        "currently"
