"""Pod specs (of Pods and of workload templates) into :class:`~kruleset.model.Pod`.

API defaulting that changes a decision is applied here, as the API server
would have applied it before any scheduler or kubelet saw the pod: requests
copied from limits per resource, ``hostPort`` from ``containerPort`` on the
host network, toleration operator ``Equal``, a 30 s termination grace period,
topology spread policies ``Honor``/``Ignore``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import NO_SPAN
from ..model.limits import INT32_MAX
from ..model.objects import (
    Container,
    EmptyDir,
    NodeAffinity,
    Pod,
    PodAffinityTerm,
    TopologySpreadConstraint,
    WeightedNodeTerm,
    WeightedPodAffinityTerm,
)
from ..model.resources import ZERO, Resources
from ..model.selectors import EFFECTS, Toleration
from ._fastpod import PER_POD, build_pod, copier, pod_labels, template_values
from ._fields import (
    MATCH_NOTHING,
    Doc,
    boolean,
    choice,
    integer,
    label_selector,
    mapping,
    quantity,
    resources,
    seq,
    string,
    string_list,
    string_map,
)
from ._node_terms import node_term
from .pod_ranking import DELETION_COST, ranking_fields, set_ranking

__all__ = ["COPY", "PodContext", "SpecFields", "build_spec_pod", "is_static", "make_pod",
           "pod_from_spec", "spec_fields"]

_PROTOCOLS = ("TCP", "UDP", "SCTP")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


class PodContext:
    """What converting one pod needs from the rest of the load."""

    __slots__ = ("runtime_overheads",)

    def __init__(self, runtime_overheads: Mapping[str, Resources]) -> None:
        self.runtime_overheads = runtime_overheads


_CONTAINER_CACHE: dict[object, Container] = {}
_TOLERATION_CACHE: dict[object, tuple[Toleration, ...]] = {}
_CACHE_LIMIT = 20_000


def _remember(cache: dict[object, Any], key: object, value: Any) -> None:
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _containers(doc: Doc, raw: object, field: str, init: bool
                ) -> tuple[tuple[Container, ...], tuple[object, ...] | None]:
    """The containers of a list, reusing identical ones already read, and their keys.

    A cluster dump holds the same few container shapes many thousand times;
    the cache key is what a Container is made of, as written.  The keys come
    back too (``None`` when one could not be made) to identify the pod's shape.
    """
    out = []
    keys: list[object] | None = []
    for i, c in enumerate(seq(doc, raw, field)):
        key: object = None
        if type(c) is dict:
            res = c.get("resources")
            if res is None:
                key = (c.get("name"), None, None, c.get("restartPolicy"), init, c.get("image"))
            elif type(res) is dict:
                req = res.get("requests")
                lim = res.get("limits")
                key = (c.get("name"),
                       tuple(req.items()) if type(req) is dict else req,
                       tuple(lim.items()) if type(lim) is dict else lim,
                       c.get("restartPolicy"), init, c.get("image"))
                if res.get("claims"):
                    key = None  # DRA claims: read each time (rare)
        try:
            found = _CONTAINER_CACHE.get(key) if key is not None else None
        except TypeError:  # something unhashable where a string belongs: validate slowly
            key, found = None, None
        if found is None:
            found = _container(doc, c, f"{field}[{i}]", init)
            if key is not None:
                _remember(_CONTAINER_CACHE, key, found)
        out.append(found)
        if keys is not None:
            if key is None:
                keys = None
            else:
                keys.append(key)
    return tuple(out), None if keys is None else tuple(keys)


def _container(doc: Doc, raw: object, field: str, init: bool) -> Container:
    c = mapping(doc, raw, field)
    name = string(doc, c.get("name"), f"{field}.name")
    res = c.get("resources")
    requests = limits = ZERO
    if res:
        r = mapping(doc, res, f"{field}.resources")
        requests = resources(doc, r.get("requests"), f"{field}.resources.requests")
        limits = resources(doc, r.get("limits"), f"{field}.resources.limits")
        if not limits.is_zero():
            requests = _default_requests(doc, requests, limits, r, f"{field}.resources")
    claims: tuple[str, ...] = ()
    if res and type(res) is dict and res.get("claims"):  # DRA: resources.claims
        cf = f"{field}.resources.claims"
        claims = tuple(string(doc, mapping(doc, x, f"{cf}[{i}]").get("name"), f"{cf}[{i}].name")
                       for i, x in enumerate(seq(doc, res.get("claims"), cf)))
    restart_always = False
    if init:
        policy = c.get("restartPolicy")
        if policy is not None:
            restart_always = choice(doc, policy, f"{field}.restartPolicy", ("Always",),
                                    "Always") == "Always"
    elif c.get("restartPolicy") is not None:
        doc.fail(f"{field}.restartPolicy", "only init containers may set restartPolicy")
    image = string(doc, c.get("image"), f"{field}.image")
    return Container(name, requests, limits, restart_always, image, claims)


def _default_requests(doc: Doc, requests: Resources, limits: Resources,
                      raw: Mapping[str, Any], field: str) -> Resources:
    """Requests left out default to the limits, per resource (API defaulting).

    Also refuses a request above its limit, as API validation does.
    """
    given = raw.get("requests") or {}
    merged = requests.as_dict()
    changed = False
    for name, value in limits.items():
        if name not in given:
            merged[name] = value
            changed = True
        elif merged.get(name, 0) > value:
            doc.fail(f"{field}.requests.{name}",
                     f"request {given[name]} is above the limit {raw['limits'][name]}",
                     "a container's request may not exceed its limit")
    return Resources.of(merged) if changed else requests


def _host_ports(doc: Doc, containers: list[Any], field: str,
                host_network: bool) -> tuple[tuple[int, str], ...]:
    """(hostPort, protocol) of the app containers, as the NodePorts filter sees them."""
    out: list[tuple[int, str]] = []
    for i, c in enumerate(containers):
        ports = c.get("ports") if isinstance(c, dict) else None
        if not ports:
            continue
        for j, p in enumerate(seq(doc, ports, f"{field}[{i}].ports")):
            pf = f"{field}[{i}].ports[{j}]"
            p = mapping(doc, p, pf)
            host = integer(doc, p.get("hostPort"), f"{pf}.hostPort", 0, 0, 65535)
            if not host and host_network:
                # On the host network the API server sets hostPort = containerPort.
                host = integer(doc, p.get("containerPort"), f"{pf}.containerPort", 0, 0, 65535)
            if host:
                proto = choice(doc, p.get("protocol"), f"{pf}.protocol", _PROTOCOLS, "TCP")
                out.append((host, proto))
    return tuple(out)


def _node_affinity(doc: Doc, raw: object, field: str) -> NodeAffinity | None:
    na = mapping(doc, raw, field)
    if not na:
        return None
    required = None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        rf = f"{field}.requiredDuringSchedulingIgnoredDuringExecution"
        terms = seq(doc, mapping(doc, req, rf).get("nodeSelectorTerms"), f"{rf}.nodeSelectorTerms")
        if not terms:
            doc.fail(f"{rf}.nodeSelectorTerms", "required node affinity needs at least one term")
        required = tuple(node_term(doc, t, f"{rf}.nodeSelectorTerms[{i}]")
                         for i, t in enumerate(terms))
    preferred = []
    pf = f"{field}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, p in enumerate(seq(doc, na.get("preferredDuringSchedulingIgnoredDuringExecution"), pf)):
        p = mapping(doc, p, f"{pf}[{i}]")
        weight = integer(doc, p.get("weight"), f"{pf}[{i}].weight", None, 1, 100)
        if weight is None:
            doc.fail(f"{pf}[{i}].weight", "a preferred term needs a weight from 1 to 100")
        preferred.append(WeightedNodeTerm(
            weight, node_term(doc, p.get("preference"), f"{pf}[{i}].preference")))
    return NodeAffinity(required, tuple(preferred))


def _pod_affinity_term(doc: Doc, raw: object, field: str) -> PodAffinityTerm:
    t = mapping(doc, raw, field)
    topology_key = string(doc, t.get("topologyKey"), f"{field}.topologyKey")
    if not topology_key:
        doc.fail(f"{field}.topologyKey", "a pod affinity term needs a topologyKey")
    selector = label_selector(doc, t.get("labelSelector"), f"{field}.labelSelector")
    return PodAffinityTerm(
        selector if selector is not None else MATCH_NOTHING,
        topology_key,
        string_list(doc, t.get("namespaces"), f"{field}.namespaces"),
        label_selector(doc, t.get("namespaceSelector"), f"{field}.namespaceSelector"),
        string_list(doc, t.get("matchLabelKeys"), f"{field}.matchLabelKeys"),
        string_list(doc, t.get("mismatchLabelKeys"), f"{field}.mismatchLabelKeys"),
    )


def _pod_affinity(doc: Doc, raw: object, field: str
                  ) -> tuple[tuple[PodAffinityTerm, ...], tuple[WeightedPodAffinityTerm, ...]]:
    pa = mapping(doc, raw, field)
    if not pa:
        return (), ()
    rf = f"{field}.requiredDuringSchedulingIgnoredDuringExecution"
    required = tuple(_pod_affinity_term(doc, t, f"{rf}[{i}]") for i, t in
                     enumerate(seq(doc, pa.get("requiredDuringSchedulingIgnoredDuringExecution"),
                                   rf)))
    pf = f"{field}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred = []
    for i, p in enumerate(seq(doc, pa.get("preferredDuringSchedulingIgnoredDuringExecution"), pf)):
        p = mapping(doc, p, f"{pf}[{i}]")
        weight = integer(doc, p.get("weight"), f"{pf}[{i}].weight", None, 1, 100)
        if weight is None:
            doc.fail(f"{pf}[{i}].weight", "a preferred term needs a weight from 1 to 100")
        term = _pod_affinity_term(doc, p.get("podAffinityTerm"), f"{pf}[{i}].podAffinityTerm")
        preferred.append(WeightedPodAffinityTerm(weight, term))
    return required, tuple(preferred)


def _toleration(doc: Doc, raw: object, field: str) -> Toleration:
    t = mapping(doc, raw, field)
    key = string(doc, t.get("key"), f"{field}.key")
    op = choice(doc, t.get("operator") or None, f"{field}.operator", ("Equal", "Exists"), "Equal")
    value = string(doc, t.get("value"), f"{field}.value")
    effect = string(doc, t.get("effect"), f"{field}.effect")
    if effect and effect not in EFFECTS:
        choice(doc, effect, f"{field}.effect", EFFECTS, "")
    if op == "Exists" and value:
        doc.fail(f"{field}.value", "a toleration with operator Exists takes no value")
    if not key and op != "Exists":
        doc.fail(f"{field}.operator", "a toleration with an empty key needs operator Exists")
    seconds = integer(doc, t.get("tolerationSeconds"), f"{field}.tolerationSeconds")
    if seconds is not None and effect != "NoExecute":
        doc.fail(f"{field}.tolerationSeconds", "tolerationSeconds needs effect NoExecute")
    return Toleration(key, op, value, effect, seconds)


def _tolerations(doc: Doc, raw: object, field: str) -> tuple[Toleration, ...]:
    """A pod's tolerations; the same lists (the defaults every pod gets) are read once."""
    try:
        key: object = tuple(tuple(t.items()) for t in raw)  # type: ignore[attr-defined]
        found = _TOLERATION_CACHE.get(key)
    except (TypeError, AttributeError):
        key, found = None, None
    if found is None:
        found = tuple(_toleration(doc, t, f"{field}[{i}]")
                      for i, t in enumerate(seq(doc, raw, field)))
        if key is not None:
            _remember(_TOLERATION_CACHE, key, found)
    return found


