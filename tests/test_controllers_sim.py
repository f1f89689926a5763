"""The workload controllers in a running simulation: what a user sees of them
(the JSON report's workloads, --explain, a Job created again)."""

from __future__ import annotations

from pathlib import Path

import kruleset
from kruleset.report.text import Style, render_explain

FEATURES = Path(__file__).resolve().parent.parent / "features" / "controllers"


def _run(text: str, *, trace: bool = False) -> kruleset.Result:
    return kruleset.run(kruleset.load(text), trace=trace)


def test_a_job_created_again_does_not_count_the_old_jobs_pods() -> None:
    job = FEATURES / "job-backoff-0.yaml"
    res = _run(f'nodes n[1..2] cpu=4 memory=8Gi\ninclude "{job}"\nat 5s complete pod pi-1\n'
               f'at 10s delete "{job}"\nat 20s apply "{job}"\n'
               "expect job pi succeeded=0 active=1\nexpect pod pi-2 running\n")
    assert res.passed, [r.message for r in res.failed]


def test_the_result_carries_each_workloads_final_status() -> None:
    res = _run(f'nodes n[1..3] cpu=4 memory=8Gi\ninclude "{FEATURES / "sts-v1.yaml"}"\n'
               f'include "{FEATURES / "ds-v1.yaml"}"\n')
    by_kind = {w["kind"]: w for w in res.workloads}
    sts = by_kind["StatefulSet"]["status"]
    assert (sts["replicas"], sts["readyReplicas"], sts["updatedReplicas"]) == (3, 3, 3)
    assert sts["currentRevision"] == sts["updateRevision"]
    assert sts["currentRevision"].startswith("db-")
    assert by_kind["DaemonSet"]["status"]["desiredNumberScheduled"] == 3


def test_revisions_name_the_template_and_a_rollout_moves_the_current_one() -> None:
    res = _run(f'nodes n[1..3] cpu=4 memory=8Gi\ninclude "{FEATURES / "sts-v1.yaml"}"\n'
               f'at 10s apply "{FEATURES / "sts-v2.yaml"}"\nrun until 3m\n')
    first = _run(f'nodes n[1..3] cpu=4 memory=8Gi\ninclude "{FEATURES / "sts-v2.yaml"}"\n')
    after, fresh = res.workloads[0]["status"], first.workloads[0]["status"]
    # the same template makes the same revision name, whoever made it
    assert after["currentRevision"] == fresh["currentRevision"] == after["updateRevision"]


def test_explain_a_statefulset_lists_its_controllers_rules() -> None:
    res = _run(f'nodes n[1..3] cpu=4 memory=8Gi\ninclude "{FEATURES / "sts-v1.yaml"}"\n'
               f'at 10s apply "{FEATURES / "sts-v2.yaml"}"\nrun until 3m\n', trace=True)
    text = render_explain("statefulset/db", res, Style(color=False))
    assert "10s  deleted default/db-2 on n3: Rollout" in text
    assert "controllers.statefulset.update.replace [default/db] stop: delete 1" in text
    assert "controllers.statefulset.replica.create [default/db-2] stop: create" in text
    assert render_explain("statefulset/nope", res, Style(color=False)) == \
        "no StatefulSet called default/nope in this run"


def test_explain_a_job_shows_the_backoff_it_waited() -> None:
    res = _run(f'nodes n[1..2] cpu=4 memory=8Gi\ninclude "{FEATURES / "job-backoff-2.yaml"}"\n'
               "at 5s fail pod pi-1\nrun until 1m\n", trace=True)
    text = render_explain("job/pi", res, Style(color=False))
    assert "controllers.job.backoff.remaining [default/pi] stop: 1 failure(s): wait 10000 ms" \
        in text


def test_the_json_report_of_workloads_is_valid_against_the_schema(
        capsys: object) -> None:
    import json

    import jsonschema

    from kruleset.cli import main

    root = Path(__file__).resolve().parent.parent
    schema = json.loads((root / "schemas" / "report-v1.schema.json").read_text())
    code = main(["run", "--format", "json", "-j", "1",
                 str(root / "examples" / "statefulset-canary.kr")])
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert code == 0
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema).validate(data)
    entry = data["files"][0]
    assert {w["kind"] for w in entry["workloads"]} == {"StatefulSet", "Job"}
    kinds = [(d["kind"], d["pod"], d["reason"]) for d in entry["decisions"]
             if d["kind"].startswith("job-")]
    assert kinds == [("job-failure-target", "shop/report", "PodFailurePolicy"),
                     ("job-failed", "shop/report", "PodFailurePolicy")]
