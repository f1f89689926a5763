"""The Deployment controller's decisions: which ReplicaSet to scale, by how much, and when.

Upstream v1.35: ``pkg/controller/deployment/deployment_controller.go``
(``syncDeployment``), ``sync.go`` (``sync``, ``scale``, ``isScalingEvent``,
``getNewReplicaSet``, ``cleanupDeployment``, ``calculateStatus``),
``rolling.go`` (``rolloutRolling``, ``reconcileNewReplicaSet``,
``reconcileOldReplicaSets``, ``cleanupUnhealthyReplicas``,
``scaleDownOldReplicaSetsForRollingUpdate``), ``recreate.go``
(``rolloutRecreate``, ``oldPodsRunning``) and ``util/deployment_util.go``
(``ResolveFenceposts``, ``MaxSurge``, ``MaxUnavailable``, ``NewRSNewReplicas``,
``GetProportion``, ``getReplicaSetFraction``, ``IsSaturated``,
``FindActiveOrLatest``).

The simulation (``kruleset.sim.workloads``) keeps each Deployment's
ReplicaSets as :class:`ReplicaSet` records, refreshes their status from the
pods before every sync, calls :func:`sync_deployment`, and records each
``Scaled up/down replica set …`` event it returns as a decision.

Example: 10 replicas, maxSurge 25% (rounds up to 3), maxUnavailable 25%
(rounds down to 2)::

    >>> from kruleset.model.objects import Deployment, Pod
    >>> d = Deployment("default", "web", 10, Pod("default", "web"))
    >>> resolve_fenceposts(None, {}, d)
    (3, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from kruleset.model.objects import RECREATE, Deployment, Pod
from kruleset.rules.context import Unread
from kruleset.rules.engine import Trace
from kruleset.rules.registry import define_ruleset, rule

__all__ = [
    "DeploymentContext",
    "DeploymentStatus",
    "ReplicaSet",
    "deployment_status",
    "get_proportion",
    "max_surge",
    "max_unavailable",
    "new_rs_new_replicas",
    "resolve_fenceposts",
    "scaled_value",
    "sync_deployment",
]

DEPLOYMENT = define_ruleset(
    "controllers.deployment", "pipeline",
    "How the Deployment controller scales its ReplicaSets: rollouts (RollingUpdate, "
    "Recreate), proportional scaling, pause, revisions.",
)


@attrs.define(slots=True, eq=False)
class ReplicaSet:
    """One ReplicaSet of a Deployment: its spec, annotations and observed status.

    ``template`` is None for a ReplicaSet adopted from a cluster dump whose
    template is not known (it is then never the new one).  ``desired`` and
    ``max_replicas`` are the ``deployment.kubernetes.io/desired-replicas`` and
    ``max-replicas`` annotations.  The status counts are refreshed from the
    pods before each sync: ``status_replicas`` active pods, ``ready``,
    ``available`` (Ready for minReadySeconds) and ``present`` (pods not
    terminal, terminating ones included).
    """

    name: str
    hash: str
    template: Pod | None
    replicas: int
    revision: int
    created: int
    seq: int
    desired: int | None = None
    max_replicas: int | None = None
    status_replicas: int = 0
    ready: int = 0
    available: int = 0
    present: int = 0


@attrs.define(slots=True)
class DeploymentContext:
    """One sync: the clock, the trace, and what it did (events, in order)."""

    now: int
    trace: Trace | None = None
    # (ReplicaSet name, reason, message, rule that decided), in order
    events: list[tuple[str, str, str, str]] = attrs.field(factory=list)
    subject: str = ""
    rule: str = ""  # the rule deciding the scaling being done

    def note(self, rule_name: str, result: str, why: str = "") -> None:
        """Add a trace entry for this deployment (tracing off: nothing)."""
        if self.trace is not None:
            self.trace.add(rule_name, self.subject, result, why)


@attrs.frozen(slots=True)
class DeploymentStatus:
    """calculateStatus: the counts ``kubectl get deployment`` shows."""

    replicas: int
    updated: int
    ready: int
    available: int
    unavailable: int


def scaled_value(value: int | str, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, a percentage of ``total``."""
    if isinstance(value, int):
        return value
    pct = int(value.rstrip("%"))
    whole, rest = divmod(pct * total, 100)
    return whole + (1 if round_up and rest else 0)