def _spread(doc: Doc, raw: object, field: str) -> TopologySpreadConstraint:
    c = mapping(doc, raw, field)
    max_skew = integer(doc, c.get("maxSkew"), f"{field}.maxSkew", None, 1, INT32_MAX)
    if max_skew is None:
        doc.fail(f"{field}.maxSkew", "a topology spread constraint needs maxSkew (1 or more)")
    key = string(doc, c.get("topologyKey"), f"{field}.topologyKey")
    if not key:
        doc.fail(f"{field}.topologyKey", "a topology spread constraint needs a topologyKey")
    if c.get("whenUnsatisfiable") is None:
        doc.fail(f"{field}.whenUnsatisfiable",
                 "a topology spread constraint needs whenUnsatisfiable "
                 "(DoNotSchedule or ScheduleAnyway)")
    when = choice(doc, c.get("whenUnsatisfiable"), f"{field}.whenUnsatisfiable",
                  ("DoNotSchedule", "ScheduleAnyway"), "DoNotSchedule")
    min_domains = integer(doc, c.get("minDomains"), f"{field}.minDomains", None, 1,
                          INT32_MAX)
    if min_domains is not None and when != "DoNotSchedule":
        doc.fail(f"{field}.minDomains", "minDomains needs whenUnsatisfiable DoNotSchedule")
    selector = label_selector(doc, c.get("labelSelector"), f"{field}.labelSelector")
    return TopologySpreadConstraint(
        max_skew, key, when,
        selector if selector is not None else MATCH_NOTHING,
        min_domains,
        string_list(doc, c.get("matchLabelKeys"), f"{field}.matchLabelKeys"),
        choice(doc, c.get("nodeAffinityPolicy"), f"{field}.nodeAffinityPolicy",
               ("Honor", "Ignore"), "Honor"),
        choice(doc, c.get("nodeTaintsPolicy"), f"{field}.nodeTaintsPolicy",
               ("Honor", "Ignore"), "Ignore"),
    )


