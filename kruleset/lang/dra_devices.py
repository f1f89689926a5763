"""The ``devices`` and ``deviceclass`` statements of LANGUAGE-DRA.md §1-2.

``devices … on NODE`` is one ResourceSlice (one per node for a node range),
its devices numbered by the name's range (``#`` in ``attributes(…)``);
``deviceclass`` declares a DeviceClass whose ``driver=`` is a selector on the
device's driver, first of its selectors.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import attrs

from ..errors import Span
from ..model.dra import CelSelector, Device, DeviceClass, ResourceSlice, Version, qualified
from ..model.quantity import QuantityError, exact_value
from ..model.scenario import Object
from .context import Context
from .cursor import Cursor, read_attrs, split_commas
from .dra_names import DraNames, names_of, selector_attr
from .errors import Source
from .syntax import Group, Item, Statement, Word, describe
from .values import RangeError, check_name, expand_range, integer, node_terms

__all__ = ["deviceclass_statement", "devices_statement", "finish_slices"]

_RANGE = re.compile(r"\[([0-9]+)\.\.([0-9]+)\]")


def _attr_value(src: Source, entry: list[Item], index: int | None) -> Any:
    first = entry[0]
    assert isinstance(first, Word)
    _key, _, raw = first.value.partition("=")
    if len(entry) == 2 and raw == "version" and isinstance(entry[1], Group):
        inner = entry[1].items
        if len(inner) != 1 or not isinstance(inner[0], Word) or inner[0].kind != "STRING":
            raise src.error('a version is written version("1.2.3")', entry[1].open)
        from ..model.dra_cel import SEMVER

        if not SEMVER.match(inner[0].text or ""):
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


def devices_statement(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                      timeline: bool) -> list[Object]:
    """``devices NAMES on WHERE driver=D …``: one ResourceSlice per node (or one)."""
    src = ctx.src
    names = names_of(ctx)
    name_w, dev_names, numbers = _device_names(ctx, cur)
    cur.keyword("on")
    nodes, all_nodes, selector = _where(ctx, cur)
    opts = _options(src, cur)
    if not opts.driver:
        raise cur.error("devices need driver=DRIVER", cur.end_word(), expected="driver=DRIVER")
    if not opts.pool and not nodes:
        raise cur.error("devices on all-nodes or a node-selector need pool=POOL",
                        cur.end_word(), expected="pool=POOL")
    devices = [_device(src, opts, dev_name, number)
               for dev_name, number in zip(dev_names, numbers, strict=True)]
    driver, generation = opts.driver, opts.generation
    out: list[Object] = []
    for node in nodes or [""]:
        p = opts.pool or node
        dup = _duplicates(names, driver, p, devices, generation)
        if dup:
            raise src.error(f"device '{dup}' is declared twice in pool {driver}/{p}", name_w,
                            expected="device names unique within a pool")
        names.pools.setdefault((driver, p), []).append((generation, opts.count is None))
        for d in devices:
            names.devices.setdefault(d.name, []).append((driver, p, d.name, node))
        out.append(ResourceSlice(f"{node or p}-{driver}-{len(names.pools[(driver, p)])}", driver,
                                 p, tuple(devices), generation, opts.count or 0, node_name=node,
                                 all_nodes=all_nodes, node_selector=selector, span=span))
    return out


def _device_names(ctx: Context, cur: Cursor) -> tuple[Word, list[str], list[int | None]]:
    """The devices' names (a range or one name) and, for a range, each one's number."""
    src = ctx.src
    name_w = cur.word("device names, e.g. gpu-[0..7]")
    try:
        dev_names = expand_range(name_w.value)
    except RangeError as exc:
        raise src.error(str(exc), name_w) from None
    m = _RANGE.search(name_w.value)
    numbers: list[int | None] = (list(range(int(m.group(1)), int(m.group(2)) + 1)) if m
                                 else [None] * len(dev_names))
    for n in dev_names:
        check_name(src, name_w, n, "device")
    return name_w, dev_names, numbers


def _where(ctx: Context, cur: Cursor) -> tuple[list[str], bool, Any]:
    """After ``on``: the nodes, or all-nodes, or a node-selector(…)."""
    src = ctx.src
    where = cur.peek()
    if isinstance(where, Word) and where.kind == "WORD" and where.value == "all-nodes":
        cur.pos += 1
        return [], True, None
    if isinstance(where, Word) and where.value == "node-selector" and isinstance(
            cur.peek(1), Group):
        cur.pos += 1
        group = cur.group("node-selector")
        return [], False, tuple(node_terms(src, Cursor(src, group.items, group.open), ored=True))
    node_w = cur.word("a node, a node range, all-nodes or node-selector(…)")
    try:
        node_names = expand_range(node_w.value)
    except RangeError as exc:
        raise src.error(str(exc), node_w) from None
    for n in node_names:
        ctx.need_node(n, node_w)
    return node_names, False, None


@attrs.define
class _Options:
    """The statement's ``driver=``, ``pool=``, ``generation=``, ``slices=`` and groups."""

    driver: str = ""
    pool: str = ""
    generation: int = 1
    count: int | None = None
    attributes: Group | None = None
    capacity: Group | None = None