@rule(DEPLOYMENT, "controllers.deployment.fenceposts",
      doc="maxSurge rounds up and maxUnavailable down against replicas; if both are 0, "
          "maxUnavailable is 1.",
      source="util/deployment_util.go ResolveFenceposts")
def resolve_fenceposts(ctx: Unread, args: Mapping[str, Any], d: Deployment) -> tuple[int, int]:
    """``(maxSurge, maxUnavailable)`` resolved against ``d.replicas``."""
    surge = scaled_value(d.max_surge, d.replicas, True)
    unavailable = scaled_value(d.max_unavailable, d.replicas, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d: Deployment) -> int:
    """util.MaxSurge: 0 for Recreate."""
    if d.strategy == RECREATE:
        return 0
    return resolve_fenceposts(None, {}, d)[0]


def max_unavailable(d: Deployment) -> int:
    """util.MaxUnavailable: 0 for Recreate or no replicas, at most replicas."""
    if d.strategy == RECREATE or d.replicas == 0:
        return 0
    return min(resolve_fenceposts(None, {}, d)[1], d.replicas)


def _total(rss: Sequence[ReplicaSet]) -> int:
    return sum(rs.replicas for rs in rss)


def _by_creation(rss: Sequence[ReplicaSet]) -> list[ReplicaSet]:
    """controller.ReplicaSetsByCreationTimestamp: older first, then by name."""
    return sorted(rss, key=lambda rs: (rs.created, rs.seq, rs.name))


def _active(rss: Sequence[ReplicaSet | None]) -> list[ReplicaSet]:
    """controller.FilterActiveReplicaSets: those with replicas > 0."""
    return [rs for rs in rss if rs is not None and rs.replicas > 0]


def _scale(ctx: DeploymentContext, d: Deployment, rs: ReplicaSet, size: int, op: str = ""
           ) -> bool:
    """scaleReplicaSet: set the size and the desired/max-replicas annotations.

    ``op`` given (proportional scaling) the annotations are refreshed even
    when the size stays; otherwise (scaleReplicaSetAndRecordEvent) nothing
    happens then.
    """
    old = rs.replicas
    if old == size and not op:
        return False
    rs.desired, rs.max_replicas = d.replicas, d.replicas + max_surge(d)
    if old == size:
        return False
    rs.replicas = size
    _scaling_event(ctx, rs.name, old, size, ctx.rule, op)
    return True


def _scaling_event(ctx: DeploymentContext, name: str, old: int, size: int, rule_name: str,
                   op: str = "") -> None:
    """The deployment controller's ScalingReplicaSet event (upstream's wording)."""
    op = op or ("up" if size > old else "down")
    ctx.events.append((name, "ScalingReplicaSet",
                       f"Scaled {op} replica set {name} from {old} to {size}", rule_name))


@rule(DEPLOYMENT, "controllers.deployment.new-rs-replicas",
      doc="RollingUpdate: the new ReplicaSet grows while all pods stay within replicas + "
          "maxSurge, never above replicas; Recreate: straight to replicas.",
      source="util/deployment_util.go NewRSNewReplicas; rolling.go reconcileNewReplicaSet")
def new_rs_new_replicas(ctx: Unread, args: Mapping[str, Any],
                        subject: tuple[Deployment, Sequence[ReplicaSet], ReplicaSet]) -> int:
    """The new ReplicaSet's size after scaling up."""
    d, all_rss, new = subject
    if d.strategy == RECREATE:
        return d.replicas
    max_total = d.replicas + scaled_value(d.max_surge, d.replicas, True)
    current = _total(all_rss)
    if current >= max_total:
        return new.replicas
    return new.replicas + min(max_total - current, d.replicas - new.replicas)


