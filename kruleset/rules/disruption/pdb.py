"""PodDisruptionBudget status as the disruption controller computes it (seed 003 §0, §13).

The simulation has no separate status object that can lag behind: the status
is computed from the cluster whenever someone asks (the Eviction API, scheduler
preemption, ``expect pdb``), which is what upstream's controller converges to
after every pod change.  The only stored part is ``status.disruptedPods``
(``ClusterState.pdb_disrupted``), because it records what the Eviction API
approved and not what the pods look like (the simulation's disruption
controller drops the entries a sync would drop: :mod:`kruleset.sim.drain`).

The steps are the ``disruption.pdb`` rules (expected pods, disruptedPods,
currentHealthy, disruptionsAllowed), traced for ``--explain``; the expected
count of a percentage or a maxUnavailable asks the ``disruption.finder``
rules (:mod:`.finders`) for each controller's scale.

Upstream: ``pkg/controller/disruption/disruption.go`` (``trySync``,
``getExpectedPodCount``, ``getExpectedScale``, ``countHealthyPods``,
``buildDisruptedPodMap``, ``failSafe``, ``updatePdbStatus``).

Example (34% of three replicas rounds up to two; two of three pods are Ready)::

    >>> import attrs
    >>> from kruleset.model.objects import Deployment, Node, Pod, PodDisruptionBudget
    >>> from kruleset.model.resources import Resources
    >>> from kruleset.model.selectors import LabelSelector, Requirement
    >>> from kruleset.model.state import ClusterState
    >>> st = ClusterState()
    >>> st.add_node(Node("n1", Resources(cpu=4000, memory=8 << 30, pods=110)))
    NodeState(n1)
    >>> tpl = Pod("default", "web", labels={"app": "web"},
    ...           owner_kind="ReplicaSet", owner_name="web")
    >>> st.deployments["default/web"] = Deployment("default", "web", 3, tpl)
    >>> for i in (1, 2, 3):
    ...     ps = st.add_pod(attrs.evolve(tpl, name=f"web-{i}"))
    ...     st.bind(ps, "n1")
    >>> ps.ready = False
    >>> sel = LabelSelector((Requirement("app", "In", ("web",)),))
    >>> s = pdb_status(st, PodDisruptionBudget("default", "web-pdb", sel, min_available="34%"), 0)
    >>> s.expected_pods, s.desired_healthy, s.current_healthy, s.disruptions_allowed
    (3, 2, 2, 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from kruleset.model.objects import PodDisruptionBudget
from kruleset.model.state import RUNNING, ClusterState, PodState

from ..engine import PIPELINE, ActiveRuleSet, Stop, Trace
from ..registry import define_ruleset, rule
from ..scheduler.paths import paths_for
from .finders import controller_of, find_controller

__all__ = [
    "DELETION_TIMEOUT",
    "PdbStatus",
    "STATUS",
    "healthy",
    "matching_pdbs",
    "pdbs_json",
    "pdb_status",
    "scaled_value",
    "selected_pods",
]

# disruption.go DeletionTimeout: how long an approved eviction keeps a pod out of
# currentHealthy while it has not started terminating.
DELETION_TIMEOUT = 2 * 60 * 1000  # ms


@attrs.frozen(slots=True)
class PdbStatus:
    """``status`` of a PodDisruptionBudget.

    ``disrupted_pods`` maps pod *names* (the PDB's namespace) to the time (ms)
    the Eviction API approved their eviction, as ``status.disruptedPods``.
    ``sync_error`` is the message of the DisruptionAllowed=False/SyncFailed
    condition when the controller could not compute the budget (then
    ``disruptions_allowed`` is 0: upstream's fail-safe).
    ``observed_generation`` is 1 once the controller has synced the budget
    (kruleset's PDBs are at generation 1), 0 for a budget whose sync failed
    (never synced: the Eviction API then answers "still being processed").
    """

    expected_pods: int
    current_healthy: int
    desired_healthy: int
    disruptions_allowed: int
    disrupted_pods: dict[str, int] = attrs.field(factory=dict)
    sync_error: str = ""
    observed_generation: int = 1

    @property
    def condition_reason(self) -> str:
        """DisruptionAllowed condition reason: SufficientPods, InsufficientPods or SyncFailed."""
        if self.sync_error:
            return "SyncFailed"
        return "SufficientPods" if self.disruptions_allowed > 0 else "InsufficientPods"

    @property
    def condition_status(self) -> str:
        """DisruptionAllowed condition status: ``True`` with SufficientPods, else ``False``."""
        return "True" if self.condition_reason == "SufficientPods" else "False"

    @property
    def condition_message(self) -> str:
        """The condition's message: the sync error for SyncFailed, else empty (as upstream)."""
        return self.sync_error


def selected_pods(state: ClusterState, pdb: PodDisruptionBudget,
                  fast: Any = None) -> list[PodState]:
    """The pods of the PDB's namespace its selector selects, as the controller lists them.

    policy/v1: an empty selector selects every pod of the namespace (the
    scheduler's preemption treats it differently, see its own module).  Pods
    that left the API are not listed; terminating and pending pods are.
    ``fast`` is the simulation's FastPaths: with ``pdb_selection`` on, the
    pods come from an index kept as pods are added, not from this walk.
    """
    index = paths_for(fast).pdb_index
    if index is not None:
        return index.selected(state, pdb)
    pods = state.by_namespace.get(pdb.namespace)
    if not pods:
        return []
    sel = pdb.selector
    return [ps for ps in pods.values() if not ps.gone and sel.matches(ps.pod.labels)]


def matching_pdbs(state: ClusterState, ps: PodState) -> list[PodDisruptionBudget]:
    """PDBs of the pod's namespace whose selector matches it (the Eviction API's lookup).

    An empty selector matches every pod (policy/v1 ``getPodDisruptionBudgets``).
    Returned in declaration order.
    """
    ns = ps.pod.namespace
    labels = ps.pod.labels
    return [p for p in state.pdbs.values() if p.namespace == ns and p.selector.matches(labels)]


def healthy(ps: PodState) -> bool:
    """``IsPodReady``: the pod has condition Ready=True.

    A pod is Ready only while it runs on a node and its readiness holds
    (``not-ready`` / ``unready pod``); pending and finished pods are not Ready.
    """
    return ps.ready and ps.phase == RUNNING and ps.node is not None and not ps.gone


def scaled_value(value: int | str, total: int, round_up: bool = True) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``: an int as is, ``"P%"`` of ``total``.

    The disruption controller always rounds up (34% of 3 is 2, 30% of 7 is 3).
    Exact integer arithmetic; a decimal percentage (which the API server would
    not accept in a PDB) is computed exactly as a fraction.
    """
    if isinstance(value, int):
        return value
    text = value.strip()
    if not text.endswith("%"):
        return int(text)
    num = text[:-1]
    if "." in num:
        whole, frac = num.split(".", 1)
        numerator, denominator = int(whole + frac), 100 * 10 ** len(frac)
    else:
        numerator, denominator = int(num), 100
    product = numerator * total
    if round_up:
        return -(-product // denominator)
    return product // denominator


STATUS = define_ruleset(
    "disruption.pdb", PIPELINE,
    "The disruption controller's trySync: a PodDisruptionBudget's status from the pods it "
    "selects and their controllers.",
)

_EXPECTED, _DISRUPTED, _HEALTHY, _ALLOWED = (
    "disruption.pdb.expected-pods", "disruption.pdb.disrupted-pods",
    "disruption.pdb.current-healthy", "disruption.pdb.disruptions-allowed")


@attrs.define(slots=True)
class _Sync:
    """One trySync in progress: what each step found."""

    pdb: PodDisruptionBudget
    pods: list[PodState]
    expected: int = 0
    desired: int = 0
    current: int = 0
    disrupted: dict[str, int] = attrs.field(factory=dict)
    why: str = ""


@attrs.define(slots=True)
class _StatusContext:
    state: ClusterState
    now: int
    trace: Trace | None
    subject: str


def _expected_scale(ctx: _StatusContext, pods: Iterable[PodState]) -> tuple[int, str, list[str]]:
    """``getExpectedScale``: the summed scale of the pods' distinct controllers.

    Returns ``(expected, error, found)``; pods without a controller are
    skipped (upstream only records an UnmanagedPods event); ``found``
    describes the controllers for the trace.
    """
    seen: set[tuple[str, str]] = set()
    scale: dict[str, int] = {}
    found: list[str] = []
    state, trace, subject = ctx.state, ctx.trace, ctx.subject
    for ps in pods:
        pod = ps.pod
        ref = controller_of(pod)
        if ref is None:
            continue
        if ref in seen:
            continue
        seen.add(ref)
        got = find_controller(state, pod.namespace, ref[0], ref[1], trace, subject)
        if got is None:
            return 0, f'found no controllers for pod "{pod.name}"', found
        if isinstance(got, str):
            return 0, got, found
        key = f"{got.kind}/{got.key}"
        if key not in scale and trace is not None:
            found.append(str(got))
        scale[key] = got.scale
    return sum(scale.values()), "", found


def _failed(ctx: _StatusContext, error: str) -> Stop:
    # failSafe keeps the status last written and sets disruptionsAllowed 0;
    # kruleset's budgets in error have never been synced (their pods' controller
    # has no scale from the start), so that status is the empty one and its
    # observedGeneration is 0: the Eviction API answers "still being processed".
    return Stop(PdbStatus(0, 0, 0, 0, {}, error, observed_generation=0), f"SyncFailed: {error}")


@rule(STATUS, _EXPECTED,
      doc="expectedPods and desiredHealthy: an integer minAvailable expects every selected pod; "
          "a percentage, and any maxUnavailable, the summed scale of the pods' controllers "
          "(percentages rounded up); a controller without scale fails the budget.",
      source="disruption.go getExpectedPodCount, getExpectedScale; "
             "intstr.GetScaledValueFromIntOrPercent (roundUp)")
def _expected_pods(ctx: _StatusContext, args: Mapping[str, Any], s: _Sync) -> Stop | None:
    pdb = s.pdb
    found: list[str] = []
    if pdb.max_unavailable is not None:
        s.expected, error, found = _expected_scale(ctx, s.pods)
        if error:
            return _failed(ctx, error)
        s.desired = max(0, s.expected - scaled_value(pdb.max_unavailable, s.expected))
    elif pdb.min_available is not None:
        if isinstance(pdb.min_available, int):
            s.desired = pdb.min_available
            s.expected = len(s.pods)
        else:
            s.expected, error, found = _expected_scale(ctx, s.pods)
            if error:
                return _failed(ctx, error)
            s.desired = scaled_value(pdb.min_available, s.expected)
    # neither given (policy/v1 accepts that): nothing expected, nothing desired
    if ctx.trace is not None:
        of = f" ({'; '.join(found)})" if found else ""
        s.why = f"expectedPods {s.expected}{of}, desiredHealthy {s.desired}"
    return None


def _disrupted(state: ClusterState, pdb: PodDisruptionBudget, pods: list[PodState],
               now: int) -> dict[str, int]:
    """``buildDisruptedPodMap``: entries of existing, not-terminating pods not yet expired."""
    recorded = state.pdb_disrupted.get(pdb.key)
    if not recorded:
        return {}
    out: dict[str, int] = {}
    for ps in pods:
        if ps.deletion_time is not None:
            continue  # already being deleted: the entry did its job
        t = recorded.get(ps.pod.name)
        if t is None:
            continue
        # upstream drops the entry once added+timeout is strictly before now
        if t + DELETION_TIMEOUT >= now:
            out[ps.pod.name] = t
    return out


@rule(STATUS, _DISRUPTED,
      doc="disruptedPods keeps the Eviction API's entries of selected pods not yet terminating, "
          "until two minutes (DeletionTimeout) after they were added.",
      source="disruption.go buildDisruptedPodMap, DeletionTimeout")
def _disrupted_pods(ctx: _StatusContext, args: Mapping[str, Any], s: _Sync) -> None:
    s.disrupted = _disrupted(ctx.state, s.pdb, s.pods, ctx.now)
    if ctx.trace is not None:
        s.why = f"disruptedPods {sorted(s.disrupted) or 'none'}"


@rule(STATUS, _HEALTHY,
      doc="currentHealthy counts the selected pods that are Ready, not terminating and not "
          "in disruptedPods.",
      source="disruption.go countHealthyPods; IsPodReady")
def _current_healthy(ctx: _StatusContext, args: Mapping[str, Any], s: _Sync) -> None:
    now = ctx.now
    disrupted = s.disrupted
    current = 0
    for ps in s.pods:
        if ps.deletion_time is not None:
            continue
        t = disrupted.get(ps.pod.name)
        if t is not None and t + DELETION_TIMEOUT > now:
            continue  # approved for eviction, expected to go soon
        if healthy(ps):
            current += 1
    s.current = current
    if ctx.trace is not None:
        s.why = f"currentHealthy {current} of {len(s.pods)} selected pods"


@rule(STATUS, _ALLOWED,
      doc="disruptionsAllowed = currentHealthy - desiredHealthy, 0 when negative or while "
          "nothing is expected; the DisruptionAllowed condition says SufficientPods or "
          "InsufficientPods.",
      source="disruption.go updatePdbStatus; poddisruptionbudget.UpdateDisruptionAllowedCondition")
def _disruptions_allowed(ctx: _StatusContext, args: Mapping[str, Any], s: _Sync) -> Stop:
    allowed = s.current - s.desired
    if s.expected <= 0 or allowed <= 0:
        allowed = 0
    st = PdbStatus(s.expected, s.current, s.desired, allowed, s.disrupted)
    why = ""
    if ctx.trace is not None:
        why = f"disruptionsAllowed {allowed} ({st.condition_reason})"
    return Stop(st, why)


_ACTIVE: ActiveRuleSet | None = None


def pdb_status(state: ClusterState, pdb: PodDisruptionBudget, now: int,
               fast: Any = None, trace: Trace | None = None, subject: str = "") -> PdbStatus:
    """The PDB's status at ``now`` (ms), as the disruption controller's ``trySync`` writes it.

    The ``disruption.pdb`` rules, in order:

    * expectedPods: integer minAvailable counts the selected pods; a percentage
      minAvailable and any maxUnavailable use the summed replicas of the pods'
      controllers (the ``disruption.finder`` rules; pods without a controller
      are skipped);
    * desiredHealthy: minAvailable (a percentage of expectedPods rounded up), or
      expectedPods − maxUnavailable (rounded up) but not below 0;
    * disruptedPods: the Eviction API's entries, for two minutes at most;
    * currentHealthy: selected pods that are Ready, not terminating and not in
      disruptedPods;
    * disruptionsAllowed: currentHealthy − desiredHealthy, 0 if negative or if
      nothing is expected.

    A controller without scale (a DaemonSet, a Job, a missing one) fails the
    sync: SyncFailed, 0 disruptions allowed (``sync_error`` says why).
    ``fast`` (the simulation's FastPaths) chooses how the pods are found
    (:func:`selected_pods`); ``trace`` records each step for ``subject``.
    See the module docstring for an example.
    """
    global _ACTIVE
    if _ACTIVE is None:
        _ACTIVE = STATUS.defaults()
    s = _Sync(pdb, selected_pods(state, pdb, fast))
    ctx = _StatusContext(state, now, trace, subject or pdb.key)
    for a in _ACTIVE.rules:
        out = a.rule.fn(ctx, a.args, s)
        if isinstance(out, Stop):
            if trace is not None:
                trace.add(a.rule.name, ctx.subject, "stop", f"{pdb.key}: {out.why}")
            result: PdbStatus = out.result
            return result
        if trace is not None:
            trace.add(a.rule.name, ctx.subject, "continue", f"{pdb.key}: {s.why}")
    # a profile left out the last step: the status as far as it was computed
    return PdbStatus(s.expected, s.current, s.desired, 0, s.disrupted)


def pdbs_json(state: ClusterState, now: int, fast: Any = None) -> list[dict[str, Any]]:
    """Every PDB's status at ``now`` for the JSON report, in key order (policy/v1 field names).

    ``disruptedPods`` maps pod names to the time (ms) the Eviction API approved them.
    """
    out = []
    for key in sorted(state.pdbs):
        st = pdb_status(state, state.pdbs[key], now, fast)
        cond: dict[str, str] = {"type": "DisruptionAllowed", "status": st.condition_status,
                                "reason": st.condition_reason}
        if st.condition_message:
            cond["message"] = st.condition_message
        out.append({"pdb": key, "expectedPods": st.expected_pods,
                    "desiredHealthy": st.desired_healthy, "currentHealthy": st.current_healthy,
                    "disruptionsAllowed": st.disruptions_allowed,
                    "disruptedPods": dict(sorted(st.disrupted_pods.items())),
                    "observedGeneration": st.observed_generation, "conditions": [cond]})
    return out
