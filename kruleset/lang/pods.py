"""Pod attributes and pod blocks (``pod``, ``pods``, ``deployment`` and their
``create`` forms).

Choices where LANGUAGE.md is silent:

* The single container described on the first line (``cpu=``/``memory=``,
  ``requests(…)``, ``limits(…)``) is named after the pod (after the deployment
  for a deployment's template).  A pod with no container items gets that one
  container even when it has no requests (it is BestEffort).
* Requests left out but limits given default to the limits, per container and
  per resource, as the API server does.
* ``critical`` with neither ``priority=`` nor ``priorityclass=`` means
  ``priorityclass=system-cluster-critical``.  With a class or priority whose
  value is below 2000000000 it is refused: ``critical`` would not hold.
* ``priority=`` and ``priorityclass=`` together must agree with the class's
  value; the pod then keeps both.
* ``for D`` in tolerations needs the NoExecute effect and whole seconds, as the
  API server validates tolerationSeconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model.limits import INT32_MAX
from ..model.objects import (
    SYSTEM_CLUSTER_CRITICAL,
    SYSTEM_CRITICAL_PRIORITY,
    Container,
    EmptyDir,
    NamedAfterPod,
    NodeAffinity,
    Pod,
    PodAffinityTerm,
    TopologySpreadConstraint,
    WeightedNodeTerm,
    WeightedPodAffinityTerm,
)
from ..model.resources import Resources
from ..model.selectors import LabelSelector, NodeSelectorTerm
from .context import Context
from .cursor import Attr, Cursor, attr_from, split_commas
from .errors import Source
from .rollout import FORMS as ROLLOUT_FORMS
from .rollout import STATUS_ATTRIBUTES, read_status_attr
from .syntax import Item, Statement, Word
from .values import (
    check_name,
    duration,
    image_ref,
    integer,
    label_key,
    label_selector,
    labels,
    node_terms,
    quantity,
    requirements,
    resources,
    toleration,
    word_list,
)

__all__ = ["PodSpec", "POD_ATTRIBUTES", "read_pod", "USAGE_KEYS"]

USAGE_KEYS = ("memory", "ephemeral-storage", "writable-layer", "inodes", "pids")
PREEMPTION = ("PreemptLowerPriority", "Never")
POD_ATTRIBUTES = (
    "priority", "priorityclass", "preemption", "requests", "limits", "cpu", "memory",
    "besteffort", "labels", "started", "grace-period", "runtimeclass", "usage", "not-ready",
    "critical", "static", "host-ports", "node-selector", "tolerations", "gates", "image",
    "claims", *STATUS_ATTRIBUTES,
)
BLOCK_ITEMS = ("container", "init-container", "affinity", "anti-affinity", "spread", "emptydir")
_POD_TERM_OPTIONS = ("topology", "namespaces", "namespace-selector", "match-label-keys",
                     "mismatch-label-keys", "weight")
_FORMS = {
    "priority": "=", "priorityclass": "=", "preemption": "=", "cpu": "=", "memory": "=",
    "started": "=", "grace-period": "=", "runtimeclass": "=", "replicas": "=", "image": "=",
    "deployment": "=",
    "requests": "()", "limits": "()", "labels": "()", "usage": "()", "host-ports": "()",
    "node-selector": "()", "tolerations": "()", "gates": "()", "claims": "()",
    "besteffort": "flag", "not-ready": "flag", "critical": "flag", "static": "flag",
    **ROLLOUT_FORMS,
}
_FORM_WORDS = {"=": "NAME=VALUE", "()": "NAME(…)", "flag": "a bare word"}


class PodSpec:
    """Everything the pod attributes and block said, before names are known."""

    def __init__(self) -> None:
        self.kwargs: dict[str, Any] = {}
        self.requests: dict[str, int] | None = None
        self.limits: dict[str, int] | None = None
        self.first_line_word: Word | None = None
        self.containers: list[Container] = []
        self.init_containers: list[Container] = []
        self.image = ""  # image= : the default container's image
        self.required: list[NodeSelectorTerm] | None = None
        self.preferred: list[WeightedNodeTerm] = []
        self.extras: dict[str, Attr] = {}
        self.given: dict[str, Attr] = {}  # every attribute written, by name

    def make(self, namespace: str, name: str, *, node_name: str = "", owner: str = "",
             container_name: str | None = None, span: Any = None) -> Pod:
        """The pod called ``namespace/name`` with these attributes."""
        containers: tuple[Container, ...] = tuple(self.containers)
        if not containers:
            containers = (Container(container_name or name, Resources.of(self.requests or {}),
                                    Resources.of(self.limits or {}), image=self.image),)
            if container_name is None:
                # Named after the pod: shared by the pods copied from this one.
                containers = NamedAfterPod(containers)
        kw = dict(self.kwargs)
        if self.required is not None or self.preferred:
            kw["node_affinity"] = NodeAffinity(
                tuple(self.required) if self.required is not None else None, tuple(self.preferred))
        if owner:
            kw["owner_kind"] = "ReplicaSet"
            kw["owner_name"] = owner
        if span is not None:
            kw["span"] = span
        if self.init_containers:
            kw["init_containers"] = tuple(self.init_containers)
        return Pod(namespace, name, containers=containers, node_name=node_name, **kw)

    def renamer(self, first: Pod) -> Callable[[str, str], Pod]:
        """``(namespace, name) -> Pod``: ``make(namespace, name, …)``, copied from ``first``.

        ``first`` was made by :meth:`make` with the same other arguments.  A
        ``pods`` range makes thousands of pods that differ only in their
        names (and the default container's, which is the pod's): copying the
        first's slots and renaming is several times cheaper than building each
        pod and its derived requests anew.  Only the names change, so every
        derived fact (requests, limits, QoS, criticality) is the first pod's.
        Each copy names ``first`` as its ``range_head``: the cluster is built a
        range at a time (``kruleset.sim.setup``).
        """
        containers = first.container_spec
        rename = first.renamed
        if self.containers or isinstance(containers, NamedAfterPod):
            return lambda namespace, name: rename(namespace, name, containers)
        default = containers[0]
        requests, limits, image = default.requests, default.limits, default.image

        def renamed(namespace: str, name: str) -> Pod:
            return rename(namespace, name, (Container(name, requests, limits, image=image),))

        return renamed


def _requests_limits(src: Source, req: dict[str, int] | None, lim: dict[str, int] | None,
                     where: Item) -> tuple[dict[str, int], dict[str, int]]:
    """Default requests from limits and refuse limits below requests."""
    requests = dict(req or {})
    limits = dict(lim or {})
    for name, value in limits.items():
        if name not in requests:
            requests[name] = value
        elif requests[name] > value:
            raise src.error(f"the {name} limit is below its request", where,
                            expected=f"limits {name} ≥ requests {name}")
    return requests, limits


def read_pod(ctx: Context, cur: Cursor, stmt: Statement, *,
             extras: tuple[str, ...] = ()) -> PodSpec:
    """Read pod attributes to the end of the line, then the pod's block if any."""
    src = ctx.src
    spec = PodSpec()
    seen = spec.given
    shorthand: dict[str, int] = {}
    allowed = POD_ATTRIBUTES + extras
    while not cur.at_end():
        attr = attr_from(cur)
        _check_attr(src, attr, allowed, seen)
        seen[attr.name] = attr
        if attr.name in extras:
            spec.extras[attr.name] = attr
        else:
            _read_attr(ctx, spec, attr, shorthand)
    _requests(src, spec, shorthand)
    _priority(ctx, spec, seen)
    if stmt.block is not None:
        _block(ctx, spec, stmt, seen.get("requests") or seen.get("limits") or seen.get("cpu")
               or seen.get("memory"))
    return spec


