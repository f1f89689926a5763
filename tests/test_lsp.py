"""`kruleset lsp` tested as an editor uses it: a subprocess spoken to in JSON-RPC over stdio.

Expected diagnostics are what `kruleset check` reports for the same file (its
own code path, run here), not written down.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from kruleset.fileresult import FileOptions, report_file

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pygls") is None or importlib.util.find_spec("lsprotocol") is None,
    reason="the lsp extra is not installed (pip install '.[lsp]'): pygls and lsprotocol")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def client():
    from tests.lsp.client import Client

    c = Client(ROOT)
    c.initialize(ROOT)
    yield c
    assert c.close() == 0


def _check_says(path: Path) -> list[tuple[int, int, str]]:
    """(line, column, text) of each error `kruleset check` prints: the place, then the
    lines under the quoted source line (expected:, hint:)."""
    report = report_file(str(path), FileOptions(check=True))
    out = []
    for p in report.problems:
        lines = p.text.split("\n")
        head = re.sub(r"^.*?:\d+:\d+: ", "", lines[0])
        out.append((p.line, p.column, "\n".join([head, *lines[3:]])))
    return out


def _typo(tmp_path: Path) -> Path:
    path = tmp_path / "typo.kr"
    path.write_text((EXAMPLES / "quickstart.kr").read_text().replace(
        "priorityclass=high", "priorityclas=high"))
    return path


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.kr")))
def test_examples_have_no_diagnostics(client, name):
    u = client.open(EXAMPLES / name)
    assert client.wait_diagnostics(u) == []


def test_typo_gets_the_message_and_place_check_gives(client, tmp_path):
    path = _typo(tmp_path)
    expected = _check_says(path)
    u = client.open(path)
    got = [(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["message"])
           for d in client.wait_diagnostics(u, until=lambda ds: len(ds) == len(expected))]
    assert got == expected
    assert any("unknown pod attribute 'priorityclas'" in m for _, _, m in got)


def test_code_action_replaces_the_typo_and_a_change_clears_it(client, tmp_path):
    path = _typo(tmp_path)
    u = client.open(path)
    diag = next(d for d in client.wait_diagnostics(u) if "priorityclas'" in d["message"])
    line = path.read_text().split("\n")[diag["range"]["start"]["line"]]
    r = diag["range"]
    assert line[r["start"]["character"]:r["end"]["character"]] == "priorityclas"
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": u}, "range": r, "context": {"diagnostics": [diag]}})["result"]
    edit = actions[0]["edit"]["changes"][u][0]
    assert (actions[0]["title"], edit["newText"], edit["range"]) == (
        "Replace with 'priorityclass'", "priorityclass", r)
    client.change(u, (EXAMPLES / "quickstart.kr").read_text())
    # (the typo's own full set of errors may still be on its way: wait for what follows)
    assert client.wait_diagnostics(u, until=lambda ds: ds == []) == []


def test_an_error_in_an_included_yaml_is_on_both_files(client, tmp_path):
    shutil.copytree(EXAMPLES / "manifests", tmp_path / "manifests")
    shutil.copy(EXAMPLES / "from-manifests.kr", tmp_path)
    yaml = tmp_path / "manifests" / "cluster.yaml"
    text = yaml.read_text()
    yaml.write_text(text.replace("priorityClassName", "priorityClasName", 1))
    bad_line = text[:text.index("priorityClassName")].count("\n")
    u = client.open(tmp_path / "from-manifests.kr")
    expected = _check_says(tmp_path / "from-manifests.kr")
    on_kr = client.wait_diagnostics(u, until=lambda ds: len(ds) == len(expected))
    assert [d["message"] for d in on_kr] == [m for _, _, m in expected]
    include = (tmp_path / "from-manifests.kr").read_text().split("\n").index(
        'include "manifests/cluster.yaml"')
    assert on_kr[0]["range"]["start"]["line"] == include
    assert 'unknown field "priorityClasName"' in on_kr[0]["message"]
    on_yaml = client.wait_diagnostics(yaml.resolve().as_uri())
    assert [d["range"]["start"]["line"] for d in on_yaml] == [bad_line]
    assert on_yaml[0]["message"] == on_kr[0]["message"]
    r = on_yaml[0]["range"]
    typed = yaml.read_text().split("\n")[bad_line]
    assert typed[r["start"]["character"]:r["end"]["character"]] == "priorityClasName"
    assert on_yaml[0]["data"] == {"replace": "priorityClassName"}


FEATURE = '''Feature: a feature
  Scenario: typo in a docstring
    Given the scenario:
      """
      node n1 cpu=4
      pod web cpuu=1
      """
    And pod other on n2
    Then the expectations hold

  Scenario: refused on purpose
    Given node n1 cpu=-1
    Then the scenario is refused with "cpu"
'''


def test_feature_docstrings_and_steps_are_checked_on_their_lines(client, tmp_path):
    path = tmp_path / "a.feature"
    path.write_text(FEATURE)
    u = client.open(path, language="gherkin")
    found = client.wait_diagnostics(u, until=lambda ds: any("'n2'" in d["message"] for d in ds))
    got = {(d["range"]["start"]["line"], d["range"]["start"]["character"], d["severity"]):
           d["message"].split("\n")[0] for d in found}
    lines = FEATURE.split("\n")
    assert got[(5, lines[5].index("cpuu"), 1)].startswith("unknown pod attribute 'cpuu'")
    assert "unknown node 'n2'" in got[(7, lines[7].index("n2"), 1)]
    refused = [k for k in got if k[0] == 11]
    assert refused and all(k[2] == 3 for k in refused)  # information, not an error


def test_a_real_feature_file_has_no_errors(client):
    u = client.open(ROOT / "features" / "scheduling" / "taints.feature", language="gherkin")
    assert [d for d in client.wait_diagnostics(u) if d["severity"] == 1] == []


def _labels(client, u, line, character):
    answer = client.request("textDocument/completion", client.at(u, line, character))
    return [i["label"] for i in answer["result"]["items"]]


def test_completion(client, tmp_path):
    text = ('priorityclass high value=10\nnode n1 cpu=4\npod web on n1 priorityclass=\n'
            'kubelet * {\n  eviction-hard(\n}\nat 1s \nexpect pod \n\npod x cpu=4\n')
    path = tmp_path / "c.kr"
    path.write_text(text)
    u = client.open(path)
    lines = text.split("\n")
    assert {"node", "pod", "include", "expect"} <= set(_labels(client, u, 8, 0))
    assert "high" in _labels(client, u, 2, len(lines[2]))
    assert "n1" in _labels(client, u, 2, len("pod web on "))
    assert "grace-period" in _labels(client, u, 2, len("pod web "))
    assert "memory.available" in _labels(client, u, 4, len(lines[4]))
    assert "eviction-soft" in _labels(client, u, 4, 2)
    assert {"create", "drain"} <= set(_labels(client, u, 6, len(lines[6])))
    assert "web" in _labels(client, u, 7, len(lines[7]))
    assert "Gi" in _labels(client, u, 9, len(lines[9]))


def _hover(client, u, line, character):
    answer = client.request("textDocument/hover", client.at(u, line, character))["result"]
    return answer["contents"]["value"] if answer else ""


def test_hover_and_definition(client):
    path = EXAMPLES / "quickstart.kr"
    lines = path.read_text().split("\n")
    u = client.open(path)
    web = next(n for n, t in enumerate(lines) if t.startswith("expect pod default/web"))
    created = next(n for n, t in enumerate(lines) if "create pod web" in t)
    assert lines[created].strip() in _hover(client, u, web, lines[web].index("web"))
    assert _hover(client, u, web, 1).startswith("```kr\nexpect")
    assert _hover(client, u, created, lines[created].index("priorityclass=")).startswith(
        "```kr\npriority=INT | priorityclass=NAME")
    assert "nodes PREFIX-[A..B]" in _hover(client, u, 7, 1)
    answer = client.request("textDocument/definition",
                            client.at(u, web, lines[web].index("web")))["result"]
    assert answer[0]["uri"] == u
    assert answer[0]["range"]["start"]["line"] == created


def test_rule_hover_and_include_definition(client, tmp_path):
    path = tmp_path / "r.kr"
    path.write_text('# scheduler.filter.TaintToleration\ninclude "m.yaml"\n')
    (tmp_path / "m.yaml").write_text("")
    u = client.open(path)
    from kruleset.lsp.words import rule_names

    doc, source = rule_names()["scheduler.filter.TaintToleration"]
    shown = _hover(client, u, 0, 5)
    assert doc in shown and source in shown
    answer = client.request("textDocument/definition", client.at(u, 1, 11))["result"]
    assert answer[0]["uri"] == (tmp_path / "m.yaml").resolve().as_uri()


def test_document_symbols(client):
    u = client.open(EXAMPLES / "quickstart.kr")
    names = [s["name"] for s in client.request(
        "textDocument/documentSymbol", {"textDocument": {"uri": u}})["result"]]
    assert names[0] == "quickstart: scheduling and preemption"
    assert {"node-1", "node-3", "high", "batch", "at 30s"} <= set(names)


def test_bad_input_gets_diagnostics_and_unknown_requests_method_not_found(client, tmp_path):
    path = tmp_path / "junk.kr"
    path.write_text("pod (((( ]]] \"unclosed\n\x00\x01 {{{\n")
    u = client.open(path)
    assert client.wait_diagnostics(u)
    answer = client.request("kruleset/noSuchMethod", {})
    assert answer["error"]["code"] == -32601
    assert client.request("textDocument/hover", client.at(u, 0, 2))["id"]


def test_requests_are_answered_while_a_large_include_is_read(client, tmp_path):
    pods = "".join(f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n"
                   f"  spec: {{containers: [{{name: c}}]}}\n" for i in range(20000))
    (tmp_path / "big.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + pods)
    path = tmp_path / "big.kr"
    path.write_text('include "big.yaml"\nnode n1 cpu=4\n')
    u = client.open(path)
    assert "node NAME" in _hover(client, u, 1, 1)
    assert u not in client.diagnostics  # answered before the check ended
    client.wait_diagnostics(u, timeout=120)


def test_an_include_is_read_once_until_it_changes(tmp_path):
    from kruleset.lsp.cache import FileCache
    from kruleset.lsp.check import check_text

    shutil.copytree(EXAMPLES / "manifests", tmp_path / "manifests")
    text = (EXAMPLES / "from-manifests.kr").read_text()
    path = str(tmp_path / "from-manifests.kr")
    cache = FileCache()
    assert check_text(text, path, cache=cache) == []
    reads = cache.reads
    assert check_text(text, path, cache=cache) == []
    assert cache.reads == reads
    yaml = tmp_path / "manifests" / "cluster.yaml"
    yaml.write_text(yaml.read_text() + "\n")
    assert check_text(text, path, cache=cache) == []
    assert cache.reads == reads + 1


def test_a_profile_gets_its_errors_a_fix_and_rule_names(client, tmp_path):
    path = tmp_path / "profile.yaml"
    text = "rulesets:\n  scheduler.filter:\n    disable: [scheduler.filter.TaintTolerat]\n"
    path.write_text(text)
    u = client.open(path, language="yaml")
    diag = client.wait_diagnostics(u)[0]
    assert diag["message"].startswith(
        f"{path}: rule set 'scheduler.filter' has no rule 'scheduler.filter.TaintTolerat'")
    assert diag["range"]["start"] == {"line": 2, "character": text.split("\n")[2].index("sch")}
    assert diag["data"] == {"replace": "scheduler.filter.TaintToleration"}
    assert "scheduler.filter.NodeName" in _labels(client, u, 2, 14)
    other = tmp_path / "deployment.yaml"
    other.write_text("apiVersion: apps/v1\nkind: Deployment\n")
    assert client.wait_diagnostics(client.open(other, language="yaml")) == []


CRONJOB = """apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: default}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: c, image: busybox}]
          restartPolicy: Never
