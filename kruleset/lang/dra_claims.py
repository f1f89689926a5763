"""The ``claim`` and ``claimtemplate`` statements of LANGUAGE-DRA.md §3.

A claim's requests come from the one-line form (one request, ``req-0``) or a
block of ``request``, ``constraint`` and ``config`` lines; ``allocated(…)``
names devices by the shortest unambiguous reference, each serving the
claim's requests in order.
"""

from __future__ import annotations

from typing import Any

from ..errors import Span
from ..model.dra import (
    ALL,
    CelSelector,
    ClaimSpec,
    DeviceConstraint,
    DeviceRef,
    DeviceRequest,
    ResourceClaim,
    ResourceClaimTemplate,
)
from ..model.scenario import Object
from .context import Context
from .cursor import Attr, Cursor, read_attrs
from .dra_names import DraNames, dns_label, name_words, names_of, selector_attr
from .errors import Source
from .syntax import Group, Item, Statement, Word
from .values import integer, pod_ref

__all__ = ["claim_statement"]

_REQUEST_OPTIONS = ("class", "count", "all", "selector", "admin-access")


def _request(ctx: Context, cur: Cursor, name: str, name_w: Item) -> DeviceRequest:
    src = ctx.src
    names = names_of(ctx)
    kw: dict[str, Any] = {}
    selectors: list[CelSelector] = []
    seen: dict[str, Attr] = {}
    for attr in read_attrs(cur):
        if attr.name not in _REQUEST_OPTIONS:
            raise src.unknown("request option", attr.name, attr.key, _REQUEST_OPTIONS,
                              expected='class=CLASS, count=N | all, selector("CEL"), '
                                       "admin-access")
        if attr.name != "selector" and attr.name in seen:
            raise src.error(f"'{attr.name}' is given twice", attr.key)
        seen[attr.name] = attr
        if attr.name == "class":
            if attr.value is None:
                raise src.error("'class' is written class=CLASS", attr.key)
            kw["class_name"] = attr.text
            names.later.append(("deviceclass", attr.text, attr.value, ""))
        elif attr.name == "count":
            if attr.value is None:
                raise src.error("'count' is written count=N", attr.key)
            kw["count"] = integer(src, attr.value, "count", minimum=1)
        elif attr.name == "all":
            kw["mode"] = ALL
            kw["count"] = 0
        elif attr.name == "selector":
            selectors.append(selector_attr(src, attr))
        else:
            kw["admin_access"] = True
    if "count" in seen and "all" in seen:
        raise src.error("a request takes count=N or all, not both", seen["all"].key)
    if "class_name" not in kw:
        raise cur.error("a request needs class=CLASS", cur.end_word(), expected="class=CLASS")
    return DeviceRequest(name, selectors=tuple(selectors), **kw)


def _claim_spec(ctx: Context, cur: Cursor, stmt: Statement) -> tuple[ClaimSpec, list[Attr]]:
    """A claim's spec from the one-line form or the block; attributes left for the caller."""
    src = ctx.src
    rest: list[Attr] = []
    if stmt.block is None:
        req_items: list[Item] = []
        while not cur.at_end():
            w = cur.peek()
            if isinstance(w, Word) and w.kind == "WORD" and w.value in (
                    "allocated", "reserved-for", "controller") or (
                    isinstance(w, Word) and w.value.startswith("controller=")):
                rest.extend(read_attrs(cur))
                break
            item = cur.next()
            assert item is not None
            req_items.append(item)
            if isinstance(item, Word) and item.value == "selector" and isinstance(
                    cur.peek(), Group):
                req_items.append(cur.next())  # type: ignore[arg-type]
        sub = Cursor(src, req_items, cur.end_word())
        req = _request(ctx, sub, "req-0", cur.end_word())
        return ClaimSpec((req,)), rest
    rest.extend(read_attrs(cur))
    requests: list[DeviceRequest] = []
    constraints: list[DeviceConstraint] = []
    constraint_words: list[tuple[Word, DeviceConstraint]] = []
    config: list[tuple[str, str, tuple[str, ...]]] = []
    for inner in stmt.block.statements:
        c = Cursor(src, inner.items)
        head = c.keyword("request", "constraint", "config")
        if head.value == "request":
            nw = c.word("a request name")
            dns_label(src, nw, nw.value, "request name")
            if any(r.name == nw.value for r in requests):
                raise src.error(f"request '{nw.value}' is declared twice", nw)
            requests.append(_request(ctx, c, nw.value, nw))
        elif head.value == "constraint":
            mw = c.word("match-attribute=DOMAIN/ID")
            key, _, value = mw.value.partition("=")
            if key != "match-attribute" or not value:
                raise src.error("a constraint is written match-attribute=DOMAIN/ID", mw)
            if "/" not in value:
                raise src.error(f"match-attribute needs a fully qualified name, found '{value}'",
                                mw, expected="DOMAIN/ID, e.g. gpu.example.com/model")
            reqs: tuple[str, ...] = ()
            if c.accept("requests"):
                reqs = tuple(w.value for w in name_words(src, c.group("requests")))
            con = DeviceConstraint(value, reqs)
            constraints.append(con)
            constraint_words.append((mw, con))
            c.done()
        else:
            dw = c.word("a driver")
            jw = c.next()
            if not isinstance(jw, Word) or jw.kind != "STRING":
                raise src.error('config is written config DRIVER "JSON"', dw)
            reqs = ()
            if c.accept("requests"):
                reqs = tuple(w.value for w in name_words(src, c.group("requests")))
            config.append((dw.value, jw.text or "", reqs))
            c.done()
    # A constraint may name a request or one of its firstAvailable subrequests.
    known = {r.name for r in requests} | {f"{r.name}/{a.name}" for r in requests
                                          for a in r.first_available}
    for mw, con in constraint_words:
        for r in con.requests:
            if r not in known:
                raise src.error(f"the constraint names request '{r}', which the claim does not "
                                "have", mw, expected=", ".join(sorted(known)))
    if not requests:
        raise src.error("a claim block needs at least one request", stmt.block.open,
                        expected="request NAME class=CLASS …")
    return ClaimSpec(tuple(requests), tuple(constraints), tuple(config)), rest