def _emptydirs(doc: Doc, raw: object, field: str) -> tuple[EmptyDir, ...]:
    out = []
    for i, v in enumerate(seq(doc, raw, field)):
        if not isinstance(v, dict) or "emptyDir" not in v:
            continue
        vf = f"{field}[{i}]"
        ed = mapping(doc, v.get("emptyDir"), f"{vf}.emptyDir")
        size = ed.get("sizeLimit")
        medium = string(doc, ed.get("medium"), f"{vf}.emptyDir.medium")
        if medium not in ("", "Memory") and not medium.startswith("HugePages"):
            doc.fail(f"{vf}.emptyDir.medium", f"'{medium}' is not a medium (\"\" or Memory)")
        out.append(EmptyDir(
            string(doc, v.get("name"), f"{vf}.name"),
            None if size is None else quantity(doc, size, f"{vf}.emptyDir.sizeLimit", "memory"),
            medium == "Memory",
        ))
    return tuple(out)


# The Pod keywords build_spec_pod passes: those of spec_fields and the pod's own.
_COPY_GIVEN = frozenset(("containers", "init_containers", "overhead", "runtime_class",
                         "priority_class", "priority", "preemption_policy", "node_selector",
                         "node_affinity", "pod_affinity", "pod_affinity_preferred",
                         "pod_anti_affinity", "pod_anti_affinity_preferred", "spread",
                         "tolerations", "gates", "host_ports", "grace_period", "emptydirs",
                         "static", "resource_claims", *PER_POD))
