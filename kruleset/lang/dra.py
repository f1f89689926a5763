"""The DRA statements of LANGUAGE-DRA.md: devices, device classes, claims, templates, gates.

``devices … on NODE`` is one ResourceSlice (one per node for a node range);
``deviceclass``, ``claim`` and ``claimtemplate`` declare the API objects;
``feature-gates(…)`` sets the DRA gates v1.35 lets change.  Pods name their
claims with ``claims(NAME=CLAIM, NAME=template/T)``.  Names used before they
are declared (a class created later in the timeline, a claim in a pod's
``claims(…)``) are checked at the end of the file by :func:`check_names`.

CEL selectors are compiled when read: a bad one is refused at the ``.kr`` line
and column of the offending character, with CEL's own message.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from ..errors import ScenarioError, Span
from ..model.dra import (
    ALL,
    GATES,
    LOCKED_GATES,
    CelSelector,
    ClaimSpec,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRef,
    DeviceRequest,
    FeatureGates,
    PodClaim,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    Version,
    qualified,
)
from ..model.dra_cel import CelCompileError, check
from ..model.quantity import QuantityError, _exact
from ..model.scenario import Object
from .context import Context
from .cursor import Attr, Cursor, read_attrs, split_commas
from .errors import Source
from .expect_words import _kv, _refs
from .syntax import Group, Item, Statement, Word, describe
from .values import RangeError, check_name, expand_range, integer, node_terms, pod_ref

__all__ = ["DRA_DECLARATIONS", "DRA_HANDLERS", "DraNames", "cel_selector", "check_names",
           "pod_claims"]

DRA_DECLARATIONS = ("devices", "deviceclass", "claim", "claimtemplate", "feature-gates")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_RANGE = re.compile(r"\[([0-9]+)\.\.([0-9]+)\]")
_REQUEST_OPTIONS = ("class", "count", "all", "selector", "admin-access")


class DraNames:
    """What the file declares for DRA, for references checked at the end."""

    def __init__(self) -> None:
        self.classes: dict[str, Any] = {}
        self.templates: dict[str, Any] = {}
        self.claims: dict[str, Any] = {}
        # device name -> (driver, pool, name, node) of each device so called
        self.devices: dict[str, list[tuple[str, str, str, str]]] = {}
        self.pools: dict[tuple[str, str], list[tuple[int, bool]]] = {}  # -> (generation, counted)
        self.later: list[tuple[str, str, Item, str]] = []  # (kind, key, item, near)
        self.allocated: dict[str, str] = {}  # device id -> claim key
        self.running_claims: list[tuple[str, str, Item]] = []  # (pod key, claim key, item)
        self.gates: dict[str, Any] = {}


def names_of(ctx: Context) -> DraNames:
    """The DRA names of this file (kept on the context)."""
    got = getattr(ctx, "dra", None)
    if got is None:
        got = DraNames()
        ctx.dra = got  # type: ignore[attr-defined]
    return got


def _dns_label(src: Source, w: Item, name: str, what: str) -> str:
    if not _DNS_LABEL.match(name) or len(name) > 63:
        raise src.error(f"{what} '{name}' is not a DNS label", w,
                        expected="lower-case letters, digits and '-', at most 63 characters")
    return name


# --- CEL ---------------------------------------------------------------------

def _raw_offsets(raw: str) -> list[int]:
    """For each character of a decoded ``"…"`` string, its offset in the raw text."""
    out: list[int] = []
    i = 1
    while i < len(raw) - 1:
        out.append(i)
        i += 2 if raw[i] == "\\" else 1
    out.append(i)
    return out


def cel_selector(src: Source, w: Word) -> CelSelector:
    """A ``"CEL"`` string compiled, or a refusal at the offending character."""
    text = w.text or ""
    raw = w.value[w.value.index('"'):] if '"' in w.value else w.value
    base = w.column + (len(w.value) - len(raw))
    try:
        check(text)
    except CelCompileError as exc:
        lines = text.split("\n")
        offset = sum(len(x) + 1 for x in lines[:exc.line - 1]) + exc.column - 1
        offsets = _raw_offsets(raw)
        col = base + offsets[min(offset, len(offsets) - 1)]
        raise ScenarioError(exc.message, src.span_at(w.line, col),
                            expected="a CEL expression over 'device' giving a bool") from None
    return CelSelector(text, src.span(w))


def _selectors(src: Source, attr: Attr) -> CelSelector:
    if attr.group is None or len(attr.group.items) != 1 or not isinstance(
            attr.group.items[0], Word) or attr.group.items[0].kind != "STRING":
        raise src.error("a selector is written selector(\"CEL\")", attr.key,
                        expected="selector(\"device.driver == 'd'\")")
    return cel_selector(src, attr.group.items[0])


# --- devices ------------------------------------------------------------------

def _attr_value(src: Source, entry: list[Item], index: int | None) -> Any:
    first = entry[0]
    assert isinstance(first, Word)
    _key, _, raw = first.value.partition("=")
    if len(entry) == 2 and raw == "version" and isinstance(entry[1], Group):
        inner = entry[1].items
        if len(inner) != 1 or not isinstance(inner[0], Word) or inner[0].kind != "STRING":
            raise src.error('a version is written version("1.2.3")', entry[1].open)
        from ..model.dra_cel import _SEMVER

        if not _SEMVER.match(inner[0].text or ""):
            raise src.error(f"'{inner[0].text}' is not a semantic version", inner[0],
                            expected="MAJOR.MINOR.PATCH, e.g. 1.2.3")
        return Version(inner[0].text or "")
    if len(entry) != 1:
        raise src.error(f"unexpected {describe(entry[1])}", entry[1], expected="KEY=VALUE")
    if first.text is not None:
        return first.text
    if raw == "#":
        if index is None:
            raise src.error("'#' stands for the device's number in a range; this device "
                            "name has no range", first, expected="NAME-[A..B] … attributes(k=#)")
        return index
    if raw in ("true", "false"):
        return raw == "true"
    if re.fullmatch(r"-?[0-9]+", raw):
        return int(raw)
    if not raw:
        raise src.error("missing value after '='", first, expected="KEY=VALUE")
    return raw



def _kv_group(src: Source, group: Group, what: str) -> list[tuple[Word, list[Item]]]:
    out = []
    for entry in split_commas(src, group):
        w = entry[0]
        if not isinstance(w, Word) or w.kind != "WORD" or "=" not in w.value:
            raise src.error(f"expected KEY=VALUE in {what}(…), found {describe(w)}", w,
                            expected="KEY=VALUE")
        out.append((w, entry))
    return out


def _devices(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
             timeline: bool) -> list[Object]:
    src = ctx.src
    names = names_of(ctx)
    name_w = cur.word("device names, e.g. gpu-[0..7]")
    try:
        dev_names = expand_range(name_w.value)
    except RangeError as exc:
        raise src.error(str(exc), name_w) from None
    m = _RANGE.search(name_w.value)
    numbers: list[int | None] = list(range(int(m.group(1)), int(m.group(2)) + 1)) if m else [None]
    for n in dev_names:
        check_name(src, name_w, n, "device")
    cur.keyword("on")
    where = cur.peek()
    nodes: list[str] = []
    all_nodes = False
    selector = None
    if isinstance(where, Word) and where.kind == "WORD" and where.value == "all-nodes":
        cur.pos += 1
        all_nodes = True
    elif isinstance(where, Word) and where.value == "node-selector" and isinstance(
            cur.peek(1), Group):
        cur.pos += 1
        group = cur.group("node-selector")
        selector = tuple(node_terms(src, Cursor(src, group.items, group.open), ored=True))
    else:
        node_w = cur.word("a node, a node range, all-nodes or node-selector(…)")
        try:
            node_names = expand_range(node_w.value)
        except RangeError as exc:
            raise src.error(str(exc), node_w) from None
        for n in node_names:
            ctx.need_node(n, node_w)
        nodes = node_names
    driver = pool = ""
    generation = 1
    count: int | None = None
    attrs_group = cap_group = None
    seen: set[str] = set()
    allowed = ("driver", "pool", "attributes", "capacity", "generation", "slices")
    for attr in read_attrs(cur):
        if attr.name not in allowed:
            raise src.unknown("devices attribute", attr.name, attr.key, allowed,
                              expected="driver=D, pool=P, attributes(…), capacity(…), "
                                       "generation=N, slices=N")
        if attr.name in seen:
            raise src.error(f"'{attr.name}' is given twice", attr.key)
        seen.add(attr.name)
        if attr.name in ("attributes", "capacity"):
            if attr.group is None:
                raise src.error(f"'{attr.name}' is written {attr.name}(…)", attr.key)
            if attr.name == "attributes":
                attrs_group = attr.group
            else:
                cap_group = attr.group
            continue
        if attr.value is None:
            raise src.error(f"'{attr.name}' is written {attr.name}=VALUE", attr.key)
        if attr.name == "driver":
            driver = attr.text
        elif attr.name == "pool":
            pool = attr.text
        elif attr.name == "generation":
            generation = integer(src, attr.value, "generation", minimum=0)
        else:
            count = integer(src, attr.value, "slices", minimum=1)
    if not driver:
        raise cur.error("devices need driver=DRIVER", cur.end_word(), expected="driver=DRIVER")
    if not pool and not nodes:
        raise cur.error("devices on all-nodes or a node-selector need pool=POOL",
                        cur.end_word(), expected="pool=POOL")
    devices: list[Device] = []
    for dev_name, number in zip(dev_names, numbers if m else [None] * len(dev_names),
                                strict=True):
        attributes: dict[str, dict[str, Any]] = {}
        capacity: dict[str, dict[str, Fraction]] = {}
        if attrs_group is not None:
            for w, entry in _kv_group(src, attrs_group, "attributes"):
                dom, ident = qualified(driver, w.value.partition("=")[0])
                attributes.setdefault(dom, {})[ident] = _attr_value(src, entry, number)
        if cap_group is not None:
            for w, entry in _kv_group(src, cap_group, "capacity"):
                key, _, raw = w.value.partition("=")
                if len(entry) != 1:
                    raise src.error(f"unexpected {describe(entry[1])}", entry[1])
                try:
                    value = _exact(raw)
                except QuantityError as exc:
                    raise src.error(str(exc), w.at(len(key) + 1, raw)) from None
                dom, ident = qualified(driver, key)
                capacity.setdefault(dom, {})[ident] = value
        devices.append(Device(dev_name, attributes, capacity))
    out: list[Object] = []
    for node in nodes or [""]:
        p = pool or node
        dup = _duplicates(names, driver, p, devices, generation)
        if dup:
            raise src.error(f"device '{dup}' is declared twice in pool {driver}/{p}", name_w,
                            expected="device names unique within a pool")
        names.pools.setdefault((driver, p), []).append((generation, count is None))
        for d in devices:
            names.devices.setdefault(d.name, []).append((driver, p, d.name, node))
        out.append(ResourceSlice(f"{node or p}-{driver}-{len(names.pools[(driver, p)])}", driver,
                                 p, tuple(devices), generation, count or 0, node_name=node,
                                 all_nodes=all_nodes, node_selector=selector, span=span))
    return out


def _duplicates(names: DraNames, driver: str, pool: str, devices: list[Device],
                generation: int) -> str:
    seen = {n for n, refs in names.devices.items() for r in refs
            if r[0] == driver and r[1] == pool}
    if not any(g == generation for g, _ in names.pools.get((driver, pool), [])):
        seen = set()
    mine: set[str] = set()
    for d in devices:
        if d.name in seen or d.name in mine:
            return d.name
        mine.add(d.name)
    return ""


def finish_slices(objects: list[tuple[int, int, Any]]) -> None:
    """Give slices without ``slices=N`` their pool's statement count (per generation)."""
    import attrs

    counts: dict[tuple[str, str, int], int] = {}
    for _i, _s, obj in objects:
        if isinstance(obj, ResourceSlice):
            k = (obj.driver, obj.pool, obj.generation)
            counts[k] = counts.get(k, 0) + 1
    for n, (i, s, obj) in enumerate(objects):
        if isinstance(obj, ResourceSlice) and obj.slice_count == 0:
            objects[n] = (i, s, attrs.evolve(
                obj, slice_count=counts[(obj.driver, obj.pool, obj.generation)]))


