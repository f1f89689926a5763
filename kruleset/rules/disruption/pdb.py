"""PodDisruptionBudget status as the disruption controller computes it (seed 003 §0, §13).

The simulation has no separate status object that can lag behind: the status
is computed from the cluster whenever someone asks (the Eviction API, scheduler
preemption, ``expect pdb``), which is what upstream's controller converges to
after every pod change.  The only stored part is ``status.disruptedPods``
(``ClusterState.pdb_disrupted``), because it records what the Eviction API
approved and not what the pods look like.

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

from collections.abc import Iterable
from typing import Any

import attrs

from kruleset.model.objects import PodDisruptionBudget
from kruleset.model.state import RUNNING, ClusterState, PodState

from ..scheduler.dispatch import chosen_by

__all__ = [
    "DELETION_TIMEOUT",
    "PdbStatus",
    "healthy",
    "matching_pdbs",
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
    """

    expected_pods: int
    current_healthy: int
    desired_healthy: int
    disruptions_allowed: int
    disrupted_pods: dict[str, int] = attrs.field(factory=dict)
    sync_error: str = ""

    @property
    def condition_reason(self) -> str:
        """DisruptionAllowed condition reason: SufficientPods, InsufficientPods or SyncFailed."""
        if self.sync_error:
            return "SyncFailed"
        return "SufficientPods" if self.disruptions_allowed > 0 else "InsufficientPods"


def selected_pods(state: ClusterState, pdb: PodDisruptionBudget,
                  fast: Any = None) -> list[PodState]:
    """The pods of the PDB's namespace its selector selects, as the controller lists them.

    policy/v1: an empty selector selects every pod of the namespace (the
    scheduler's preemption treats it differently, see its own module).  Pods
    that left the API are not listed; terminating and pending pods are.
    ``fast`` is the simulation's FastPaths: with ``pdb_selection`` on, the
    pods come from an index kept as pods are added, not from this walk.
    """
    index = chosen_by(fast, "pdb-selected-pods")
    if index is not None:
        found: list[PodState] = index(state, pdb)
        return found
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


def _expected_scale(state: ClusterState, pods: Iterable[PodState]) -> tuple[int, str]:
    """Sum of the replicas of the distinct controllers of ``pods``; pods without one are skipped.

    kruleset's pods name their controller as ``owner_kind``/``owner_name``:
    ``ReplicaSet`` + the deployment's name (a deployment's ReplicaSet scales
    with the deployment).  Any other owner (DaemonSet, StatefulSet, Job, …) has
    no scale kruleset can find, which upstream reports as
    ``found no controllers for pod "NAME"``.
    """
    scale: dict[str, int] = {}
    for ps in pods:
        pod = ps.pod
        if not pod.owner_kind:
            continue  # unmanaged: an event upstream, never an error
        key = f"{pod.namespace}/{pod.owner_name}"
        if key in scale:
            continue
        dep = state.deployments.get(key) if pod.owner_kind == "ReplicaSet" else None
        if dep is None:
            return 0, f'found no controllers for pod "{pod.name}"'
        scale[key] = dep.replicas
    return sum(scale.values()), ""


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


def pdb_status(state: ClusterState, pdb: PodDisruptionBudget, now: int,
               fast: Any = None) -> PdbStatus:
    """The PDB's status at ``now`` (ms), as the disruption controller's ``trySync`` writes it.

    * expectedPods: integer minAvailable counts the selected pods; a percentage
      minAvailable and any maxUnavailable use the sum of the owning
      deployments' replicas (pods without an owner are ignored for it);
    * desiredHealthy: minAvailable (a percentage of expectedPods rounded up), or
      expectedPods − maxUnavailable (rounded up) but not below 0;
    * currentHealthy: selected pods that are Ready, not terminating and not in
      disruptedPods (entries count for two minutes);
    * disruptionsAllowed: currentHealthy − desiredHealthy, 0 if negative or if
      nothing is expected; 0 too when the controller cannot find a pod's
      controller (fail-safe, ``sync_error`` says why).

    ``fast`` (the simulation's FastPaths) chooses how the pods are found
    (:func:`selected_pods`).  See the module docstring for an example.
    """
    pods = selected_pods(state, pdb, fast)
    disrupted = _disrupted(state, pdb, pods, now)
    current = 0
    for ps in pods:
        if ps.deletion_time is not None:
            continue
        t = disrupted.get(ps.pod.name)
        if t is not None and t + DELETION_TIMEOUT > now:
            continue  # approved for eviction, expected to go soon
        if healthy(ps):
            current += 1

    error = ""
    expected = desired = 0
    if pdb.max_unavailable is not None:
        expected, error = _expected_scale(state, pods)
        if not error:
            desired = max(0, expected - scaled_value(pdb.max_unavailable, expected))
    elif pdb.min_available is not None:
        if isinstance(pdb.min_available, int):
            desired = pdb.min_available
            expected = len(pods)
        else:
            expected, error = _expected_scale(state, pods)
            if not error:
                desired = scaled_value(pdb.min_available, expected)
    if error:
        # failSafe: only disruptionsAllowed is forced; kruleset has no previous
        # status to keep, so the counts are the ones computed so far.
        return PdbStatus(expected, current, desired, 0, disrupted, error)

    allowed = current - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    return PdbStatus(expected, current, desired, allowed, disrupted)