_ALLOWED = ("driver", "pool", "attributes", "capacity", "generation", "slices")


def _options(src: Source, cur: Cursor) -> _Options:
    opts = _Options()
    seen: set[str] = set()
    for attr in read_attrs(cur):
        if attr.name not in _ALLOWED:
            raise src.unknown("devices attribute", attr.name, attr.key, _ALLOWED,
                              expected="driver=D, pool=P, attributes(…), capacity(…), "
                                       "generation=N, slices=N")
        if attr.name in seen:
            raise src.error(f"'{attr.name}' is given twice", attr.key)
        seen.add(attr.name)
        if attr.name in ("attributes", "capacity"):
            if attr.group is None:
                raise src.error(f"'{attr.name}' is written {attr.name}(…)", attr.key)
            setattr(opts, attr.name, attr.group)
            continue
        if attr.value is None:
            raise src.error(f"'{attr.name}' is written {attr.name}=VALUE", attr.key)
        if attr.name == "driver":
            opts.driver = attr.text
        elif attr.name == "pool":
            opts.pool = attr.text
        elif attr.name == "generation":
            opts.generation = integer(src, attr.value, "generation", minimum=0)
        else:
            opts.count = integer(src, attr.value, "slices", minimum=1)
    return opts


def _device(src: Source, opts: _Options, name: str, number: int | None) -> Device:
    """One device: its attributes (``#`` standing for ``number``) and capacities."""
    driver = opts.driver
    attributes: dict[str, dict[str, Any]] = {}
    capacity: dict[str, dict[str, Fraction]] = {}
    if opts.attributes is not None:
        for w, entry in _kv_group(src, opts.attributes, "attributes"):
            dom, ident = qualified(driver, w.value.partition("=")[0])
            attributes.setdefault(dom, {})[ident] = _attr_value(src, entry, number)
    if opts.capacity is not None:
        for w, entry in _kv_group(src, opts.capacity, "capacity"):
            key, _, raw = w.value.partition("=")
            if len(entry) != 1:
                raise src.error(f"unexpected {describe(entry[1])}", entry[1])
            try:
                value = exact_value(raw)
            except QuantityError as exc:
                raise src.error(str(exc), w.at(len(key) + 1, raw)) from None
            dom, ident = qualified(driver, key)
            capacity.setdefault(dom, {})[ident] = value
    return Device(name, attributes, capacity)


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


def finish_slices(objects: list[Any]) -> None:
    """Give slices without ``slices=N`` their pool's statement count (per generation)."""
    import attrs

    counts: dict[tuple[str, str, int], int] = {}
    for obj in objects:
        if isinstance(obj, ResourceSlice):
            k = (obj.driver, obj.pool, obj.generation)
            counts[k] = counts.get(k, 0) + 1
    for n, obj in enumerate(objects):
        if isinstance(obj, ResourceSlice) and obj.slice_count == 0:
            objects[n] = attrs.evolve(
                obj, slice_count=counts[(obj.driver, obj.pool, obj.generation)])



def deviceclass_statement(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                          timeline: bool) -> list[Object]:
    """``deviceclass NAME [driver=D] [selector("CEL") …] [config(D, "JSON")]``."""
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
            selectors.append(selector_attr(src, attr))
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

