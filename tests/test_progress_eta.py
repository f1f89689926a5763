"""The progress line's estimate of the time left comes from simulated progress, so it
shrinks while a large cluster is scheduled at one simulated instant."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pytest

from kruleset import api, progress
from kruleset.progress import ACTIVITY, ProgressLine, fraction_done
from kruleset.sim.core import Simulation


@pytest.mark.parametrize(("now", "end", "decisions", "pods", "fraction"), [
    (0, None, 0, 0, 0.0),
    (0, None, 1500, 3000, 0.5),        # t=0 s: the decisions say how far it is
    (30_000, 60_000, 10, 3000, 0.5),   # later: the simulated time does
    (60_000, 60_000, 0, 0, 0.99),      # never done while it runs
    (0, 0, 9000, 3000, 0.99),          # pending pods decided again and again
])
def test_fraction_done(now: int, end: int | None, decisions: int, pods: int,
                       fraction: float) -> None:
    assert fraction_done(now, end, decisions, pods) == pytest.approx(fraction)


def _left(text: str) -> float:
    m = re.search(r"about ([\d.]+) s left", text)
    assert m, text
    return float(m.group(1))


def test_the_estimate_shrinks_while_one_instant_is_scheduled(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    clock = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    line = ProgressLine(io.StringIO(), total=2)
    line.file_done()  # the first file took no time: the running one decides the estimate
    line.text()
    sim = SimpleNamespace(now=0, until=None, horizon=0, decisions=[],
                          state=SimpleNamespace(pods=dict.fromkeys(range(3000))))
    ACTIVITY.begin("big.kr")
    ACTIVITY.simulating(sim)
    try:
        seen = []
        clock[0] = 1.0
        line.text()  # the file is first seen running at 1 s
        for second, decided in ((11, 500), (21, 1000), (31, 1500), (41, 2000)):
            clock[0] = second
            sim.decisions = [None] * decided
            seen.append(_left(line.text()))
    finally:
        ACTIVITY.end()
    # a steady 50 pods a second: the time left shrinks as the pods are decided
    assert seen == sorted(seen, reverse=True) and seen[-1] < seen[0]
    assert seen == [50.0, 40.0, 30.0, 20.0]


def test_a_simulation_knows_its_expected_end() -> None:
    sim = Simulation(api.load("node n1 cpu=1 memory=1Gi\nat 30s create pod a\n"))
    assert sim.horizon is None
    sim.run()
    assert sim.horizon == 30_000
    sim = Simulation(api.load("node n1 cpu=1 memory=1Gi\npod a\nrun until 2m\n"))
    sim.run()
    assert sim.horizon == 120_000
