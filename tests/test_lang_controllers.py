"""`.kr` for the workload controllers (expect statefulset|daemonset|job, fail pod … exit-code,
delete node), and the YAML fields they read, refused as v1.35's validation refuses them."""

from __future__ import annotations

from pathlib import Path

import pytest

import kruleset
from kruleset.errors import KrulesetError
from kruleset.model.scenario import DeleteObject, PodPhase

FEATURES = Path(__file__).resolve().parent.parent / "features" / "controllers"


def _load(text: str) -> kruleset.Scenario:
    head = (f'nodes n[1..2] cpu=4 memory=8Gi\ninclude "{FEATURES / "sts-v1.yaml"}"\n'
            f'include "{FEATURES / "job-backoff-2.yaml"}"\n'
            f'include "{FEATURES / "ds-v1.yaml"}"\n')
    return kruleset.load(head + text)


def _refused(text: str) -> str:
    with pytest.raises(KrulesetError) as e:
        _load(text)
    return e.value.render() if hasattr(e.value, "render") else str(e.value)


def test_workload_expectations_parse_to_their_forms() -> None:
    sc = _load("expect statefulset db ready=3 updated=2\n"
               "expect daemonset agent desired=2 misscheduled=0\n"
               "expect job pi failed reason=BackoffLimitExceeded\n"
               "expect job pi complete\n"
               "expect job pi condition SuccessCriteriaMet\n"
               "expect job pi active=1 failed=0\n")
    forms = [(x.form, x.ref, x.args) for x in sc.expectations]
    assert forms == [
        ("workload-status", "default/db", {"kind": "StatefulSet", "fields": {
            "readyReplicas": 3, "updatedReplicas": 2}}),
        ("workload-status", "default/agent", {"kind": "DaemonSet", "fields": {
            "desiredNumberScheduled": 2, "numberMisscheduled": 0}}),
        ("job-condition", "default/pi", {"kind": "Job", "condition": "Failed",
                                         "reason": "BackoffLimitExceeded"}),
        ("job-condition", "default/pi", {"kind": "Job", "condition": "Complete"}),
        ("job-condition", "default/pi", {"kind": "Job", "condition": "SuccessCriteriaMet"}),
        ("workload-status", "default/pi", {"kind": "Job", "fields": {"active": 1,
                                                                     "failed": 0}}),
    ]


@pytest.mark.parametrize(("line", "needle"), [
    ("expect statefulset web ready=1", "unknown statefulset 'default/web'"),
    ("expect statefulset db redy=1", "unknown statefulset status field 'redy'"),
    ("expect statefulset db", "expected a status field such as replicas=N"),
    ("expect statefulset db ready=1 ready=2", "'ready' is given twice"),
    ("expect job pi failed reason=Timeout", "unknown job condition reason 'Timeout'"),
    ("expect job pi condition Done", "unknown job condition 'Done'"),
    ("expect daemonset agent ready=-1", "ready"),
])
def test_bad_workload_expectations_are_refused_where_they_are(line: str, needle: str) -> None:
    text = _refused(line + "\n")
    assert needle in text
    assert ":5:" in text  # the line of the expectation


def test_fail_pod_takes_an_exit_code_and_a_container() -> None:
    sc = _load("at 5s fail pod pi-1 exit-code=42 container=main\nat 6s fail pod pi-1\n")
    phases = [e.action for e in sc.events if isinstance(e.action, PodPhase)]
    assert [(a.phase, a.exit_code, a.container) for a in phases] == [
        ("Failed", 42, "main"), ("Failed", None, None)]


@pytest.mark.parametrize(("line", "needle"), [
    ("at 5s fail pod pi-1 exit=1", "unknown fail option 'exit'"),
    ("at 5s fail pod pi-1 container=main", "container=NAME needs exit-code=N"),
    ("at 5s fail pod pi-1 exit-code=x", "exit-code"),
    ("at 5s delete node n3", "unknown node 'n3'"),
    ("at 5s delete node n1\nat 6s delete node n1", "node n1 is already deleted"),
])
def test_bad_timeline_statements_are_refused(line: str, needle: str) -> None:
    assert needle in _refused(line + "\n")