def _reconcile_new(ctx: DeploymentContext, d: Deployment, all_rss: list[ReplicaSet],
                   new: ReplicaSet) -> bool:
    ctx.rule = "controllers.deployment.new-rs-replicas"
    if new.replicas == d.replicas:
        return False
    if new.replicas > d.replicas:
        return _scale(ctx, d, new, d.replicas)
    size = new_rs_new_replicas(ctx, {}, (d, all_rss, new))
    ctx.note("controllers.deployment.new-rs-replicas", str(size),
             f"{_total(all_rss)} pods of at most {d.replicas + max_surge(d)}")
    return _scale(ctx, d, new, size)


@rule(DEPLOYMENT, "controllers.deployment.cleanup-unhealthy",
      doc="Old ReplicaSets, oldest first, lose their unavailable replicas first, within "
          "all pods - (replicas - maxUnavailable) - the new ReplicaSet's unavailable pods.",
      source="rolling.go reconcileOldReplicaSets, cleanupUnhealthyReplicas")
def cleanup_unhealthy(ctx: DeploymentContext, args: Mapping[str, Any],
                      subject: tuple[Deployment, list[ReplicaSet], list[ReplicaSet],
                                     ReplicaSet]) -> tuple[int, int]:
    """``(maxScaledDown, cleaned up)``: the old replicas that may go, and those that went."""
    d, all_rss, old_rss, new = subject
    min_available = d.replicas - max_unavailable(d)
    new_unavailable = new.replicas - new.available
    limit = _total(all_rss) - min_available - new_unavailable
    if limit <= 0:
        return limit, 0
    ctx.rule = "controllers.deployment.cleanup-unhealthy"
    done = 0
    for rs in _by_creation(old_rss):
        if done >= limit:
            break
        if rs.replicas == 0 or rs.replicas == rs.available:
            continue
        down = min(limit - done, rs.replicas - rs.available)
        _scale(ctx, d, rs, rs.replicas - down)
        done += down
    return limit, done


@rule(DEPLOYMENT, "controllers.deployment.scale-down-old",
      doc="Old ReplicaSets, oldest first, scale down by the available pods above "
          "replicas - maxUnavailable.",
      source="rolling.go scaleDownOldReplicaSetsForRollingUpdate")
def scale_down_old(ctx: DeploymentContext, args: Mapping[str, Any],
                   subject: tuple[Deployment, list[ReplicaSet], list[ReplicaSet]]) -> int:
    """How many old replicas went."""
    d, all_rss, old_rss = subject
    min_available = d.replicas - max_unavailable(d)
    available = sum(rs.available for rs in all_rss)
    if available <= min_available:
        return 0
    wanted, done = available - min_available, 0
    ctx.rule = "controllers.deployment.scale-down-old"
    for rs in _by_creation(old_rss):
        if done >= wanted:
            break
        if rs.replicas == 0:
            continue
        down = min(rs.replicas, wanted - done)
        _scale(ctx, d, rs, rs.replicas - down)
        done += down
    return done


def _rolling(ctx: DeploymentContext, d: Deployment, new: ReplicaSet, olds: list[ReplicaSet]
             ) -> None:
    """rolloutRolling: scale up if possible, else scale down old ReplicaSets."""
    all_rss = [*olds, new]
    if _reconcile_new(ctx, d, all_rss, new):
        return
    old_active = _active(olds)
    if not old_active:
        return
    limit, cleaned = cleanup_unhealthy(ctx, {}, (d, all_rss, old_active, new))
    ctx.note("controllers.deployment.cleanup-unhealthy", str(cleaned),
             f"at most {max(limit, 0)} old replicas may go")
    if limit <= 0:
        return
    down = scale_down_old(ctx, {}, (d, all_rss, old_active))
    avail = sum(rs.available for rs in all_rss)
    ctx.note("controllers.deployment.scale-down-old", str(down),
             f"{avail} available, at least {d.replicas - max_unavailable(d)} must stay")


@rule(DEPLOYMENT, "controllers.deployment.recreate",
      doc="Recreate: scale every old ReplicaSet to 0, wait until none of their pods is left "
          "running (terminating ones count), then create the new one at replicas.",
      source="recreate.go rolloutRecreate, scaleDownOldReplicaSetsForRecreate, oldPodsRunning, "
             "scaleUpNewReplicaSetForRecreate")