def _check_attr(src: Source, attr: Attr, allowed: tuple[str, ...],
                seen: dict[str, Attr]) -> None:
    """A pod attribute known here, written in its form, given once."""
    name = attr.name
    if name not in allowed:
        if name in BLOCK_ITEMS:
            raise src.error(f"'{name}' is a block item: put it on its own line inside "
                            "{ … } after the pod's attributes", attr.key,
                            expected=f"pod … {{ NEWLINE {name} … NEWLINE }}")
        raise src.unknown("pod attribute", name, attr.key, allowed,
                          expected=", ".join(allowed))
    form = _FORMS[name]
    if attr.form != form:
        raise src.error(f"'{name}' is written {_FORM_WORDS[form]}", attr.key,
                        expected=_example(name))
    if name in seen:
        raise src.error(f"'{name}' is given twice", attr.key)


def _read_attr(ctx: Context, spec: PodSpec, attr: Attr, shorthand: dict[str, int]) -> None:
    """One pod attribute into ``spec`` (``cpu=``/``memory=`` into ``shorthand``)."""
    src = ctx.src
    kw = spec.kwargs
    name = attr.name
    if name == "priority":
        assert attr.value is not None
        kw["priority"] = integer(src, attr.value, "priority",
                                 minimum=-(2**31), maximum=2**31 - 1)
    elif name == "image":
        assert attr.value is not None
        spec.image = image_ref(src, attr.value, attr.text)
    elif name == "priorityclass":
        assert attr.value is not None
        kw["priority_class"] = ctx.need_class(attr.text, attr.value).name
    elif name == "preemption":
        assert attr.value is not None
        kw["preemption_policy"] = _choice(src, attr.value, PREEMPTION, "preemption policy")
    elif name in ("cpu", "memory"):
        assert attr.value is not None
        shorthand[name] = quantity(src, attr.value, name, f"{name} request")
    elif name == "requests":
        assert attr.group is not None
        spec.requests = resources(src, attr.group, "requests")
    elif name == "limits":
        assert attr.group is not None
        spec.limits = resources(src, attr.group, "limits")
    elif name == "labels":
        assert attr.group is not None
        kw["labels"] = labels(src, attr.group)
    elif name == "started":
        assert attr.value is not None
        kw["started"] = duration(src, attr.value, "started", allow_negative=True)
    elif name == "grace-period":
        assert attr.value is not None
        kw["grace_period"] = duration(src, attr.value, "grace-period")
    elif name == "runtimeclass":
        assert attr.value is not None
        rc = ctx.runtimeclasses.get(attr.text)
        if rc is None:
            raise src.unknown("runtime class", attr.text, attr.value, ctx.runtimeclasses)
        kw["runtime_class"] = rc.name
        kw["overhead"] = rc.overhead
    elif name == "usage":
        assert attr.group is not None
        kw["usage"] = resources(src, attr.group, "usage", keys=USAGE_KEYS)
    elif name == "not-ready":
        kw["ready"] = False
    elif name == "static":
        kw["static"] = True
    elif name == "host-ports":
        assert attr.group is not None
        kw["host_ports"] = tuple(_host_port(src, w) for w in
                                 word_list(src, attr.group, "host port"))
    elif name == "node-selector":
        assert attr.group is not None
        kw["node_selector"] = labels(src, attr.group, "node-selector")
    elif name == "tolerations":
        assert attr.group is not None
        kw["tolerations"] = tuple(toleration(src, e) for e in split_commas(src, attr.group))
    elif name == "gates":
        assert attr.group is not None
        gates = []
        for w in word_list(src, attr.group, "gate"):
            label_key(src, w, w.value)
            if w.value in gates:
                raise src.error(f"gate '{w.value}' is given twice", w)
            gates.append(w.value)
        kw["gates"] = tuple(gates)
    elif name in STATUS_ATTRIBUTES:
        read_status_attr(src, kw, attr)
    elif name == "claims":  # DRA: spec.resourceClaims
        from .dra import pod_claims

        assert attr.group is not None
        kw["resource_claims"] = pod_claims(ctx, attr.group)