def test_delete_node_is_an_action() -> None:
    sc = _load("at 5s delete node n2\n")
    assert [e.action for e in sc.events if isinstance(e.action, DeleteObject)] == [
        DeleteObject("node", "n2", span=sc.events[-1].action.span)]


def _yaml(tmp_path: Path, text: str) -> str:
    f = tmp_path / "w.yaml"
    f.write_text(text)
    return f'node n1 cpu=4 memory=8Gi\ninclude "{f}"\n'


STS = """apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: db}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: db}}}}
{spec}
  template:
    metadata: {{labels: {{app: db}}}}
    spec: {{containers: [{{name: db, image: db}}]}}
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata: {{name: pi}}
spec:
{spec}
  template:
    spec: {{restartPolicy: Never, containers: [{{name: main, image: busybox}}]}}
"""


@pytest.mark.parametrize(("doc", "needle"), [
    (STS.format(spec="  ordinals: {start: -1}"), "spec.ordinals.start: -1 is below the minimum 0"),
    (STS.format(spec="  minReadySeconds: -5"), "spec.minReadySeconds: -5 is below the minimum 0"),
    (STS.format(spec="  updateStrategy: {rollingUpdate: {maxUnavailable: 150%}}"),
     "may not be over 100%"),
    (STS.format(spec="  updateStrategy: {rollingUpdate: {maxUnavailable: '0%'}}"),
     "must be greater than 0"),
    (JOB.format(spec="  parallelism: -1"), "spec.parallelism: -1 is below the minimum 0"),
    (JOB.format(spec="  completions: -2"), "spec.completions: -2 is below the minimum 0"),
    (JOB.format(spec="  completionMode: Sequential"),
     "'Sequential' is not one of NonIndexed, Indexed"),
    (JOB.format(spec="  backoffLimitPerIndex: 1"), "requires indexed completion mode"),
    (JOB.format(spec="  completions: 2\n  completionMode: Indexed\n  maxFailedIndexes: 1"),
     "spec.maxFailedIndexes: requires backoffLimitPerIndex"),
    (JOB.format(spec="  completions: 2\n  completionMode: Indexed\n  backoffLimitPerIndex: 1\n"
                     "  maxFailedIndexes: 3"), "must be less than or equal to completions"),
    (JOB.format(spec="  podFailurePolicy:\n    rules:\n    - action: Retry\n"
                     "      onExitCodes: {operator: In, values: [1]}"),
     "'Retry' is not one of FailJob, FailIndex, Ignore, Count"),
    (JOB.format(spec="  podFailurePolicy:\n    rules:\n    - action: Count\n"
                     "      onExitCodes: {operator: In, values: [3, 1]}"), "must be ordered"),
    (JOB.format(spec="  podFailurePolicy:\n    rules:\n    - action: Count\n"
                     "      onExitCodes: {operator: Has, values: [1]}"),
     "'Has' is not one of In, NotIn"),
    (JOB.format(spec="  podFailurePolicy:\n    rules:\n    - action: Count"),
     "specifying one of OnExitCodes and OnPodConditions is required"),
    (JOB.format(spec="  podReplacementPolicy: TerminatingOrFailed\n  podFailurePolicy:\n"
                     "    rules:\n    - action: Count\n"
                     "      onPodConditions: [{type: DisruptionTarget}]"),
     "the supported value is Failed"),
])
def test_fields_upstream_validation_refuses(tmp_path: Path, doc: str, needle: str) -> None:
    with pytest.raises(KrulesetError) as e:
        kruleset.load(_yaml(tmp_path, doc))
    assert needle in e.value.render()


def test_unsimulated_fields_are_a_warning(tmp_path: Path) -> None:
    doc = JOB.format(spec="  ttlSecondsAfterFinished: 100")
    sc = kruleset.load(_yaml(tmp_path, doc))
    assert any("ttlSecondsAfterFinished" in n and "not simulated" in n for n in sc.notices)
