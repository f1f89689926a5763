"""Usage as the kubelet reads it (issue 28): Summary API and metrics.k8s.io documents read
by ``include``, where the eviction manager reads them, and the warning when a pass ranks
pods none of which has usage.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kruleset
from kruleset.cli import main

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / "examples" / "dump" / "cluster.json"
SUMMARY = ROOT / "examples" / "dump" / "summary-node-1.json"
WHATIF = ROOT / "examples" / "whatifs" / "node-1-memory-pressure.kr"
Gi, Mi = 1 << 30, 1 << 20
NO_USAGE = ("pods on node-1 have no usage: eviction order is by priority and requests only, "
            "and evictions free nothing")


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    code = main(["run", "--format", "json", "-j", "1", *argv])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def _evicted(report: dict) -> list[str]:
    return [d["pod"] for d in report["files"][0]["decisions"] if d["kind"] == "evicted"]


def test_with_the_summary_the_kubelet_evicts_what_frees_enough(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, report, _ = _run_json(capsys, "--cluster", str(DUMP), str(WHATIF))
    assert code == 0
    assert _evicted(report) == ["shop/redis-0"]
    assert not [d for d in report["files"][0]["decisions"] if d["kind"] == "warning"]


def test_without_usage_every_pod_goes_and_the_report_says_why_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = WHATIF.read_text(encoding="utf-8")
    text = text.replace('include "../dump/summary-node-1.json"',
                        "at 0s usage node node-1 memory.available=9Gi")
    text = text.replace("expect pod shop/web-7c9d6b5f4-2xk8p running on node-1",
                        "expect pod shop/web-7c9d6b5f4-2xk8p evicted")
    kr = tmp_path / "no-usage.kr"
    kr.write_text(text, encoding="utf-8")
    code, report, _ = _run_json(capsys, "--cluster", str(DUMP), str(kr))
    assert code == 0
    assert _evicted(report) == ["shop/redis-0", "shop/web-7c9d6b5f4-2xk8p"]
    warnings = [d for d in report["files"][0]["decisions"] if d["kind"] == "warning"]
    assert [(w["pod"], w["reason"], w["message"]) for w in warnings] == [
        ("node-1", "NoUsage", NO_USAGE)]
    main(["run", "--no-color", "-j", "1", "--cluster", str(DUMP), str(kr)])
    text_out = capsys.readouterr().out
    assert text_out.count(NO_USAGE) == 1


def _scenario(tmp_path: Path, body: str, docs: dict[str, object]) -> Path:
    for name, doc in docs.items():
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    kr = tmp_path / "s.kr"
    kr.write_text(body, encoding="utf-8")
    return kr


def _pod_stats(name: str, containers: list[tuple[str, int, int, int]],
               volumes: list[tuple[str, int]] = (), ns: str = "default") -> dict[str, object]:
    return {"podRef": {"name": name, "namespace": ns, "uid": "u"},
            "containers": [{"name": c, "memory": {"workingSetBytes": ws},
                            "rootfs": {"usedBytes": root, "inodesUsed": 1},
                            "logs": {"usedBytes": logs, "inodesUsed": 1}}
                           for c, ws, root, logs in containers],
            "volume": [{"name": v, "usedBytes": b, "inodesUsed": 1} for v, b in volumes]}


CLUSTER = """scenario "usage"
node n1 cpu=4 memory=8Gi ephemeral-storage=100Gi
pod a on n1 requests(cpu=1, memory=1Gi)
pod b on n1 requests(cpu=1, memory=1Gi)
pod two on n1 {
  container app requests(cpu=100m) limits(ephemeral-storage=1Gi)
  container side requests(cpu=100m) limits(ephemeral-storage=100Mi)
}
pod cache on n1 requests(cpu=100m) {
  emptydir scratch size-limit=500Mi
}
"""


def test_summary_usage_reaches_pods_containers_and_volumes(tmp_path: Path) -> None:
    summary = {"node": {"nodeName": "n1", "memory": {"availableBytes": 5 * Gi},
                        "rlimit": {"maxpid": 1000, "curproc": 900}},
               "pods": [_pod_stats("a", [("a", 2 * Gi, 0, 0)]),
                        _pod_stats("b", [("b", 300 * Mi, 0, 0)]),
                        # the sidecar's logs and layer: 120Mi over its 100Mi limit
                        _pod_stats("two", [("app", Mi, 10 * Mi, 10 * Mi),
                                           ("side", Mi, 60 * Mi, 60 * Mi)]),
                        _pod_stats("cache", [("cache", Mi, 0, 0)],
                                   [("scratch", 600 * Mi), ("token", 4096)])]}
    kr = _scenario(tmp_path, CLUSTER + 'include "summary.json"\nrun until 30s\n'
                   'expect pod two evicted\nexpect pod cache evicted\n'
                   'expect pod a running\n',
                   {"summary.json": summary})
    result = kruleset.run(kruleset.load(kr))
    assert result.passed, [r.message for r in result.expectations]
    msgs = {d.pod: d.message for d in result.decisions if d.kind == "evicted"}
    assert msgs["default/two"] == ('Container side exceeded its local ephemeral storage limit '
                                   '"100Mi". ')
    assert msgs["default/cache"] == 'Usage of EmptyDir volume "scratch" exceeds the limit "500Mi". '
    state = result.state
    assert state.pods["default/a"].usage["memory"] == 2 * Gi
    assert state.pods["default/a"].usage["inodes"] == 2


def test_memory_pressure_from_the_summary_ranks_by_usage(tmp_path: Path) -> None:
    summary = {"node": {"nodeName": "n1", "memory": {"availableBytes": 300 * Mi}},
               "pods": [_pod_stats("a", [("a", 2 * Gi, 0, 0)]),
                        _pod_stats("b", [("b", 300 * Mi, 0, 0)])]}
    kr = _scenario(tmp_path, 'scenario "x"\n'
                   'kubelet * {\n  eviction-hard memory.available<500Mi\n}\n'
                   'node n1 cpu=4 memory=8Gi\npod b on n1 requests(cpu=1, memory=1Gi)\n'
                   'pod a on n1 requests(cpu=1, memory=1Gi)\ninclude "summary.json"\n'
                   'run until 1m\nexpect pod a evicted\nexpect pod b running\n',
                   {"summary.json": [summary]})  # a JSON list of summaries
    result = kruleset.run(kruleset.load(kr))
    assert result.passed, [r.message for r in result.expectations]


def test_metrics_set_memory_where_no_summary_is_given(tmp_path: Path) -> None:
    pods = {"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1", "items": [
        {"metadata": {"name": "a", "namespace": "default"}, "window": "15s",
         "containers": [{"name": "a", "usage": {"cpu": "10m", "memory": "2Gi"}}]},
        {"metadata": {"name": "b", "namespace": "default"},
         "containers": [{"name": "b", "usage": {"cpu": "10m", "memory": "100Mi"}}]}]}
    nodes = {"kind": "NodeMetricsList", "apiVersion": "metrics.k8s.io/v1beta1", "items": [
        {"metadata": {"name": "n1"}, "usage": {"cpu": "1", "memory": "7800Mi"}}]}
    summary = {"node": {"nodeName": "n1"}, "pods": [_pod_stats("b", [("b", 50 * Mi, 0, 0)])]}
    head = ('scenario "x"\nnode n1 cpu=4 memory=8Gi\n'
            'pod a on n1 requests(cpu=1, memory=1Gi)\npod b on n1 requests(cpu=1)\n'
            'include "pods.json"\ninclude "nodes.json"\n')
    docs = {"pods.json": pods, "nodes.json": nodes, "summary.json": summary}
    from kruleset.model.config import KubeletConfig
    from kruleset.rules.kubelet.eviction.signals import layout, observe

    def memory(text: str) -> tuple[dict[str, int], tuple[int, int]]:
        state = kruleset.run(kruleset.load(_scenario(tmp_path, text, docs))).state
        node = state.nodes["n1"]
        got = observe(node, layout(KubeletConfig(), node), {"memory.available"})
        return ({k: state.pods[f"default/{k}"].usage["memory"] for k in "ab"},
                got["memory.available"])

    # metrics alone: pods' memory, and the node's available = capacity - usage
    assert memory(head) == ({"a": 2 * Gi, "b": 100 * Mi}, (8 * Gi - 7800 * Mi, 8 * Gi))
    # with a Summary of the node, its pods and node are read from it, not from metrics
    assert memory(head + 'include "summary.json"\n') == (
        {"a": 2 * Gi, "b": 50 * Mi}, (8 * Gi - 2 * Gi - 50 * Mi, 8 * Gi))


def test_unknown_nodes_and_pods_are_warnings_naming_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = {"node": {"nodeName": "gone-node"}, "pods": [_pod_stats("ghost", [])]}
    kr = _scenario(tmp_path, 'scenario "x"\nnode n1 cpu=4 memory=8Gi\ninclude "s.json"\n',
                   {"s.json": summary})
    assert main(["run", "-j", "1", str(kr)]) == 0
    err = capsys.readouterr().err
    assert "warning: usage of node 'gone-node', which the scenario does not have" in err
    assert "warning: usage of pod 'default/ghost', which the scenario does not have" in err


@pytest.mark.parametrize("doc,field", [
    ({"node": {"nodeName": "n1", "memory": {"availableBytes": "lots"}}, "pods": []},
     "node.memory.availableBytes"),
    ({"node": {"nodeName": "n1"}, "pods": [{"podRef": {"name": "a"}}]},
     "pods[0].podRef.namespace"),
    ({"node": {"nodeName": "n1"}, "pods": [
        {"podRef": {"name": "a", "namespace": "default"},
         "containers": [{"name": "a", "rootfs": {"usedBytes": -1}}]}]},
     "pods[0].containers[0].rootfs.usedBytes"),
    ({"kind": "NodeMetricsList", "items": [{"metadata": {"name": "n1"},
                                            "usage": {"memory": "lots"}}]},
     "items[0].usage.memory"),
])
def test_a_malformed_document_is_refused_with_the_field_path(
        doc: dict[str, object], field: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    kr = _scenario(tmp_path, 'scenario "x"\nnode n1 cpu=4 memory=8Gi\n'
                   'pod a on n1 requests(cpu=1)\ninclude "s.json"\n', {"s.json": doc})
    assert main(["run", "-j", "1", str(kr)]) == 2
    err = capsys.readouterr().err
    assert f"field {field}" in err and "Traceback" not in err


def test_the_no_usage_warning_is_in_the_html_report(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    kr = tmp_path / "n.kr"
    kr.write_text('scenario "x"\nkubelet * {\n  eviction-hard memory.available<500Mi\n}\n'
                  "node node-1 cpu=4 memory=8Gi\npod a on node-1 requests(cpu=1, memory=1Gi)\n"
                  "at 10s usage node node-1 memory.available=400Mi\nrun until 30s\n",
                  encoding="utf-8")
    assert main(["run", "--format", "html", "-j", "1", str(kr)]) == 0
    assert NO_USAGE in capsys.readouterr().out


def test_an_unknown_summary_field_is_an_error_or_with_allow_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"node": {"nodeName": "n1"},
           "pods": [{"podRef": {"name": "a", "namespace": "default"}, "proces_stats": {}}]}
    kr = _scenario(tmp_path, 'scenario "x"\nnode n1 cpu=4 memory=8Gi\n'
                   'pod a on n1 requests(cpu=1)\ninclude "s.json"\n', {"s.json": doc})
    assert main(["run", "-j", "1", str(kr)]) == 2
    err = capsys.readouterr().err
    assert "field pods[0].proces_stats: unknown field of a Summary API pod" in err
    assert "did you mean 'process_stats'?" in err
    assert main(["run", "-j", "1", "--allow-unknown-fields", str(kr)]) == 0
    assert "warning: unknown field pods[0].proces_stats" in capsys.readouterr().err
