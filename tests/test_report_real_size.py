"""The text report of a real-size run: filters, short lines, counts instead of lists,
and words a user knows (issue: reports people can read at real size)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kruleset import api
from kruleset.cli import main
from kruleset.report.compact import NodeNames, pick_words
from kruleset.report.filters import FilterError, make_filter
from kruleset.report.text import Style, render_result

EKS = ".eu-west-1.compute.internal"

CLUSTER = f"""\
priorityclass high value=1000
nodes ip-10-0-1-[1..40]{EKS} cpu=2 memory=4Gi
deployment batch replicas=40 requests(cpu=1500m)
pods team-a/db-[1..3] requests(cpu=100m)
at 10s create deployment web replicas=10 priorityclass=high requests(cpu=1)
at 20s create deployment huge replicas=60 requests(cpu=3)
expect pods default/huge-* running count=60
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("real") / "cluster.kr"
    path.write_text(CLUSTER)
    return str(path)


@pytest.fixture(scope="module")
def text(cluster: str) -> str:
    return render_result("cluster.kr", api.run(cluster), Style(color=False))


def _decisions(report: str) -> list[str]:
    return [line for line in report.splitlines() if re.match(r"^ +\d+(ms|s|m|h)", line)]


def test_the_node_names_common_suffix_is_elided_with_one_legend_line(text: str) -> None:
    assert text.count(EKS) == 1
    assert f"  (… in node names stands for {EKS})" in text.splitlines()
    assert " on ip-10-0-1-1… " in text or text.count(" on ip-10-0-1-1…\n") >= 1


def test_common_decision_lines_fit_120_columns(text: str) -> None:
    lines = _decisions(text)
    kinds = {line.split()[1] for line in lines}
    assert {"scheduled", "preempted", "nominated", "pending"} <= kinds
    # upstream's whole message is kept when preemption adds its own part to it
    long = [line for line in lines if len(line) > 120 and "preemption:" not in line]
    assert long == []
    assert "[NodeResourcesFit]" in text


def test_the_same_decision_for_many_pods_is_one_line_with_the_count(text: str) -> None:
    pending = [line for line in _decisions(text) if "default/huge-" in line and "pending" in line]
    assert pending == [pending[0]]
    assert "default/huge-1, default/huge-2 and 58 more (60 pods)" in pending[0]
    assert "0/40 nodes are available" in pending[0]


def test_pods_running_at_one_instant_are_one_line_whatever_their_nodes() -> None:
    scenario = "nodes n[1..5] cpu=4 memory=8Gi\n" + "".join(
        f"pod p{i} on n{i % 5 + 1} requests(cpu=100m)\n" for i in range(1, 21))
    lines = _decisions(render_result("x.kr", api.run(scenario), Style(color=False)))
    running = [line for line in lines if " running " in line]
    assert running == ["       0s  running    default/p1 on n2, default/p2 on n3 and 18 more "
                       "(20 pods on 5 nodes)"]
    # below the grouping threshold each pod keeps its line
    few = render_result("x.kr", api.run("node n1 cpu=1 memory=1Gi\npod a on n1\npod b on n1\n"),
                        Style(color=False))
    assert "running    default/a on n1" in few and "running    default/b on n1" in few


def test_a_count_over_many_pods_is_summarised_by_state(text: str) -> None:
    line = next(x for x in text.splitlines() if "expect pods default/huge-*" in x)
    assert "default/huge-1, default/huge-2 and 58 more pods pending: 0/40 nodes" in line
    assert line.endswith("(×60))")
    assert line.count("default/huge-") == 3  # the expectation's glob and two pods


def test_preemption_picks_read_in_plain_words_and_keep_rules_in_json(cluster: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", cluster])
    out = capsys.readouterr().out
    assert "first node in the scheduler's order" in out
    assert "scheduler.preemption.pick" not in out and "node #" not in out
    main(["run", "--format", "json", cluster])
    decisions = json.loads(capsys.readouterr().out)["files"][0]["decisions"]
    nominated = next(d for d in decisions if d["kind"] == "nominated")
    assert nominated["message"].startswith("scheduler.preemption.pick.first-declared-node")
    preempted = next(d for d in decisions if d["kind"] == "preempted")
    assert "scheduler.preemption.pick.first-declared-node" in preempted["rules"]
    assert preempted["message"].startswith("Preempted by pod default/web-")


@pytest.mark.parametrize(("rule", "words"), [
    ("scheduler.preemption.pick.fewest-victims: 1 victim(s) < 2 victim(s)",
     "fewest victims (1 victim(s) < 2 victim(s))"),
    ("scheduler.preemption.pick.lowest-highest-priority: highest victim priority 10 < "
     "highest victim priority 20",
     "lowest-priority victims (highest victim priority 10 < highest victim priority 20)"),
    ("scheduler.preemption.pick.first-declared-node: node #1 < node #2",
     "first node in the scheduler's order"),
    ("some.other.rule: a < b", "some.other.rule: a < b"),
])
def test_pick_words(rule: str, words: str) -> None:
    assert pick_words(rule) == words


def test_the_fewest_victims_pick_says_so() -> None:
    scenario = """\
nodes n[1..2] cpu=2 memory=4Gi
pod a-1 on n1 priority=-2147483648 requests(cpu=1)
pod a-2 on n1 priority=10 requests(cpu=1)
pod b on n2 priority=10 requests(cpu=2)
at 10s create pod p priority=1000 requests(cpu=2)
"""
    text = render_result("x.kr", api.run(scenario), Style(color=False))
    assert "nominated  default/p on n2: fewest victims (1 victim(s) < 2 victim(s))" in text


@pytest.mark.parametrize(("names", "suffix"), [
    ([f"ip-10-0-1-{i}{EKS}" for i in range(3)], EKS),
    (["node-1", "node-2"], ""),                       # no dotted suffix
    (["a.example.internal"], ""),                     # one node: nothing to share
    (["n1.example.internal", "example.internal"], ".internal"),  # a label stays before it
    (["n1.example.internal", ".example.internal"], ""),  # a name would be only the suffix
    (["n1.cluster.local", "n2.cluster.local", "other"], ""),
])
def test_the_common_suffix(names: list[str], suffix: str) -> None:
    assert NodeNames(names).suffix == suffix


# --- filters ----------------------------------------------------------------------------


def _json_decisions(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, str]]:
    main(["run", "--format", "json", *args])
    return list(json.loads(capsys.readouterr().out)["files"][0]["decisions"])