def claim_statement(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                    timeline: bool) -> list[Object]:
    """``claim REF …`` or ``claimtemplate REF …``, one-line or with a block."""
    src = ctx.src
    names = names_of(ctx)
    ref_w = cur.word("a claim reference" if kind.value == "claim" else "a template reference")
    ns, name = pod_ref(src, ref_w, what=kind.value)
    dns_label(src, ref_w, name, f"{kind.value} name")
    key = f"{ns}/{name}"
    table = names.claims if kind.value == "claim" else names.templates
    if key in table and not timeline:
        raise src.error(f"{kind.value} '{key}' is already declared", ref_w)
    spec, rest = _claim_spec(ctx, cur, stmt)
    cur.done()
    table[key] = ref_w
    if kind.value == "claimtemplate":
        if rest:
            raise src.error(f"'{rest[0].name}' is not a template option", rest[0].key,
                            expected="request options only")
        return [ResourceClaimTemplate(ns, name, spec, span=span)]
    allocated: tuple[DeviceRef, ...] | None = None
    reserved: list[str] = []
    for attr in rest:
        if attr.name == "allocated" and attr.group is not None:
            allocated = _allocated(ctx, key, spec, attr.group)
        elif attr.name == "reserved-for" and attr.group is not None:
            for w in name_words(src, attr.group):
                pns, pname = pod_ref(src, w)
                pkey = f"{pns}/{pname}"
                names.later.append(("pod", pkey, w, ""))
                reserved.append(pkey)
            if len(reserved) > 256:
                raise src.error("at most 256 pods may be listed in reserved-for", attr.key)
        elif attr.name == "controller" and attr.value is not None:
            spec = ClaimSpec(spec.requests, spec.constraints, spec.config, attr.text)
        else:
            raise src.unknown("claim option", attr.name, attr.key,
                              ("allocated", "reserved-for", "controller"),
                              expected="allocated(DEVICE, …), reserved-for(POD, …)")
    return [ResourceClaim(ns, name, spec, allocated, tuple(reserved), span=span)]


def _allocated(ctx: Context, key: str, spec: ClaimSpec, group: Group) -> tuple[DeviceRef, ...]:
    src = ctx.src
    names = names_of(ctx)
    out: list[DeviceRef] = []
    node = ""
    admin = any(r.admin_access for r in spec.requests)
    req_names = [r.name for r in spec.requests]
    for w in name_words(src, group):
        ref = _find_device(src, names, w, node)
        driver, pool, dev, dnode = ref
        node = node or dnode
        dev_id = f"{driver}/{pool}/{dev}"
        if dev_id in names.allocated and not admin:
            raise src.error(f"device {dev_id} is already allocated to claim "
                            f"{names.allocated[dev_id]}", w)
        names.allocated[dev_id] = key
        # Results name the request each device serves: requests in order, count each.
        out.append(DeviceRef(_serving(spec, len(out)) or req_names[0], driver, pool, dev, admin))
    return tuple(out)


def _serving(spec: ClaimSpec, index: int) -> str:
    n = 0
    for r in spec.requests:
        n += max(r.count, 1)
        if index < n:
            return r.name
    return ""


def _find_device(src: Source, names: DraNames, w: Word, node: str) -> tuple[str, str, str, str]:
    parts = w.value.split("/")
    if len(parts) == 3:
        for refs in names.devices.values():
            for r in refs:
                if (r[0], r[1], r[2]) == tuple(parts):
                    return r
    elif len(parts) == 2:
        for r in names.devices.get(parts[1], []):
            if r[3] == parts[0]:
                return r
    else:
        refs = names.devices.get(w.value, [])
        if node:
            local = [r for r in refs if r[3] == node]
            if local:
                refs = local
        if len(refs) == 1:
            return refs[0]
        if len(refs) > 1:
            raise src.error(f"device '{w.value}' is in several pools; write NODE/{w.value} or "
                            f"DRIVER/POOL/{w.value}", w)
    raise src.unknown("device", w.value, w, list(names.devices))