# --- classes, claims, templates ---------------------------------------------------

def _deviceclass(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                 timeline: bool) -> list[Object]:
    src = ctx.src
    name_w = cur.word("a device class name")
    name = check_name(src, name_w, name_w.value, "device class")
    names = names_of(ctx)
    if name in names.classes and not timeline:
        raise src.error(f"device class '{name}' is already declared", name_w)
    selectors: list[CelSelector] = []
    driver_sel: CelSelector | None = None
    config: list[tuple[str, str]] = []
    for attr in read_attrs(cur):
        if attr.name == "driver" and attr.value is not None:
            if driver_sel is not None:
                raise src.error("'driver' is given twice", attr.key)
            driver_sel = CelSelector(f'device.driver == "{attr.text}"', src.span(attr.value))
        elif attr.name == "selector":
            selectors.append(_selectors(src, attr))
        elif attr.name == "config" and attr.group is not None:
            config.append(_config(src, attr.group))
        else:
            raise src.unknown("deviceclass attribute", attr.name, attr.key,
                              ("driver", "selector", "config"),
                              expected='driver=D, selector("CEL"), config(DRIVER, "JSON")')
    if driver_sel is not None:
        selectors.insert(0, driver_sel)
    names.classes[name] = name_w
    return [DeviceClass(name, tuple(selectors), tuple(config), span=span)]