COPY = copier(_COPY_GIVEN)


class SpecFields:
    """What a PodSpec says, ready to become Pod fields; shared by pods with equal specs."""

    __slots__ = ("fields", "shape", "raw", "runtime_overhead", "templates", "sidecars")

    def __init__(self, fields: dict[str, Any], shape: tuple[object, ...] | None,
                 raw: dict[str, Any], runtime_overhead: bool) -> None:
        self.fields = fields  # Pod keyword arguments taken from the spec (no nodeName)
        self.shape = shape    # identifies containers, init containers, overhead, priority
        self.raw = raw        # the spec as written, without nodeName, to compare others to
        # True: the overhead is the RuntimeClass's, known only once the whole file is read.
        self.runtime_overhead = runtime_overhead
        # static -> the slot values of a pod built from these fields (see build_spec_pod)
        self.templates: dict[bool, tuple[Any, ...]] = {}
        # The names of its sidecars, whose restarts the ReplicaSet controller ranks by.
        self.sidecars = frozenset(c.name for c in fields.get("init_containers", ())
                                  if c.restart_always)


def spec_fields(doc: Doc, spec_raw: object, spec_field: str) -> SpecFields:
    """Read everything a Pod takes from its PodSpec, except ``nodeName``."""
    sf = spec_field
    spec = mapping(doc, spec_raw, sf)
    g = spec.get

    raw_containers = seq(doc, g("containers"), f"{sf}.containers")
    containers, container_keys = _containers(doc, raw_containers, f"{sf}.containers", False)
    inits: tuple[Container, ...] = ()
    init_keys: tuple[object, ...] | None = ()
    if g("initContainers"):
        inits, init_keys = _containers(doc, g("initContainers"), f"{sf}.initContainers", True)

    runtime_class = string(doc, g("runtimeClassName"), f"{sf}.runtimeClassName")
    overhead = resources(doc, g("overhead"), f"{sf}.overhead")
    runtime_overhead = bool(runtime_class) and g("overhead") is None

    affinity = mapping(doc, g("affinity"), f"{sf}.affinity")
    node_affinity = None
    pod_aff: tuple[tuple[PodAffinityTerm, ...], tuple[WeightedPodAffinityTerm, ...]] = ((), ())
    anti_aff = pod_aff
    if affinity:
        af = f"{sf}.affinity"
        node_affinity = _node_affinity(doc, affinity.get("nodeAffinity"), f"{af}.nodeAffinity")
        pod_aff = _pod_affinity(doc, affinity.get("podAffinity"), f"{af}.podAffinity")
        anti_aff = _pod_affinity(doc, affinity.get("podAntiAffinity"), f"{af}.podAntiAffinity")

    tolerations: tuple[Toleration, ...] = ()
    if g("tolerations"):
        tolerations = _tolerations(doc, g("tolerations"), f"{sf}.tolerations")
    spread: tuple[TopologySpreadConstraint, ...] = ()
    if g("topologySpreadConstraints"):
        tf = f"{sf}.topologySpreadConstraints"
        spread = tuple(_spread(doc, c, f"{tf}[{i}]")
                       for i, c in enumerate(seq(doc, g("topologySpreadConstraints"), tf)))
    gates: tuple[str, ...] = ()
    if g("schedulingGates"):
        gf = f"{sf}.schedulingGates"
        gates = tuple(string(doc, mapping(doc, x, f"{gf}[{i}]").get("name"), f"{gf}[{i}].name")
                      for i, x in enumerate(seq(doc, g("schedulingGates"), gf)))

    grace = integer(doc, g("terminationGracePeriodSeconds"),
                    f"{sf}.terminationGracePeriodSeconds", 30, 0)
    priority = integer(doc, g("priority"), f"{sf}.priority")
    preemption_policy = None
    if g("preemptionPolicy") is not None:
        preemption_policy = choice(doc, g("preemptionPolicy"), f"{sf}.preemptionPolicy",
                                   _PREEMPTION_POLICIES, "")
    fields = {
        "containers": containers,
        "init_containers": inits,
        "overhead": overhead,
        "runtime_class": runtime_class,
        "priority_class": string(doc, g("priorityClassName"), f"{sf}.priorityClassName"),
        "priority": priority,
        "preemption_policy": preemption_policy,
        "node_selector": string_map(doc, g("nodeSelector"), f"{sf}.nodeSelector"),
        "node_affinity": node_affinity,
        "pod_affinity": pod_aff[0],
        "pod_affinity_preferred": pod_aff[1],
        "pod_anti_affinity": anti_aff[0],
        "pod_anti_affinity_preferred": anti_aff[1],
        "spread": spread,
        "tolerations": tolerations,
        "gates": gates,
        "host_ports": _host_ports(doc, raw_containers, f"{sf}.containers",
                                  boolean(doc, g("hostNetwork"), f"{sf}.hostNetwork")),
        "grace_period": (grace or 0) * 1000,
        "emptydirs": _emptydirs(doc, g("volumes"), f"{sf}.volumes") if g("volumes") else (),
        "resource_claims": _resource_claims(doc, g("resourceClaims"), f"{sf}.resourceClaims")
        if g("resourceClaims") else (),
        "readiness_delay": _readiness_delay(doc, raw_containers, g("initContainers"), sf),
    }
    if any(c.claims for c in (*containers, *inits)):
        _check_container_claims(doc, sf, containers, inits,
                                fields["resource_claims"])  # type: ignore[arg-type]
    shape = None
    if container_keys is not None and init_keys is not None:
        shape = (container_keys, init_keys, overhead, priority)
    raw = spec
    if "nodeName" in spec:
        raw = dict(spec)
        del raw["nodeName"]
    return SpecFields(fields, shape, raw, runtime_overhead)


