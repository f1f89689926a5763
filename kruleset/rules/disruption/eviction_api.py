"""API-initiated eviction: the Eviction subresource of a pod (seed 003 §13).

The rule set ``api.eviction`` is a pipeline; each step may answer the request
(:class:`~kruleset.rules.engine.Stop` with an :class:`EvictionResponse`):

1. ``api.eviction.ignore-pdb`` — a pod that is Pending, Succeeded, Failed or
   already terminating is deleted without looking at budgets (``canIgnorePDB``);
2. ``api.eviction.pdb-lookup`` — the PDBs of the namespace whose selector
   matches the pod (an empty selector matches every pod): none → 200, more than
   one → 500;
3. ``api.eviction.unhealthy-pod`` — a pod that is not Ready is deleted without
   using the budget when the PDB's unhealthyPodEvictionPolicy is AlwaysAllow,
   or (IfHealthyBudget, the default) when the application is not disrupted
   (currentHealthy ≥ desiredHealthy > 0);
4. ``api.eviction.pdb-budget`` — ``checkAndDecrement``: a PDB the controller
   has not observed yet (created this instant, or whose sync failed so that
   its status was never written) → 429 "still being processed"; disruptedPods over
   2000 → 403; no disruptions allowed → 429 with the budget's numbers;
   otherwise the budget is decremented and the pod recorded in disruptedPods
   (not in dry-run) → 200.

Upstream: ``pkg/registry/core/pod/storage/eviction.go`` (``EvictionREST.Create``,
``canIgnorePDB``, ``checkAndDecrement``, ``getPodDisruptionBudgets``,
``addConditionAndDeletePod``).

Example::

    >>> from kruleset.model.objects import Node, Pod, PodDisruptionBudget
    >>> from kruleset.model.resources import Resources
    >>> from kruleset.model.selectors import LabelSelector, Requirement
    >>> from kruleset.model.state import ClusterState
    >>> st = ClusterState()
    >>> _ = st.add_node(Node("n1", Resources(cpu=4000, memory=8 << 30, pods=110)))
    >>> for name in ("web-1", "web-2"):
    ...     st.bind(st.add_pod(Pod("default", name, labels={"app": "web"})), "n1")
    >>> sel = LabelSelector((Requirement("app", "In", ("web",)),))
    >>> st.pdbs["default/web-pdb"] = PodDisruptionBudget("default", "web-pdb", sel, min_available=2)
    >>> r = evict(st, st.pods["default/web-1"], 10_000)
    >>> r.status, r.message
    (429, "Cannot evict pod as it would violate the pod's disruption budget.")
    >>> r.cause
    'The disruption budget web-pdb needs 2 healthy pods and has 2 currently'
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import attrs

from kruleset.model.objects import PodDisruptionBudget
from kruleset.model.state import FAILED, PENDING, SUCCEEDED, ClusterState, PodState

from ..engine import ActiveRuleSet, Stop, Trace
from ..profile import Profile
from ..registry import define_ruleset, rule
from .pdb import PdbStatus, healthy, matching_pdbs, pdb_status

__all__ = [
    "ALWAYS_ALLOW",
    "DISRUPTION_TARGET_REASON",
    "EVICTION",
    "EvictionContext",
    "EvictionRequest",
    "EvictionResponse",
    "IF_HEALTHY_BUDGET",
    "MAX_DISRUPTED_POD_SIZE",
    "MULTIPLE_PDBS_MESSAGE",
    "VIOLATION_MESSAGE",
    "evict",
]

EVICTION = define_ruleset(
    "api.eviction", "pipeline",
    "The Eviction API: answers one eviction request 200, 429 or 500, "
    "honouring PodDisruptionBudgets.",
)

IF_HEALTHY_BUDGET, ALWAYS_ALLOW = "IfHealthyBudget", "AlwaysAllow"
# eviction.go MaxDisruptedPodSize
MAX_DISRUPTED_POD_SIZE = 2000
VIOLATION_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS_MESSAGE = ("This pod has more than one PodDisruptionBudget, which the eviction "
                         "subresource does not support.")
DISRUPTED_TOO_BIG_MESSAGE = ("DisruptedPods map too big - too many evictions not confirmed "
                             "by PDB controller")
# The DisruptionTarget condition addConditionAndDeletePod puts on the pod.
DISRUPTION_TARGET_REASON = "EvictionByEvictionAPI"


@attrs.frozen(slots=True)
class EvictionResponse:
    """The API server's answer to one eviction.

    ``status`` is the HTTP code (200, 429, 500, or 403 for the Forbidden
    cases); ``message`` upstream's Status message ("" on success); ``cause``
    the DisruptionBudget cause upstream attaches to a 429; ``pdb`` the key
    (``ns/name``) of the budget that decided, "" when none did;
    ``allowed_after`` that budget's disruptionsAllowed after this request
    (``None`` when no single budget was consulted); ``used_budget`` whether
    the request took one disruption from it; ``rule`` the rule that answered.
    """

    status: int
    message: str = ""
    pdb: str = ""
    allowed_after: int | None = None
    cause: str = ""
    used_budget: bool = False
    rule: str = ""

    @property
    def allowed(self) -> bool:
        """True for 200: the pod is (or, in dry-run, would be) deleted gracefully."""
        return self.status == 200

    @property
    def text(self) -> str:
        """Message and cause on one line, as a report shows them."""
        if self.cause:
            return f"{self.message} {self.cause}" if self.message else self.cause
        return self.message


@attrs.define(slots=True)
class EvictionRequest:
    """What flows through the ``api.eviction`` pipeline for one request."""

    ps: PodState
    pdb: PodDisruptionBudget | None = None
    status: PdbStatus | None = None


@attrs.define(slots=True)
class EvictionContext:
    """The pipeline's context: the cluster, the clock (ms), the trace and the request's options.

    ``stale_pdbs`` are keys of PDBs whose status the disruption controller has
    not observed yet (status.observedGeneration < metadata.generation);
    ``fast`` the simulation's FastPaths (None: the reference throughout).
    """

    state: ClusterState
    now: int
    trace: Trace | None = None
    dry_run: bool = False
    stale_pdbs: Collection[str] = ()
    fast: Any = None


_IGNORE, _LOOKUP, _UNHEALTHY, _BUDGET = (
    "api.eviction.ignore-pdb", "api.eviction.pdb-lookup", "api.eviction.unhealthy-pod",
    "api.eviction.pdb-budget")


def _ok(rule_name: str, why: str, pdb: str = "", allowed_after: int | None = None,
        used_budget: bool = False) -> Stop:
    return Stop(EvictionResponse(200, "", pdb, allowed_after, "", used_budget, rule_name), why)


def _refuse(rule_name: str, status: int, message: str, pdb: str, allowed: int | None,
            cause: str = "") -> Stop:
    return Stop(EvictionResponse(status, message, pdb, allowed, cause, False, rule_name),
                cause or message)


@rule(EVICTION, _IGNORE,
      doc="A pod that is Pending, Succeeded, Failed or already terminating is deleted without "
          "checking PodDisruptionBudgets.",
      source="seed 003 §13; eviction.go canIgnorePDB")
def _ignore_pdb(ctx: EvictionContext, args: Mapping[str, Any], req: EvictionRequest) -> Stop | None:
    ps = req.ps
    if ps.terminating:
        return _ok(_IGNORE, "the pod is already terminating")
    if ps.phase in (SUCCEEDED, FAILED):
        return _ok(_IGNORE, f"the pod is {ps.phase}")
    if ps.phase == PENDING or ps.node is None:
        return _ok(_IGNORE, "the pod is Pending")
    return None


@rule(EVICTION, _LOOKUP,
      doc="The PodDisruptionBudgets of the pod's namespace whose selector matches it decide; "
          "none: 200; more than one: 500.",
      source="seed 003 §13; eviction.go getPodDisruptionBudgets, EvictionREST.Create")
def _pdb_lookup(ctx: EvictionContext, args: Mapping[str, Any],
                req: EvictionRequest) -> Stop | EvictionRequest:
    pdbs = matching_pdbs(ctx.state, req.ps)
    if not pdbs:
        return _ok(_LOOKUP, "no PodDisruptionBudget selects the pod")
    if len(pdbs) > 1:
        return _refuse(_LOOKUP, 500, MULTIPLE_PDBS_MESSAGE, ", ".join(p.key for p in pdbs), None)
    req.pdb = pdbs[0]
    req.status = pdb_status(ctx.state, pdbs[0], ctx.now, ctx.fast, ctx.trace, req.ps.key)
    return req


@rule(EVICTION, _UNHEALTHY,
      doc="A pod that is not Ready is evicted without using the budget under AlwaysAllow, or "
          "under IfHealthyBudget when currentHealthy >= desiredHealthy > 0.",
      source="eviction.go EvictionREST.Create (unhealthyPodEvictionPolicy)")
def _unhealthy_pod(ctx: EvictionContext, args: Mapping[str, Any],
                   req: EvictionRequest) -> Stop | None:
    if req.pdb is None or req.status is None or healthy(req.ps):
        return None
    st, pdb = req.status, req.pdb
    if pdb.unhealthy_pod_eviction_policy == ALWAYS_ALLOW:
        return _ok(_UNHEALTHY,
                   f"the pod is not Ready and {pdb.name} has unhealthyPodEvictionPolicy "
                   "AlwaysAllow",
                   pdb.key, st.disruptions_allowed)
    if st.current_healthy >= st.desired_healthy and st.desired_healthy > 0:
        return _ok(_UNHEALTHY,
                   f"the pod is not Ready and {pdb.name} has {st.current_healthy} healthy pods "
                   f"of {st.desired_healthy} desired", pdb.key, st.disruptions_allowed)
    return None  # the budget decides (and, with nothing to spare, refuses)


@rule(EVICTION, _BUDGET,
      doc="The budget must allow a disruption: 429 when it allows none (or is still being "
          "processed); otherwise it is decremented and the pod recorded in disruptedPods.",
      source="seed 003 §13; eviction.go checkAndDecrement")
def _pdb_budget(ctx: EvictionContext, args: Mapping[str, Any], req: EvictionRequest) -> Stop | None:
    if req.pdb is None or req.status is None:
        return None
    pdb, st = req.pdb, req.status
    if pdb.key in ctx.stale_pdbs or st.observed_generation < 1:
        # observedGeneration < generation: created or changed this instant, or
        # never synced (its sync failed from the start).
        cause = f"The disruption budget {pdb.name} is still being processed by the server."
        return _refuse(_BUDGET, 429, VIOLATION_MESSAGE, pdb.key, 0, cause)
    # A negative disruptionsAllowed (403 upstream) cannot occur: the status is
    # computed here and clamped at 0, as the controller writes it.
    if len(st.disrupted_pods) > MAX_DISRUPTED_POD_SIZE:
        return _refuse(_BUDGET, 403, f'poddisruptionbudgets.policy "{pdb.name}" is forbidden: '
                       f"{DISRUPTED_TOO_BIG_MESSAGE}", pdb.key, st.disruptions_allowed)
    if st.disruptions_allowed == 0:
        cause = (f"The disruption budget {pdb.name} needs {st.desired_healthy} healthy pods "
                 f"and has {st.current_healthy} currently")
        return _refuse(_BUDGET, 429, VIOLATION_MESSAGE, pdb.key, 0, cause)
    after = st.disruptions_allowed - 1
    if not ctx.dry_run:
        # status.disruptedPods[pod] = now: the controller keeps the pod out of
        # currentHealthy until it terminates (or for DELETION_TIMEOUT).
        ctx.state.pdb_disrupted.setdefault(pdb.key, {})[req.ps.pod.name] = ctx.now
    return _ok(_BUDGET, f"{pdb.name} allowed {st.disruptions_allowed} disruption(s), {after} left",
               pdb.key, after, used_budget=True)


def evict(
    state: ClusterState,
    ps: PodState,
    now: int,
    *,
    dry_run: bool = False,
    profile: Profile | None = None,
    trace: Trace | None = None,
    stale_pdbs: Collection[str] = (),
    fast: Any = None,
) -> EvictionResponse:
    """Answer one eviction request for ``ps`` at ``now`` (ms).

    On 200 (and not ``dry_run``) the pod gets the DisruptionTarget condition
    with reason EvictionByEvictionAPI and, when a budget was used, is recorded
    in that PDB's disruptedPods; deleting the pod gracefully (its
    terminationGracePeriodSeconds) is the caller's part — the simulation's
    ``evict pod`` does it.  A dry-run answers as the real request would
    (including 429) and changes nothing.  See the module docstring for an
    example; ``stale_pdbs`` lists PDBs the disruption controller has not
    observed yet; ``fast`` is the simulation's FastPaths (PDB selections).
    """
    active: ActiveRuleSet = profile.active(EVICTION.name) if profile is not None \
        else EVICTION.defaults()
    ctx = EvictionContext(state, now, trace, dry_run, stale_pdbs, fast)
    if trace is not None:
        trace.now = now
    out = active.run(ctx, EvictionRequest(ps), subject=ps.key)
    if isinstance(out, Stop):
        resp = out.result
        assert isinstance(resp, EvictionResponse)
    else:
        # Every step let the request through (rules disabled by a profile):
        # the pod is deleted as with no budget.
        req = out if isinstance(out, EvictionRequest) else EvictionRequest(ps)
        resp = EvictionResponse(200, "", req.pdb.key if req.pdb else "")
    if resp.allowed and not dry_run:
        ps.conditions["DisruptionTarget"] = DISRUPTION_TARGET_REASON
    return resp

