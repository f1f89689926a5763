"""Decisions on a cluster state, without writing a scenario: the API for tool authors.

:func:`cluster` reads a dump or a ``.kr`` file into a :class:`ClusterState`
(no timeline is run); on it, :func:`schedule_pod` asks where a pod would go
(preempting as the scheduler would), and :func:`evict`, :func:`drain`,
:func:`eviction_pass`, :func:`capacity` and :func:`advance` act on it as the
cluster's own components would.  ``docs/API.md`` is the guide.

Only :func:`schedule_pod` leaves the state as it was; the others change it
(an evicted pod terminates, a drained node is cordoned, capacity's instances
are placed).  Load the cluster again to ask from the start.

Pods are named as ``namespace/name`` (a bare ``name`` is in ``default``); a
pod argument may also be the :class:`~kruleset.model.Pod` or
:class:`~kruleset.model.state.PodState` itself.  Durations are ``"1m30s"``,
a ``timedelta`` or an int of milliseconds (:func:`kruleset.api.duration_ms`);
times in answers are ``timedelta``.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import TYPE_CHECKING

import attrs

from .api import Duration, duration_ms, load
from .errors import ScenarioError
from .model.objects import Namespace, Pod
from .model.scenario import Scenario
from .model.state import ClusterState, PodState
from .rules.engine import Failure, Trace
from .rules.profile import Profile
from .rules.scheduler.cycle import schedule_one
from .rules.scheduler.framework import FitError, ScheduleContext
from .sim.core import Simulation

if TYPE_CHECKING:  # imported when used: `import kruleset` stays as light as before
    from .capacity import CapacityAnswer
    from .rules.kubelet.eviction.manager import PassResult

__all__ = [
    "DrainAnswer",
    "EvictionAnswer",
    "Placement",
    "advance",
    "capacity",
    "cluster",
    "drain",
    "evict",
    "eviction_pass",
    "pod",
    "schedule_pod",
]


@attrs.frozen(slots=True)
class Placement:
    """Where a pod would go now, as the scheduler decides it.

    Fields:

    - ``pod``: the pod's ``namespace/name``;
    - ``node``: the node it would be bound to in this cycle, or ``None``;
    - ``nominated``: with preemption, the node it would be nominated to once
      ``victims`` are gone (``node`` is then ``None``), else ``None``;
    - ``victims``: the pods preemption would evict (``namespace/name``), in
      the order chosen;
    - ``message``: the FailedScheduling message a run records (``0/3 nodes are
      available: …`` and preemption's part), ``""`` when placed;
    - ``fit_error``: why each node failed (``fit_error.failures``: node ->
      :class:`~kruleset.Failure`), ``None`` when placed;
    - ``scores``: each feasible node's weighted total (empty with at most one);
    - ``per_rule``: each score rule's normalised 0-100 score per feasible node;
    - ``feasible``: the nodes that passed every filter, in the scheduler's order;
    - ``decided_by``: the pick rule that chose the preemption's node, or ``""``.
    """

    pod: str
    node: str | None
    nominated: str | None = None
    victims: tuple[str, ...] = ()
    message: str = ""
    fit_error: FitError | None = None
    scores: dict[str, int] = attrs.field(factory=dict)
    per_rule: dict[str, dict[str, int]] = attrs.field(factory=dict)
    feasible: tuple[str, ...] = ()
    decided_by: str = ""


@attrs.frozen(slots=True)
class EvictionAnswer:
    """The Eviction API's answer to one request.

    Fields: ``pod``; ``allowed`` (the pod is being deleted, or would be on a
    dry run); ``status`` (the HTTP status: 200, 429 when a PodDisruptionBudget
    refuses, 404, …); ``message`` (the API's message and cause, ``""`` on 200);
    ``pdb`` (the budget that answered, ``namespace/name``, or ``""``).
    """

    pod: str
    allowed: bool
    status: int
    message: str = ""
    pdb: str = ""


@attrs.frozen(slots=True)
class DrainAnswer:
    """What ``kubectl drain NODE --ignore-daemonsets --delete-emptydir-data --force`` did.

    Fields: ``node``; ``drained`` (every pod it evicts is gone); ``evicted``
    (pods deleted through the API, ``namespace/name``); ``blocked`` (pods whose
    eviction was still refused with 429 when the drain stopped, with the last
    message); ``failed`` (pods refused for good: 403, 500); ``took`` (simulated
    time from the start to the end of the drain, or to the timeout);
    ``message`` (the drain's own decision: ``node/NAME drained``, or why not).
    """

    node: str
    drained: bool
    evicted: tuple[str, ...] = ()
    blocked: dict[str, str] = attrs.field(factory=dict)
    failed: tuple[str, ...] = ()
    took: timedelta = timedelta(0)
    message: str = ""


def _simulation(state: ClusterState, what: str) -> Simulation:
    sim = state.simulation
    if not isinstance(sim, Simulation):
        raise ScenarioError(f"{what}: this ClusterState was not made by kruleset.cluster(); "
                            "evictions, drains and capacity need the cluster's components",
                            suggestion="state = kruleset.cluster('dump.yaml'), or "
                                       "kruleset.cluster() for an empty one")
    return sim


def cluster(source: str | os.PathLike[str] | Scenario | None = None, *, settle: bool = True,
            allow_unknown_fields: bool = False) -> ClusterState:
    """The cluster of ``source``: a dump (``.yaml``, ``.yml``, ``.json``), a ``.kr`` file or text.

    Its objects are declared in file order, as a run's time 0 declares them;
    with ``settle`` (the default) the cluster then settles at 0s as ``kruleset
    run`` shows it (controllers create missing replicas, the scheduler places
    pending pods, the kubelets make their first pass).  The timeline (``at …``
    statements) and the expectations are not run.  ``None``: an empty cluster
    (one ``default`` namespace) to add nodes and pods to.  A refused file
    raises :class:`~kruleset.ScenarioError`.
    """
    scenario = _scenario(source, allow_unknown_fields)
    sim = Simulation(scenario)
    from .sim.setup import apply_declarations

    apply_declarations(sim)
    if settle:
        sim.settle()
    sim.state.simulation = sim
    return sim.state


def _scenario(source: str | os.PathLike[str] | Scenario | None,
              allow_unknown_fields: bool) -> Scenario:
    if isinstance(source, Scenario):
        return source
    if source is None:
        return load("", file="<cluster>")
    return load(source, allow_unknown_fields=allow_unknown_fields)


def pod(path: str | os.PathLike[str], *, allow_unknown_fields: bool = False) -> Pod:
    """The Pod of a YAML or JSON file: a Pod, or a Deployment's or Job's pod template."""
    from .capacity import read_pod

    found: Pod = read_pod(os.fspath(path), allow_unknown_fields=allow_unknown_fields)
    return found


def _pod_state(state: ClusterState, ref: str | Pod | PodState, what: str) -> PodState:
    if isinstance(ref, PodState):
        return ref
    key = ref.key if isinstance(ref, Pod) else ref if "/" in ref else f"default/{ref}"
    ps = state.pods.get(key)
    if ps is None or ps.gone:
        raise ScenarioError(f"{what}: no pod {key} in the cluster")
    return ps


def _admitted(state: ClusterState, p: Pod, profile: Profile) -> Pod:
    """``p`` as API admission leaves it (its priority, default tolerations, limits)."""
    sim = state.simulation
    if isinstance(sim, Simulation):
        out = sim.admit_to_api(p)
    elif p.priority is None:
        from .rules.priority import admit_priority

        out = admit_priority(p, state.priority_classes, profile)
    else:
        out = p
    if isinstance(out, Failure):
        raise ScenarioError(f"pod {p.key} is refused by the API: {out.reason}")
    assert isinstance(out, Pod)
    return out


def schedule_pod(state: ClusterState, pod: Pod | PodState | str, *, preempt: bool = True,
                 profile: Profile | None = None, trace: Trace | None = None) -> Placement:
    """Where would ``pod`` go if it were created now?  Nothing in ``state`` changes.

    One scheduling cycle, as a run's scheduler makes it (the profile of the
    scenario's ``config scheduler`` for a state from :func:`cluster`, else
    ``profile`` or v1.35's default).  When no node fits and ``preempt`` is
    true, the PostFilter plugins (DefaultPreemption, CapacityScheduling) run as
    upstream's do: the answer then names the ``nominated`` node and its
    ``victims``.  ``pod`` is a new :class:`~kruleset.model.Pod` (admitted as
    the API would: its priority class resolved) or a pending pod of the state.
    A pod the API refuses (an unknown priority class, a ResourceQuota, a
    LimitRange) raises :class:`~kruleset.ScenarioError` with the API's message.
    """
    sim = state.simulation
    prof = profile or (sim.profile if isinstance(sim, Simulation) else Profile.default())
    if isinstance(pod, Pod):
        ps = PodState(_admitted(state, pod, prof), 1 << 62, state.now)
    else:
        ps = _pod_state(state, pod, "schedule_pod")
    now = sim.now if isinstance(sim, Simulation) else state.now
    ctx = ScheduleContext(state, prof, trace, now)
    result = schedule_one(ctx, ps, advance=False)
    scores = dict(result.scores)
    if result.node is not None or result.fit_error is None:
        per_rule = {name: dict(values) for name, values in result.per_rule.items()}
        return Placement(ps.key, result.node, scores=scores, per_rule=per_rule,
                         feasible=tuple(result.feasible))
    fit = result.fit_error
    message = fit.message
    if not preempt:
        return Placement(ps.key, None, message=message, fit_error=fit)
    from .rules.scheduler.preemption.postfilter import POSTFILTER_MESSAGE, run_postfilter

    pf = run_postfilter(ctx, ps, fit)
    if pf is not None and pf.message:
        message = f"{message} {pf.message}"
    elif pf is None and ctx.extra.get(POSTFILTER_MESSAGE):
        message = f"{message} {ctx.extra[POSTFILTER_MESSAGE]}"
    if pf is None or not pf.nominated_node:
        return Placement(ps.key, None, message=message, fit_error=fit)
    return Placement(ps.key, None, pf.nominated_node, tuple(v.key for v in pf.victims),
                     message, fit, decided_by=pf.decided_by)


def evict(state: ClusterState, pod: str | Pod | PodState, *, dry_run: bool = False
          ) -> EvictionAnswer:
    """Ask the Eviction API (``pods/eviction``) to evict ``pod`` now, as ``evict pod`` does.

    On 200 the pod terminates gracefully (its terminationGracePeriodSeconds:
    :func:`advance` lets it go) and its budget's ``disruptionsAllowed`` drops;
    429 when a PodDisruptionBudget refuses.  ``dry_run`` answers the same and
    changes nothing.
    """
    from .sim.drain import request_eviction

    sim = _simulation(state, "evict")
    key = pod.key if isinstance(pod, (Pod, PodState)) else pod if "/" in pod \
        else f"default/{pod}"
    ps = state.pods.get(key) if not isinstance(pod, PodState) else pod
    if ps is None or ps.gone:
        return EvictionAnswer(key, False, 404, f'pods "{key.split("/", 1)[1]}" not found')
    resp = request_eviction(sim, ps, dry_run=dry_run)
    return EvictionAnswer(key, resp.allowed, resp.status, resp.text, resp.pdb)


def drain(state: ClusterState, node: str, *, timeout: Duration = "10m") -> DrainAnswer:
    """``kubectl drain NODE`` (``drain node``): cordon, evict every pod, retry 429s every 5s.

    The simulated clock moves on (pods terminate, controllers recreate them
    elsewhere, budgets recover) until the drain ends or ``timeout`` has passed
    (kubectl's own default waits for ever; the answer then lists the pods
    still ``blocked``).
    """
    from .sim.drain import start_drain

    sim = _simulation(state, "drain")
    if node not in state.nodes:
        raise ScenarioError(f"drain: no node {node} in the cluster")
    limit = duration_ms(timeout, "timeout")
    start, mark = sim.now, len(sim.decisions)
    state.new_epoch()
    job = start_drain(sim, node)
    sim.settle()
    sim.advance(start + limit, lambda: job.finished is not None)
    done = [d for d in sim.decisions[mark:] if d.kind == "drain" and d.pod == node]
    evicted = tuple(d.pod for d in sim.decisions[mark:]
                    if d.kind == "eviction-api" and d.reason.startswith("200"))
    blocked = {pd.key: pd.last_message for pd in job.pods
               if pd.next_try is not None and not pd.failed}
    failed = tuple(pd.key for pd in job.pods if pd.failed)
    end = job.finished if job.finished is not None else start + limit
    message = done[-1].message if done else (
        f"node/{node} not drained after {timedelta(milliseconds=limit)}: "
        f"{len(blocked)} pod(s) still refused")
    return DrainAnswer(node, job.finished is not None and not failed, tuple(dict.fromkeys(evicted)),
                       blocked, failed, timedelta(milliseconds=end - start), message)


def eviction_pass(state: ClusterState, node: str) -> PassResult:
    """The kubelet's eviction manager on ``node`` now: its conditions and the pods it evicts.

    Usage comes from the cluster (``usage`` statements, a Summary API or
    metrics document in the dump).  The pods evicted terminate as the kubelet
    terminates them; the node's conditions and taints are updated.
    """
    from .rules.kubelet.eviction.manager import eviction_pass as _pass
    from .sim.kubelet import apply_conditions, apply_evictions

    sim = _simulation(state, "eviction_pass")
    ns = state.nodes.get(node)
    if ns is None:
        raise ScenarioError(f"eviction_pass: no node {node} in the cluster")
    result = _pass(state, ns, sim.kubelet_config(node), sim.now, profile=sim.profile,
                   trace=sim.trace)
    apply_conditions(sim, ns, result)
    apply_evictions(sim, result)
    sim.settle()
    return result


def capacity(state: ClusterState, pod: Pod, *, limit: int | None = None,
             preempt: bool = False) -> CapacityAnswer:
    """``kruleset capacity``: how many more instances of ``pod`` fit, and where.

    Instances ``NAME-1``, ``NAME-2``, … are created and scheduled one after
    another until one does not fit (``stopped_by`` is its FailedScheduling
    message) or ``limit`` are placed; they stay in the state.  Without
    ``preempt`` they preempt nothing; with it they preempt as the pod's
    policy allows, waiting for their victims (the clock moves on).
    """
    from .capacity import fit_instances
    from .sim.setup import create_object

    sim = _simulation(state, "capacity")
    if pod.namespace not in state.namespaces:
        create_object(sim, Namespace(pod.namespace))
    return fit_instances(sim, pod, limit=limit, preempt=preempt)


def advance(state: ClusterState, by: Duration) -> timedelta:
    """Let ``by`` of simulated time pass (grace periods end, controllers act); the new now."""
    sim = _simulation(state, "advance")
    sim.advance(sim.now + duration_ms(by, "advance"))
    return timedelta(milliseconds=sim.now)
