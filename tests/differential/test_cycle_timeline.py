"""Every incoming pod of the one-cycle generator's clusters, against the timeline oracle.

``test_oracle.py`` compares each cluster with the one-cycle oracle up to the
first incoming pod that oracle leaves pending (it has no queue).  Here the
same clusters run as timelines through the real scheduler with its queue
(``../shared/oracle-timeline/bin/kr-timeline-oracle`` or
``$KRULESET_TIMELINE_ORACLE``; skipped, saying so, when absent), and every
incoming pod is compared: each attempt's time, result, node, message word for
word, nominated node and victims, and its final placement
(``cycle_timeline.py``).  ``scripts/differential.py`` does this for any
number of clusters.

Where the timeline oracle's emulation cannot be matched (its README):

* ElasticQuota clusters (the ``quota`` group): CapacityScheduling is not in
  the timeline oracle, so they are compared by the one-cycle oracle only
  (``test_quota_clusters_are_left_to_the_one_cycle_oracle``);
* DRA clusters (``dra_generator.py``): the timeline oracle takes no
  DeviceClasses, ResourceSlices or ResourceClaims; ``test_dra_oracle.py``
  compares them with the one-cycle oracle;
* score ties: the timeline oracle keeps upstream's score heap, kruleset takes
  the first best node; at a tie the oracle resolved otherwise kruleset is
  made to take the oracle's node (``timeline.check_timeline``), so the
  comparison goes on and no pod is left out;
* feasible-node sets and per-node scores are not in its output; the
  one-cycle comparison checks them.
"""

from __future__ import annotations

import pytest

from .cycle_timeline import check_cycle_timeline, unsupported
from .generator import GROUPS, generate
from .timeline import find_timeline_oracle

BINARY, WHY = find_timeline_oracle()
pytestmark = pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")

SEED = 20261128
PER_GROUP = 2  # clusters per feature group in the default run (about 10 s)
TIMELINE_GROUPS = [g for g in [*GROUPS, "mixed"] if g != "quota"]


def test_every_incoming_pod_agrees_over_time() -> None:
    assert BINARY is not None
    failures, compared, incoming = [], 0, 0
    for group in TIMELINE_GROUPS:
        for seed in range(SEED, SEED + PER_GROUP):
            r = check_cycle_timeline(BINARY, generate(seed, group))
            incoming += r.incoming
            compared += r.compared
            if r.unsupported:
                continue
            assert r.outcome is not None
            if not r.agreed:
                failures.append(f"--group {group} seed {seed}:\n  "
                                + "\n  ".join(r.outcome.mismatches[:5]))
            elif r.compared != r.incoming:
                failures.append(f"--group {group} seed {seed}: {r.compared} of "
                                f"{r.incoming} incoming pods compared ({r.stopped})")
    assert not failures, "\n".join(failures)
    assert compared == incoming > 0


def test_quota_clusters_are_left_to_the_one_cycle_oracle() -> None:
    assert BINARY is not None
    case = generate(SEED, "quota")
    assert case.get("elasticQuotas")
    r = check_cycle_timeline(BINARY, case)
    assert r.unsupported == unsupported(case) != ""
    assert r.compared == 0 and r.outcome is None