def _readiness_delay(doc: Doc, containers: list[Any], inits: object, sf: str) -> int | None:
    """When the pod is Ready after it starts (ms): the longest readinessProbe
    initialDelaySeconds of its containers and sidecars; None: no readiness probe.

    The first probe is taken to succeed (docs/SIMULATED.md); a container without a probe
    is Ready once running.
    """
    delay: int | None = None
    places = [(c, f"{sf}.containers[{i}]") for i, c in enumerate(containers)]
    if isinstance(inits, list):
        places += [(c, f"{sf}.initContainers[{i}]") for i, c in enumerate(inits)
                   if isinstance(c, dict) and c.get("restartPolicy") == "Always"]
    for c, where in places:
        probe = c.get("readinessProbe") if isinstance(c, dict) else None
        if probe is None:
            continue
        probe = mapping(doc, probe, f"{where}.readinessProbe")
        secs = integer(doc, probe.get("initialDelaySeconds"),
                       f"{where}.readinessProbe.initialDelaySeconds", 0, 0) or 0
        delay = max(delay or 0, secs * 1000)
    return delay
def _check_container_claims(doc: Doc, sf: str, containers: Any, inits: Any,
                            pod_claims: tuple[Any, ...]) -> None:
    """Each container's ``resources.claims`` names a pod claim (validateResourceClaimNames)."""
    names = sorted({c.name for c in pod_claims})
    detail = "must be one of the names in pod.spec.resourceClaims" + (
        ": " + ", ".join(names) if names else " which is empty")
    for part, group in (("containers", containers), ("initContainers", inits)):
        for i, c in enumerate(group):
            seen: set[str] = set()
            for j, name in enumerate(c.claims):
                field = f"{sf}.{part}[{i}].resources.claims[{j}]"
                if not name:
                    doc.fail(field, "Required value")
                if name in seen:
                    doc.fail(field, f'Duplicate value: "{name}"')
                seen.add(name)
                if name not in names:
                    doc.fail(field, f'Not found: "{name}": {detail}')


