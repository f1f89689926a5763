"""What a rule receives as ``ctx``: the shapes shared by several mechanisms.

Each mechanism's own context is a concrete class beside its rules, and a rule
of that mechanism names it:

* one scheduling cycle: :class:`~kruleset.rules.scheduler.framework.ScheduleContext`
  (filters, scores, PreFilter, PreEnqueue, PostFilter, DRA, elastic quota; quota
  reclaim's victim rules take it beside their subject, a
  :class:`~kruleset.rules.quota.reclaim.VictimContext`).  A fast path may record
  into a stand-in while it judges one node, so its ``trace`` is a
  :class:`~kruleset.rules.engine.TraceSink`;
* kubelet admission: :class:`~kruleset.rules.kubelet.admission.AdmitContext`;
  an eviction pass's steps: its ``_Pass``; the eviction ranking:
  :class:`~kruleset.rules.kubelet.eviction.rank.RankContext`;
* the API's eviction: :class:`~kruleset.rules.disruption.eviction_api.EvictionContext`;
  a PDB's pod finders: :class:`~kruleset.rules.disruption.finders.FinderContext`;
  a PDB's status: its ``_StatusContext``;
* a Deployment's sync: :class:`~kruleset.rules.controllers.deployment.DeploymentContext`;
  a ReplicaSet's deletion ranking: :class:`~kruleset.rules.controllers.replicaset.RankContext`;
* the scheduling queue's order and backoff, Priority admission: none (:data:`Unread`).

What the engine itself reads from any of them is :class:`~kruleset.rules.engine.Traced`.
The two shapes here are for rules run by more than one caller: the simulation
as the controllers' and the taint manager's rule sets see it (:class:`Profiled`),
and the context of a rule that reads none of it (:data:`Unread`).
"""

from __future__ import annotations

from typing import Protocol, TypeAlias

from .engine import Trace
from .profile import Profile

__all__ = ["Profiled", "Unread"]


class Profiled(Protocol):
    """A context that carries the profile its rule sets run under, and the trace.

    The simulation is one (it runs the controllers' and the taint manager's
    rule sets with itself as ``ctx``), kubelet admission's context another
    (kubelet preemption's rule set); a direct call passes ``None`` and gets the
    default profile, untraced.
    """

    @property
    def trace(self) -> Trace | None: ...

    @property
    def profile(self) -> Profile: ...


#: The ``ctx`` of a rule that reads nothing from it: whichever context runs its
#: rule set, or ``None`` from a direct call (tests, pure helpers).  ``object``,
#: so a rule that starts reading its context has to name the type it reads.
Unread: TypeAlias = object
