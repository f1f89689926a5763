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
  the timeline oracle.  Each attempt kruleset makes on them is compared
  instead with the one-cycle oracle started from kruleset's state just
  before it (``resync.py``, ``test_every_quota_attempt_agrees``): every
  decision of every incoming pod, but not when the queue retries;
* DRA clusters (``dra_generator.py``): the timeline oracle takes no
  DeviceClasses, ResourceSlices or ResourceClaims; ``test_dra_oracle.py``
  compares them with the one-cycle oracle;
* score ties: the timeline oracle keeps upstream's score heap, kruleset takes
  the first best node; at a tie the oracle resolved otherwise kruleset is
  made to take the oracle's node (``timeline.check_timeline``), so the
  comparison goes on and no pod is left out;
* a pod kruleset's kubelet refuses (a profile disabled a filter its
  admission checks): the timeline oracle runs no kubelet, so its pod stays
  bound; the comparison over time stops at that bind and the cluster is
  compared attempt by attempt from kruleset's state (``resync.py``, which
  also starts the oracle's node search where kruleset's began:
  ``test_resync.py``);
* feasible-node sets and per-node scores are not in its output; the
  one-cycle comparison checks them.
"""

from __future__ import annotations

import pytest

from .cycle_timeline import check_cycle_timeline, check_every_pod, unsupported
from .generator import GROUPS, generate
from .oracle import find_oracle
from .resync import check_resynced
from .timeline import find_timeline_oracle

BINARY, WHY = find_timeline_oracle()
ONE_CYCLE, ONE_CYCLE_WHY = find_oracle()

SEED = 20261128
PER_GROUP = 2  # clusters per feature group in the default run (about 10 s)
TIMELINE_GROUPS = [g for g in [*GROUPS, "mixed"] if g != "quota"]


@pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")
@pytest.mark.skipif(ONE_CYCLE is None, reason=ONE_CYCLE_WHY or "the oracle is absent")
def test_every_incoming_pod_agrees_over_time() -> None:
    assert BINARY is not None
    failures, compared, incoming = [], 0, 0
    for group in TIMELINE_GROUPS:
        for seed in range(SEED, SEED + PER_GROUP):
            # Where the two part (a kubelet refusal), every attempt from kruleset's state.
            r = check_every_pod(BINARY, ONE_CYCLE, generate(seed, group))
            incoming += r.incoming
            compared += r.compared
            assert not r.unsupported and r.outcome is not None
            if not r.agreed:
                failures.append(f"--group {group} seed {seed}:\n  "
                                + "\n  ".join(r.mismatches[:5]))
            elif r.compared != r.incoming:
                failures.append(f"--group {group} seed {seed}: {r.compared} of "
                                f"{r.incoming} incoming pods compared ({r.stopped})")
    assert not failures, "\n".join(failures)
    assert compared == incoming > 0


@pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")
def test_quota_clusters_are_not_run_by_the_timeline_oracle() -> None:
    assert BINARY is not None
    case = generate(SEED, "quota")
    assert case.get("elasticQuotas")
    r = check_cycle_timeline(BINARY, case)
    assert r.unsupported == unsupported(case) != ""
    assert r.compared == 0 and r.outcome is None


QUOTA_SAMPLE = 12  # ElasticQuota clusters in the default run (about 10 s)


@pytest.mark.skipif(ONE_CYCLE is None, reason=ONE_CYCLE_WHY or "the oracle is absent")
def test_every_quota_attempt_agrees() -> None:
    assert ONE_CYCLE is not None
    failures, attempts, retries = [], 0, 0
    for seed in range(SEED, SEED + QUOTA_SAMPLE):
        case = generate(seed, "quota")
        r = check_resynced(ONE_CYCLE, case)
        attempts += r.attempts
        retries += r.attempts - r.incoming
        if not r.agreed:
            failures.append(f"--group quota seed {seed}:\n  " + "\n  ".join(r.mismatches[:5]))
    assert not failures, "\n".join(failures)
    # Retries were compared too, not only each pod's first attempt.
    assert attempts > QUOTA_SAMPLE and retries > 0


def test_a_cluster_as_a_timeline_creates_one_incoming_pod_a_second() -> None:
    # Without any oracle: the conversion both comparisons rest on.
    from .cycle_timeline import as_timeline
    from .kr_side import ARRIVAL_MS

    case = generate(SEED, "priority")
    tl = as_timeline(case)
    assert "incoming" not in tl and tl["nodes"] == case["nodes"]
    assert [(ev["at"], ev["op"], ev["pod"]) for ev in tl["timeline"]] == [
        ((i + 1) * ARRIVAL_MS, "create", pod) for i, pod in enumerate(case["incoming"])]


def test_the_resynced_input_is_kruleset_state_before_the_attempt() -> None:
    from .resync import oracle_input

    case = generate(SEED, "quota")
    first, *rest = case["pods"]
    key = lambda p: f"{p['metadata']['namespace']}/{p['metadata']['name']}"  # noqa: E731
    arriving = key(case["incoming"][0])
    other = key(case["incoming"][1]) if len(case["incoming"]) > 1 else None
    state = {"bound": {key(p): p["spec"]["nodeName"] for p in rest},
             "order": [], "nominated": {other: "n1"} if other else {}, "own": "n2"}
    got = oracle_input(case, state, arriving)
    assert [key(p) for p in got["pods"] if p["spec"].get("nodeName")] == [key(p) for p in rest]
    assert key(first) not in {key(p) for p in got["pods"]}   # a victim: gone
    if other:
        (nominated,) = [p for p in got["pods"] if not p["spec"].get("nodeName")]
        assert nominated["status"]["nominatedNodeName"] == "n1"
    (pod,) = got["incoming"]
    assert key(pod) == arriving and pod["status"]["nominatedNodeName"] == "n2"
    assert got["noRetry"] is True and got["elasticQuotas"] == case["elasticQuotas"]


@pytest.mark.skipif(BINARY is None, reason=WHY or "the timeline oracle is absent")
def test_a_kubelet_refusal_stops_the_comparison_over_time() -> None:
    # profiles seed 687: NodeAffinity disabled, in1 bound where its selector does not match.
    assert BINARY is not None
    case = generate(687, "profiles")
    r = check_cycle_timeline(BINARY, case)
    assert r.agreed and "the kubelet refused default/in1 at 1000 ms" in r.stopped
    assert r.compared < r.incoming
