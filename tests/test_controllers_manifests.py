"""Deployments and pods from Kubernetes files: strategy, readiness probe, ranking fields."""

from __future__ import annotations

from pathlib import Path

import pytest

import kruleset
from kruleset.errors import KrulesetError

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  minReadySeconds: 5
STRATEGY
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {controller.kubernetes.io/pod-deletion-cost: "7"}}
    spec:
      containers:
      - name: c
        image: nginx
        resources: {requests: {cpu: 100m}}
        readinessProbe: {httpGet: {path: /, port: 80}, initialDelaySeconds: 10}
"""


def _run(tmp_path: Path, strategy: str, timeline: str) -> kruleset.Result:
    (tmp_path / "d.yaml").write_text(DEPLOYMENT.replace("STRATEGY", strategy))
    kr = tmp_path / "t.kr"
    kr.write_text(f'node n1 cpu=8 memory=8Gi\ninclude "d.yaml"\n{timeline}')
    return kruleset.run(kruleset.load(kr))


def test_probe_delay_and_min_ready_seconds(tmp_path: Path) -> None:
    res = _run(tmp_path, "", "at 9s expect deployment web ready=0\n"
                             "at 10s expect deployment web ready=2 available=0\n"
                             "at 15s expect deployment web available=2\n")
    assert [x.passed for x in res.expectations] == [True, True, True]
    assert all(ps.pod.deletion_cost == 7 for ps in res.state.pods.values())


@pytest.mark.parametrize("strategy, message", [
    ("  strategy: {type: Recreate, rollingUpdate: {maxSurge: 1}}",
     "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is "
     "'Recreate'"),
    ("  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: '0%'}}",
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when '
     "`maxSurge` is 0"),
    ("  strategy: {rollingUpdate: {maxSurge: -2}}",
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: -2: must be greater than or equal "
     "to 0"),
    ("  strategy: {rollingUpdate: {maxUnavailable: '150%'}}",
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater '
     "than 100%"),
    ("  strategy: {type: BlueGreen}",
     'spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", '
     '"RollingUpdate"'),
])
def test_refused_strategies_name_their_field(tmp_path: Path, strategy: str, message: str
                                             ) -> None:
    with pytest.raises(KrulesetError) as err:
        _run(tmp_path, strategy, "")
    assert message in str(err.value)


def test_min_ready_seconds_below_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(DEPLOYMENT.replace("STRATEGY", "").replace(
        "minReadySeconds: 5", "minReadySeconds: -1"))
    kr = tmp_path / "t.kr"
    kr.write_text('node n1 cpu=8 memory=8Gi\ninclude "d.yaml"\n')
    with pytest.raises(KrulesetError) as err:
        kruleset.load(kr)
    assert "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0" \
        in str(err.value)


def test_a_recreate_deployment_from_yaml(tmp_path: Path) -> None:
    res = _run(tmp_path, "  strategy: {type: Recreate}", "expect deployment web available=2\n")
    assert all(x.passed for x in res.expectations)


@pytest.mark.parametrize("text, message", [
    ("deployment web replicas=2 cpu=1 restarts=3",
     "'restarts' is a pod's status, not its template's"),
    ("deployment web replicas=2 cpu=1 readiness-delay=1500ms",
     "readiness-delay is the probe's initialDelaySeconds: whole seconds"),
    ("deployment web replicas=2 cpu=1 paused=true", "'paused' is written a bare word"),
])
def test_bad_kr_attributes(text: str, message: str) -> None:
    with pytest.raises(KrulesetError) as err:
        kruleset.load(f"node n1 cpu=1\n{text}\n")
    assert message in str(err.value)


def test_rollout_statements_are_checked() -> None:
    with pytest.raises(KrulesetError) as err:
        kruleset.load("node n1 cpu=1\ndeployment web replicas=1 cpu=1\n"
                      "at 1s rollout undo deployment wab\n")
    assert "unknown deployment 'default/wab'" in str(err.value)
    with pytest.raises(KrulesetError) as err:
        kruleset.load("node n1 cpu=1\ndeployment web replicas=1 cpu=1\n"
                      "expect deployment web avail=1\n")
    assert "unknown deployment status field 'avail'" in str(err.value)


def test_undo_without_history_says_so_as_kubectl() -> None:
    res = kruleset.run(kruleset.load("node n1 cpu=4\ndeployment web replicas=1 cpu=1\n"
                                     "at 1s rollout undo deployment web\n"
                                     "at 2s rollout resume deployment web\n"))
    msgs = [d.message for d in res.decisions if d.kind == "ignored"]
    assert msgs == ['no rollout history found for deployment "web"',
                    'deployments.apps "web" is not paused']


def test_progress_deadline_warns_unless_default(tmp_path: Path) -> None:
    for value, warned in ((600, False), (120, True)):
        (tmp_path / "d.yaml").write_text(DEPLOYMENT.replace(
            "STRATEGY", f"  progressDeadlineSeconds: {value}"))
        kr = tmp_path / "t.kr"
        kr.write_text('node n1 cpu=8 memory=8Gi\ninclude "d.yaml"\n')
        notices = kruleset.load(kr).notices
        assert any("spec.progressDeadlineSeconds is read but not simulated" in n
                   for n in notices) == warned