def _config(src: Source, group: Group) -> tuple[str, str]:
    entries = split_commas(src, group)
    if len(entries) != 2 or not isinstance(entries[1][0], Word) or entries[1][0].kind != "STRING":
        raise src.error('config is written config(DRIVER, "JSON")', group.open)
    text = entries[1][0].text or ""
    try:
        json.loads(text)
    except ValueError as exc:
        raise src.error(f"config is not JSON: {exc}", entries[1][0]) from None
    drv = entries[0][0]
    assert isinstance(drv, Word)
    return drv.value, text


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
            selectors.append(_selectors(src, attr))
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
            _dns_label(src, nw, nw.value, "request name")
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
                reqs = tuple(w.value for w in _words(src, c.group("requests")))
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
                reqs = tuple(w.value for w in _words(src, c.group("requests")))
            config.append((dw.value, jw.text or "", reqs))
            c.done()
    known = {r.name for r in requests}
    for mw, con in constraint_words:
        for r in con.requests:
            if r not in known:
                raise src.error(f"the constraint names request '{r}', which the claim does not "
                                "have", mw, expected=", ".join(sorted(known)))
    if not requests:
        raise src.error("a claim block needs at least one request", stmt.block.open,
                        expected="request NAME class=CLASS …")
    return ClaimSpec(tuple(requests), tuple(constraints), tuple(config)), rest


