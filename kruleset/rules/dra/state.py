"""What the simulated API server holds for DRA: classes, slices, claims, templates.

:class:`DraState` lives on ``ClusterState.dra`` (created by the first DRA
object).  Claims are mutable here (status: allocation, ``reservedFor``), the
declared objects are not.  ``in_use`` maps each allocated device id to the
claim holding it (admin-access results excepted), so the allocator sees every
allocation without walking the claims.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from ...model.dra import (
    GATES,
    LOCKED_GATES,
    ClaimSpec,
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from ...model.dra_cel import Evaluator
from ...model.objects import Pod
from .allocator import Allocation, Pool, gather_pools

__all__ = ["ClaimState", "DraState", "GATES", "LOCKED_GATES", "dra_of", "generated_name",
           "pod_claim_states", "Written"]



# Upstream's generateName suffix alphabet (k8s.io/apimachinery/pkg/util/rand).
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def generated_name(namespace: str, pod: str, pod_claim: str) -> str:
    """The claim name the API server would give ``POD-PODCLAIM-`` plus 5 characters.

    The suffix is derived from ``namespace/pod/pod_claim`` (upstream: random),
    so runs repeat; the prefix is cut as the claim controller cuts it when
    longer than 57 characters.
    """
    prefix = f"{pod}-{pod_claim}"
    if len(prefix) > 57:
        keep_pod = len(pod) * 57 // len(prefix)
        prefix = f"{pod[:keep_pod]}-{pod_claim[:57 - keep_pod - 1]}"
    digest = hashlib.sha256(f"{namespace}/{pod}/{pod_claim}".encode()).digest()
    suffix = "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:5])
    return f"{prefix}-{suffix}"


class ClaimState:
    """A ResourceClaim in the simulated API: its spec and mutable status."""

    __slots__ = ("namespace", "name", "spec", "allocation", "reserved_for", "owner",
                 "pod_claim", "deleting", "gone", "span")

    def __init__(self, namespace: str, name: str, spec: ClaimSpec, owner: str = "",
                 pod_claim: str = "", span: Any = None) -> None:
        self.namespace = namespace
        self.name = name
        self.spec = spec
        self.allocation: Allocation | None = None
        self.reserved_for: list[str] = []
        self.owner = owner          # pod key of the pod a template claim was made for
        self.pod_claim = pod_claim  # annotation resource.kubernetes.io/pod-claim-name
        self.deleting = False
        self.gone = False
        self.span = span

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def __repr__(self) -> str:
        return f"<claim {self.key} {'allocated' if self.allocation else 'pending'}>"


class DraState:
    """The DRA objects of one simulation and the indexes the scheduler reads."""

    # Visit a node's pools in the reverse of declaration order (tests only: upstream's
    # order is Go map order, so a tie between pools may go either way).
    reverse_pools = False

    def __init__(self) -> None:
        self.classes: dict[str, DeviceClass] = {}
        self.slices: list[ResourceSlice] = []
        self.claims: dict[str, ClaimState] = {}
        self.templates: dict[str, ResourceClaimTemplate] = {}
        # pod key -> pod claim name -> generated claim name (status.resourceClaimStatuses)
        self.pod_claims: dict[str, dict[str, str]] = {}
        self.in_use: dict[str, str] = {}  # device id -> claim key
        self.watched: list[Any] = []      # PodStates with claims, until they end
        self.node_labels: Mapping[str, Mapping[str, str]] = {}
        self.gates: dict[str, bool] = dict(GATES)
        self.evaluator = Evaluator()
        self.selectable: dict[tuple[int, int], bool] = {}
        self.slices_version = 0
        self.usage_version = 0
        # (driver, pool) -> a counter moved whenever one of its devices is allocated or freed
        self.pool_versions: dict[tuple[str, str], int] = {}
        # (claim specs, node) -> (pool versions, pools, allocator answer): see plugin.solve
        self.solutions: dict[Any, Any] = {}
        self._pools: dict[str, tuple[Any, list[Pool]]] = {}
        self._index_version = -1
        self._local: dict[str, list[ResourceSlice]] = {}
        self._shared: list[ResourceSlice] = []
        self._pool_order: dict[tuple[str, str], int] = {}
        # (driver, pool) -> generation -> slices of the cluster (pool completeness)
        self._census: dict[tuple[str, str], dict[int, int]] = {}
        self._selectors = False

    # --- objects ----------------------------------------------------------------
    def add_slice(self, s: ResourceSlice) -> None:
        """A new ResourceSlice."""
        self.slices.append(s)
        self.slices_version += 1

    def add_claim(self, c: ResourceClaim) -> ClaimState:
        """A declared claim, with the status it was declared with."""
        cs = ClaimState(c.namespace, c.name, c.spec, owner=c.owner, span=c.span)
        self.claims[cs.key] = cs
        if c.allocated is not None:
            self.set_allocation(cs, Allocation(c.allocated))
            self._derive_node(cs)
        cs.reserved_for = list(c.reserved_for)
        return cs

    def _derive_node(self, cs: ClaimState) -> None:
        """A declared allocation's node restriction, from its devices' slices."""
        from .allocator import Candidate, allocation_of

        assert cs.allocation is not None
        used = []
        for ref in cs.allocation.devices:
            for s in self.slices:
                if s.driver == ref.driver and s.pool == ref.pool and any(
                        d.name == ref.device for d in s.devices):
                    dev = next(d for d in s.devices if d.name == ref.device)
                    used.append(Candidate(dev, s.driver, s.pool, s))
                    break
        derived = allocation_of(list(cs.allocation.devices), used)
        cs.allocation = derived

    def set_allocation(self, cs: ClaimState, alloc: Allocation | None) -> None:
        """Write (or clear, with None) a claim's allocation, keeping ``in_use`` in step."""
        versions = self.pool_versions
        if cs.allocation is not None:
            for ref in cs.allocation.devices:
                if not ref.admin_access and self.in_use.get(ref.id) == cs.key:
                    del self.in_use[ref.id]
                    pool = (ref.driver, ref.pool)
                    versions[pool] = versions.get(pool, 0) + 1
        cs.allocation = alloc
        if alloc is not None:
            for ref in alloc.devices:
                if not ref.admin_access:
                    self.in_use[ref.id] = cs.key
                    pool = (ref.driver, ref.pool)
                    versions[pool] = versions.get(pool, 0) + 1
        self.usage_version += 1

    def delete_claim(self, cs: ClaimState) -> None:
        """Remove a claim from the API (its devices are freed)."""
        self.set_allocation(cs, None)
        cs.gone = True
        self.claims.pop(cs.key, None)

    # --- lookups --------------------------------------------------------------------
    def pools_for(self, name: str, labels: Mapping[str, str]) -> list[Pool]:
        """The pools a node can use, kept until the slices or the node's labels change.

        Node-local slices are indexed by node, so a node's pools cost its own
        slices plus the network-attached ones (not every slice of the cluster);
        the labels matter only when some slice has a node selector.
        """
        version = self.slices_version
        if self._index_version != version:
            self._index(version)
        kept = self._pools.get(name)
        if self._selectors:
            stamp: Any = (version, tuple(sorted(labels.items())))
        else:
            stamp = version
        if kept is not None and kept[0] == stamp:
            return kept[1]
        pools = gather_pools(self._local.get(name, []) + self._shared, name, labels,
                             self._census)
        # Pools in the order their first slice was declared (upstream: Go map order;
        # ``reverse_pools`` lets a differential harness try the opposite order).
        order = self._pool_order
        sign = -1 if self.reverse_pools else 1
        pools.sort(key=lambda p: sign * order[(p.driver, p.name)])
        self._pools[name] = (stamp, pools)
        return pools

    def _index(self, version: int) -> None:
        self._local.clear()
        self._shared = []
        self._pool_order = {}
        self._census = {}
        for s in self.slices:
            self._pool_order.setdefault((s.driver, s.pool), len(self._pool_order))
            gens = self._census.setdefault((s.driver, s.pool), {})
            gens[s.generation] = gens.get(s.generation, 0) + 1
            if s.node_name:
                self._local.setdefault(s.node_name, []).append(s)
            else:
                self._shared.append(s)
        self._selectors = any(s.node_selector is not None for s in self._shared)
        self._index_version = version

    def claim_for(self, pod_key: str, namespace: str, entry: Any) -> tuple[str, str]:
        """(claim name, error) for one entry of ``pod.spec.resourceClaims`` (upstream Name)."""
        if entry.claim_name:
            return entry.claim_name, ""
        if entry.template_name:
            made = self.pod_claims.get(pod_key, {}).get(entry.name)
            if made is None:
                return "", f'pod "{pod_key}": ResourceClaim not created yet'
            return made, ""
        return "", (f'pod "{pod_key}", spec.resourceClaim "{entry.name}": none of the '
                    "supported fields are set")

    def claims_of(self, pod: Any) -> Iterator[tuple[Any, str, ClaimState | None, str]]:
        """(entry, claim name, claim or None, error) for each of the pod's claims, in order."""
        for entry in pod.resource_claims:
            name, err = self.claim_for(pod.key, pod.namespace, entry)
            cs = self.claims.get(f"{pod.namespace}/{name}") if name else None
            yield entry, name, cs, err


