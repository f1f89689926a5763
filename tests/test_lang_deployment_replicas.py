"""``pods REF on NODE deployment=NAME``: running replicas of a declared deployment.

The replicas are the deployment's template as its controller makes a pod of
it (owned through its ReplicaSet, ``pod-template-hash`` label), bound where
declared; the controller counts them, replaces them when they end, and the
scheduler's default spreading sees them as the new pods' siblings.
"""

from __future__ import annotations

import attrs
import pytest

import kruleset
from kruleset.model.objects import TEMPLATE_HASH, Pod, template_hash
from kruleset.sim.core import Simulation

CLUSTER = """\
nodes node-[1..3] cpu=4 memory=16Gi
deployment default/web replicas=5 requests(cpu=100m, memory=100Mi) labels(app=web) grace-period=5s
"""


def _pods(text: str) -> dict[str, Pod]:
    return {o.key: o for o in kruleset.load(text).objects if isinstance(o, Pod)}


def test_a_replica_is_the_pod_the_controller_makes_from_the_template() -> None:
    sc = kruleset.load(CLUSTER + "pods web-[1..3] on node-2 deployment=web\n")
    dep = next(o for o in sc.objects if type(o).__name__ == "Deployment")
    made = attrs.evolve(dep.template, name="web-2", node_name="node-2",
                        labels={**dep.template.labels, TEMPLATE_HASH: template_hash(dep.key)})
    got = _pods(CLUSTER + "pods web-[1..3] on node-2 deployment=web\n")["default/web-2"]
    for field in attrs.fields(Pod):
        if field.name not in ("span", "range_head"):
            assert getattr(got, field.name) == getattr(made, field.name), field.name
    assert got.owner_kind == "ReplicaSet" and got.owner_name == "web"
    assert got.span.line == 3


def test_the_controller_counts_declared_replicas_and_replaces_them() -> None:
    text = CLUSTER + """\
pods web-[1..2] on node-1 deployment=web
pods web-[3..4] on node-2 deployment=web started=-1h
pod web-5 on node-3 deployment=web usage(memory=50Mi) not-ready
at 10s delete pod web-1 grace-period=0s
"""
    sim = Simulation(kruleset.load(text))
    result = sim.run()
    kinds = [(d.time, d.kind, d.pod) for d in result.decisions]
    assert kinds[:5] == [(0, "running", f"default/web-{i}") for i in range(1, 6)]
    assert (10_000, "created", "default/web-6") in kinds  # one replacement, the next number
    assert sum(1 for _, k, _ in kinds if k == "created") == 1
    pods = sim.state.pods
    assert pods["default/web-3"].pod.started == -3_600_000
    assert pods["default/web-5"].usage == {"memory": 50 * 2**20}
    assert pods["default/web-5"].ready is False


def test_replicas_beyond_the_deployments_count_are_scaled_down() -> None:
    text = (CLUSTER.replace("replicas=5", "replicas=1")
            + "pods web-[1..3] on node-1 deployment=web\n")
    result = kruleset.run(kruleset.load(text))
    deleted = [d.pod for d in result.decisions if d.kind == "deleted"]
    # All tie (same node, Ready and created at once): creation order (ActivePodsWithRanks).
    assert deleted == ["default/web-1", "default/web-2"]


def test_the_replacement_is_spread_away_from_the_declared_replicas() -> None:
    # Default spreading selects the new pod's siblings by its labels (the
    # template's and pod-template-hash): the declared replicas are among them.
    text = CLUSTER + """\
pods web-[1..2] on node-1 deployment=web
pods web-[3..4] on node-2 deployment=web
pod web-5 on node-1 deployment=web
at 10s delete pod web-1 grace-period=0s
expect pod web-6 running on node-3
"""
    result = kruleset.run(kruleset.load(text))
    assert all(x.passed for x in result.expectations)


def test_a_range_of_replicas_is_built_as_a_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from kruleset.model.state import ClusterState

    blocks: list[int] = []
    real = ClusterState.add_running

    def counting(self: ClusterState, pods: list[Pod], node: str, now: int) -> object:
        blocks.append(len(pods))
        return real(self, pods, node, now)

    monkeypatch.setattr(ClusterState, "add_running", counting)
    Simulation(kruleset.load(CLUSTER + "pods web-[1..4] on node-1 deployment=web\n")).run()
    assert blocks == [4]


@pytest.mark.parametrize(("line", "message"), [
    ("pods web-[1..2] on node-1 deployment=wab",
     "unknown deployment 'default/wab', did you mean 'default/web'?"),
    ("pods web-[1..2] on node-1 deployment=web cpu=1",
     "'cpu' comes from the deployment's template: a replica declared with deployment= takes "
     "only started=, usage(…), not-ready, restarts=, deletion-cost=, created= and "
     "ready-since="),
    ("pods web-[1..2] deployment=web",
     "replicas declared with deployment= are running: add 'on NODE'"),
    ("pods other/web-[1..2] on node-1 deployment=web", "unknown deployment 'other/web'"),
    ("pods web-[1..2] on node-1 deployment=web {\n  container c\n}",
     "a replica declared with deployment= takes no block"),
    ("pods web-[1..2] on node-1 deployment(web)", "'deployment' is written NAME=VALUE"),
    ("deployment default/x replicas=1 deployment=web", "unknown pod attribute 'deployment'"),
    ("pods api-[1..2] on node-1 deployment=web\ndeployment api replicas=1",
     "deployment 'default/api' would create pods named like the pod 'default/api-1'"),
    ("deployment api replicas=1\npods api-[1..2] on node-1 deployment=web",
     "pod 'default/api-1' has the name deployment 'default/api' gives its pods"),
])
def test_bad_replicas_are_refused_with_a_clear_message(line: str, message: str) -> None:
    with pytest.raises(kruleset.ScenarioError) as err:
        kruleset.load(CLUSTER + line + "\n")
    assert message in str(err.value)


def test_a_deployment_declared_later_is_not_found() -> None:
    text = ("nodes node-[1..3] cpu=4\npods web-[1..2] on node-1 deployment=web\n"
            "deployment web replicas=2 cpu=100m\n")
    with pytest.raises(kruleset.ScenarioError, match="declared on an earlier line"):
        kruleset.load(text)
