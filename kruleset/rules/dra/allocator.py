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

__all__ = ["Allocation", "AllocationError", "Candidate", "Pool", "allocate", "gather_pools"]


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


def slice_for_node(s: ResourceSlice, name: str, labels: Mapping[str, str]) -> bool:
    """Whether ``s`` offers devices to the node (nodeName, allNodes or its node selector)."""
    if s.node_name:
        return s.node_name == name
    if s.all_nodes:
        return True
    if s.node_selector is not None:
        return any(t.matches(labels, name) for t in s.node_selector)
    return False


def gather_pools(slices: Sequence[ResourceSlice], name: str, labels: Mapping[str, str]
                 ) -> list[Pool]:
    """The pools of the slices available to a node, in first-declared order.

    Only the slices of a pool's highest generation count; a pool with fewer
    of them than its ``resourceSliceCount`` is incomplete.
    """
    grouped: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        if slice_for_node(s, name, labels):
            grouped.setdefault((s.driver, s.pool), []).append(s)
    pools: list[Pool] = []
    for (driver, pool), group in grouped.items():
        top = max(s.generation for s in group)
        current = [s for s in group if s.generation == top]
        seen: set[str] = set()
        dup = ""
        cands: list[Candidate] = []
        for s in current:
            for d in s.devices:
                if d.name in seen and not dup:
                    dup = d.name
                seen.add(d.name)
                cands.append(Candidate(d, driver, pool, s))
        pools.append(Pool(driver, pool, tuple(cands), len(current) < current[0].slice_count,
                          dup))
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
        return not self.requests or request.split("/", 1)[0] in self.requests

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

# Why a device was passed over, per (claim, request), for --explain.
Note = Callable[[str, str, str, str], None]


def allocate(claims: Sequence[ClaimInput], pools: Sequence[Pool],
             classes: Mapping[str, DeviceClass], in_use: Mapping[str, Any],
             evaluator: Evaluator, note: Note | None = None,
             selectable_memo: dict[tuple[int, int], bool] | None = None,
             ) -> list[Allocation] | None:
    """First-fit allocation of ``claims`` on one node's ``pools``, or None.

    ``in_use`` holds the ids of devices allocated to other claims (in flight
    included).  ``note(claim, request, device_id, why)``, when given, hears
    why each candidate was passed over (selector false, in use, constraint).
    """
    memo: dict[tuple[int, int], bool] = {} if selectable_memo is None else selectable_memo
    taken: set[str] = set()
    results: list[list[DeviceRef]] = [[] for _ in claims]
    used_by: list[list[Candidate]] = [[] for _ in claims]
    constraints = [[_Constraint(c) for c in cl.spec.constraints] for cl in claims]
    all_lists: dict[tuple[int, int, int], list[Candidate]] = {}
    # v1.35 takes devices for ExactCount requests from complete pools only.
    candidates = [c for p in pools if not p.incomplete for c in p.candidates]
    _precheck(claims, pools)

    def selectable(ci: int, req: DeviceRequest, cand: Candidate) -> bool:
        key = (id(req), id(cand.device))
        got = memo.get(key)
        if got is None:
            got = _selectable(claims[ci].key, req, cand, classes, evaluator)
            memo[key] = got
        return got

    def busy(cand: Candidate) -> bool:
        return cand.id in taken or cand.id in in_use

    def add(ci: int, name: str, req: DeviceRequest, cand: Candidate) -> bool:
        done: list[_Constraint] = []
        for c in constraints[ci]:
            if not c.add(name, cand.device):
                for d in done:
                    d.remove(name)
                return False
            done.append(c)
        if not req.admin_access:
            taken.add(cand.id)
        results[ci].append(DeviceRef(name, cand.driver, cand.pool, cand.device.name,
                                     req.admin_access))
        used_by[ci].append(cand)
        return True

    def undo(ci: int, name: str, req: DeviceRequest, cand: Candidate) -> None:
        for c in constraints[ci]:
            c.remove(name)
        if not req.admin_access:
            taken.discard(cand.id)
        results[ci].pop()
        used_by[ci].pop()

    def start(ci: int, ri: int) -> bool:
        if ci == len(claims):
            return True
        reqs = claims[ci].spec.requests
        if ri == len(reqs):
            return start(ci + 1, 0)
        req = reqs[ri]
        alts = req.first_available or (req,)
        for ai, alt in enumerate(alts):
            name = req.name if alt is req else f"{req.name}/{alt.name}"
            if alt.mode == ALL:
                key = (ci, ri, ai)
                devices = all_lists.get(key)
                if devices is None:
                    devices = all_lists[key] = _all_devices(claims[ci].key, name, ci, alt, pools,
                                                            selectable)
                # v1.35: an All request matching no device has no solution here
                # (1.31 allocated it with none; the oracle shows the change).
                if devices and take_all(ci, ri, name, alt, devices, 0):
                    return True
            elif take(ci, ri, name, alt, alt.count):
                return True
        return False

    def take(ci: int, ri: int, name: str, req: DeviceRequest, left: int) -> bool:
        if left == 0:
            return start(ci, ri + 1)
        key = claims[ci].key
        for cand in candidates:
            if not req.admin_access and busy(cand):
                if note is not None:
                    note(key, name, cand.id, f"device in use by claim {in_use[cand.id]}"
                         if cand.id in in_use else "taken by an earlier request of the pod")
                continue
            if cand in used_by[ci]:
                continue
            if not selectable(ci, req, cand):
                if note is not None:
                    note(key, name, cand.id, "selector false")
                continue
            if not add(ci, name, req, cand):
                if note is not None:
                    note(key, name, cand.id, "constraint mismatch")
                continue
            if take(ci, ri, name, req, left - 1):
                return True
            undo(ci, name, req, cand)
        return False

    def take_all(ci: int, ri: int, name: str, req: DeviceRequest,
                 devices: list[Candidate], i: int) -> bool:
        if i == len(devices):
            return start(ci, ri + 1)
        cand = devices[i]
        if not req.admin_access and busy(cand):
            if note is not None:
                note(claims[ci].key, name, cand.id, f"device in use by claim "
                     f"{in_use.get(cand.id, 'of this pod')}")
            return False
        if not add(ci, name, req, cand):
            raise AllocationError(
                f"claim {claims[ci].key}, request {name}: cannot add device {cand.id} because "
                "a claim constraint would not be satisfied")
        if take_all(ci, ri, name, req, devices, i + 1):
            return True
        undo(ci, name, req, cand)
        return False

    if not start(0, 0):
        return None
    return [_allocation(r, u) for r, u in zip(results, used_by, strict=True)]