def _requests(src: Source, spec: PodSpec, shorthand: dict[str, int]) -> None:
    """The requests and limits as given (shorthand or groups), checked against each other."""
    seen = spec.given
    req_group, lim_group = seen.get("requests"), seen.get("limits")
    if shorthand:
        if req_group is not None:
            first = seen.get("cpu") or seen["memory"]
            raise src.error(f"'{first.name}=' and requests(…) both give requests", first.key,
                            expected="one of them: requests(cpu=…, memory=…)")
        spec.requests = shorthand
    if "besteffort" in seen and (spec.requests or spec.limits):
        raise src.error("'besteffort' pods have no requests and no limits",
                        seen["besteffort"].key)
    where = (lim_group or req_group or seen.get("cpu") or seen.get("memory"))
    if where is not None:
        spec.requests, spec.limits = _requests_limits(
            src, spec.requests, spec.limits, (lim_group or where).key)


def _priority(ctx: Context, spec: PodSpec, seen: dict[str, Attr]) -> None:
    src = ctx.src
    kw = spec.kwargs
    pc_name = kw.get("priority_class")
    value = kw.get("priority")
    if pc_name and value is not None:
        pc = ctx.classes[pc_name]
        if pc.value != value:
            raise src.error(f"priority={value} does not agree with priority class "
                            f"'{pc_name}' (value {pc.value})", seen["priority"].key,
                            expected=f"priority={pc.value} or no priority=")
    if "critical" in seen:
        if not pc_name and value is None:
            kw["priority_class"] = SYSTEM_CLUSTER_CRITICAL
            return
        effective = ctx.classes[pc_name].value if pc_name else value
        assert effective is not None
        if effective < SYSTEM_CRITICAL_PRIORITY:
            which = f"priority class '{pc_name}'" if pc_name else f"priority={value}"
            raise src.error(f"'critical' needs a priority of at least {SYSTEM_CRITICAL_PRIORITY}, "
                            f"but {which} gives {effective}", seen["critical"].key,
                            expected="critical alone (system-cluster-critical), or "
                                     "priorityclass=system-node-critical")


