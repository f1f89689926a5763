"""``--explain``: the conclusion first, then the decisions, then each attempt with its
filter results per node (nodes alike on one line) and the other rules by name."""

from __future__ import annotations

import re

from kruleset import api
from kruleset.report.explain import conclusion, render_explain
from kruleset.report.text import Style

PREEMPTION = """\
nodes node-[1..3] cpu=2 memory=4Gi
pod batch-1 on node-1 priority=10 requests(cpu=2)
pod batch-2 on node-2 priority=10 requests(cpu=1)
pod batch-3 on node-2 priority=10 requests(cpu=1)
pod batch-4 on node-3 priority=20 requests(cpu=2)
at 10s create pod web priority=1000 requests(cpu=2)
"""


def _explain(text: str, ref: str) -> list[str]:
    return render_explain(ref, api.run(text, trace=True), Style(color=False)).splitlines()


def test_the_conclusion_comes_first_in_words() -> None:
    lines = _explain(PREEMPTION, "web")
    assert lines[0] == "explain web"
    assert lines[1] == (
        "  web: scheduled on node-1 at 40s after preempting batch-1 at 10s (lowest sum of "
        "victim priorities); node-2 lost on lowest sum of victim priorities, node-3 on "
        "lowest-priority victims")
    assert lines[2] == "  decisions:"


def test_each_attempt_groups_its_filters_per_node_and_keeps_rule_names() -> None:
    lines = _explain(PREEMPTION, "web")
    heads = [x for x in lines if re.match(r"  attempt \d", x)]
    assert heads == ["  attempt 1 at 10s: nominated to node-1; pending: 0/3 nodes are "
                     "available: 3 Insufficient cpu.",
                     "  attempt 2 at 40s: scheduled on node-1"]
    first = lines[lines.index(heads[0]) + 1: lines.index(heads[1])]
    assert "    node-1, node-2, node-3: scheduler.filter.NodeResourcesFit fail: "\
           "Insufficient cpu (3 pass)" in first
    assert any(x.startswith("    dry run on node-") for x in first)
    assert any(x.startswith("    scheduler.preemption.pick [default/web] chose node-1: "
                            "scheduler.preemption.pick.lowest-priority-sum") for x in first)
    second = lines[lines.index(heads[1]) + 1:]
    assert "    node-1: 4 filters pass" in second
    assert any(x.startswith("    kubelet.admission") and x.endswith(" pass") for x in second)
    # every rule evaluation is told: per-node lines count what passed
    assert len(lines) < 40


def test_a_victim_and_a_pending_pod() -> None:
    result = api.run(PREEMPTION, trace=True)
    assert conclusion("default/batch-1", result) == "batch-1: preempted by web on node-1 at 10s"
    pending = api.run("node n1 cpu=1 memory=1Gi\npod a requests(cpu=2)\n", trace=True)
    last = pending.decisions[-1]
    assert conclusion("default/a", pending) == (
        f"a: pending (last tried at 0s, since 0s): {last.message}")
    assert last.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_a_pod_is_not_confused_with_one_whose_name_starts_like_it() -> None:
    text = ("nodes n[1..2] cpu=1 memory=1Gi\npod web-1 requests(cpu=1)\n"
            "pod web-10 requests(cpu=1)\n")
    lines = _explain(text, "web-1")
    assert not any("web-10" in x for x in lines)


def test_nodes_alike_share_a_line_at_real_size() -> None:
    eks = ".eu-west-1.compute.internal"
    text = f"nodes ip-10-0-1-[1..60]{eks} cpu=1 memory=1Gi\npod big requests(cpu=2)\n"
    lines = _explain(text, "big")
    assert lines[1] == f"  (… in node names stands for {eks})"
    assert ("    ip-10-0-1-1…, ip-10-0-1-2… and 58 more nodes (60): "
            "scheduler.filter.NodeResourcesFit fail: Insufficient cpu (3 pass)") in lines
    # the queue retries the pod every 5 minutes; retries that repeat attempt 1 are one line
    assert any(x.startswith("  attempts 2 to ") and x.endswith(": each as attempt 1")
               for x in lines)
    assert len(lines) < 20


def test_a_node_is_explained_with_its_end_state_first() -> None:
    lines = _explain(PREEMPTION, "node-1")
    assert lines[:2] == ["explain node-1",
                         "  node-1: 1 pod running at the end (web); 4 decisions on it"]
    assert "  rules:" in lines