"""


def test_warnings_are_warnings_on_the_include_and_on_the_yaml(client, tmp_path):
    (tmp_path / "cron.yaml").write_text(CRONJOB)
    path = tmp_path / "cron.kr"
    path.write_text('node n1 cpu=4\ninclude "cron.yaml"\n')
    notices = report_file(str(path), FileOptions(check=True)).notices
    assert notices and all(": warning: " in n for n in notices)
    u = client.open(path)
    on_kr = client.wait_diagnostics(u)
    assert [(d["severity"], d["range"]["start"]["line"], d["message"]) for d in on_kr] == [
        (2, 1, n) for n in notices]
    yaml_uri = (tmp_path / "cron.yaml").resolve().as_uri()
    assert [d["message"] for d in client.wait_diagnostics(yaml_uri)] == list(notices)
    # Opened itself (a YAML file that is no profile), it keeps what the scenario placed there.
    client.open(tmp_path / "cron.yaml", language="yaml")
    assert [d["message"] for d in client.wait_diagnostics(yaml_uri)] == list(notices)


def test_names_from_included_files_complete_references(client, tmp_path):
    path = EXAMPLES / "from-manifests.kr"
    u = client.open(path)
    assert client.wait_diagnostics(u) == []
    lines = path.read_text().split("\n")
    drain = next(n for n, t in enumerate(lines) if t.startswith("at 1m drain node"))
    assert {"node-a", "node-b"} <= set(_labels(client, u, drain, len("at 1m drain node ")))
    expect = next(n for n, t in enumerate(lines) if t.startswith("expect pod batch/"))
    assert "batch/report-builder" in _labels(client, u, expect, len("expect pod "))


def test_completion_in_a_feature_docstring(client, tmp_path):
    path = tmp_path / "c.feature"
    path.write_text(FEATURE)
    u = client.open(path, language="gherkin")
    line = FEATURE.split("\n").index("      pod web cpuu=1")
    assert "grace-period" in _labels(client, u, line, len("      pod web "))
    assert "n1" in _labels(client, u, line + 2, len("    And pod other on "))


def test_cluster_files_from_the_editors_settings(client):
    from tests.lsp.client import Client

    whatifs = sorted((EXAMPLES / "whatifs").glob("*.kr"))
    # Without the dump, as `kruleset check` without --cluster: its objects are unknown.
    for path in whatifs:
        expected = _check_says(path)
        assert expected
        u = client.open(path)
        count = len(expected)
        got = client.wait_diagnostics(u, until=lambda ds, n=count: len(ds) == n)
        assert [d["message"] for d in got] == [m for _, _, m in expected]
    with_dump = Client(ROOT)
    try:
        with_dump.initialize(ROOT, {"cluster": {"examples/whatifs/*.kr":
                                                ["examples/dump/cluster.json"]}})
        for path in whatifs:
            assert with_dump.wait_diagnostics(with_dump.open(path), timeout=60) == []
        u = with_dump.open(EXAMPLES / "quickstart.kr")  # not matched: no dump under it
        assert with_dump.wait_diagnostics(u) == []
    finally:
        assert with_dump.close() == 0


def test_hover_without_the_reference_lists_the_attributes(monkeypatch, tmp_path):
    from kruleset.lsp import reference
    from kruleset.lsp.hover import hover_text
    from kruleset.lsp.names import Index

    monkeypatch.setattr(reference, "reference_path", lambda: tmp_path / "missing.md")
    reference._fragments.cache_clear()
    try:
        shown = hover_text("pdb x selector(app=a) min-available=1", 1, Index())
    finally:
        reference._fragments.cache_clear()
    assert shown.startswith("**pdb**: selector, min-available")


def test_definition_of_an_included_object_is_in_its_file(client):
    path = EXAMPLES / "from-manifests.kr"
    u = client.open(path)
    assert client.wait_diagnostics(u) == []
    lines = path.read_text().split("\n")
    drain = next(n for n, t in enumerate(lines) if t.startswith("at 1m drain node node-a"))
    answer = client.request("textDocument/definition",
                            client.at(u, drain, lines[drain].index("node-a") + 1))["result"]
    yaml = EXAMPLES / "manifests" / "cluster.yaml"
    assert answer[0]["uri"] == yaml.resolve().as_uri()
    r = answer[0]["range"]
    shown = yaml.read_text().split("\n")[r["start"]["line"]]
    assert shown[r["start"]["character"]:r["end"]["character"]] == "node-a"
    assert "name:" in shown


def test_the_latency_benchmark_runs():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "benchmarks.lsp_latency", "--lines", "200",
                           "--rounds", "2"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^200 lines, clean: \d+ ms after the change", done.stdout, re.M)
    assert re.search(r"^200 lines, typo: \d+ ms after the change", done.stdout, re.M)