def _example(name: str) -> str:
    form = _FORMS.get(name, "=")
    if form == "()":
        return f"{name}(…)"
    if form == "flag":
        return name
    return f"{name}=VALUE"


def _choice(src: Source, word: Word, choices: tuple[str, ...], what: str) -> str:
    text = word.text if word.text is not None else word.value
    if text not in choices:
        raise src.unknown(what, text, word, choices, expected=" | ".join(choices))
    return text


def _host_port(src: Source, word: Word) -> tuple[int, str]:
    port_s, slash, proto = word.value.partition("/")
    port = integer(src, word.at(0, port_s), "host port", minimum=1, maximum=65535)
    if slash:
        if proto not in ("TCP", "UDP", "SCTP"):
            raise src.unknown("protocol", proto, word.at(len(port_s) + 1, proto),
                              ("TCP", "UDP", "SCTP"), expected="TCP, UDP or SCTP")
    else:
        proto = "TCP"
    return port, proto


# --- the block ----------------------------------------------------------------

def _block(ctx: Context, spec: PodSpec, stmt: Statement, first_line: Attr | None) -> None:
    src = ctx.src
    assert stmt.block is not None
    kw = spec.kwargs
    names: set[str] = set()
    container_items: list[tuple[Item, Container]] = []
    for item in stmt.block.statements:
        cur = Cursor(src, item.items)
        head = cur.word("a pod block item")
        if item.block is not None:
            raise src.error(f"'{head.value}' takes no block", item.block.open)
        what = head.value
        if what in ("container", "init-container"):
            c = _container(src, cur, what)
            if c.name in names:
                raise src.error(f"container '{c.name}' is declared twice", item.items[1])
            names.add(c.name)
            (spec.containers if what == "container" else spec.init_containers).append(c)
            container_items.append((item.items[1], c))
        elif what in ("affinity", "anti-affinity"):
            _affinity(ctx, cur, spec, head)
        elif what == "spread":
            kw["spread"] = (*kw.get("spread", ()), _spread(src, cur))
        elif what == "emptydir":
            ed = _emptydir(src, cur)
            if any(e.name == ed.name for e in kw.get("emptydirs", ())):
                raise src.error(f"emptydir '{ed.name}' is declared twice", item.items[1])
            kw["emptydirs"] = (*kw.get("emptydirs", ()), ed)
        else:
            name = what.partition("=")[0]
            if name in POD_ATTRIBUTES:
                raise src.error(f"'{name}' is a pod attribute: put it on the pod's first line",
                                head, expected=", ".join(BLOCK_ITEMS))
            raise src.unknown("pod block item", what, head, BLOCK_ITEMS,
                              expected=", ".join(BLOCK_ITEMS))
        cur.done()
    pod_claim_names = {c.name for c in kw.get("resource_claims", ())}
    for block_item, c in container_items:
        for used in c.claims:
            if used not in pod_claim_names:
                raise src.error(f"container '{c.name}' uses claim '{used}', which the pod's "
                                "claims(…) does not list", block_item,
                                expected=", ".join(sorted(pod_claim_names)) or "claims(…)")
    if spec.containers and first_line is not None:
        raise src.error(f"'{first_line.name}' on the first line describes the only container, "
                        "but the block declares containers", first_line.key,
                        expected="requests(…) and limits(…) on each container line")


