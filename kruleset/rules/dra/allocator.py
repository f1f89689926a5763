"""The structured-parameters allocator (upstream ``structured.Allocator``), first fit.

For one node it finds devices for every request of every claim of a pod, or
says there is no solution, or fails with an error that stops the scheduling
attempt.  Candidates are visited in a stated order (LANGUAGE-DRA.md §5:
pools in the order their first slice was declared, slices in declaration
order, devices in slice order; upstream's pool order is Go map order), and the
search backtracks across devices, requests, ``firstAvailable`` alternatives
and claims, so the first complete solution in that order is returned, as
upstream returns its first.

Errors (:class:`AllocationError`) carry upstream's text; the scheduler wraps
it as ``running "DynamicResources" filter plugin: …``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ...model.dra import (
    ALL,
    ALLOCATION_RESULTS_MAX,
    ClaimSpec,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRef,
    DeviceRequest,
    ResourceSlice,
)
from ...model.dra_cel import CelRuntimeError, Evaluator
from ...model.selectors import NodeSelectorTerm

__all__ = [
    "Allocation",
    "AllocationError",
    "Candidate",
    "Pool",
    "allocate",
    "gather_pools",
    "allocation_of",
]


class AllocationError(Exception):
    """An error that aborts the scheduling attempt (upstream's allocator error)."""


@attrs.frozen(slots=True)
class Allocation:
    """A claim's allocation: devices, and where it may be used.

    ``node`` is set when a device comes from a node-local slice; otherwise
    ``terms`` are the slices' node selector terms ORed (None: every node).
    """

    devices: tuple[DeviceRef, ...]
    node: str | None = None
    terms: tuple[NodeSelectorTerm, ...] | None = None

    def allows(self, name: str, labels: Mapping[str, str]) -> bool:
        """Whether a pod using this allocation may run on the node ``name``."""
        if self.node is not None:
            return name == self.node
        if self.terms is None:
            return True
        return any(t.matches(labels, name) for t in self.terms)


class Candidate:
    """One device of a gathered pool, with its full id and slice."""

    __slots__ = ("device", "driver", "pool", "slice", "id")

    def __init__(self, device: Device, driver: str, pool: str, slice_: ResourceSlice) -> None:
        self.device = device
        self.driver = driver
        self.pool = pool
        self.slice = slice_
        self.id = f"{driver}/{pool}/{device.name}"


@attrs.frozen(slots=True)
class Pool:
    """The current slices of one (driver, pool) that a node can use."""

    driver: str
    name: str
    candidates: tuple[Candidate, ...]
    incomplete: bool
    duplicate: str = ""  # a device name listed twice (the pool is invalid)

    @property
    def id(self) -> str:
        """``DRIVER/POOL``, as upstream prints a pool."""
        return f"{self.driver}/{self.name}"


def slice_for_node(s: ResourceSlice, name: str, labels: Mapping[str, str]) -> bool:
    """Whether ``s`` offers devices to the node (nodeName, allNodes or its node selector)."""
    if s.node_name:
        return s.node_name == name
    if s.all_nodes:
        return True
    if s.node_selector is not None:
        return any(t.matches(labels, name) for t in s.node_selector)
    return False


# (driver, pool) -> generation -> how many slices of the whole cluster have it.
PoolCensus = Mapping[tuple[str, str], Mapping[int, int]]


def gather_pools(slices: Sequence[ResourceSlice], name: str, labels: Mapping[str, str],
                 census: PoolCensus | None = None) -> list[Pool]:
    """The pools of the slices available to a node, in first-declared order.

    Only the slices of a pool's highest generation among those the node can
    use count.  A pool with fewer of them than its ``resourceSliceCount`` is
    looked up in ``census`` (every slice of the cluster, upstream's
    ``checkSlicesInPool``): a newer generation elsewhere makes the node's
    slices obsolete (the pool is left out); otherwise the pool is complete
    when the cluster holds ``resourceSliceCount`` slices of that generation
    (a pool spread over several nodes).  Device names repeated among the
    node's slices make the pool invalid.
    """
    grouped: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        if slice_for_node(s, name, labels):
            grouped.setdefault((s.driver, s.pool), []).append(s)
    pools: list[Pool] = []
    for (driver, pool), group in grouped.items():
        top = max(s.generation for s in group)
        current = [s for s in group if s.generation == top]
        incomplete = len(current) != current[0].slice_count
        if incomplete and census is not None:
            generations = census.get((driver, pool), {})
            if max(generations, default=top) > top:
                continue
            incomplete = generations.get(top, 0) != current[0].slice_count
        seen: set[str] = set()
        dup = ""
        cands: list[Candidate] = []
        for s in current:
            for d in s.devices:
                if d.name in seen and not dup:
                    dup = d.name
                seen.add(d.name)
                cands.append(Candidate(d, driver, pool, s))
        pools.append(Pool(driver, pool, tuple(cands), incomplete, dup))
    return pools


@attrs.frozen(slots=True)
class ClaimInput:
    """A claim to allocate: its key (``ns/name``) and spec."""

    key: str
    spec: ClaimSpec


class _Constraint:
    __slots__ = ("requests", "domain", "ident", "value", "count")

    def __init__(self, c: DeviceConstraint) -> None:
        self.requests = c.requests
        self.domain, _, self.ident = c.match_attribute.rpartition("/")
        self.value: Any = None
        self.count = 0

    def applies(self, request: str) -> bool:
        # A subrequest ``r/s`` is constrained when either ``r`` or ``r/s`` is named.
        reqs = self.requests
        return not reqs or request in reqs or request.split("/", 1)[0] in reqs

    def add(self, request: str, device: Device) -> bool:
        if not self.applies(request):
            return True
        v = device.attributes.get(self.domain, {}).get(self.ident, _MISSING)
        if v is _MISSING:
            return False
        if self.count and (type(v) is not type(self.value) or v != self.value):
            return False
        if not self.count:
            self.value = v
        self.count += 1
        return True

    def remove(self, request: str) -> None:
        if self.applies(request):
            self.count -= 1


_MISSING: Any = object()
_BUSY = "busy"  # a device in use (its note names the claim holding it)

# Why a device was passed over, per (claim, request), for --explain.
Note = Callable[[str, str, str, str], None]


# The per-node failure of a node whose pools include an invalid one and
# where no solution was found (upstream: ErrFailedAllocationOnNode).
INVALID_POOLS = "invalid resource pools were encountered"
# What :func:`allocate` answers: the allocations, None (no solution), or INVALID_POOLS.
Outcome = list[Allocation] | str | None

# v1.35.4: after the first device of an All subrequest other than the first
# alternative, the search goes on with the *first* alternative's data
# (``allocateOne`` drops the subrequest index).  Fixed upstream after v1.35
# (kubernetes/kubernetes#137347), not in the v1.35 line; kruleset behaves as v1.35.4.
ALL_SUBREQUEST_BUG = True


def allocate(claims: Sequence[ClaimInput], pools: Sequence[Pool],
             classes: Mapping[str, DeviceClass], in_use: Mapping[str, Any],
             evaluator: Evaluator, note: Note | None = None,
             selectable_memo: dict[tuple[int, int], bool] | None = None,
             ) -> Outcome:
    """First-fit allocation of ``claims`` on one node's ``pools`` (see :data:`Outcome`).

    ``in_use`` holds the ids of devices allocated to other claims (in flight
    included).  ``note(claim, request, device_id, why)``, when given, hears
    why each candidate was passed over (selector false, in use, constraint).
    ``selectable_memo`` keeps the selectors' verdicts across calls.  As
    upstream, every request and subrequest is validated first (class, the
    devices of All requests, the claim's device limit), then searched.
    """
    memo = {} if selectable_memo is None else selectable_memo
    search = _Search(claims, pools, classes, in_use, evaluator, note, memo)
    if not search.claim_from(0, 0):
        return INVALID_POOLS if any(p.duplicate for p in pools) else None
    return [allocation_of(r, u, c.key.rpartition("/")[2])
            for r, u, c in zip(search.results, search.used_by, claims, strict=True)]


class _Req:
    """A request or subrequest, validated (upstream ``requestData``)."""

    __slots__ = ("req", "name", "qualified", "num", "devices", "admin")

    def __init__(self, req: DeviceRequest, parent: DeviceRequest | None) -> None:
        self.req = req
        self.name = req.name  # upstream names a subrequest by its own name in errors
        self.qualified = f"{parent.name}/{req.name}" if parent is not None else req.name
        self.num = req.count
        self.devices: list[Candidate] | None = None  # an All request's devices
        # Subrequests have no admin access (upstream's subrequest accessor).
        self.admin = req.admin_access and parent is None


class _Search:
    """One :func:`allocate` call: the validated requests and the depth-first search.

    The search moves through the claims' requests in order
    (:meth:`claim_from`); a ``firstAvailable`` request tries its alternatives
    in order, an ExactCount one taking devices one at a time from the complete,
    valid pools, an All one its fixed list (:meth:`take`).  Every step that
    cannot complete the rest is undone and the next candidate is tried, so
    the first complete solution in candidate order is found.
    """

    __slots__ = ("claims", "pools", "classes", "in_use", "evaluator", "note", "memo", "taking",
                 "results", "used_by", "constraints", "data", "candidates")

    def __init__(self, claims: Sequence[ClaimInput], pools: Sequence[Pool],
                 classes: Mapping[str, DeviceClass], in_use: Mapping[str, Any],
                 evaluator: Evaluator, note: Note | None,
                 memo: dict[tuple[int, int], bool]) -> None:
        self.claims = claims
        self.pools = pools
        self.classes = classes
        self.in_use = in_use
        self.evaluator = evaluator
        self.note = note
        self.memo = memo
        # device id -> the claims (indexes) being given it, admin access included
        self.taking: dict[str, list[int]] = {}
        self.results: list[list[DeviceRef]] = [[] for _ in claims]
        self.used_by: list[list[Candidate]] = [[] for _ in claims]
        self.constraints = [[_Constraint(c) for c in cl.spec.constraints] for cl in claims]
        # ExactCount requests take devices from complete, valid pools only.
        self.candidates = [c for p in pools if not p.incomplete and not p.duplicate
                           for c in p.candidates]
        self.data = [self._validate(ci) for ci in range(len(claims))]

    def _validate(self, ci: int) -> list[list[_Req]]:
        """Upstream's checks of one claim before searching, in request order."""
        claim = self.claims[ci]
        out: list[list[_Req]] = []
        least = 0
        # v1.35.4's selector cache while validating is keyed by the index of the
        # subrequest validated *before* (it sets the index after validating), so
        # subrequests 0 and 1 share one verdict per device, subrequest i >= 2 that of
        # i - 1's slot: the first to judge a device decides for the other.
        seen: dict[tuple[int, int, int], bool] = {}
        for ri, r in enumerate(claim.spec.requests):
            alts = [self._check(ci, (ri, max(ai - 1, 0)),
                                _Req(a, r if r.first_available else None), seen)
                    for ai, a in enumerate(r.first_available or (r,))]
            least += min(a.num for a in alts)
            out.append(alts)
        if least > ALLOCATION_RESULTS_MAX:
            raise AllocationError(f"claim {claim.key}: number of requested devices {least} "
                                  f"exceeds the claim limit of {ALLOCATION_RESULTS_MAX}")
        return out

    def _check(self, ci: int, slot: tuple[int, int], d: _Req,
               seen: dict[tuple[int, int, int], bool]) -> _Req:
        claim = self.claims[ci].key
        req = d.req
        if req.class_name not in self.classes:
            raise AllocationError(f"claim {claim}, request {d.name}: could not retrieve device "
                                  f"class {req.class_name}: deviceclass.resource.k8s.io "
                                  f"\"{req.class_name}\" not found")
        if req.mode != ALL:
            return d
        devices: list[Candidate] = []
        for p in self.pools:
            if p.incomplete or p.duplicate:
                state = "being updated" if p.incomplete else "invalid"
                raise AllocationError(f"claim {claim}, request {d.name}: asks for all devices, "
                                      f"but resource pool {p.id} is currently {state}")
            for c in p.candidates:
                key = (*slot, id(c.device))
                ok = seen.get(key)
                if ok is None:
                    ok = seen[key] = self.selectable(ci, req, c)
                if ok:
                    devices.append(c)
        d.devices = devices
        d.num = len(devices)
        return d

    def claim_from(self, ci: int, ri: int) -> bool:
        """Satisfy request ``ri`` of claim ``ci`` and everything after it."""
        if ci == len(self.claims):
            return True
        alts = self.data[ci]
        if ri == len(alts):
            return self.claim_from(ci + 1, 0)
        if len(alts[ri]) == 1 and alts[ri][0].qualified == alts[ri][0].name:
            return self.take(ci, ri, 0, 0)
        return any(self.take(ci, ri, ai, 0) for ai in range(len(alts[ri])))

    def take(self, ci: int, ri: int, ai: int, di: int) -> bool:
        """Give device ``di`` (and the rest) of alternative ``ai``, then go on."""
        d = self.data[ci][ri][ai]
        devices = d.devices
        if devices is not None and not devices:
            return False  # v1.35: All means at least one device
        if di >= d.num:
            return self.claim_from(ci, ri + 1)
        if len(self.results[ci]) + d.num - di > ALLOCATION_RESULTS_MAX:
            return False
        if devices is not None:
            return self._take_all(ci, ri, ai, di, d, devices[di])
        for cand in self.candidates:
            why = self._unusable(ci, d, cand)
            if why is not None:
                if why:
                    self._pass_over(ci, d.qualified, cand,
                                    self._busy_text(cand) if why is _BUSY else why)
                continue
            if self.take(ci, ri, ai, di + 1):
                return True
            self._undo(ci, d, cand)
        return False

    def _take_all(self, ci: int, ri: int, ai: int, di: int, d: _Req, cand: Candidate) -> bool:
        if self._busy(ci, d, cand):
            self._pass_over(ci, d.qualified, cand, self._busy_text(cand))
            return False
        if not self._add(ci, d, cand):
            raise AllocationError(
                f"claim {self.claims[ci].key}, request {d.name}: cannot add device {cand.id} "
                "because a claim constraint would not be satisfied")
        if self.take(ci, ri, 0 if ALL_SUBREQUEST_BUG else ai, di + 1):
            return True
        self._undo(ci, d, cand)
        return False

    def _unusable(self, ci: int, d: _Req, cand: Candidate) -> str | None:
        """Why ``cand`` cannot serve the request now (``_BUSY``: in use, told in full only
        when noted; ``""``: admin access to a device the claim already gets, passed over
        without a note), or None: it was added."""
        if self._busy(ci, d, cand):
            return "" if d.admin else _BUSY
        if not self.selectable(ci, d.req, cand):
            return "selector false"
        if not self._add(ci, d, cand):
            return "constraint mismatch"
        return None

    def _busy(self, ci: int, d: _Req, cand: Candidate) -> bool:
        """Upstream: admin access skips only devices the same claim is getting; other
        requests skip devices allocated or being given to any of the pod's claims."""
        taking = self.taking.get(cand.id)
        if d.admin:
            return taking is not None and ci in taking
        return bool(taking) or cand.id in self.in_use

    def selectable(self, ci: int, req: DeviceRequest, cand: Candidate) -> bool:
        """Whether the class's and the request's selectors hold for ``cand`` (memoised)."""
        key = (id(req), id(cand.device))
        got = self.memo.get(key)
        if got is None:
            got = _selectable(self.claims[ci].key, req, cand, self.classes, self.evaluator)
            self.memo[key] = got
        return got

    def _busy_text(self, cand: Candidate) -> str:
        in_use = self.in_use
        return (f"device in use by claim {in_use[cand.id]}" if cand.id in in_use
                else "taken by an earlier request of the pod")

    def _pass_over(self, ci: int, name: str, cand: Candidate, why: str) -> None:
        """Tell ``note`` (for --explain) why ``cand`` was passed over."""
        if self.note is not None:
            self.note(self.claims[ci].key, name, cand.id, why)

    def _add(self, ci: int, d: _Req, cand: Candidate) -> bool:
        """Give ``cand`` to the request if the claim's constraints allow it."""
        name = d.qualified
        done: list[_Constraint] = []
        for c in self.constraints[ci]:
            if not c.add(name, cand.device):
                for e in done:
                    e.remove(name)
                return False
            done.append(c)
        self.taking.setdefault(cand.id, []).append(ci)
        self.results[ci].append(DeviceRef(name, cand.driver, cand.pool, cand.device.name,
                                          d.admin))
        self.used_by[ci].append(cand)
        return True

    def _undo(self, ci: int, d: _Req, cand: Candidate) -> None:
        """Take back the last device given to claim ``ci``."""
        for c in self.constraints[ci]:
            c.remove(d.qualified)
        self.taking[cand.id].remove(ci)
        self.results[ci].pop()
        self.used_by[ci].pop()


def _selectable(claim: str, req: DeviceRequest, cand: Candidate,
                classes: Mapping[str, DeviceClass], evaluator: Evaluator) -> bool:
    """Class selectors first, then the request's; the first false one decides."""
    if not cand.device.basic:
        return False
    cls = classes.get(req.class_name)
    if cls is None:
        raise AllocationError(f"claim {claim}, request {req.name}: could not retrieve device "
                              f"class {req.class_name}: deviceclass.resource.k8s.io "
                              f"\"{req.class_name}\" not found")
    return (_selected(evaluator, cand, cls.selectors, "class", cls.name)
            and _selected(evaluator, cand, req.selectors, "claim", claim))


def _selected(evaluator: Evaluator, cand: Candidate, selectors: Sequence[Any], kind: str,
              name: str) -> bool:
    """Whether every selector holds for ``cand``; a CEL runtime error names ``kind name``."""
    for i, sel in enumerate(selectors):
        try:
            if not evaluator.matches(cand.driver, cand.device, sel.expression):
                return False
        except CelRuntimeError as exc:
            raise AllocationError(f"{kind} {name}: selector #{i}: CEL runtime error: "
                                  f"{exc}") from None
    return True


def allocation_of(refs: list[DeviceRef], used: list[Candidate], claim: str = "") -> Allocation:
    """The result's node restriction, derived from the slices of the chosen devices.

    ``claim`` (its name) is given when allocating: a slice whose node selector
    has several terms then fails as upstream fails (API validation allows one).
    """
    # Upstream's createNodeSelector, device by device in result order: a node-local
    # device pins the claim to its node; otherwise one term gathers every slice's
    # requirements (ANDed); API validation keeps a slice's node selector to one term.
    expressions: list[Any] = []
    fields: list[Any] = []
    for c in used:
        if c.slice.node_name:
            return Allocation(tuple(refs), node=c.slice.node_name)
        selector = c.slice.node_selector
        if not selector:
            continue
        if len(selector) > 1 and claim:
            raise AllocationError(f"create NodeSelector for claim {claim}: unsupported "
                                  f"ResourceSlice.NodeSelector with {len(selector)} terms")
        for r in selector[0].expressions:
            if r not in expressions:
                expressions.append(r)
        for r in selector[0].fields:
            if r not in fields:
                fields.append(r)
    if not expressions and not fields:
        return Allocation(tuple(refs))
    return Allocation(tuple(refs), terms=(NodeSelectorTerm(tuple(expressions), tuple(fields)),))