def test_only_keeps_the_kinds_given(cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    everything = _json_decisions(capsys, cluster)
    kept = _json_decisions(capsys, cluster, "--only", "preempted,nominated")
    assert kept == [d for d in everything if d["kind"] in ("preempted", "nominated")]
    assert {d["kind"] for d in kept} == {"preempted", "nominated"}
    main(["run", cluster, "--only", "preempted"])
    out = capsys.readouterr().out
    count = sum(d["kind"] == "preempted" for d in everything)
    assert f"showing {count} of {len(everything):,} decisions (--only preempted)" in out
    assert {line.split()[1] for line in _decisions(out)} == {"preempted"}
    assert "expect pods default/huge-* running count=60" in out  # checked on the whole run


def test_namespace_time_window_and_pod(cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    everything = _json_decisions(capsys, cluster)
    assert _json_decisions(capsys, cluster, "--namespace", "team-a") == [
        d for d in everything if d["pod"].startswith("team-a/")]
    window = _json_decisions(capsys, cluster, "--from", "10s", "--to", "15s")
    assert window and window == [d for d in everything if d["time"] == "10s"]
    web = _json_decisions(capsys, cluster, "--pod", "web-1")
    assert web == [d for d in everything if "default/web-1" in (d["pod"], d["by"])]
    assert {d["kind"] for d in web} >= {"preempted", "nominated", "scheduled"}
    assert _json_decisions(capsys, cluster, "--pod", "team-a/db-*") == [
        d for d in everything if d["pod"].startswith("team-a/db-")]


@pytest.mark.parametrize(("args", "message"), [
    (["--only", "evictd"], "no decision kind 'evictd'; did you mean 'evicted'?"),
    (["--only", ","], "--only: expected KIND"),
    (["--from", "soon"], "--from:"),
    (["--from", "20s", "--to", "10s"], "--from 20s is after --to 10s"),
])
def test_a_bad_filter_is_refused(cluster: str, args: list[str], message: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", cluster, *args]) == 2
    assert message in capsys.readouterr().err


def test_make_filter_reports_the_options_as_given() -> None:
    f = make_filter("evicted,preempted", "ns", "1m", "90s", "web-*")
    assert f.options == "--only preempted,evicted --namespace ns --from 1m --to 1m30s --pod web-*"
    with pytest.raises(FilterError):
        make_filter(only="everything")


def test_run_until_is_still_the_simulations_end(cluster: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    decisions = _json_decisions(capsys, cluster, "--until", "5s")
    assert decisions and all(d["time"] == "0s" for d in decisions)


def test_a_glob_over_many_pods_is_summarised_too() -> None:
    text = ("nodes n[1..20] cpu=2 memory=4Gi\npods web-[1..30] requests(cpu=1)\n"
            "expect pod web-* pending\n")
    result = api.run(text)
    assert result.expectations[0].message == (
        "default/web-1, default/web-2 and 28 more pods running (×30)")
    few = api.run("nodes n[1..2] cpu=2 memory=4Gi\npods web-[1..2] requests(cpu=1)\n"
                  "expect pod web-* pending\n")
    assert few.expectations[0].message.startswith("default/web-1 is running on ")


def test_only_knows_every_decision_kind_the_simulation_records() -> None:
    """A kind recorded anywhere in kruleset/ (``record("kind", …)``, a Job's condition
    kinds) is one ``--only`` accepts: a new kind added without it would be refused."""
    import ast
    from pathlib import Path

    import kruleset
    from kruleset.report.filters import KINDS
    from kruleset.sim.job import _KIND_OF

    recorded = set(_KIND_OF.values())
    for path in Path(kruleset.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "record" and node.args):
                first = node.args[0]
                values = [first] if not isinstance(first, ast.IfExp) else [first.body,
                                                                           first.orelse]
                recorded |= {v.value for v in values
                             if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    assert recorded and recorded <= set(KINDS), sorted(recorded - set(KINDS))
