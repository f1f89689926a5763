"""`evict pod` and `drain node`: clients of the Eviction API over time (seed 003 §13).

``evict pod REF [dry-run]`` sends one eviction request (kruleset.rules.disruption.eviction_api)
and, on 200, deletes the pod gracefully as the API server does.

``drain node NAME`` is ``kubectl drain NAME --ignore-daemonsets
--delete-emptydir-data --force`` (staging/src/k8s.io/kubectl/pkg/drain):

* the node is cordoned first;
* the pods on the node are listed once and filtered as kubectl's filters do:
  DaemonSet pods are left running (``--ignore-daemonsets``: the DaemonSet
  controller ignores cordons and would put them straight back), mirror pods of
  static pods are skipped (the API cannot delete what the kubelet runs from a
  manifest), pods with emptyDir volumes and pods without a controller are
  evicted (``--delete-emptydir-data``, ``--force``).  Without these flags real
  kubectl refuses to drain a node holding such pods at all ("cannot delete
  DaemonSet-managed Pods (use --ignore-daemonsets to ignore)" …); kruleset
  models the flags operators pass so that ``drain node`` says what the
  budgets do, which is what the statement is for;
* every listed pod is evicted through the API at once (kubectl runs one
  goroutine per pod; kruleset takes them in ``namespace/name`` order, the
  order the API lists them);
* a 429 is retried every 5 s (kubectl's "will retry after 5s") until the pod
  is evicted or the scenario ends (kubectl's default ``--timeout=0``: no
  limit); any other refusal (500, 403) fails that pod for the drain, without
  retry, as kubectl does;
* the drain is over when every evicted pod has gone (kubectl waits for the
  deletion) — a ``drain`` decision ``drained`` — or, when some pod failed,
  once the others are gone (``failed``).

Decisions: ``eviction-api`` for each request (reason ``200 OK``,
``429 Too Many Requests``, …, message upstream's Status message and cause),
``evicted`` for each pod the API deleted, ``drain`` for the drain's own
steps.  A refusal repeated with the same message is counted, not repeated,
in the report; the next decision for that pod says how many attempts there
were.

A disruption controller (phase 3) records which PDB objects it has
observed: a PDB created or replaced during an instant is "still being
processed" (429) for evictions requested earlier in that same instant, as
upstream's ``observedGeneration`` check makes it.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..model import scenario as sc
from ..model.objects import PodDisruptionBudget
from ..model.state import PodState
from ..rules.disruption.eviction_api import EvictionResponse, evict
from ..rules.disruption.pdb import DELETION_TIMEOUT
from ..rules.scheduler.paths import paths_for
from .actions import pod_ref
from .core import Simulation, register_action, register_controller

__all__ = ["DRAIN_RETRY", "DisruptionController", "DrainController", "DrainJob", "request_eviction",
           "start_drain"]

DRAIN_RETRY = 5_000  # ms, kubectl drain's sleep after a 429

_PHRASES = {200: "OK", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error"}


def _observed(sim: Simulation) -> dict[str, PodDisruptionBudget]:
    """The PDB objects the disruption controller has synced (time-0 declarations are)."""
    seen = sim.extra.get("pdb_observed")
    if seen is None:
        # First asked after the declarations are applied: with no PDB in the
        # cluster none was declared, and a million declared objects need no walk.
        seen = ({o.key: o for o in sim.scenario.objects if isinstance(o, PodDisruptionBudget)}
                if sim.state.pdbs else {})
        sim.extra["pdb_observed"] = seen
    assert isinstance(seen, dict)
    return seen


def _stale(sim: Simulation) -> set[str]:
    seen = _observed(sim)
    return {k for k, p in sim.state.pdbs.items() if seen.get(k) is not p}


def request_eviction(sim: Simulation, ps: PodState, *, dry_run: bool = False,
                     by: str = "API", note: str = "") -> EvictionResponse:
    """Send one eviction request for ``ps`` now; record it; delete the pod on 200.

    ``by`` names the client in the report (``API`` for ``evict pod``,
    ``kubectl drain NODE`` for a drain); ``note`` is appended to the message.
    """
    resp = evict(sim.state, ps, sim.now, dry_run=dry_run, profile=sim.profile,
                 trace=sim.trace, stale_pdbs=_stale(sim), fast=sim.fast)
    sim.eviction_status[ps.key] = resp.status
    sim.extra.setdefault("eviction_text", {})[ps.key] = resp.text
    reason = f"{resp.status} {_PHRASES.get(resp.status, '')}".strip()
    text = resp.text or ("dry run: the pod would be evicted" if dry_run and resp.allowed
                         else "Eviction API: evicting" if resp.allowed else "")
    if resp.pdb:
        after = (f", disruptionsAllowed now {resp.allowed_after}"
                 if resp.allowed and resp.allowed_after is not None else "")
        text = f"{text} [pdb {resp.pdb}{after}]"
    if note:
        text = f"{text} ({note})"
    rules = (resp.rule,) if resp.rule else ()
    sim.record("eviction-api", ps, ps.node, by, reason, text, rules)
    if resp.allowed and not dry_run and not ps.terminating:
        # addConditionAndDeletePod: DisruptionTarget=True/EvictionByEvictionAPI,
        # then a graceful delete with the pod's own terminationGracePeriodSeconds.
        # A pod already terminating only has its condition replaced (done by
        # evict): its deletion keeps its time, and no pending pod is retried.
        sim.terminate(ps, "evicted", by="API", reason="Evicted",
                      message="Eviction API: evicting", rules=rules)
        ps.extra["eviction_kind"] = "API"
        sim.changed()
    return resp


def _evict_action(sim: Simulation, a: sc.EvictPod) -> None:
    key = pod_ref(a.ref)
    ps = sim.state.pods.get(key)
    if ps is None or ps.gone:
        sim.eviction_status[key] = 404
        text = f'pods "{key.split("/", 1)[1]}" not found'
        sim.extra.setdefault("eviction_text", {})[key] = text
        sim.record("eviction-api", key, None, "API", "404 Not Found", text)
        return
    request_eviction(sim, ps, dry_run=a.dry_run)


@attrs.define(slots=True)
class _PodDrain:
    key: str
    next_try: int | None          # when to send the next request; None: no more requests
    # The pod object listed at the start: kubectl drain follows it by UID, so a
    # replacement under the same name (a StatefulSet's) is not waited for.
    ps: PodState | None = None
    attempts: int = 0
    last_message: str = ""
    repeats: int = 0              # identical refusals not written to the report
    failed: bool = False
    last_status: int = 0          # the latest answer's HTTP status (0: none yet)


@attrs.define(slots=True)
class DrainJob:
    """One ``drain node`` in progress: its pods and where each stands."""

    node: str
    started: int
    pods: list[_PodDrain] = attrs.field(factory=list)
    finished: int | None = None


class DrainController:
    """Phase 1 (a client, like the timeline): retries refused evictions, ends drains."""

    name = "drain"
    phase = 1

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.jobs: list[DrainJob] = []

    def start(self, sim: Simulation, node: str) -> None:
        """Cordon ``node`` and send the first eviction of every pod on it."""
        ns = sim.state.nodes[node]
        if not ns.unschedulable:
            ns.unschedulable = True
            sim.record("cordoned", node, node, f"kubectl drain {node}")
            sim.changed()
        job = DrainJob(node, sim.now)
        on_node = sorted((ps for ps in sim.state.pods.values()
                          if ps.node == node and not ps.gone), key=lambda p: p.key)
        daemons = [ps for ps in on_node if ps.pod.owner_kind == "DaemonSet"
                   and ps.phase in ("Pending", "Running")]
        for ps in daemons:
            sim.record("drain", ps, node, f"kubectl drain {node}", "IgnoredDaemonSet",
                       "ignoring DaemonSet-managed Pods", ("drain.filter.daemonset",))
        for ps in on_node:
            if ps in daemons:
                continue
            if ps.pod.static:
                sim.record("drain", ps, node, f"kubectl drain {node}", "SkippedMirrorPod",
                           "mirror pods are not deleted through the API",
                           ("drain.filter.mirror-pod",))
                continue
            job.pods.append(_PodDrain(ps.key, sim.now, ps))
        self.jobs.append(job)
        self._work(sim, job)
        self._maybe_finish(sim, job)

    def _work(self, sim: Simulation, job: DrainJob) -> bool:
        by = f"kubectl drain {job.node}"
        changed = False
        for pd in job.pods:
            if pd.next_try is None or pd.next_try > sim.now:
                continue
            ps = pd.ps or sim.state.pods[pd.key]
            if ps.gone or sim.state.pods.get(pd.key) is not ps:
                pd.next_try = None  # went away (or was recreated) meanwhile: done
                continue
            pd.attempts += 1
            note = f"attempt {pd.attempts}" if pd.attempts > 1 else ""
            resp = self._quiet_request(sim, ps, pd, by, note)
            pd.last_status = resp.status
            if resp.status == 429:
                pd.next_try = sim.now + DRAIN_RETRY
                sim.wake(pd.next_try)
            else:
                pd.next_try = None
                if not resp.allowed:
                    pd.failed = True
                else:
                    changed = True
        return changed

    def _quiet_request(self, sim: Simulation, ps: PodState, pd: _PodDrain, by: str,
                       note: str) -> EvictionResponse:
        """Send the request; an identical repeated refusal is counted, not reported."""
        before = len(sim.decisions)
        resp = request_eviction(sim, ps, by=by, note=note)
        if resp.status == 429:
            msg = resp.text
            if msg == pd.last_message and len(sim.decisions) == before + 1:
                sim.decisions.pop()
                pd.repeats += 1
            pd.last_message = msg
        return resp

    def _maybe_finish(self, sim: Simulation, job: DrainJob) -> bool:
        if job.finished is not None:
            return False
        waiting = False
        for pd in job.pods:
            if pd.failed:
                continue
            if pd.next_try is not None or not _gone(sim, pd):
                waiting = True
                break
        if waiting:
            return False
        job.finished = sim.now
        failed = [pd.key for pd in job.pods if pd.failed]
        by = f"kubectl drain {job.node}"
        if failed:
            sim.record("drain", job.node, job.node, by, "failed",
                       f"node {job.node} not drained: eviction refused for {', '.join(failed)}",
                       ("drain.evict",))
        else:
            sim.record("drain", job.node, job.node, by, "drained", f"node/{job.node} drained",
                       ("drain.evict",))
        return False

    def step(self, sim: Simulation) -> bool:
        """Retry the evictions due now; note drains whose pods are all gone."""
        changed = False
        for job in self.jobs:
            if job.finished is not None:
                continue
            if self._work(sim, job):
                changed = True
            self._maybe_finish(sim, job)
        return changed

    def verdict(self, sim: Any, node: str, verdict: str, by: str | None) -> tuple[bool, str]:
        """``expect drain NODE complete | failed | blocked [by REF]``: the latest drain of NODE.

        complete: every pod listed at the start has gone; failed: finished with
        an eviction refused for good; blocked: still retrying 429s (``by``: one
        of the refused pods).
        """
        return _verdict(sim, [j for j in self.jobs if j.node == node], node, verdict, by)

    def finish(self, sim: Simulation) -> None:
        """At the end of the run: say what keeps each unfinished drain from completing."""
        for job in self.jobs:
            if job.finished is not None:
                continue
            verdict, why = _unfinished(sim, job)
            sim.record("drain", job.node, job.node, f"kubectl drain {job.node}", verdict,
                       f"node/{job.node} not drained after "
                       f"{_duration(sim.now - job.started)}: {why}", ("drain.evict",))

    def next_time(self, sim: Simulation) -> int | None:
        """The earliest retry still to send."""
        times = [pd.next_try for job in self.jobs if job.finished is None
                 for pd in job.pods if pd.next_try is not None and pd.next_try > sim.now]
        return min(times) if times else None


class DisruptionController:
    """Phase 3: the disruption controller observes new and changed PDBs.

    Status itself is computed on demand (kruleset.rules.disruption.pdb.pdb_status); what
    this controller keeps is which PDB objects it has synced, so that an
    eviction requested in the same instant as a PDB's creation, before the
    controller ran, gets upstream's "still being processed" 429.  With
    ``FastPaths.pdb_selection`` on, its first step also selects the declared
    PDBs' pods for the index the status reads (one walk per namespace).
    """

    name = "disruption"
    phase = 3

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim

    def step(self, sim: Simulation) -> bool:
        """Observe every PDB (never changes what other controllers see)."""
        seen = _observed(sim)
        pdbs = sim.state.pdbs
        if len(seen) != len(pdbs) or any(seen.get(k) is not p for k, p in pdbs.items()):
            seen.clear()
            seen.update(pdbs)
        if pdbs and not sim.extra.get("pdb_synced"):
            # Upstream's controller syncs each PDB as it sees it; with the
            # index on, its pods are selected now (once), not at the first
            # eviction.
            index = paths_for(sim.fast).pdb_index
            if index is not None:
                index.sync(sim.state, pdbs.values())
            sim.extra["pdb_synced"] = True
        # A deleted PDB takes its status (disruptedPods) with it; one created
        # later under the same name starts empty.
        for key in [k for k in sim.state.pdb_disrupted if k not in pdbs]:
            del sim.state.pdb_disrupted[key]
        if sim.state.pdb_disrupted:
            self._prune(sim)
        return False

    @staticmethod
    def _prune(sim: Simulation) -> None:
        """Write back what buildDisruptedPodMap keeps, as each sync's status update does.

        Upstream syncs a budget whenever one of its pods changes, so an entry
        for a pod that started terminating (or went, or expired) leaves
        status.disruptedPods at once; a pod created later under the same name
        (a StatefulSet's) must not inherit it.
        """
        state, now = sim.state, sim.now
        for key, entries in state.pdb_disrupted.items():
            ns = key.split("/", 1)[0]
            for name in [n for n, t in entries.items() if t + DELETION_TIMEOUT < now
                         or _leaving(state.pods.get(f"{ns}/{n}"))]:
                del entries[name]

    def next_time(self, sim: Simulation) -> int | None:
        """Nothing timed."""
        return None


def _duration(ms: int) -> str:
    from ..model.quantity import format_duration

    return format_duration(ms)


def _gone(sim: Simulation, pd: _PodDrain) -> bool:
    """Whether the listed pod has left the API (waitForDelete: gone, or a new UID)."""
    ps = pd.ps or sim.state.pods[pd.key]
    return ps.gone or sim.state.pods.get(pd.key) is not ps


def _refused(job: DrainJob) -> list[_PodDrain]:
    """The pods whose evictions are being refused and retried (429)."""
    return [pd for pd in job.pods if pd.next_try is not None and pd.last_status == 429]


def _unfinished(sim: Simulation, job: DrainJob) -> tuple[str, str]:
    """``("blocked", why)`` while evictions are refused, else ``("waiting", why)``."""
    refused = _refused(job)
    if refused:
        parts = [f"{pd.key}: {pd.last_message} ({pd.attempts} attempt"
                 f"{'s' if pd.attempts != 1 else ''})" for pd in refused]
        return "blocked", "eviction refused for " + "; ".join(parts)
    going = [pd.key for pd in job.pods if not pd.failed and not _gone(sim, pd)]
    return "waiting", "waiting for " + ", ".join(going) + " to terminate"


def _verdict(sim: Any, jobs: list[DrainJob], node: str, verdict: str,
             by: str | None) -> tuple[bool, str]:
    """``expect drain NODE complete | failed | blocked [by REF]`` against the latest of ``jobs``."""
    if not jobs:
        return False, f"no drain of node {node} was started"
    job = jobs[-1]
    failed = [pd.key for pd in job.pods if pd.failed]
    if job.finished is not None:
        state = "failed" if failed else "complete"
        desc = (f"the drain failed at {_duration(job.finished)}: eviction refused for "
                f"{', '.join(failed)}" if failed
                else f"the drain completed at {_duration(job.finished)}")
        return verdict == state, desc
    kind, why = _unfinished(sim, job)
    if verdict != "blocked" or kind != "blocked":
        return False, f"the drain is not finished: {why}"
    if by is not None:
        key = by if "/" in by else f"default/{by}"
        if all(pd.key != key for pd in _refused(job)):
            return False, f"{key} does not block the drain: {why}"
    return True, ""


def _leaving(ps: PodState | None) -> bool:
    return ps is None or ps.gone or ps.deletion_time is not None


def _drain_controller(sim: Simulation) -> DrainController:
    ctl = sim.extra.get("drain_controller")
    if ctl is None:
        ctl = DrainController(sim)
        sim.extra["drain_controller"] = ctl
    assert isinstance(ctl, DrainController)
    return ctl


def _drain_action(sim: Simulation, a: sc.DrainNode) -> None:
    start_drain(sim, a.node)


def start_drain(sim: Simulation, node: str) -> DrainJob:
    """Start ``drain node NODE`` now (cordon, first evictions); the job, to follow it."""
    ctl = _drain_controller(sim)
    ctl.start(sim, node)
    return ctl.jobs[-1]


register_controller(_drain_controller)
register_controller(DisruptionController)
register_action(sc.EvictPod, _evict_action)
register_action(sc.DrainNode, _drain_action)
