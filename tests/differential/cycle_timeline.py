"""The one-cycle generator's clusters through the timeline oracle: no incoming pod left out.

The one-cycle oracle has no scheduling queue, so ``compare.py`` stops at the
first incoming pod that oracle leaves pending and kruleset retries.  Here the
same cluster (``generator.py``) is written as a timeline (its README's
contract): nodes and bound pods at time 0, incoming pod *i* created at
``(i + 1) * ARRIVAL_MS`` as ``kr_side.py`` creates it for kruleset, and the
run goes on for 60 s after the last arrival.  The real scheduler with its
queue decides every attempt, so every incoming pod is compared, attempt by
attempt (time, result, node, message word for word, nominated node, victims)
and by its final placement, with ``timeline.check_timeline``.  Feasible-node
sets and per-node scores are not in the timeline oracle's output; the
one-cycle comparison checks those.

What the timeline oracle cannot run (its README's limits), counted as
``unsupported``:

* ElasticQuotas (CapacityScheduling is not in its registry);
* DRA objects (DeviceClasses, ResourceSlices, ResourceClaims are not input);

and where the two part on a cluster it runs, the comparison over time stops
(``Result.stopped``):

* kruleset's kubelet refused a pod the scheduler bound (a profile disabled a
  filter its admission checks): the timeline oracle runs no kubelet, so its
  pod stays bound and holds its resources -- compared up to that bind;
* more score ties than are followed (kruleset is made to take the oracle's
  node at a tie, ``timeline.check_timeline``).

:func:`check_every_pod` then compares such clusters, and the ones the timeline
oracle cannot run, attempt by attempt from kruleset's own state with the
one-cycle oracle (``resync.py``), so that no incoming pod is left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from .kr_side import ARRIVAL_MS
from .resync import check_resynced
from .timeline import Outcome, check_timeline

__all__ = ["UNSUPPORTED", "Result", "as_timeline", "check_cycle_timeline", "check_every_pod",
           "unsupported"]

# Inputs the timeline oracle does not take (its README, "Limits").
UNSUPPORTED = {"elasticQuotas": "ElasticQuotas (no CapacityScheduling in the timeline oracle)",
               "deviceClasses": "DRA objects (not input to the timeline oracle)",
               "resourceSlices": "DRA objects (not input to the timeline oracle)",
               "resourceClaims": "DRA objects (not input to the timeline oracle)"}
_KEPT = ("namespaces", "priorityClasses", "nodes", "pods", "pdbs", "services", "replicaSets",
         "statefulSets", "replicationControllers", "config")


@attrs.define
class Result:
    """One cluster's comparison over time."""

    incoming: int = 0            # incoming pods in the cluster
    compared: int = 0            # of which compared on every attempt and their placement
    agreeing: int = 0            # of which agreed entirely
    unsupported: str = ""        # why the timeline oracle cannot run this cluster
    stopped: str = ""            # why the comparison stopped early (see the module doc)
    outcome: Outcome | None = None
    resynced: int = 0            # attempts compared one by one from kruleset's state
    warmed: int = 0              # of which the oracle's node search was moved to kruleset's
    restarted: int = 0           # of which kruleset's node search was started at node 0
    resync_mismatches: list[str] = attrs.field(factory=list)

    @property
    def agreed(self) -> bool:
        """No compared pod disagreed."""
        return (self.outcome is None or self.outcome.agreed) and not self.resync_mismatches

    @property
    def mismatches(self) -> list[str]:
        """Every disagreement, over time and resynced."""
        return (self.outcome.mismatches if self.outcome else []) + self.resync_mismatches


def unsupported(case: dict[str, Any]) -> str:
    """Why the timeline oracle cannot run ``case`` ("" when it can)."""
    return next((why for key, why in UNSUPPORTED.items() if case.get(key)), "")


def as_timeline(case: dict[str, Any]) -> dict[str, Any]:
    """The one-cycle ``case`` as a timeline case: incoming pods created one a second."""
    out = {k: json.loads(json.dumps(case[k])) for k in _KEPT if case.get(k)}
    out["timeline"] = [{"at": (i + 1) * ARRIVAL_MS, "op": "create",
                        "pod": json.loads(json.dumps(pod))}
                       for i, pod in enumerate(case.get("incoming") or ())]
    return out


def _key(pod: dict[str, Any]) -> str:
    meta = pod["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def check_cycle_timeline(binary: Path, case: dict[str, Any]) -> Result:
    """Every incoming pod of the one-cycle ``case`` against the timeline oracle."""
    incoming = [_key(p) for p in case.get("incoming") or ()]
    res = Result(incoming=len(incoming), unsupported=unsupported(case))
    if res.unsupported:
        return res
    out = check_timeline(binary, as_timeline(case))
    res.outcome = out
    n = len(incoming)
    if out.refused is not None:
        pod, at = out.refused
        res.stopped = (f"the kubelet refused {pod} at {at} ms (the profile disabled a filter "
                       "its admission checks); the timeline oracle runs no kubelet")
        n = min(n, at // ARRIVAL_MS)
    elif out.tie and out.tie_time is not None:
        # More ties than are followed: pods arriving after it are not compared.
        res.stopped = "a score tie the oracle resolved differently"
        n = min(n, out.tie_time // ARRIVAL_MS)
    bad = {line.split(" ", 1)[0].rstrip(":") for line in out.mismatches}
    for pod in incoming[:n]:
        res.compared += 1
        res.agreeing += pod not in bad
    return res


def check_every_pod(timeline: Path, oracle: Path | None, case: dict[str, Any]) -> Result:
    """Every incoming pod of ``case``: over time, and where the timeline oracle cannot run
    the cluster or the two part (module doc), every attempt kruleset makes compared with
    the one-cycle ``oracle`` started from kruleset's state before it (``resync.py``)."""
    res = check_cycle_timeline(timeline, case)
    if (res.unsupported or res.stopped) and oracle is not None:
        rs = check_resynced(oracle, case)
        res.compared, res.agreeing = rs.incoming, rs.pods_agreeing
        res.resynced, res.resync_mismatches = rs.attempts, rs.mismatches
        res.warmed, res.restarted = rs.warmed, rs.restarted
    return res
