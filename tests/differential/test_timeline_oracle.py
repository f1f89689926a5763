"""kruleset's scheduling queue against the real kube-scheduler v1.35.4 with its queue.

The timeline oracle is ``../shared/oracle-timeline/bin/kr-timeline-oracle``
beside the repository, or ``$KRULESET_TIMELINE_ORACLE``; without it these
tests are skipped, saying so.  Each case is compared pod by pod on every
attempt (time, result, node, message word for word, nominated node, victims)
and on the final placement (``timeline.py``).  ``scripts/differential.py
--timeline`` runs any number of random timelines.

Where the oracle's emulation cannot be matched:

* score ties: kruleset takes the first best node in node order, the oracle
  upstream's score heap; at a tie the oracle resolved otherwise kruleset is
  run again taking the oracle's node (``timeline.check_timeline``), and the
  comparison stops only past eight such ties;
* where preemption's dry run starts when it wants fewer candidates than
  nodes: upstream starts at a random offset into a map's order; where the
  oracle nominated another node kruleset's dry run is started at each other
  node in turn, and the comparison goes on with the one that agrees
  (``test_preemption_ties.py``);
* the oracle's own race between an asynchronous preemption's victim
  deletions and the preemptor's PreEnqueue gate (the same input gives either
  outcome): kruleset must match one of the oracle's outcomes;
* binding failures (the oracle's ``bindFailures``, example c2): kruleset
  has none, so the error backoff is covered by ``tests/test_queue.py`` only.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .timeline import check_timeline, find_timeline_oracle, run_kruleset_timeline
from .timeline_generator import generate_timeline

BINARY, WHY = find_timeline_oracle()
pytestmark = pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")

SEED = 20261128
SAMPLE = 48  # random timelines in the default run (about 15 s)


def _res(cpu: str) -> dict[str, Any]:
    return {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
            "capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}


def _pod(name: str, cpu: str, cls: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": {"cpu": cpu}}}],
                            "priorityClassName": cls}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": name}, "spec": spec}


def _b2(delete_at: int) -> dict[str, Any]:
    """low (10) fails at 0s, high (100) at 2.5s; old is deleted at ``delete_at``."""
    return {
        "priorityClasses": [{"metadata": {"name": n}, "value": v}
                            for n, v in (("top", 1000), ("high", 100), ("low", 10))],
        "nodes": [{"metadata": {"name": "n1"}, "status": _res("4")}],
        "pods": [_pod("old", "4", "top", "n1"), _pod("low", "4", "low")],
        "timeline": [{"at": 2500, "op": "create", "pod": _pod("high", "4", "high")},
                     {"at": delete_at, "op": "delete", "kind": "pod", "name": "default/old",
                      "gracePeriodSeconds": 0}],
    }


@pytest.mark.parametrize("delete_at", [3200, 20000])
def test_who_gets_freed_capacity_agrees(delete_at: int) -> None:
    assert BINARY is not None
    out = check_timeline(BINARY, _b2(delete_at))
    assert out.agreed, "\n".join(out.mismatches)


def test_b2_low_wins_at_3_2s_then_high_preempts_it() -> None:
    # The example, on kruleset alone: what the oracle comparison above proves.
    attempts, final, _ = run_kruleset_timeline(_b2(3200))
    rows = [(a.time, a.pod, a.result, a.node) for a in attempts if a.result == "scheduled"]
    assert rows == [(3200, "default/low", "scheduled", "n1"),
                    (33200, "default/high", "scheduled", "n1")]
    assert final["default/low"]["state"] == "deleted"


def test_the_oracles_examples_agree() -> None:
    assert BINARY is not None
    examples = BINARY.parents[1] / "examples"
    names = sorted(p.name for p in examples.glob("*.json"))
    if not names:
        pytest.skip(f"no examples beside the oracle ({examples})")
    failures = []
    for name in names:
        case = json.loads((examples / name).read_text())
        if case.get("bindFailures"):
            continue  # kruleset has no binding failures (module doc)
        out = check_timeline(BINARY, case)
        if not out.agreed:
            failures.append(f"{name}:\n  " + "\n  ".join(out.mismatches))
    assert not failures, "\n".join(failures)


def test_random_timelines_agree() -> None:
    assert BINARY is not None
    failures = []
    for seed in range(SEED, SEED + SAMPLE):
        out = check_timeline(BINARY, generate_timeline(seed))
        if not out.agreed:
            failures.append(f"seed {seed}:\n  " + "\n  ".join(out.mismatches[:5]))
    assert not failures, f"{len(failures)} of {SAMPLE} timelines disagree:\n" + \
        "\n".join(failures)


CONFIG_SAMPLE = 24  # timelines with a random scheduler configuration (about 5 s)
# Where the configuration changes kruleset's attempts (their order within an instant:
# a longer backoff keeps a pod in backoffQ while a freed pod goes first), found among
# the 300 seeds from SEED.
RETIMED = (20261246, 20261319)


def _attempts(case: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(a.time, a.pod, a.result) for a in run_kruleset_timeline(case)[0]]


def test_random_timelines_with_a_scheduler_configuration_agree() -> None:
    # podInitialBackoffSeconds, podMaxBackoffSeconds and DefaultPreemption's candidate
    # counts drawn per timeline (timeline_generator.scheduler_config).
    assert BINARY is not None
    failures = []
    for seed in [*range(SEED, SEED + CONFIG_SAMPLE), *RETIMED]:
        out = check_timeline(BINARY, generate_timeline(seed, config=True))
        if not out.agreed:
            failures.append(f"seed {seed}:\n  " + "\n  ".join(out.mismatches[:5]))
    assert not failures, f"{len(failures)} timelines disagree:\n" + "\n".join(failures)


def test_the_configuration_changes_what_kruleset_does() -> None:
    # Not vacuous: with the configuration the attempts differ from the default's.
    for seed in RETIMED:
        assert _attempts(generate_timeline(seed, config=True)) != \
            _attempts(generate_timeline(seed))