def _resource_claims(doc: Doc, raw: object, field: str) -> tuple[Any, ...]:
    from .dra import pod_resource_claims

    return pod_resource_claims(doc, raw, field)


def is_static(annotations: Mapping[str, str] | None) -> bool:
    """A static pod (or its mirror): a config source other than the API server."""
    if not annotations:
        return False
    source = annotations.get("kubernetes.io/config.source")
    return (source is not None and source != "api") or "kubernetes.io/config.mirror" in annotations


def make_pod(doc: Doc, ctx: PodContext, spec: SpecFields, *, namespace: str, name: str,
             labels: Mapping[str, str], node_name: str = "",
             annotations: Mapping[str, str] | None = None, owner_kind: str = "",
             owner_name: str = "", started: int | None = None, ready: bool = True,
             static: bool | None = None) -> Pod:
    """A :class:`Pod` from its spec's fields and what the object's metadata and status say.

    ``static`` comes from ``annotations`` (a ``kubernetes.io/config.source``
    other than ``api``, or a ``kubernetes.io/config.mirror``) unless given.
    """
    if static is None:
        static = is_static(annotations)
    if spec.runtime_overhead:
        # The RuntimeClass admission plugin copies podFixed into pods without overhead.
        overhead = ctx.runtime_overheads.get(spec.fields["runtime_class"])
        if overhead is not None:
            shape = spec.shape
            spec = SpecFields(dict(spec.fields, overhead=overhead),
                              None if shape is None else (*shape, overhead), spec.raw, False)
    pod = build_spec_pod(doc, spec, static, namespace, name, labels, node_name, owner_kind,
                         owner_name, started, ready)
    if annotations and DELETION_COST in annotations:
        ranking = ranking_fields(doc, None, annotations, frozenset())
        if ranking:
            set_ranking(pod, ranking)
    return pod