# A claim's status before a write: the claim, its allocation and reservedFor then.
Written = tuple[ClaimState, Allocation | None, tuple[str, ...]]


def pod_claim_states(dra: DraState | None, pod: Pod) -> tuple[list[ClaimState], str]:
    """The pod's claims in order, or upstream's message for the first that is not usable
    (upstream ``foreachPodResourceClaim``: PreEnqueue, PreFilter and the QueueingHints)."""
    out: list[ClaimState] = []
    for entry in pod.resource_claims:
        if dra is None:
            name, err = (entry.claim_name, "") if entry.claim_name else (
                "", f'pod "{pod.key}": ResourceClaim not created yet')
            cs = None
        else:
            name, err = dra.claim_for(pod.key, pod.namespace, entry)
            cs = dra.claims.get(f"{pod.namespace}/{name}") if name else None
        if err:
            return out, err
        if cs is None:
            return out, f'could not find ResourceClaim "{pod.namespace}/{name}"'
        if cs.deleting:
            return out, f'resourceclaim "{cs.name}" is being deleted'
        if entry.template_name and cs.owner != pod.key:
            return out, (f"ResourceClaim {cs.key} was not created for pod {pod.key} "
                         "(pod is not owner)")
        out.append(cs)
    return out, ""


def dra_of(state: Any) -> DraState:
    """The cluster's DRA state, created on first use."""
    dra = state.dra
    if dra is None:
        dra = state.dra = DraState()
    return dra
