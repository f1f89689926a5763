"""Terminating preemption victims, spreading and anti-affinity over time: kruleset alone.

The timelines of ``tests/differential/topology_cases.py`` (reduced from
disagreements with kube-scheduler v1.35.4, which
``tests/differential/test_timeline_topology.py`` compares when the timeline
oracle is there), with the outcome upstream gives asserted on kruleset.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from differential.timeline import run_kruleset_timeline  # noqa: E402
from differential.topology_cases import (  # noqa: E402
    force_deleted_victim,
    nominated_anti_affinity_skipped,
    same_instant_bindings,
    spread_terminating_victim,
    victims_end_together,
    victims_in_cache_order,
)


def _rows(case: dict[str, Any]) -> list[tuple[Any, ...]]:
    attempts, _, _ = run_kruleset_timeline(case)
    return [(a.time, a.pod.split("/")[1], a.result, a.node, a.nominated, a.victims)
            for a in attempts]


def test_a_spread_dry_run_picks_the_terminating_pod_and_waits_for_it() -> None:
    # updateWithPod counts the removed terminating pod PreFilter skipped: it is
    # the victim, already going; the preemptor waits for it, then preempts keep.
    assert _rows(spread_terminating_victim()) == [
        (2000, "spread", "unschedulable", "", "n1", ()),
        (4000, "spread", "unschedulable", "", "n1", ("default/keep",)),
        (4000, "spread", "scheduled", "n1", "", ()),
    ]


def test_a_nominated_pods_anti_affinity_is_skipped_with_interpodaffinity() -> None:
    # plain has no affinity terms and no bound pod's anti-affinity matches it:
    # InterPodAffinity is skipped for its cycle, so guard's nomination does not
    # keep it out; guard then preempts it.
    assert _rows(nominated_anti_affinity_skipped()) == [
        (1000, "plain", "unschedulable", "", "", ()),
        (2000, "guard", "unschedulable", "", "n1", ("default/big",)),
        (2000, "plain", "scheduled", "n1", "", ()),
        (2000, "guard", "unschedulable", "", "n1", ("default/plain",)),
        (2000, "guard", "scheduled", "n1", "", ()),
    ]


def test_one_preemptions_victims_go_at_one_instant() -> None:
    # Both victims end their grace period together: one round of retries.
    assert _rows(victims_end_together()) == [
        (1000, "big", "unschedulable", "", "n1", ("default/v1", "default/v2")),
        (2000, "wait", "unschedulable", "", "", ()),
        (31000, "big", "scheduled", "n1", "", ()),
        (31000, "wait", "unschedulable", "", "", ()),
    ]


def test_a_terminating_victim_deleted_with_grace_0_goes_at_once() -> None:
    assert _rows(force_deleted_victim()) == [
        (1000, "big", "unschedulable", "", "n1", ("default/victim",)),
        (5000, "big", "scheduled", "n1", "", ()),
    ]


def test_equally_important_victims_are_reprieved_in_the_cache_order() -> None:
    # first's deletion moved it behind second in the scheduler cache: second is
    # reprieved, first (already going) is the victim, nothing is deleted.
    assert _rows(victims_in_cache_order()) == [
        (2000, "p", "unschedulable", "", "n1", ()),
        (21000, "p", "scheduled", "n1", "", ()),
    ]


def test_pods_bound_at_one_instant_start_in_binding_order() -> None:
    # a was bound before b at 1 s: the more important of the two, reprieved.
    rows = _rows(same_instant_bindings())
    assert rows[-2:] == [
        (8000, "big", "unschedulable", "", "n1", ("default/b",)),
        (8000, "big", "scheduled", "n1", "", ()),
    ]