def _words(src: Source, group: Group) -> list[Word]:
    out = []
    for entry in split_commas(src, group):
        w = entry[0]
        if len(entry) != 1 or not isinstance(w, Word) or w.kind != "WORD":
            raise src.error("expected a name", w)
        out.append(w)
    return out


def _claim(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
           timeline: bool) -> list[Object]:
    src = ctx.src
    names = names_of(ctx)
    ref_w = cur.word("a claim reference" if kind.value == "claim" else "a template reference")
    ns, name = pod_ref(src, ref_w, what=kind.value)
    _dns_label(src, ref_w, name, f"{kind.value} name")
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
            for w in _words(src, attr.group):
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
    for w in _words(src, group):
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


def _feature_gates(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                   timeline: bool) -> list[Object]:
    src = ctx.src
    if not isinstance(cur.peek(), Group):
        raise cur.error("feature-gates is written feature-gates(NAME=BOOL, …)")
    group = cur.group("feature-gates")
    gates: list[tuple[str, bool]] = []
    for entry in split_commas(src, group):
        w = entry[0]
        if not isinstance(w, Word) or "=" not in w.value:
            raise src.error("expected NAME=true|false", w)
        name, _, value = w.value.partition("=")
        if value not in ("true", "false"):
            raise src.error(f"a feature gate is true or false, found '{value}'", w)
        on = value == "true"
        if name in LOCKED_GATES:
            if not on:
                raise src.error(f"cannot set feature gate {name} to false, feature is locked "
                                "to true", w)
            continue
        if name not in GATES:
            raise src.unknown("feature gate", name, w, (*GATES, *LOCKED_GATES))
        gates.append((name, on))
    cur.done()
    return [FeatureGates(tuple(gates), span=span)]