def old_pods_running(ctx: Unread, args: Mapping[str, Any],
                     subject: Sequence[ReplicaSet]) -> bool:
    """oldPodsRunning: any pod of an old ReplicaSet not Succeeded or Failed."""
    return any(rs.status_replicas > 0 or rs.present > 0 for rs in subject)


def _recreate(ctx: DeploymentContext, d: Deployment, new: ReplicaSet | None,
              olds: list[ReplicaSet], make_new: Callable[[int], ReplicaSet]) -> None:
    scaled = False
    ctx.rule = "controllers.deployment.recreate"
    for rs in _active(olds):
        scaled |= _scale(ctx, d, rs, 0)
    if scaled:
        return
    if old_pods_running(ctx, {}, olds):
        ctx.note("controllers.deployment.recreate", "wait", "old pods are still running")
        return
    if new is None:
        new = _create_new(ctx, d, d.replicas, make_new)
    if new.replicas != d.replicas:
        _scale(ctx, d, new, d.replicas)


def _create_new(ctx: DeploymentContext, d: Deployment, size: int,
                make_new: Callable[[int], ReplicaSet]) -> ReplicaSet:
    """getNewReplicaSet creating the ReplicaSet: annotated with replicas and max replicas."""
    new = make_new(size)
    new.desired, new.max_replicas = d.replicas, d.replicas + max_surge(d)
    ctx.note("controllers.deployment.new-replicaset", new.name,
             f"revision {new.revision}, {size} replicas")
    if size:
        _scaling_event(ctx, new.name, 0, size, "controllers.deployment.new-replicaset")
    return new


@rule(DEPLOYMENT, "controllers.deployment.scaling-event",
      doc="A change of replicas (an active ReplicaSet's desired-replicas annotation differs) "
          "is a scaling event: the ReplicaSets are resized, no rollout step is taken.",
      source="sync.go isScalingEvent")
def is_scaling_event(ctx: Unread, args: Mapping[str, Any],
                     subject: tuple[Deployment, Sequence[ReplicaSet]]) -> bool:
    """Whether some active ReplicaSet was sized for another replica count."""
    d, rss = subject
    return any(rs.desired is not None and rs.desired != d.replicas for rs in _active(rss))


def _fraction(rs: ReplicaSet, d: Deployment, status_replicas: int) -> int:
    """getReplicaSetFraction: the replicas ``rs`` gains (or loses) in proportion."""
    if d.replicas == 0:
        return -rs.replicas
    target = d.replicas + max_surge(d)
    before = rs.max_replicas or 0
    if before == 0:
        before = status_replicas
        if before == 0:
            return 0
    # RoundToInt32(float64(rs * target) / before): half away from zero, here on integers.
    num = rs.replicas * target
    return (2 * num + before) // (2 * before) - rs.replicas


@rule(DEPLOYMENT, "controllers.deployment.proportion",
      doc="Replicas added or removed mid-rollout are spread over the active ReplicaSets in "
          "proportion to their size against the max-replicas annotation, within what is "
          "left to add.",
      source="util/deployment_util.go GetProportion, getReplicaSetFraction")
def get_proportion(ctx: Unread, args: Mapping[str, Any],
                   subject: tuple[ReplicaSet, Deployment, int, int, int]) -> int:
    """GetProportion for ``(rs, d, to_add, added, deployment status.replicas)``."""
    rs, d, to_add, added, status_replicas = subject
    if rs.replicas == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _fraction(rs, d, status_replicas)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _saturated(d: Deployment, rs: ReplicaSet | None) -> bool:
    """util.IsSaturated: the new ReplicaSet is at replicas, sized for them, all available."""
    return (rs is not None and rs.desired == d.replicas and rs.replicas == d.replicas
            and rs.available == d.replicas)


