"""Preemption choices upstream makes at random, against the timeline oracle (``timeline.py``).

Where the dry run starts.

images seed 124502: eight nodes, ``minCandidateNodesAbsolute: 2`` and
``minCandidateNodesPercentage: 0``, so each of the three preemptors' dry runs
stops at two candidates, and which two depends on where it starts.  Upstream
starts at a random offset into a list filled from a map; the timeline oracle
nominates a different node from one run to the next (eleven outcomes in
twelve runs, measured).  kruleset starts at the first potential node; the
comparison starts it elsewhere where the oracle nominated another node, and
goes on only if that makes the attempt agree entirely.

Full ties.  Timeline seed 51240: at 11.5 s ``p8`` (urgent) can preempt
``b5`` on n1 (running from the start) or ``p6`` on n2 (bound at 0 s), one
``mid`` victim each; their start times are equal to the second (and to
kruleset's millisecond), so upstream takes the first key of a map.  The
oracle's ticks make ``p6`` a few microseconds younger, so it nominates n2;
kruleset, by node order, n1.  kruleset is made to take n2 there.
"""

from __future__ import annotations

from typing import Any

import pytest

from .cycle_timeline import as_timeline
from .generator import generate
from .timeline import check_timeline, find_timeline_oracle, run_kruleset_timeline
from .timeline_generator import generate_timeline

BINARY, WHY = find_timeline_oracle()


def _case() -> dict[str, Any]:
    return as_timeline(generate(124502, "images"))


def _first_preemption(offsets: dict[int, int] | None = None) -> tuple[str, list[str], int]:
    attempts, _, ties = run_kruleset_timeline(_case(), offsets=offsets)
    a = attempts[0]
    assert (a.pod, a.result) == ("default/in1", "unschedulable")
    return a.nominated, list(a.victims), ties[0].potential


def test_kruleset_starts_the_dry_run_at_the_first_potential_node() -> None:
    assert _first_preemption() == ("n1", ["default/p15"], 8)


def test_starting_the_dry_run_elsewhere_nominates_another_node() -> None:
    # Not vacuous: the offsets the comparison tries do change kruleset's choice.
    seen = set()
    for start in range(8):
        node, victims, _ = _first_preemption({0: start})
        seen.add((node, tuple(victims)))
    assert ("n1", ("default/p15",)) in seen and len(seen) > 2


@pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")
def test_every_outcome_of_the_oracle_is_followed_without_rerunning_it() -> None:
    assert BINARY is not None
    followed = 0
    for _ in range(4):
        # No reruns: each random outcome must be met by starting kruleset's dry runs
        # elsewhere, not by waiting for the oracle to pick kruleset's nodes.
        out = check_timeline(BINARY, _case(), reruns=0)
        assert out.agreed, out.mismatches[:3]
        assert not out.varied and out.pods >= 3
        followed += out.offsets_followed
    assert followed > 0


def _p8(forced: dict[int, str] | None = None) -> tuple[str, list[str], set[str]]:
    attempts, _, ties = run_kruleset_timeline(generate_timeline(51240), forced,
                                              reference=True)
    (i,) = [i for i, a in enumerate(attempts) if a.pod == "default/p8" and a.time == 11500]
    return attempts[i].nominated, list(attempts[i].victims), ties[i].picks


def test_kruleset_records_the_candidates_tied_on_every_criterion_but_node_order() -> None:
    assert _p8() == ("n1", ["default/b5"], {"n1", "n2"})
    assert _p8({2: "n2"}) == ("n2", ["default/p6"], {"n1", "n2"})


@pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")
def test_a_full_preemption_tie_is_followed() -> None:
    assert BINARY is not None
    out = check_timeline(BINARY, generate_timeline(51240), reruns=0)
    assert out.agreed, out.mismatches[:3]
    assert out.ties_followed == 1 and out.pods == 10