DRA_HANDLERS = {
    "devices": _devices,
    "deviceclass": _deviceclass,
    "claim": _claim,
    "claimtemplate": _claim,
    "feature-gates": _feature_gates,
}


# --- pods ------------------------------------------------------------------------

def pod_claims(ctx: Context, group: Group, namespace_hint: str = "") -> tuple[PodClaim, ...]:
    """``claims(NAME=CLAIM, NAME=template/T, …)`` of a pod."""
    src = ctx.src
    names = names_of(ctx)
    out: list[PodClaim] = []
    for entry in split_commas(src, group):
        w = entry[0]
        if len(entry) != 1 or not isinstance(w, Word) or "=" not in w.value:
            raise src.error("expected NAME=CLAIM or NAME=template/TEMPLATE", w,
                            expected="claims(gpu=my-claim, cat=template/cats)")
        pname, _, target = w.value.partition("=")
        _dns_label(src, w, pname, "pod claim name")
        if any(p.name == pname for p in out):
            raise src.error(f"pod claim '{pname}' is given twice", w)
        if target.startswith("template/"):
            tname = target[len("template/"):]
            _dns_label(src, w, tname, "template name")
            out.append(PodClaim(pname, template_name=tname))
            names.later.append(("claimtemplate", tname, w, "pod"))
        else:
            _dns_label(src, w, target, "claim name")
            out.append(PodClaim(pname, claim_name=target))
            names.later.append(("claim", target, w, "pod"))
    return tuple(out)


def check_names(ctx: Context, pods: list[Any]) -> None:
    """References that must be declared somewhere in the file (at any time)."""
    names = getattr(ctx, "dra", None)
    if names is None:
        return
    src = ctx.src
    for kind, key, item, _near in names.later:
        if kind == "deviceclass" and key not in names.classes:
            raise src.unknown("device class", key, item, names.classes)
        if kind == "pod":
            ctx.need_pod(key, item)
    for pod in pods:
        for entry in pod.resource_claims:
            if entry.claim_name:
                key = f"{pod.namespace}/{entry.claim_name}"
                table, what, short = names.claims, "claim", entry.claim_name
            else:
                key = f"{pod.namespace}/{entry.template_name}"
                table, what, short = names.templates, "claim template", entry.template_name
            if key not in table:
                where = _pod_word(names, entry)
                raise src.unknown(what, short, where or pod_span_word(pod),
                                  [k.split("/", 1)[1] for k in table])


def _pod_word(names: DraNames, entry: PodClaim) -> Item | None:
    target = entry.claim_name or f"template/{entry.template_name}"
    for _kind, _key, item, near in names.later:
        if near == "pod" and isinstance(item, Word) and item.value == f"{entry.name}={target}":
            return item
    return None


def pod_span_word(pod: Any) -> Word:
    """A word at the pod's declaration, for errors about it."""
    return Word("WORD", pod.name, pod.span.line, pod.span.column)


def finish(ctx: Context, objects: list[tuple[int, int, Any]], events: Any) -> None:
    """End of file: slice counts, names used before declared, running pods' claims."""
    if getattr(ctx, "dra", None) is None:
        return
    finish_slices(objects)
    from ..model.objects import Deployment, Pod

    pods = [o for _i, _s, o in objects if isinstance(o, Pod)]
    pods += [o.template for _i, _s, o in objects if isinstance(o, Deployment)]
    pods += [e.action.obj for e in events if isinstance(getattr(e.action, "obj", None), Pod)]
    check_names(ctx, pods)
    _admin_access_namespaces(ctx, [o for _i, _s, o in objects] + [
        e.action.obj for e in events if hasattr(e.action, "obj")])
    claims = {o.key: o for _i, _s, o in objects if isinstance(o, ResourceClaim)}
    for _i, _s, pod in objects:
        if not isinstance(pod, Pod) or not pod.node_name or not pod.resource_claims:
            continue
        for entry in pod.resource_claims:
            claim = claims.get(f"{pod.namespace}/{entry.claim_name}") if entry.claim_name else None
            if claim is None or pod.key not in claim.reserved_for or claim.allocated is None:
                shown = entry.claim_name or f"template/{entry.template_name}"
                raise ctx.src.error(f"pod {pod.key} runs on {pod.node_name} but claim {shown} is "
                                    "not reserved for it", pod_span_word(pod),
                                    expected=f"claim {shown} … allocated(…) "
                                             f"reserved-for({pod.name})")