def build_spec_pod(doc: Doc, spec: SpecFields, static: bool, namespace: str, name: str,
                   labels: Mapping[str, str], node_name: str, owner_kind: str,
                   owner_name: str, started: int | None, ready: bool) -> Pod:
    """:func:`make_pod` once the overhead is settled (``spec.runtime_overhead`` is ignored).

    The first pod of a spec (and ``static``) is built field by field; the
    others copy it but for what they have of their own.
    """
    span = doc.span or NO_SPAN
    template = spec.templates.get(static)
    if template is not None and COPY is not None:
        return COPY(template, namespace, name, pod_labels(labels), node_name, started,
                     owner_kind, owner_name, ready, span)
    fields = dict(spec.fields)
    shape = spec.shape
    fields["namespace"] = namespace
    fields["name"] = name
    fields["labels"] = labels
    fields["node_name"] = node_name
    fields["started"] = started
    fields["static"] = static
    fields["owner_kind"] = owner_kind
    fields["owner_name"] = owner_name
    fields["ready"] = ready
    fields["span"] = span
    pod = build_pod(None if shape is None else (shape, static), fields)
    if COPY is not None and fields.keys() == _COPY_GIVEN:
        spec.templates[static] = template_values(pod)
    return pod


def pod_from_spec(doc: Doc, ctx: PodContext, spec_raw: object, spec_field: str, *,
                  namespace: str, name: str, labels: Mapping[str, str],
                  annotations: Mapping[str, str] | None = None,
                  owner_kind: str = "", owner_name: str = "",
                  started: int | None = None, ready: bool = True) -> Pod:
    """A :class:`Pod` from the PodSpec at ``spec_field`` (``spec`` or ``spec.template.spec``)."""
    spec = spec_fields(doc, spec_raw, spec_field)
    node_name = ""
    if isinstance(spec_raw, dict):
        node_name = string(doc, spec_raw.get("nodeName"), f"{spec_field}.nodeName")
    return make_pod(doc, ctx, spec, namespace=namespace, name=name, labels=labels,
                    node_name=node_name, annotations=annotations, owner_kind=owner_kind,
                    owner_name=owner_name, started=started, ready=ready)