def _proportional(ctx: DeploymentContext, d: Deployment, new: ReplicaSet | None,
                  olds: list[ReplicaSet]) -> None:
    """sync.go scale: one active (or the latest) ReplicaSet takes replicas; else spread."""
    everyone = [rs for rs in [*olds, new] if rs is not None]
    active = _active(everyone)
    ctx.rule = "controllers.deployment.proportion"
    if len(active) <= 1:
        target = active[0] if active else (new if new is not None else (
            max(olds, key=lambda rs: (rs.created, rs.seq, rs.name)) if olds else None))
        if target is not None and target.replicas != d.replicas:
            _scale(ctx, d, target, d.replicas)
        return
    if _saturated(d, new):
        for rs in _active(olds):
            _scale(ctx, d, rs, 0)
        return
    if d.strategy == RECREATE:
        return
    allowed = d.replicas + max_surge(d) if d.replicas > 0 else 0
    to_add = allowed - _total(active)
    if to_add > 0:  # ReplicaSetsBySizeNewer: larger first, newer first among equals
        active.sort(key=lambda rs: (-rs.replicas, -rs.created, -rs.seq, rs.name))
    elif to_add < 0:  # ReplicaSetsBySizeOlder: larger first, older first among equals
        active.sort(key=lambda rs: (-rs.replicas, rs.created, rs.seq, rs.name))
    status_replicas = sum(rs.status_replicas for rs in everyone)
    sizes: list[int] = []
    added = 0
    for rs in active:
        p = get_proportion(ctx, {}, (rs, d, to_add, added, status_replicas)) if to_add else 0
        sizes.append(rs.replicas + p)
        added += p
    if to_add:
        sizes[0] = max(sizes[0] + to_add - added, 0)  # leftovers to the largest
    op = "up" if to_add > 0 else ("down" if to_add < 0 else "")
    ctx.note("controllers.deployment.proportion", ", ".join(
        f"{rs.name}={n}" for rs, n in zip(active, sizes, strict=True)),
        f"{to_add:+d} replicas to spread")
    for rs, n in zip(active, sizes, strict=True):
        _scale(ctx, d, rs, n, op)


@rule(DEPLOYMENT, "controllers.deployment.new-replicaset",
      doc="The new ReplicaSet is the oldest one whose template equals the Deployment's; "
          "found, it takes revision max(old revisions) + 1 if lower (a rollback); missing, "
          "a rollout creates it with that revision.",
      source="sync.go getAllReplicaSetsAndSyncRevision, getNewReplicaSet; "
             "util/deployment_util.go FindNewReplicaSet, SetNewReplicaSetAnnotations")
def find_new(ctx: Unread, args: Mapping[str, Any],
             subject: tuple[Deployment, Sequence[ReplicaSet]]) -> ReplicaSet | None:
    """The ReplicaSet whose template is the Deployment's (EqualIgnoreHash), oldest first."""
    d, rss = subject
    for rs in _by_creation(rss):
        if rs.template is not None and rs.template == d.template:
            return rs
    return None


def _new_and_old(ctx: DeploymentContext, d: Deployment, rss: list[ReplicaSet]
                 ) -> tuple[ReplicaSet | None, list[ReplicaSet]]:
    new = find_new(ctx, {}, (d, rss))
    olds = [rs for rs in rss if rs is not new]
    if new is not None:
        top = max((rs.revision for rs in olds), default=0) + 1
        if new.revision < top:
            ctx.note("controllers.deployment.new-replicaset", f"revision {top}",
                     f"{new.name} had revision {new.revision}")
            new.revision = top
    return new, olds


@rule(DEPLOYMENT, "controllers.deployment.paused",
      doc="A paused Deployment is only scaled: no new ReplicaSet, no rollout step.",
      source="deployment_controller.go syncDeployment (d.Spec.Paused → dc.sync); sync.go sync")
def paused(ctx: Unread, args: Mapping[str, Any], d: Deployment) -> bool:
    """Whether the rollout is held."""
    return d.paused


