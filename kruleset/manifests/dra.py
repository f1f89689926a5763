"""DRA kinds of ``resource.k8s.io``: DeviceClass, ResourceSlice, ResourceClaim(Template).

Each API version is read in its own shape:

* ``v1`` and ``v1beta2``: a request is ``{name, exactly: {…}}`` or
  ``{name, firstAvailable: […]}``; device attributes and capacity sit on the
  device, capacity as ``{value: Q}``;
* ``v1beta1``: request fields inline (``deviceClassName``, ``count`` …,
  ``firstAvailable``); devices under ``basic``, capacity ``{value: Q}``;
* ``v1alpha3`` (the seed's): request fields inline; devices under ``basic``,
  capacity a plain quantity; ``spec.controller`` is read (and dropped: v1.35
  has no control-plane controllers).

CEL selectors are compiled as the API server compiles them on create; a bad
one is refused naming the document, the field and the line:column inside the
expression.  Unknown fields are refused before an object gets here, against
the version's schema in :data:`.known_fields.DRA_OBJECTS` (a warning with
``--allow-unknown-fields``); bad values are errors naming the field.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import NO_SPAN
from ..model.dra import (
    ALL,
    EXACT_COUNT,
    CelSelector,
    ClaimSpec,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRef,
    DeviceRequest,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    Version,
    qualified,
)
from ..model.dra_cel import SEMVER, CelCompileError, check
from ..model.quantity import QuantityError, exact_value
from ._fields import Doc, boolean, choice, integer, mapping, seq, string
from ._node_terms import node_term

__all__ = ["DRA_KINDS", "DRA_VERSIONS", "dra_object", "pod_resource_claims"]

DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")
DRA_VERSIONS = ("v1", "v1beta2", "v1beta1", "v1alpha3")


def dra_object(doc: Doc, obj: dict[str, Any], kind: str, version: str, namespace: str,
               name: str) -> Any:
    """The model object of one DRA document."""
    spec = mapping(doc, obj.get("spec"), "spec")
    if kind == "DeviceClass":
        return _device_class(doc, spec, name)
    if kind == "ResourceSlice":
        return _slice(doc, spec, name, version)
    if kind == "ResourceClaimTemplate":
        inner = mapping(doc, spec.get("spec"), "spec.spec")
        return ResourceClaimTemplate(namespace, name, _claim_spec(doc, inner, "spec.spec",
                                                                  version),
                                     span=doc.span or NO_SPAN)
    claim_spec = _claim_spec(doc, spec, "spec", version)
    status = mapping(doc, obj.get("status"), "status")
    allocated = None
    alloc = mapping(doc, status.get("allocation"), "status.allocation")
    if alloc:
        rf = "status.allocation.devices.results"
        results = seq(doc, mapping(doc, alloc.get("devices"), "status.allocation.devices")
                      .get("results"), rf)
        allocated = tuple(
            DeviceRef(string(doc, r.get("request"), f"{rf}[{i}].request"),
                      string(doc, r.get("driver"), f"{rf}[{i}].driver"),
                      string(doc, r.get("pool"), f"{rf}[{i}].pool"),
                      string(doc, r.get("device"), f"{rf}[{i}].device"),
                      boolean(doc, r.get("adminAccess"), f"{rf}[{i}].adminAccess"))
            for i, r in enumerate(mapping(doc, x, f"{rf}[{i}]") for i, x in enumerate(results)))
    reserved = []
    for i, r in enumerate(seq(doc, status.get("reservedFor"), "status.reservedFor")):
        r = mapping(doc, r, f"status.reservedFor[{i}]")
        pod = string(doc, r.get("name"), f"status.reservedFor[{i}].name")
        reserved.append(f"{namespace}/{pod}")
    return ResourceClaim(namespace, name, claim_spec, allocated, tuple(reserved),
                         span=doc.span or NO_SPAN)


def _cel(doc: Doc, raw: Any, field: str) -> CelSelector:
    sel = mapping(doc, raw, field)
    cel = mapping(doc, sel.get("cel"), f"{field}.cel")
    expr = string(doc, cel.get("expression"), f"{field}.cel.expression")
    try:
        check(expr)
    except CelCompileError as exc:
        where = _file_position(doc.file, expr, exc.line, exc.column)
        doc.fail(f"{field}.cel.expression",
                 f"{where or f'expression {exc.line}:{exc.column}'}: {exc.message}",
                 "the API server compiles selectors on create and refuses this one")
    return CelSelector(expr, doc.span) if doc.span else CelSelector(expr)


def _file_position(file: str, expr: str, line: int, column: int) -> str:
    """``line L, column C`` of an expression's character in its file, when it can be found.

    The expression is looked up as written (a plain or block scalar: its
    lines appear in the file as they are, indented); a quoted scalar with
    escapes is not found, and the caller falls back to the expression's own
    line and column.
    """
    try:
        text = Path(file).read_text(encoding="utf-8")
    except OSError:
        return ""
    lines = expr.split("\n")
    file_lines = text.split("\n")
    first = lines[0].strip()
    for n, fl in enumerate(file_lines):
        at = fl.find(first) if first else -1
        if at < 0:
            continue
        if line == 1:
            return f"line {n + 1}, column {at + column}"
        if n + line - 1 < len(file_lines):
            target = file_lines[n + line - 1]
            wanted = lines[line - 1].strip()
            offset = target.find(wanted) if wanted else len(target)
            if offset >= 0:
                indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
                return f"line {n + line}, column {offset - indent + column}"
        return ""
    return ""


def _selectors(doc: Doc, raw: Any, field: str) -> tuple[CelSelector, ...]:
    return tuple(_cel(doc, s, f"{field}[{i}]") for i, s in enumerate(seq(doc, raw, field)))


def _device_class(doc: Doc, spec: dict[str, Any], name: str) -> DeviceClass:
    config = []
    for i, c in enumerate(seq(doc, spec.get("config"), "spec.config")):
        opaque = mapping(doc, mapping(doc, c, f"spec.config[{i}]").get("opaque"),
                         f"spec.config[{i}].opaque")
        config.append((string(doc, opaque.get("driver"), f"spec.config[{i}].opaque.driver"),
                       json.dumps(opaque.get("parameters"), sort_keys=True)))
    return DeviceClass(name, _selectors(doc, spec.get("selectors"), "spec.selectors"),
                       tuple(config), span=doc.span or DeviceClass(name).span)


def _value(doc: Doc, raw: Any, field: str) -> Any:
    v = mapping(doc, raw, field)
    if len(v) != 1:
        doc.fail(field, "an attribute has exactly one of int, bool, string, version")
    (kind, value), = v.items()
    if kind == "int":
        return integer(doc, value, f"{field}.int")
    if kind == "bool":
        return boolean(doc, value, f"{field}.bool")
    if kind == "string":
        return string(doc, value, f"{field}.string")
    if kind == "version":
        text = string(doc, value, f"{field}.version")
        if not SEMVER.match(text):
            doc.fail(f"{field}.version", f"'{text}' is not a semantic version")
        return Version(text)
    doc.fail(field, f"unknown attribute type {kind!r}", "int, bool, string or version")


def _quantity(doc: Doc, raw: Any, field: str) -> Fraction:
    try:
        return exact_value(str(raw))
    except QuantityError as exc:
        doc.fail(field, str(exc))



def _device(doc: Doc, raw: Any, field: str, driver: str, version: str) -> Device:
    d = mapping(doc, raw, field)
    name = string(doc, d.get("name"), f"{field}.name")
    body = d
    basic = True
    if version in ("v1beta1", "v1alpha3"):
        body = mapping(doc, d.get("basic"), f"{field}.basic")
        basic = "basic" in d
        field = f"{field}.basic"
    attributes: dict[str, dict[str, Any]] = {}
    for k, v in mapping(doc, body.get("attributes"), f"{field}.attributes").items():
        dom, ident = qualified(driver, k)
        attributes.setdefault(dom, {})[ident] = _value(doc, v, f"{field}.attributes.{k}")
    capacity: dict[str, dict[str, Fraction]] = {}
    for k, v in mapping(doc, body.get("capacity"), f"{field}.capacity").items():
        cf = f"{field}.capacity.{k}"
        if version != "v1alpha3":
            v = mapping(doc, v, cf).get("value")
            cf += ".value"
        dom, ident = qualified(driver, k)
        capacity.setdefault(dom, {})[ident] = _quantity(doc, v, cf)
    return Device(name, attributes, capacity, basic)


def _slice(doc: Doc, spec: dict[str, Any], name: str, version: str) -> ResourceSlice:
    driver = string(doc, spec.get("driver"), "spec.driver")
    if not driver:
        doc.fail("spec.driver", "a ResourceSlice needs a driver")
    pool = mapping(doc, spec.get("pool"), "spec.pool")
    pool_name = string(doc, pool.get("name"), "spec.pool.name")
    if not pool_name:
        doc.fail("spec.pool.name", "a ResourceSlice needs a pool name")
    node = string(doc, spec.get("nodeName"), "spec.nodeName")
    all_nodes = boolean(doc, spec.get("allNodes"), "spec.allNodes")
    selector = None
    if spec.get("nodeSelector") is not None:
        ns = mapping(doc, spec.get("nodeSelector"), "spec.nodeSelector")
        terms = seq(doc, ns.get("nodeSelectorTerms"), "spec.nodeSelector.nodeSelectorTerms")
        selector = tuple(node_term(doc, t, f"spec.nodeSelector.nodeSelectorTerms[{i}]")
                         for i, t in enumerate(terms))
    if sum((bool(node), all_nodes, selector is not None)) != 1:
        doc.fail("spec", "a ResourceSlice sets exactly one of nodeName, nodeSelector, allNodes")
    devices = tuple(_device(doc, d, f"spec.devices[{i}]", driver, version)
                    for i, d in enumerate(seq(doc, spec.get("devices"), "spec.devices")))
    seen: set[str] = set()
    for i, d in enumerate(devices):  # validateResourceSliceSpec: names are unique in a slice
        if d.name in seen:
            doc.fail(f"spec.devices[{i}].name", f'Duplicate value: "{d.name}"')
        seen.add(d.name)
    return ResourceSlice(name, driver, pool_name, devices,
                         integer(doc, pool.get("generation"), "spec.pool.generation", 0, 0) or 0,
                         integer(doc, pool.get("resourceSliceCount"),
                                 "spec.pool.resourceSliceCount", 1, 1) or 1,
                         node_name=node, all_nodes=all_nodes, node_selector=selector,
                         span=doc.span or ResourceSlice("", "", "").span)


def _request_fields(doc: Doc, r: dict[str, Any], field: str, name: str) -> DeviceRequest:
    mode = choice(doc, r.get("allocationMode"), f"{field}.allocationMode",
                  (EXACT_COUNT, ALL), EXACT_COUNT)
    count = integer(doc, r.get("count"), f"{field}.count", 1, 1) or 1
    if mode == ALL:
        count = 0
    return DeviceRequest(name, string(doc, r.get("deviceClassName"), f"{field}.deviceClassName"),
                         _selectors(doc, r.get("selectors"), f"{field}.selectors"), mode, count,
                         boolean(doc, r.get("adminAccess"), f"{field}.adminAccess"))


def _request(doc: Doc, raw: Any, field: str, version: str) -> DeviceRequest:
    r = mapping(doc, raw, field)
    name = string(doc, r.get("name"), f"{field}.name")
    alternatives = r.get("firstAvailable")
    if alternatives:
        af = f"{field}.firstAvailable"
        subs = tuple(
            _request_fields(doc, mapping(doc, s, f"{af}[{i}]"), f"{af}[{i}]",
                            string(doc, mapping(doc, s, f"{af}[{i}]").get("name"),
                                   f"{af}[{i}].name"))
            for i, s in enumerate(seq(doc, alternatives, af)))
        return DeviceRequest(name, first_available=subs)
    if version in ("v1", "v1beta2"):
        exactly = r.get("exactly")
        if exactly is None:
            doc.fail(field, "a request needs exactly or firstAvailable")
        return _request_fields(doc, mapping(doc, exactly, f"{field}.exactly"),
                               f"{field}.exactly", name)
    return _request_fields(doc, r, field, name)


def _claim_spec(doc: Doc, spec: dict[str, Any], field: str, version: str) -> ClaimSpec:
    devices = mapping(doc, spec.get("devices"), f"{field}.devices")
    rf = f"{field}.devices.requests"
    requests = tuple(_request(doc, r, f"{rf}[{i}]", version)
                     for i, r in enumerate(seq(doc, devices.get("requests"), rf)))
    names = [r.name for r in requests]
    if len(set(names)) != len(names):
        doc.fail(rf, "request names must be unique within a claim")
    cf = f"{field}.devices.constraints"
    constraints = []
    for i, c in enumerate(seq(doc, devices.get("constraints"), cf)):
        c = mapping(doc, c, f"{cf}[{i}]")
        attr = string(doc, c.get("matchAttribute"), f"{cf}[{i}].matchAttribute")
        if "/" not in attr:
            doc.fail(f"{cf}[{i}].matchAttribute", "matchAttribute needs a fully qualified name "
                     "(DOMAIN/ID)")
        reqs = tuple(string(doc, x, f"{cf}[{i}].requests")
                     for x in seq(doc, c.get("requests"), f"{cf}[{i}].requests"))
        # A constraint may name a request or one of its firstAvailable subrequests.
        subs = {f"{r.name}/{a.name}" for r in requests for a in r.first_available}
        for x in reqs:
            if x not in names and x not in subs:
                doc.fail(f"{cf}[{i}].requests", f"the constraint names request {x!r}, which "
                         "the claim does not have")
        constraints.append(DeviceConstraint(attr, reqs))
    return ClaimSpec(requests, tuple(constraints), (),
                     string(doc, spec.get("controller"), f"{field}.controller"))


def pod_resource_claims(doc: Doc, raw: Any, field: str) -> tuple[Any, ...]:
    """``spec.resourceClaims`` of a pod."""
    from ..model.dra import PodClaim

    out = []
    for i, e in enumerate(seq(doc, raw, field)):
        e = mapping(doc, e, f"{field}[{i}]")
        out.append(PodClaim(string(doc, e.get("name"), f"{field}[{i}].name"),
                            string(doc, e.get("resourceClaimName"),
                                   f"{field}[{i}].resourceClaimName"),
                            string(doc, e.get("resourceClaimTemplateName"),
                                   f"{field}[{i}].resourceClaimTemplateName")))
    return tuple(out)