def _precheck(claims: Sequence[ClaimInput], pools: Sequence[Pool]) -> None:
    """Upstream's checks before searching: invalid pools, the per-claim device limit."""
    for p in pools:
        if p.duplicate:
            raise AllocationError(f"pool {p.name} is invalid: duplicate device name {p.duplicate}")
    for cl in claims:
        total = 0
        for r in cl.spec.requests:
            if r.mode != ALL and not r.first_available:
                total += r.count
        if total > ALLOCATION_RESULTS_MAX:
            raise AllocationError(f"claim {cl.key}: number of requested devices {total} exceeds "
                                  f"the claim limit of {ALLOCATION_RESULTS_MAX}")


def _all_devices(claim: str, name: str, ci: int, req: DeviceRequest, pools: Sequence[Pool],
                 selectable: Callable[[int, DeviceRequest, Candidate], bool]) -> list[Candidate]:
    """The devices an All request takes: every selectable one, fixed before the search."""
    out: list[Candidate] = []
    for p in pools:
        if p.incomplete:
            raise AllocationError(f"claim {claim}, request {name}: asks for all devices, but "
                                  f"resource pool {p.driver}/{p.name} is currently being updated")
        out.extend(c for c in p.candidates if selectable(ci, req, c))
    if len(out) > ALLOCATION_RESULTS_MAX:
        raise AllocationError(f"claim {claim}: number of requested devices {len(out)} exceeds "
                              f"the claim limit of {ALLOCATION_RESULTS_MAX}")
    return out


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


def _allocation(refs: list[DeviceRef], used: list[Candidate]) -> Allocation:
    """The result's node restriction, derived from the slices of the chosen devices."""
    for c in used:
        if c.slice.node_name:
            return Allocation(tuple(refs), node=c.slice.node_name)
    terms: list[NodeSelectorTerm] = []
    for c in used:
        if c.slice.node_selector is not None:
            terms.extend(t for t in c.slice.node_selector if t not in terms)
    return Allocation(tuple(refs), terms=tuple(terms) if terms else None)
