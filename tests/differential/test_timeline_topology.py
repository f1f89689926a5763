"""Spreading and (anti-)affine pods over time against kube-scheduler v1.35.4 with its queue.

The timeline oracle is found as in ``test_timeline_oracle.py`` (skipped,
saying why, when absent).  The reduced cases of ``topology_cases.py``, each a
disagreement once found with terminating preemption victims, and a sample of
``scripts/differential.py --timeline --topology``'s random timelines (the
seeds that found them included) are compared pod by pod on every attempt and
on the final placement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .timeline import check_timeline, find_timeline_oracle
from .timeline_topology import generate_topology_timeline
from .topology_cases import CASES

BINARY, WHY = find_timeline_oracle()
pytestmark = pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")

# 16: a spread dry run removing a terminating pod; 164: one preemption's
# victims ending together; 352: a nominated pod's anti-affinity under Skip;
# 680: equally important victims in the scheduler cache's order.
FOUND = (16, 164, 352, 680)
SAMPLE = range(1, 13)


@pytest.mark.parametrize("build", CASES.values(), ids=list(CASES))
def test_reduced_case_agrees(build: Callable[[], dict[str, Any]]) -> None:
    assert BINARY is not None
    out = check_timeline(BINARY, build())
    assert out.agreed, "\n".join(out.mismatches)


def test_topology_timelines_agree() -> None:
    assert BINARY is not None
    failures = []
    for seed in (*FOUND, *SAMPLE):
        out = check_timeline(BINARY, generate_topology_timeline(seed))
        if not out.agreed:
            failures.append(f"seed {seed}:\n  " + "\n  ".join(out.mismatches[:5]))
    assert not failures, "\n".join(failures)
