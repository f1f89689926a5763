"""The HTML report's amounts, end state and attempts, read from a run (no browser).

A node of 4 cpu runs ``a`` (3 cpu); ``b`` (2 cpu) arrives at 10 s and fails
there, for 1 cpu is free; ``a`` is deleted at 20 s with a 30 s grace period,
so it still holds its cpu while terminating and ``b`` fails again until ``a``
is gone at 50 s.  The expected words come from these declared numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kruleset
from kruleset.model.quantity import format_duration
from kruleset.report.html_model import file_data
from kruleset.report.html_usage import amount

SCENARIO = """scenario "a terminating pod holds its cpu"
node n1 cpu=4 memory=8Gi
node n2 cpu=1 memory=8Gi
pod a on n1 cpu=3 memory=1Gi
at 10s create pod b cpu=2 memory=1Gi
at 20s delete pod a grace-period=30s
expect pod b running on n1
run until 2m
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any]]:
    path = tmp_path_factory.mktemp("usage") / "terminating.kr"
    path.write_text(SCENARIO, encoding="utf-8")
    result = kruleset.run(kruleset.load(path), trace=True)
    return result, file_data(str(path), "passed", result)


def test_amounts_are_written_as_people_read_them() -> None:
    assert [amount("cpu", v) for v in (2000, 900, 2525, 0)] == ["2", "0.9", "2.525", "0"]
    assert amount("memory", 512 << 20) == "512Mi" and amount("memory", 3 << 29) == "1.5Gi"
    assert amount("pods", 110) == "110"


def _cells(data: dict[str, Any], pod: str) -> list[tuple[int, str, str]]:
    """(time, node, why-not cell) of every failed row of the pod's attempts."""
    s, p = data["S"], data["pods"].index(pod)
    return [(a["t"], data["nodes"][r[0]], s[r[2]] + (": " + s[r[5]] if r[5] >= 0 else ""))
            for a in data["attempts"] if a["p"] == p for r in a.get("rows", ()) if r[2] >= 0]


def test_why_not_cells_carry_the_amounts(run: tuple[Any, dict[str, Any]]) -> None:
    result, data = run
    cells = _cells(data, "default/b")
    assert cells, "b failed somewhere before it ran"
    for time, node, cell in cells:
        if node == "n2":  # 1 cpu and nothing on it
            assert cell == "Insufficient cpu: needs 2 cpu, 1 free of 1"
        else:  # a's 3 cpu count until it is gone, terminating included
            assert time < 50_000 and cell == "Insufficient cpu: needs 2 cpu, 1 free of 4"
    bound = next(d for d in result.decisions if d.kind == "scheduled" and d.pod == "default/b")
    assert bound.node == "n1" and bound.time == 50_000


def test_end_state_and_attempts_follow_the_run(run: tuple[Any, dict[str, Any]]) -> None:
    result, data = run
    pods, nodes, s = data["pods"], data["nodes"], data["S"]
    placed = {nodes[n]: [pods[p] for p in ps] for n, ps in data["endstate"]["nodes"]}
    assert placed == {"n1": ["default/b"]} and data["endstate"]["pending"] == []
    queue = {pods[p]: rows for p, rows in data["queue"]}
    mine = [a for a in result.attempts if a.pod == "default/b"]
    assert [(r[0], r[1], s[r[2]], s[r[3]]) for r in queue["default/b"]] == [
        (a.time, a.attempt, a.result, a.why) for a in mine]
    assert len(mine) >= 2 and format_duration(mine[-1].time) == "50s"
    assert data["alloc"][nodes.index("n1")] == [4000, 8 << 30]
    assert data["req"][pods.index("default/b")] == [2000, 1 << 30]


def test_a_pod_pending_at_the_end_is_listed_with_its_message(tmp_path: Path) -> None:
    path = tmp_path / "pending.kr"
    path.write_text('scenario "x"\nnode n1 cpu=1 memory=1Gi\npod big cpu=2\nrun until 10s\n',
                    encoding="utf-8")
    result = kruleset.run(kruleset.load(path), trace=True)
    data = file_data(str(path), "passed", result)
    ((pod, message, nominated),) = data["endstate"]["pending"]
    assert data["pods"][pod] == "default/big" and nominated == -1
    assert data["S"][message] == result.state.pods["default/big"].schedule_message
