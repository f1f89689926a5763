"""The DRA statements of LANGUAGE-DRA.md: devices, device classes, claims, templates, gates.

``devices … on NODE`` is one ResourceSlice (one per node for a node range);
``deviceclass``, ``claim`` and ``claimtemplate`` declare the API objects
(read by :mod:`.dra_devices` and :mod:`.dra_claims`); ``feature-gates(…)``
sets the DRA gates v1.35 lets change.  Pods name their claims with
``claims(NAME=CLAIM, NAME=template/T)``.  Names used before they are
declared (a class created later in the timeline, a claim in a pod's
``claims(…)``) are checked at the end of the file by :func:`check_names`.

CEL selectors are compiled when read (:mod:`.dra_names`): a bad one is
refused at the ``.kr`` line and column of the offending character, with
CEL's own message.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError, Span
from ..model.dra import (
    GATES,
    LOCKED_GATES,
    DeviceClass,
    FeatureGates,
    PodClaim,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from ..model.scenario import Object
from .context import Context
from .cursor import Cursor, split_commas
from .dra_claims import claim_statement
from .dra_devices import deviceclass_statement, devices_statement, finish_slices
from .dra_names import DraNames, dns_label, name_words, names_of
from .errors import Source
from .expect_words import checked_refs, keyed_value
from .syntax import Group, Item, Statement, Word
from .values import integer, pod_ref

__all__ = ["DRA_DECLARATIONS", "DRA_HANDLERS", "check_names", "finish", "parse_expect_dra",
           "pod_claims", "register_included"]

DRA_DECLARATIONS = ("devices", "deviceclass", "claim", "claimtemplate", "feature-gates")


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
    "devices": devices_statement,
    "deviceclass": deviceclass_statement,
    "claim": claim_statement,
    "claimtemplate": claim_statement,
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
        dns_label(src, w, pname, "pod claim name")
        if any(p.name == pname for p in out):
            raise src.error(f"pod claim '{pname}' is given twice", w)
        if target.startswith("template/"):
            tname = target[len("template/"):]
            dns_label(src, w, tname, "template name")
            out.append(PodClaim(pname, template_name=tname))
            names.later.append(("claimtemplate", tname, w, "pod"))
        else:
            dns_label(src, w, target, "claim name")
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


def finish(ctx: Context, objects: list[Any], events: Any) -> None:
    """End of file: slice counts, names used before declared, running pods' claims."""
    if getattr(ctx, "dra", None) is None:
        return
    finish_slices(objects)
    from ..model.objects import Deployment, Pod

    pods = [o for o in objects if isinstance(o, Pod)]
    pods += [o.template for o in objects if isinstance(o, Deployment)]
    pods += [e.action.obj for e in events if isinstance(getattr(e.action, "obj", None), Pod)]
    check_names(ctx, pods)
    _admin_access_namespaces(ctx, [*objects] + [
        e.action.obj for e in events if hasattr(e.action, "obj")])
    claims = {o.key: o for o in objects if isinstance(o, ResourceClaim)}
    for pod in objects:
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
        args["count"] = integer(src, keyed_value(cur, "count"), "count", minimum=0)
        return "claims-count", ref, state
    state = cur.keyword(*CLAIM_STATES).value
    if state == "allocated":
        if cur.accept("on"):
            nw = cur.word("a node name after 'on'")
            args["node"] = nw.value
            checks.append(("node", nw.value, nw))
        if cur.accept("devices"):
            args["devices"] = tuple(x.value for x in name_words(src, cur.group("devices")))
    elif state == "reserved-for":
        args["pods"] = checked_refs(src, cur.blist("the pods"), checks)
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
