"""Differential test: the reference rules alone decide as with every fast path on.

Each fast path is compared with the reference on its own elsewhere (batch
search, cycle cache, victim arithmetic, quota arithmetic).  Here the
reference runs with none of them (``FastPaths`` all off: every question goes
to the readable rules, none to the fast implementations the composition root chooses) on the
preemption, quota and kubelet-pressure generators' clusters, and every
decision must be the same as with all of them on (and, for preemption and the
kubelet, the trace; quota reclaim's trace names the nodes the cycle cache lets
it skip, so only its decisions are compared).  The kubelet's clusters also
compare the node conditions and the eviction managers' memory.
"""

from __future__ import annotations

import attrs
import pytest
from test_kubelet_idle_pass import scenario as kubelet_scenario
from test_preemption_fastpath import scenario as preemption_scenario
from test_quota_reclaim_fastpath import scenario as quota_scenario

import kruleset
from kruleset.rules.kubelet.eviction.manager import manager_state
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.sim.core import Simulation

NONE = FastPaths(batch_search=False, cycle_cache=False, victims=False, reclaim=False,
                 pdb_selection=False, quiet_kubelet=False, node_vectors=False)


def _decisions(text: str, fast: FastPaths, *, trace: bool = False) -> list[object]:
    sim = Simulation(kruleset.load(text), fast=fast, trace=trace)
    sim.run()
    return _decisions_of(sim)


def _decisions_of(sim: Simulation) -> list[object]:
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


def _kubelet_outcome(text: str, fast: FastPaths, trace: bool) -> list[object]:
    sim = Simulation(kruleset.load(text), fast=fast, trace=trace)
    sim.run()
    out = _decisions_of(sim)
    for n in sim.state.nodes.values():
        st = manager_state(n)
        out.append((n.name, dict(n.conditions), list(n.taints), st.thresholds_met,
                    st.first_observed, st.last_observed, st.last_obs_time, st.conditions,
                    st.last_pass))
    return out


@pytest.mark.parametrize("seed", range(0, 120, 4))
def test_kubelet_without_fast_paths_decides_and_traces_the_same(seed: int) -> None:
    text = kubelet_scenario(seed)
    trace = seed % 8 == 0
    assert _kubelet_outcome(text, NONE, trace) == _kubelet_outcome(text, FastPaths(), trace)


def test_every_fast_path_is_off_in_the_reference_run() -> None:
    """A new ``FastPaths`` option must be turned off here too (and compared above)."""
    assert all(value is False for value in attrs.asdict(NONE).values())
