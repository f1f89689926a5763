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


def allocate(claims: Sequence[ClaimInput], pools: Sequence[Pool],
             classes: Mapping[str, DeviceClass], in_use: Mapping[str, Any],
             evaluator: Evaluator, note: Note | None = None,
             selectable_memo: dict[tuple[int, int], bool] | None = None,
             ) -> list[Allocation] | None:
    """First-fit allocation of ``claims`` on one node's ``pools``, or None.

    ``in_use`` holds the ids of devices allocated to other claims (in flight
    included).  ``note(claim, request, device_id, why)``, when given, hears
    why each candidate was passed over (selector false, in use, constraint).
    ``selectable_memo`` keeps the selectors' verdicts across calls.
    """
    _precheck(claims, pools)
    search = _Search(claims, pools, classes, in_use, evaluator, note,
                     {} if selectable_memo is None else selectable_memo)
    if not search.claim_from(0, 0):
        return None
    return [_allocation(r, u) for r, u in zip(search.results, search.used_by, strict=True)]


class _Search:
    """One :func:`allocate` call's depth-first search and the choices made so far.

    The search moves through the claims' requests in order
    (:meth:`claim_from`); each request tries its ``firstAvailable``
    alternatives in order, an ExactCount one taking devices one at a time
    (:meth:`take`), an All one its fixed list (:meth:`take_all`).  Every
    step that cannot complete the rest is undone and the next candidate is
    tried, so the first complete solution in candidate order is found.
    """

    __slots__ = ("claims", "pools", "classes", "in_use", "evaluator", "note", "memo", "taken",
                 "results", "used_by", "constraints", "all_lists", "candidates")

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
        self.taken: set[str] = set()  # devices this pod's claims hold (admin access aside)
        self.results: list[list[DeviceRef]] = [[] for _ in claims]
        self.used_by: list[list[Candidate]] = [[] for _ in claims]
        self.constraints = [[_Constraint(c) for c in cl.spec.constraints] for cl in claims]
        # The devices of each All request (claim, request, alternative), fixed once found.
        self.all_lists: dict[tuple[int, int, int], list[Candidate]] = {}
        # v1.35 takes devices for ExactCount requests from complete pools only.
        self.candidates = [c for p in pools if not p.incomplete for c in p.candidates]

    def claim_from(self, ci: int, ri: int) -> bool:
        """Satisfy request ``ri`` of claim ``ci`` and everything after it."""
        claims = self.claims
        if ci == len(claims):
            return True
        reqs = claims[ci].spec.requests
        if ri == len(reqs):
            return self.claim_from(ci + 1, 0)
        req = reqs[ri]
        alts = req.first_available or (req,)
        for ai, alt in enumerate(alts):
            name = req.name if alt is req else f"{req.name}/{alt.name}"
            if alt.mode == ALL:
                devices = self._all_list(ci, ri, ai, name, alt)
                # v1.35: an All request matching no device has no solution here
                # (1.31 allocated it with none; the oracle shows the change).
                if devices and self.take_all(ci, ri, name, alt, devices, 0):
                    return True
            elif self.take(ci, ri, name, alt, alt.count):
                return True
        return False

    def _all_list(self, ci: int, ri: int, ai: int, name: str, alt: DeviceRequest
                  ) -> list[Candidate]:
        key = (ci, ri, ai)
        devices = self.all_lists.get(key)
        if devices is None:
            devices = self.all_lists[key] = _all_devices(self.claims[ci].key, name, ci, alt,
                                                         self.pools, self.selectable)
        return devices

    def take(self, ci: int, ri: int, name: str, req: DeviceRequest, left: int) -> bool:
        """Take ``left`` more devices for the ExactCount request, then go on."""
        if left == 0:
            return self.claim_from(ci, ri + 1)
        for cand in self.candidates:
            why = self._unusable(ci, name, req, cand)
            if why is not None:
                if why:
                    self._pass_over(ci, name, cand, self._busy_text(cand) if why is _BUSY else why)
                continue
            if self.take(ci, ri, name, req, left - 1):
                return True
            self._undo(ci, name, req, cand)
        return False

    def _unusable(self, ci: int, name: str, req: DeviceRequest, cand: Candidate) -> str | None:
        """Why ``cand`` cannot serve the request now (``_BUSY``: in use, told in full only
        when noted; ``""``: it already serves the claim, passed over without a note), or
        None: it was added."""
        if not req.admin_access and self._busy(cand):
            return _BUSY
        if cand in self.used_by[ci]:
            return ""
        if not self.selectable(ci, req, cand):
            return "selector false"
        if not self._add(ci, name, req, cand):
            return "constraint mismatch"
        return None

    def take_all(self, ci: int, ri: int, name: str, req: DeviceRequest,
                 devices: list[Candidate], i: int) -> bool:
        """Take ``devices[i:]`` for the All request, then go on."""
        if i == len(devices):
            return self.claim_from(ci, ri + 1)
        cand = devices[i]
        if not req.admin_access and self._busy(cand):
            if self.note is not None:
                self._pass_over(ci, name, cand, f"device in use by claim "
                                f"{self.in_use.get(cand.id, 'of this pod')}")
            return False
        if not self._add(ci, name, req, cand):
            raise AllocationError(
                f"claim {self.claims[ci].key}, request {name}: cannot add device {cand.id} "
                "because a claim constraint would not be satisfied")
        if self.take_all(ci, ri, name, req, devices, i + 1):
            return True
        self._undo(ci, name, req, cand)
        return False

    def selectable(self, ci: int, req: DeviceRequest, cand: Candidate) -> bool:
        """Whether the class's and the request's selectors hold for ``cand`` (memoised)."""
        key = (id(req), id(cand.device))
        got = self.memo.get(key)
        if got is None:
            got = _selectable(self.claims[ci].key, req, cand, self.classes, self.evaluator)
            self.memo[key] = got
        return got

    def _busy(self, cand: Candidate) -> bool:
        return cand.id in self.taken or cand.id in self.in_use

    def _busy_text(self, cand: Candidate) -> str:
        in_use = self.in_use
        return (f"device in use by claim {in_use[cand.id]}" if cand.id in in_use
                else "taken by an earlier request of the pod")

    def _pass_over(self, ci: int, name: str, cand: Candidate, why: str) -> None:
        """Tell ``note`` (for --explain) why ``cand`` was passed over."""
        if self.note is not None:
            self.note(self.claims[ci].key, name, cand.id, why)

    def _add(self, ci: int, name: str, req: DeviceRequest, cand: Candidate) -> bool:
        """Give ``cand`` to the request if the claim's constraints allow it."""
        done: list[_Constraint] = []
        for c in self.constraints[ci]:
            if not c.add(name, cand.device):
                for d in done:
                    d.remove(name)
                return False
            done.append(c)
        if not req.admin_access:
            self.taken.add(cand.id)
        self.results[ci].append(DeviceRef(name, cand.driver, cand.pool, cand.device.name,
                                          req.admin_access))
        self.used_by[ci].append(cand)
        return True

    def _undo(self, ci: int, name: str, req: DeviceRequest, cand: Candidate) -> None:
        """Take back the last device given to claim ``ci``."""
        for c in self.constraints[ci]:
            c.remove(name)
        if not req.admin_access:
            self.taken.discard(cand.id)
        self.results[ci].pop()
        self.used_by[ci].pop()


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
