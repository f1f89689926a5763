"""kruleset against the real kube-scheduler v1.35.4 (the oracle), on a bounded sample.

The oracle is ``../shared/oracle/bin/kr-oracle`` beside the repository, or
``$KRULESET_ORACLE``; without it these tests are skipped, saying so.  Each
incoming pod is compared attempt by attempt (result, node, feasible nodes,
per-node total scores, message word for word, nomination, victims, and the
retries after a preemption), up to the point where the two clusters' states
part: the oracle has no scheduling queue, so a pending pod is retried only
after a preemption, where kruleset retries on every change (see
``compare.py``).  ``scripts/differential.py`` runs any number of clusters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .generator import GROUPS, generate
from .oracle import find_oracle
from .verdict import check

BINARY, WHY = find_oracle()
pytestmark = pytest.mark.skipif(BINARY is None, reason=WHY or "the oracle is absent")

# Per-node total scores are compared (kruleset's traced attempts carry them).
SCORES = True
# Clusters per feature group in the default run (13 groups: about 30 s).
PER_GROUP = 6
SEED = 20261125
CASES = Path(__file__).parent / "cases"

# Known disagreements still being fixed (classes from verdict.KNOWN); a
# cluster whose every disagreement is one of these is accepted.  Empty: the
# five points of the fidelity issue are fixed, any disagreement fails.
PENDING: set[str] = set()


def _verdict_text(v: object) -> str:
    comp = getattr(v, "comparison", None)
    lines = [f"classes: {getattr(v, 'classes', [])}"]
    if comp is not None:
        lines += [m.describe() for m in comp.mismatches]
    return "\n".join(lines)


def _accepted(classes: list[str]) -> bool:
    return all(any(c.startswith(p) for p in PENDING) for c in classes)


@pytest.mark.parametrize("group", [*GROUPS, "mixed"])
def test_random_clusters_agree(group: str) -> None:
    assert BINARY is not None
    failures = []
    compared = 0
    for seed in range(SEED, SEED + PER_GROUP):
        case = generate(seed, group)
        v = check(BINARY, case, scores=SCORES)
        assert v.comparison is not None, v.error
        compared += v.comparison.instants
        if not v.agrees and not _accepted(v.classes):
            failures.append(f"--group {group} seed {seed}\n{_verdict_text(v)}")
    assert compared > 0
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("path", sorted(CASES.glob("*.json")), ids=lambda p: p.stem)
def test_hand_written_case_agrees(path: Path) -> None:
    assert BINARY is not None
    case = json.loads(path.read_text())
    v = check(BINARY, case, scores=SCORES)
    assert v.comparison is not None, v.error
    assert v.comparison.instants == len(case["incoming"])
    assert v.agrees or _accepted(v.classes), _verdict_text(v)


def test_generation_is_deterministic() -> None:
    for group in [*GROUPS, "mixed"]:
        assert generate(7, group) == generate(7, group)
    assert generate(7, "spread") != generate(8, "spread")