# --- expectations -------------------------------------------------------------------

CLAIM_STATES = ("allocated", "pending", "reserved-for", "deleted")


def parse_expect_dra(src: Source, subject: str, cur: Cursor, args: dict[str, Any],
                     checks: list[Any]) -> tuple[str, str, str]:
    """``expect claim …`` / ``expect claims …`` / ``expect device …``: (form, ref, state)."""
    if subject == "device":
        w = cur.word("a device: NAME, NODE/NAME or DRIVER/POOL/NAME")
        state = cur.keyword("free", "allocated").value
        if state == "allocated" and cur.accept("to"):
            cw = cur.word("a claim reference")
            ns, name = pod_ref(src, cw, glob=True, what="claim")
            args["claim"] = f"{ns}/{name}"
        return "device", w.value, state
    w = cur.word("a claim reference" if subject == "claim" else "a claim glob")
    ns, name = pod_ref(src, w, glob=True, what="claim")
    ref = f"{ns}/{name}"
    if subject == "claims":
        state = cur.keyword("allocated", "pending").value
        args["count"] = integer(src, _kv(cur, "count"), "count", minimum=0)
        return "claims-count", ref, state
    state = cur.keyword(*CLAIM_STATES).value
    if state == "allocated":
        if cur.accept("on"):
            nw = cur.word("a node name after 'on'")
            args["node"] = nw.value
            checks.append(("node", nw.value, nw))
        if cur.accept("devices"):
            args["devices"] = tuple(x.value for x in _words(src, cur.group("devices")))
    elif state == "reserved-for":
        args["pods"] = _refs(src, cur.blist("the pods"), checks)
    return "claim", ref, state


ADMIN_LABEL = "resource.kubernetes.io/admin-access"


def _admin_access_namespaces(ctx: Context, objects: list[Any]) -> None:
    """Admin access is refused outside namespaces labelled for it (API validation)."""
    for obj in objects:
        if not isinstance(obj, ResourceClaim | ResourceClaimTemplate):
            continue
        if not any(r.admin_access or any(a.admin_access for a in r.first_available)
                   for r in obj.spec.requests):
            continue
        ns = ctx.namespaces.get(obj.namespace)
        if ns is None or ns.labels.get(ADMIN_LABEL) != "true":
            raise ScenarioError(
                f"{obj.key}: admin access to devices requires the `{ADMIN_LABEL}: true` label "
                "on the containing namespace", obj.span,
                expected=f"namespace {obj.namespace} labels({ADMIN_LABEL}=true)")


def register_included(ctx: Context, obj: Any, item: Item) -> bool:
    """Note a DRA object read from an included file; False if ``obj`` is not one."""
    names = names_of(ctx) if isinstance(obj, (ResourceSlice, DeviceClass, ResourceClaim,
                                              ResourceClaimTemplate)) else None
    if names is None:
        return False
    if isinstance(obj, ResourceSlice):
        names.pools.setdefault((obj.driver, obj.pool), []).append((obj.generation, False))
        for d in obj.devices:
            names.devices.setdefault(d.name, []).append((obj.driver, obj.pool, d.name,
                                                         obj.node_name))
    elif isinstance(obj, DeviceClass):
        names.classes[obj.name] = item
    elif isinstance(obj, ResourceClaim):
        names.claims[obj.key] = item
        for ref in obj.allocated or ():
            names.allocated[ref.id] = obj.key
    else:
        names.templates[obj.key] = item
    return True