def sync_deployment(ctx: DeploymentContext, d: Deployment, rss: list[ReplicaSet],
                    make_new: Callable[[int], ReplicaSet]) -> None:
    """syncDeployment: one reconciliation of ``d`` over its ReplicaSets ``rss``.

    ``make_new(replicas)`` creates the new ReplicaSet (its revision is the
    highest so far + 1) and adds it to ``rss``.
    """
    new, olds = _new_and_old(ctx, d, rss)
    if paused(ctx, {}, d):
        ctx.note("controllers.deployment.paused", "scale only")
        _proportional(ctx, d, new, olds)
        return
    if is_scaling_event(ctx, {}, (d, rss)):
        ctx.note("controllers.deployment.scaling-event", "scale", f"replicas {d.replicas}")
        _proportional(ctx, d, new, olds)
        return
    if d.strategy == RECREATE:
        _recreate(ctx, d, new, olds, make_new)
        return
    if new is None:
        new = _create_new(ctx, d, new_rs_new_replicas(ctx, {}, (d, olds, _EMPTY_RS)), make_new)
    _rolling(ctx, d, new, olds)


_EMPTY_RS = ReplicaSet("", "", None, 0, 0, 0, 0)


@rule(DEPLOYMENT, "controllers.deployment.history",
      doc="Once a rollout is complete (or while paused), the old ReplicaSets beyond "
          "revisionHistoryLimit, lowest revision first, are deleted if they have no replicas.",
      source="sync.go cleanupDeployment, sync; rolling.go rolloutRolling and recreate.go "
             "rolloutRecreate (DeploymentComplete); util ReplicaSetsByRevision")
def history_to_delete(ctx: Unread, args: Mapping[str, Any],
                      subject: tuple[Deployment, Sequence[ReplicaSet]]) -> list[ReplicaSet]:
    """The old ReplicaSets cleanupDeployment deletes.

    Of the ``len(olds) - revisionHistoryLimit`` lowest revisions, those with
    no replicas in spec or status; kruleset also waits until their
    terminating pods are gone (upstream's garbage collector deletes those
    with them), so no pod is left without its ReplicaSet.
    """
    d, olds = subject
    extra = len(olds) - d.revision_history_limit
    if extra <= 0:
        return []
    ordered = sorted(olds, key=lambda rs: (rs.revision, rs.created, rs.seq, rs.name))
    return [rs for rs in ordered[:extra]
            if rs.replicas == 0 and rs.status_replicas == 0 and rs.present == 0]


@rule(DEPLOYMENT, "controllers.deployment.rollout",
      doc="kubectl rollout pause/resume sets spec.paused; undo gives the Deployment the pod "
          "template of the previous revision's ReplicaSet (or to-revision's).",
      source="kubectl rollback.go DeploymentRollbacker.Rollback, deploymentRevision; "
             "kubectl polymorphichelpers objectpauser.go, objectresumer.go")
def rollback_target(ctx: Unread, args: Mapping[str, Any],
                    subject: tuple[Sequence[ReplicaSet], int]) -> ReplicaSet | None:
    """The ReplicaSet ``undo`` rolls back to: revision N, or the second highest (None: none)."""
    rss, to_revision = subject
    if to_revision > 0:
        return next((rs for rs in rss if rs.revision == to_revision), None)
    ordered = sorted(rss, key=lambda rs: rs.revision)
    return ordered[-2] if len(ordered) >= 2 else None


@rule(DEPLOYMENT, "controllers.deployment.status",
      doc="status: replicas and readyReplicas and availableReplicas summed over the "
          "ReplicaSets, updatedReplicas the new one's, unavailableReplicas the spec total "
          "minus the available (at least 0).",
      source="sync.go calculateStatus")
def deployment_status(ctx: Unread, args: Mapping[str, Any],
                      subject: tuple[Sequence[ReplicaSet], ReplicaSet | None]
                      ) -> DeploymentStatus:
    """calculateStatus over the ReplicaSets (status refreshed) and the new one."""
    rss, new = subject
    available = sum(rs.available for rs in rss)
    return DeploymentStatus(
        sum(rs.status_replicas for rs in rss),
        new.status_replicas if new is not None else 0,
        sum(rs.ready for rs in rss), available,
        max(_total(rss) - available, 0))


def complete(d: Deployment, status: DeploymentStatus) -> bool:
    """util.DeploymentComplete: updated, total and available replicas all at replicas."""
    return status.updated == d.replicas == status.replicas == status.available
