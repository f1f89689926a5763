"""``expect claim …``, ``expect claims …`` and ``expect device …`` against the simulation.

Device references are resolved at run time against the slices: ``NAME`` when
unique (among the devices available to ``on NODE`` first), ``NODE/NAME`` for a
node-local device, ``DRIVER/POOL/NAME`` for the full id.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from .state import ClaimState, DraState

__all__ = ["check_claim", "check_claims_count", "check_device", "resolve_device"]


def resolve_device(dra: DraState, ref: str, node: str = "") -> str | None:
    """The full id ``DRIVER/POOL/NAME`` of a device reference, or None."""
    parts = ref.split("/")
    found: list[tuple[str, str]] = []  # (id, node)
    for s in dra.slices:
        for d in s.devices:
            full = f"{s.driver}/{s.pool}/{d.name}"
            if len(parts) == 3 and full == ref:
                return full
            if len(parts) == 2 and s.node_name == parts[0] and d.name == parts[1]:
                return full
            if len(parts) == 1 and d.name == ref and (full, s.node_name) not in found:
                found.append((full, s.node_name))
    if node:
        local = [f for f in found if f[1] == node]
        if len(local) == 1:
            return local[0][0]
    ids = {f[0] for f in found}
    return next(iter(ids)) if len(ids) == 1 else None


def _matching(dra: DraState | None, ref: str) -> list[ClaimState]:
    if dra is None:
        return []
    if "*" not in ref and "?" not in ref:
        cs = dra.claims.get(ref)
        return [cs] if cs is not None else []
    return [cs for key, cs in dra.claims.items() if fnmatchcase(key, ref)]


def describe(cs: ClaimState) -> str:
    """A claim's state in words, for failed expectations."""
    if cs.allocation is None:
        return f"claim {cs.key} is pending"
    a = cs.allocation
    where = f" on {a.node}" if a.node else ""
    return (f"claim {cs.key} is allocated{where} devices("
            + ", ".join(d.device for d in a.devices) + f"), reserved for {cs.reserved_for}")


def check_claim(state: Any, ref: str, what: str, args: Any) -> tuple[bool, str]:
    """One ``expect claim REF …`` line: every matching claim must be in that state."""
    dra: DraState | None = state.dra
    claims = _matching(dra, ref)
    if what == "deleted":
        return (not claims), "; ".join(f"claim {c.key} exists" for c in claims)
    if not claims:
        return False, f"no claim matches {ref}"
    assert dra is not None
    bad: list[str] = []
    for cs in claims:
        a = cs.allocation
        if what == "pending":
            ok = a is None
        elif what == "reserved-for":
            ok = sorted(cs.reserved_for) == sorted(args.get("pods", ()))
        elif a is None:
            ok = False
        else:
            ok = True
            node = args.get("node")
            if node:
                ns = state.nodes.get(node)
                ok = ns is not None and a.allows(node, ns.labels)
            want = args.get("devices")
            if ok and want is not None:  # noqa: SIM102 - each check reads on its own
                ids = [resolve_device(dra, d, node or a.node or "") for d in want]
                ok = sorted(x or "?" for x in ids) == sorted(d.id for d in a.devices)
        if not ok:
            bad.append(describe(cs))
    return not bad, "; ".join(bad)


def check_claims_count(state: Any, ref: str, what: str, count: int) -> tuple[bool, str]:
    """``expect claims GLOB allocated|pending count=N``."""
    claims = _matching(state.dra, ref)
    n = sum(1 for c in claims if (c.allocation is not None) == (what == "allocated"))
    return n == count, f"{n} claims matching {ref} are {what}"


def check_device(state: Any, ref: str, what: str, args: Any) -> tuple[bool, str]:
    """``expect device DEVICE free | allocated [to CLAIM]``."""
    dra: DraState | None = state.dra
    if dra is None:
        return False, "the scenario has no devices"
    full = resolve_device(dra, ref)
    if full is None:
        return False, f"no single device is called {ref}"
    holder = dra.in_use.get(full)
    if what == "free":
        return holder is None, f"device {full} is allocated to {holder}"
    if holder is None:
        return False, f"device {full} is free"
    want = args.get("claim")
    if want and not fnmatchcase(holder, want):
        return False, f"device {full} is allocated to {holder}"
    return True, ""


def claims_json(state: Any) -> list[dict[str, Any]]:
    """Every claim at the end of a run: its allocation (devices, node) and reservations."""
    dra: DraState | None = getattr(state, "dra", None)
    if dra is None:
        return []
    out = []
    for key in sorted(dra.claims):
        cs = dra.claims[key]
        a = cs.allocation
        out.append({
            "claim": key,
            "owner": cs.owner or None,
            "allocated": a is not None,
            "node": a.node if a is not None else None,
            "devices": [{"request": d.request, "device": d.id, "adminAccess": d.admin_access}
                        for d in a.devices] if a is not None else [],
            "reservedFor": list(cs.reserved_for),
        })
    return out
