"""Differential test: the reference rules alone decide as with every fast path on.

Each fast path is compared with the reference on its own elsewhere (batch
search, cycle cache, victim arithmetic, quota arithmetic).  Here the
reference runs with none of them (``FastPaths`` all off: every question goes
to the readable rules, none to the dispatch point's fast answers) on the
preemption and quota generators' clusters, and every decision must be the
same as with all of them on (and, for preemption, the trace; quota reclaim's
trace names the nodes the cycle cache lets it skip, so only its decisions
are compared).
"""

from __future__ import annotations

import pytest
from test_preemption_fastpath import scenario as preemption_scenario
from test_quota_reclaim_fastpath import scenario as quota_scenario

import kruleset
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.sim.core import Simulation

NONE = FastPaths(batch_search=False, cycle_cache=False, victims=False, reclaim=False,
                 pdb_selection=False, node_vectors=False)


def _decisions(text: str, fast: FastPaths, *, trace: bool = False) -> list[object]:
    sim = Simulation(kruleset.load(text), fast=fast, trace=trace)
    sim.run()
    out: list[object] = [d.to_json() for d in sim.decisions]
    if sim.trace is not None:
        out.extend((e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries)
    return out


@pytest.mark.parametrize("seed", range(0, 150, 6))
def test_preemption_without_fast_paths_decides_and_traces_the_same(seed: int) -> None:
    text = preemption_scenario(seed)
    trace = seed % 12 == 0
    assert (_decisions(text, NONE, trace=trace)
            == _decisions(text, FastPaths(), trace=trace))


@pytest.mark.parametrize("seed", range(0, 120, 6))
def test_quota_reclaim_without_fast_paths_decides_the_same(seed: int) -> None:
    text = quota_scenario(seed)
    assert _decisions(text, NONE) == _decisions(text, FastPaths())