def _container(src: Source, cur: Cursor, what: str) -> Container:
    name_w = cur.word(f"a name after {what}")
    check_name(src, name_w, name_w.value, "container")
    req = lim = None
    restart = False
    image = ""
    seen: set[str] = set()
    lim_word: Item | None = None
    claims: tuple[str, ...] = ()
    while not cur.at_end():
        attr = attr_from(cur)
        allowed = ("requests", "limits", "image", "claims") + (
            ("restart",) if what == "init-container" else ())
        if attr.name not in allowed:
            raise src.unknown(f"{what} attribute", attr.name, attr.key, allowed,
                              expected=", ".join(allowed))
        if attr.name in seen:
            raise src.error(f"'{attr.name}' is given twice", attr.key)
        seen.add(attr.name)
        if attr.name == "restart":
            if attr.value is None or attr.text != "Always":
                raise src.error("restart takes only Always (a sidecar)",
                                attr.value or attr.key, expected="restart=Always")
            restart = True
            continue
        if attr.name == "claims" and attr.group is not None:  # DRA: resources.claims
            claims = tuple(w.value for w in word_list(src, attr.group, "claim"))
            continue
        if attr.name == "image":
            if attr.value is None:
                raise src.error("image is written image=REFERENCE", attr.key,
                                expected="image=nginx:1.27")
            image = image_ref(src, attr.value, attr.text)
            continue
        if attr.group is None:
            raise src.error(f"'{attr.name}' is written {attr.name}(…)", attr.key)
        if attr.name == "requests":
            req = resources(src, attr.group, "requests")
        else:
            lim = resources(src, attr.group, "limits")
            lim_word = attr.key
    requests, limits = _requests_limits(src, req, lim, lim_word or name_w)
    return Container(name_w.value, Resources.of(requests), Resources.of(limits), restart, image,
                     claims)


def _weight(src: Source, cur: Cursor) -> int:
    w = cur.word("weight=N")
    key, eq, value = w.value.partition("=")
    if key != "weight" or not eq:
        raise src.error(f"expected weight=N, found '{w.value}'", w, expected="weight=1 … 100")
    return integer(src, w.at(7, value), "weight", minimum=1, maximum=100)


def _affinity(ctx: Context, cur: Cursor, spec: PodSpec, head: Word) -> None:
    src = ctx.src
    kw = spec.kwargs
    anti = head.value == "anti-affinity"
    target = cur.keyword("node", "pod") if not anti else cur.keyword("pod")
    mode = cur.keyword("required", "preferred")
    if target.value == "node":
        if mode.value == "required":
            terms = node_terms(src, cur, ored=True)
            if spec.required is not None:
                raise src.error("affinity node required is given twice; "
                                "use '|' between alternatives", head)
            spec.required = terms
        else:
            weight = _weight(src, cur)
            term = node_terms(src, cur, ored=False)[0]
            spec.preferred.append(WeightedNodeTerm(weight, term))
        return
    pod_weight = _weight(src, cur) if mode.value == "preferred" else None
    pod_term = _pod_term(src, cur)
    field = ("pod_anti_affinity" if anti else "pod_affinity")
    if pod_weight is not None:
        field += "_preferred"
        kw[field] = (*kw.get(field, ()), WeightedPodAffinityTerm(pod_weight, pod_term))
    else:
        kw[field] = (*kw.get(field, ()), pod_term)


def _pod_term(src: Source, cur: Cursor) -> PodAffinityTerm:
    selector: LabelSelector
    if cur.peek_word() == "selector" and hasattr(cur.peek(1), "items"):
        cur.pos += 1
        group = cur.group("selector")
        selector = label_selector(src, group)  # type: ignore[arg-type]
    else:
        reqs = requirements(src, cur, gtlt=False, stops=_POD_TERM_OPTIONS)
        selector = LabelSelector(tuple(r for r, _ in reqs))
    opts: dict[str, Any] = {}
    topology = None
    while not cur.at_end():
        attr = attr_from(cur)
        allowed = _POD_TERM_OPTIONS[:5]
        if attr.name not in allowed:
            raise src.unknown("pod affinity option", attr.name, attr.key, allowed,
                              expected="topology=KEY, " + ", ".join(f"{a}(…)" for a in allowed[1:]))
        if attr.name in opts or (attr.name == "topology" and topology is not None):
            raise src.error(f"'{attr.name}' is given twice", attr.key)
        if attr.name == "topology":
            if attr.value is None:
                raise src.error("topology is written topology=KEY", attr.key)
            topology = label_key(src, attr.value, attr.text)
            continue
        if attr.group is None:
            raise src.error(f"'{attr.name}' is written {attr.name}(…)", attr.key)
        if attr.name == "namespaces":
            opts["namespaces"] = tuple(w.value for w in word_list(src, attr.group, "namespace"))
        elif attr.name == "namespace-selector":
            opts["namespace_selector"] = label_selector(src, attr.group)
        else:
            keys = tuple(label_key(src, w, w.value) for w in word_list(src, attr.group, "key"))
            opts[attr.name.replace("-", "_")] = keys
    if topology is None:
        raise cur.error("pod affinity needs topology=KEY", expected="topology=KEY, e.g. "
                        "topology=kubernetes.io/hostname")
    return PodAffinityTerm(selector, topology, **opts)


_SPREAD = ("max-skew", "topology", "when-unsatisfiable", "min-domains", "selector",
           "match-label-keys", "node-affinity-policy", "node-taints-policy")


def _spread(src: Source, cur: Cursor) -> TopologySpreadConstraint:
    got: dict[str, Any] = {}
    seen: set[str] = set()
    first = cur.here()
    while not cur.at_end():
        attr = attr_from(cur)
        n = attr.name
        if n not in _SPREAD:
            raise src.unknown("spread option", n, attr.key, _SPREAD, expected=", ".join(_SPREAD))
        if n in seen:
            raise src.error(f"'{n}' is given twice", attr.key)
        seen.add(n)
        want_group = n in ("selector", "match-label-keys")
        if want_group and attr.group is None or not want_group and attr.value is None:
            raise src.error(f"'{n}' is written {n}(…)" if want_group else f"'{n}' is written {n}=…",
                            attr.key)
        if n == "max-skew":
            assert attr.value is not None
            got["max_skew"] = integer(src, attr.value, "max-skew", minimum=1,
                                       maximum=INT32_MAX)
        elif n == "topology":
            assert attr.value is not None
            got["topology_key"] = label_key(src, attr.value, attr.text)
        elif n == "when-unsatisfiable":
            assert attr.value is not None
            got["when_unsatisfiable"] = _choice(src, attr.value,
                                                ("DoNotSchedule", "ScheduleAnyway"),
                                                "when-unsatisfiable value")
        elif n == "min-domains":
            assert attr.value is not None
            got["min_domains"] = integer(src, attr.value, "min-domains", minimum=1,
                                          maximum=INT32_MAX)
        elif n == "selector":
            assert attr.group is not None
            got["selector"] = label_selector(src, attr.group)
        elif n == "match-label-keys":
            assert attr.group is not None
            got["match_label_keys"] = tuple(label_key(src, w, w.value)
                                            for w in word_list(src, attr.group, "key"))
        else:
            assert attr.value is not None
            got[n.replace("-", "_")] = _choice(src, attr.value, ("Honor", "Ignore"), n)
    for need, field in (("max-skew", "max_skew"), ("topology", "topology_key"),
                        ("selector", "selector")):
        if field not in got:
            raise src.error(f"spread needs {need}", first if need == "max-skew" else cur.end_word(),
                            expected="spread max-skew=N topology=KEY selector(…)")
    if got.get("min_domains") is not None and got.get("when_unsatisfiable",
                                                      "DoNotSchedule") != "DoNotSchedule":
        raise src.error("min-domains needs when-unsatisfiable=DoNotSchedule", first)
    return TopologySpreadConstraint(**got)


def _emptydir(src: Source, cur: Cursor) -> EmptyDir:
    name_w = cur.word("a name after emptydir")
    check_name(src, name_w, name_w.value, "volume")
    kw: dict[str, Any] = {}
    while not cur.at_end():
        attr = attr_from(cur)
        allowed = ("size-limit", "medium", "usage")
        if attr.name not in allowed:
            raise src.unknown("emptydir attribute", attr.name, attr.key, allowed,
                              expected="size-limit=Q, medium=Memory, usage=Q")
        if attr.value is None:
            raise src.error(f"'{attr.name}' is written {attr.name}=…", attr.key)
        if attr.name in kw or (attr.name == "medium" and "medium_memory" in kw):
            raise src.error(f"'{attr.name}' is given twice", attr.key)
        if attr.name == "size-limit":
            kw["size_limit"] = quantity(src, attr.value, "memory", "size-limit")
        elif attr.name == "usage":
            kw["usage"] = quantity(src, attr.value, "memory", "usage")
        else:
            _choice(src, attr.value, ("Memory",), "emptydir medium")
            kw["medium_memory"] = True
    return EmptyDir(name_w.value, **kw)

