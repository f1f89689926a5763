"""Declarations: the objects of §2, at time 0 or through ``create`` in the timeline.

Choices where LANGUAGE.md is silent:

* A node without ``pods=`` gets 110, the kubelet's default maxPods; ``cpu=``
  and ``memory=`` may be left out (0).  Resource names other than cpu, memory,
  ephemeral-storage, pods and hugepages-SIZE must be ``DOMAIN/NAME``
  (extended resources), so a misspelt ``cpus=`` is refused, not guessed.
* Only one priority class may be ``default`` (the API server refuses a second
  globalDefault).
* PDB percentages must be whole (``50%``), as intstr percentages are.
* ``pod`` takes a single name and ``pods`` a range.
* ``static`` needs ``on NODE`` (a mirror pod belongs to one kubelet) and is
  refused for deployments.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ..errors import ScenarioError, Span
from ..model.objects import (
    HIGHEST_USER_PRIORITY,
    MAX_REPLICAS,
    SYSTEM_CLUSTER_CRITICAL,
    TEMPLATE_HASH,
    Container,
    Deployment,
    ElasticQuota,
    NamedAfterPod,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    RuntimeClass,
    template_hash,
)
from ..model.resources import Resources
from ..model.scenario import Object
from ..model.selectors import LabelSelector, Taint
from ..readfile import NotRegularFile, check_regular
from .context import Context
from .cursor import Attr, Cursor, read_attrs
from .dra import DRA_DECLARATIONS, DRA_HANDLERS
from .pods import PREEMPTION, PodSpec, read_pod
from .rollout import STATUS_ATTRIBUTES, STRATEGY_ATTRIBUTES, TEMPLATE_STATUS, strategy_fields
from .syntax import Statement, Word, first_word, last_word
from .values import (
    RangeError,
    check_name,
    check_namespace,
    check_resource_name,
    expand_range,
    integer,
    label_selector,
    labels,
    node_images,
    pod_ref,
    quantity,
    resources,
    taint,
    word_list,
)

__all__ = ["DECLARATIONS", "declare", "declare_handler", "resolve_path"]

DECLARATIONS = ("priorityclass", "runtimeclass", "namespace", "node", "nodes", "quota", "pdb",
                "pod", "pods", "deployment", *DRA_DECLARATIONS)
BUILTIN_NAMES = ("system-node-critical", "system-cluster-critical")


def _once(src: Any, seen: dict[str, Attr], attr: Attr) -> None:
    if attr.name in seen:
        raise src.error(f"'{attr.name}' is given twice", attr.key)
    seen[attr.name] = attr


def _need(src: Any, attr: Attr, form: str) -> None:
    if form == "=" and attr.value is None:
        raise src.error(f"'{attr.name}' is written {attr.name}=VALUE", attr.key,
                        expected=f"{attr.name}=VALUE")
    if form == "()" and attr.group is None:
        raise src.error(f"'{attr.name}' is written {attr.name}(…)", attr.key,
                        expected=f"{attr.name}(…)")
    if form == "flag" and (attr.group is not None or attr.value is not None):
        raise src.error(f"'{attr.name}' is a flag and takes no value", attr.key,
                        expected=attr.name)


def _names(ctx: Context, word: Word, what: str) -> list[str]:
    try:
        return expand_range(word.value)
    except RangeError as exc:
        raise ctx.src.error(str(exc), word) from None


def declare(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
            where: str, *, timeline: bool) -> list[Object]:
    """Read the declaration ``kind …`` and register what it declares."""
    handler = _HANDLERS[kind.value]
    if stmt.block is not None and kind.value not in ("pod", "pods", "deployment", "claim",
                                                     "claimtemplate"):
        raise ctx.src.error(f"'{kind.value}' takes no block", stmt.block.open)
    name_item = cur.peek() or kind
    objs = handler(ctx, kind, cur, stmt, span, timeline)
    if kind.value in DRA_HANDLERS:
        return objs  # DRA names are kept by kruleset.lang.dra
    if handler is _pods:
        ctx.register_pods(objs, name_item, where)
        return objs
    for obj in objs:
        if isinstance(obj, ElasticQuota) and timeline:
            ctx.gone.add(("quota", obj.namespace))  # a new quota replaces the old one
        if isinstance(obj, Namespace) and obj.name in ctx.namespaces and timeline:
            ctx.gone.add(("namespace", obj.name))
        ctx.register(obj, name_item, where)
    return objs


def _priorityclass(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                   timeline: bool) -> list[Object]:
    src = ctx.src
    name_w = cur.word("a priority class name")
    name = check_name(src, name_w, name_w.value, "priority class")
    if name in BUILTIN_NAMES:
        raise src.error(f"'{name}' is a built-in priority class and cannot be redeclared", name_w)
    if name.startswith("system-"):
        raise src.error(f"priority class names starting with 'system-' are reserved: '{name}'",
                        name_w, expected="a name not starting with system-")
    seen: dict[str, Attr] = {}
    kw: dict[str, Any] = {}
    for attr in read_attrs(cur):
        allowed = ("value", "default", "preemption", "description")
        if attr.name not in allowed:
            raise src.unknown("priorityclass attribute", attr.name, attr.key, allowed,
                              expected="value=INT, default, preemption=…, description=\"…\"")
        _once(src, seen, attr)
        if attr.name == "value":
            _need(src, attr, "=")
            assert attr.value is not None
            value = integer(src, attr.value, "value", minimum=-(2**31))
            if value > HIGHEST_USER_PRIORITY:
                raise src.error(f"a user priority class value may be at most "
                                f"{HIGHEST_USER_PRIORITY}, found {value}", attr.value,
                                expected="a value of 1000000000 or less")
            kw["value"] = value
        elif attr.name == "default":
            _need(src, attr, "flag")
            for other in ctx.classes.values():
                if other.global_default and ("priority class", other.name) not in ctx.gone:
                    raise src.error(f"priority class '{other.name}' is already the default",
                                    attr.key, expected="one default class")
            kw["global_default"] = True
        elif attr.name == "preemption":
            _need(src, attr, "=")
            assert attr.value is not None
            if attr.text not in PREEMPTION:
                raise src.unknown("preemption policy", attr.text, attr.value, PREEMPTION,
                                  expected=" | ".join(PREEMPTION))
            kw["preemption_policy"] = attr.text
        else:
            _need(src, attr, "=")
            if attr.value is None or attr.value.text is None:
                raise src.error('description is written description="…"', attr.key)
            kw["description"] = attr.text
    if "value" not in kw:
        raise cur.error("priorityclass needs value=INT", cur.end_word(), expected="value=INT")
    return [PriorityClass(name, span=span, **kw)]


def _runtimeclass(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                  timeline: bool) -> list[Object]:
    src = ctx.src
    name_w = cur.word("a runtime class name")
    name = check_name(src, name_w, name_w.value, "runtime class")
    overhead: dict[str, int] = {}
    seen: dict[str, Attr] = {}
    for attr in read_attrs(cur):
        if attr.name != "overhead":
            raise src.unknown("runtimeclass attribute", attr.name, attr.key, ("overhead",),
                              expected="overhead(cpu=…, memory=…)")
        _once(src, seen, attr)
        _need(src, attr, "()")
        assert attr.group is not None
        overhead = resources(src, attr.group, "overhead")
    return [RuntimeClass(name, Resources.of(overhead), span=span)]


def _namespace(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
               timeline: bool) -> list[Object]:
    src = ctx.src
    name_w = cur.word("a namespace name")
    name = check_namespace(src, name_w, name_w.value)
    lab: dict[str, str] = {}
    seen: dict[str, Attr] = {}
    for attr in read_attrs(cur):
        if attr.name != "labels":
            raise src.unknown("namespace attribute", attr.name, attr.key, ("labels",),
                              expected="labels(…)")
        _once(src, seen, attr)
        _need(src, attr, "()")
        assert attr.group is not None
        lab = labels(src, attr.group)
    return [Namespace(name, lab, span=span)]


_NODE_ATTRS = ("cpu", "memory", "pods", "ephemeral-storage", "imagefs", "containerfs", "inodes",
               "pid-max", "labels", "taints", "unschedulable", "reserved", "images", "containers")


def _node(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
          timeline: bool) -> list[Object]:
    src = ctx.src
    name_w = cur.word("a node name" if kind.value == "node" else "a range such as n[1..3]")
    names = _names(ctx, name_w, "node")
    if kind.value == "node" and len(names) > 1:
        raise src.error("'node' declares one node; use 'nodes' for a range", kind,
                        expected=f"nodes {name_w.value} …")
    if kind.value == "nodes" and "[" not in name_w.value:
        raise src.error("'nodes' needs a range such as worker-[1..3]", name_w,
                        expected="PREFIX-[A..B]")
    for n in names:
        check_name(src, name_w, n, "node")
    capacity: dict[str, int] = {"pods": 110}
    kw: dict[str, Any] = {}
    seen: dict[str, Attr] = {}
    for attr in read_attrs(cur):
        n = attr.name
        if attr.form == "=" and n not in ("imagefs", "containerfs", "pid-max"):
            _once(src, seen, attr)
            assert attr.value is not None
            check_resource_name(src, attr.key, n, pods=True)
            capacity[n] = quantity(src, attr.value, n, n)
            continue
        if n not in _NODE_ATTRS:
            raise src.unknown("node attribute", n, attr.key, _NODE_ATTRS,
                              expected="RESOURCE=Q, labels(…), taints(…), reserved(…), …")
        _once(src, seen, attr)
        if n in ("imagefs", "containerfs"):
            _need(src, attr, "=")
            assert attr.value is not None
            kw[n] = quantity(src, attr.value, "memory", n)
        elif n == "pid-max":
            _need(src, attr, "=")
            assert attr.value is not None
            kw["pid_max"] = integer(src, attr.value, "pid-max", minimum=1)
        elif n == "unschedulable":
            _need(src, attr, "flag")
            kw["unschedulable"] = True
        else:
            _need(src, attr, "()")
            assert attr.group is not None
            g = attr.group
            if n == "labels":
                kw["labels"] = labels(src, g)
            elif n == "taints":
                found: list[Taint] = []
                for w in word_list(src, g, "taint"):
                    t = taint(src, w)
                    if any(o.key == t.key and o.effect == t.effect for o in found):
                        raise src.error(f"taint {t.key}:{t.effect} is given twice", w)
                    found.append(t)
                kw["taints"] = tuple(found)
            elif n == "reserved":
                kw["reserved"] = Resources.of(resources(src, g, "reserved", pods=True))
            elif n == "inodes":
                kw["inodes"] = resources(src, g, "inodes",
                                         keys=("nodefs", "imagefs", "containerfs"))
            elif n == "images":
                kw["images_unused"], kw["images"] = node_images(src, g)
            elif n == "containers":
                kw["containers_dead"] = resources(src, g, "containers",
                                                  keys=("dead",)).get("dead", 0)
            else:
                _need(src, attr, "=")
    cap = Resources.of(capacity)
    reserved = kw.get("reserved")
    if reserved is not None:
        for res, value in reserved.items():
            if value > cap.get(res):
                raise src.error(f"reserved {res} is more than the node's capacity",
                                seen["reserved"].key, expected=f"reserved {res} ≤ capacity")
    return [Node(n, cap, span=span, **kw) for n in names]


def _quota(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
           timeline: bool) -> list[Object]:
    src = ctx.src
    ns_w = cur.word("a namespace")
    ns = check_namespace(src, ns_w, ns_w.value)
    seen: dict[str, Attr] = {}
    kw: dict[str, Any] = {}
    for attr in read_attrs(cur):
        if attr.name not in ("min", "max"):
            raise src.unknown("quota attribute", attr.name, attr.key, ("min", "max"),
                              expected="min(…) max(…)")
        _once(src, seen, attr)
        _need(src, attr, "()")
        assert attr.group is not None
        kw[attr.name] = Resources.of(resources(src, attr.group, attr.name, pods=True))
    return [ElasticQuota(ns, name=ns, span=span, **kw)]


def _budget_value(ctx: Context, attr: Attr) -> int | str:
    src = ctx.src
    assert attr.value is not None
    text = attr.text
    if text.endswith("%"):
        num = text[:-1]
        if not num.isdigit():
            raise src.error(f"{attr.name} percentage must be a whole number, found '{text}'",
                            attr.value, expected="N or N%, e.g. 50%")
        if int(num) > 100:
            raise src.error(f"{attr.name}: '{text}': a percentage may not be over 100%",
                            attr.value, expected="0% to 100%")
        return f"{int(num)}%"
    return integer(src, attr.value, attr.name, minimum=0)


def _pdb(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
         timeline: bool) -> list[Object]:
    src = ctx.src
    ref_w = cur.word("a pdb reference")
    ns, name = pod_ref(src, ref_w, what="pdb")
    seen: dict[str, Attr] = {}
    kw: dict[str, Any] = {}
    allowed = ("selector", "min-available", "max-unavailable", "unhealthy-pod-eviction-policy")
    for attr in read_attrs(cur):
        if attr.name not in allowed:
            raise src.unknown("pdb attribute", attr.name, attr.key, allowed,
                              expected=", ".join(allowed))
        _once(src, seen, attr)
        if attr.name == "selector":
            _need(src, attr, "()")
            assert attr.group is not None
            kw["selector"] = label_selector(src, attr.group)
        elif attr.name == "unhealthy-pod-eviction-policy":
            _need(src, attr, "=")
            assert attr.value is not None
            choices = ("IfHealthyBudget", "AlwaysAllow")
            if attr.text not in choices:
                raise src.unknown("unhealthy pod eviction policy", attr.text, attr.value,
                                  choices, expected=" | ".join(choices))
            kw["unhealthy_pod_eviction_policy"] = attr.text
        else:
            _need(src, attr, "=")
            kw[attr.name.replace("-", "_")] = _budget_value(ctx, attr)
    if "min_available" in kw and "max_unavailable" in kw:
        raise src.error("a pdb takes min-available or max-unavailable, not both",
                        seen["max-unavailable"].key, expected="one of them")
    if "min_available" not in kw and "max_unavailable" not in kw:
        raise cur.error("a pdb needs min-available=N|N% or max-unavailable=N|N%",
                        cur.end_word(), expected="min-available=N or max-unavailable=N")
    if "selector" not in kw:
        raise cur.error("a pdb needs selector(…)", cur.end_word(),
                        expected="selector(app=web); selector() selects every pod")
    selector: LabelSelector = kw.pop("selector")
    return [PodDisruptionBudget(ns, name, selector, span=span, **kw)]


def _pod_refs(ctx: Context, ref_w: Word, keys: list[str]) -> list[tuple[str, str]]:
    """``pod_ref`` of every name of a range, checking only the first and the last when enough.

    The names of one range differ only in a run of digits whose length never
    decreases: every character rule of a namespace or name holds for all of
    them or for none, and the last is the longest.  When the first and the
    last pass, so do the others; otherwise each is checked in order, so the
    refusal names the same pod as before.
    """
    src = ctx.src
    if len(keys) <= 2:
        return [pod_ref(src, ref_w, k) for k in keys]
    try:
        first = pod_ref(src, ref_w, keys[0])
        last = pod_ref(src, ref_w, keys[-1])
    except ScenarioError:
        return [pod_ref(src, ref_w, k) for k in keys]
    refs = [first]
    for k in keys[1:-1]:
        ns, slash, name = k.rpartition("/")
        refs.append((ns if slash else "default", name))
    refs.append(last)
    return refs


def _pods(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
          timeline: bool) -> list[Object]:
    src = ctx.src
    ref_w = cur.word("a pod reference" if kind.value == "pod" else "a range such as web-[1..3]")
    keys = _names(ctx, ref_w, "pod")
    if kind.value == "pod" and len(keys) > 1:
        raise src.error("'pod' declares one pod; use 'pods' for a range", kind,
                        expected=f"pods {ref_w.value} …")
    if kind.value == "pods" and "[" not in ref_w.value:
        raise src.error("'pods' needs a range such as web-[1..3]", ref_w,
                        expected="REF-[A..B]")
    refs = _pod_refs(ctx, ref_w, keys)
    node = ""
    if cur.accept("on"):
        node_w = cur.word("a node name after 'on'")
        node = ctx.need_node(node_w.value, node_w).name
    text = _attribute_text(ctx, cur, stmt)
    known = ctx.pod_specs.get(text) if text is not None else None
    if known is not None:
        spec, like = known
        cur.pos = len(cur.items)
    else:
        spec, like = read_pod(ctx, cur, stmt, extras=("deployment",)), None
    if "deployment" in spec.extras:
        return _replicas(ctx, kind, ref_w, refs, node, spec, stmt, span)
    if spec.kwargs.get("static") and not node:
        raise src.error("a static pod is run by the kubelet of one node: add 'on NODE'", ref_w,
                        expected=f"{kind.value} {ref_w.value} on NODE static")
    ns, name = refs[0]
    if like is not None:
        first = like.declared_as(ns, name, _default_renamed(like, name), node, span)
    else:
        first = spec.make(ns, name, node_name=node, span=span)
        if text is not None and _reusable(spec):
            ctx.pod_specs[text] = (spec, first)
    out: list[Object] = [first]
    renamed = spec.renamer(first)
    out.extend(renamed(ns, name) for ns, name in refs[1:])
    return out


# What a running replica of a deployment may say besides its deployment: how
# it runs, not what it is (its template says that).
_REPLICA_STATE = ("deployment", "started", "usage", "not-ready", "restarts", "deletion-cost",
                  "created", "ready-since")


def _replicas(ctx: Context, kind: Word, ref_w: Word, refs: list[tuple[str, str]], node: str,
              spec: PodSpec, stmt: Statement, span: Span) -> list[Object]:
    """``pods REF on NODE deployment=NAME``: replicas the deployment already runs there.

    Each is the deployment's template as its controller makes a pod of it
    (owned through its ReplicaSet, with the ``pod-template-hash`` label),
    named ``REF`` and bound to ``NODE``; ``started=``, ``usage(…)`` and
    ``not-ready`` say how it runs.  The deployment controller counts them
    toward its replicas.
    """
    src = ctx.src
    attr = spec.extras["deployment"]
    assert attr.value is not None
    for name, given in spec.given.items():
        if name not in _REPLICA_STATE:
            raise src.error(f"'{name}' comes from the deployment's template: a replica "
                            "declared with deployment= takes only started=, usage(…), "
                            "not-ready, restarts=, deletion-cost=, created= and ready-since=",
                            given.key, expected=f"{kind.value} {ref_w.value} "
                            f"on NODE deployment={attr.text}")
    if stmt.block is not None:
        raise src.error("a replica declared with deployment= takes no block; its "
                        "containers are its deployment's", stmt.block.open)
    if not node:
        raise src.error("replicas declared with deployment= are running: add 'on NODE'",
                        ref_w, expected=f"{kind.value} {ref_w.value} on NODE "
                        f"deployment={attr.text}")
    ns = refs[0][0]
    dep = ctx.deployments.get(f"{ns}/{attr.text}")
    if dep is None or ("deployment", dep.key) in ctx.gone:
        raise src.unknown("deployment", f"{ns}/{attr.text}", attr.value,
                          [d.key for d in ctx.deployments.values()],
                          expected=f"deployment={attr.text} declared on an earlier line")
    for other_ns, name in refs:
        if other_ns != ns:
            raise src.error(f"pod '{other_ns}/{name}' is not in deployment '{dep.key}''s "
                            "namespace", ref_w, expected=f"pods in namespace {ns}")
    like = ctx.replica_of.get(dep.key)
    if like is None or like[0] is not dep:
        template = dep.template
        labels = dict(template.labels)
        labels.setdefault(TEMPLATE_HASH, template_hash(dep.key))
        like = ctx.replica_of[dep.key] = (dep, attrs.evolve(
            template, labels=labels, owner_kind="ReplicaSet", owner_name=dep.name))
    state = {k: v for k, v in spec.kwargs.items()
             if k in ("started", "usage", "ready", "restarts", "deletion_cost", "created_at",
                      "ready_at")}
    containers = like[1].containers
    first = like[1].declared_as(ns, refs[0][1], containers, node, span)
    if state:
        first = attrs.evolve(first, **state)
    return [first, *(first.renamed(ns, name, containers) for _, name in refs[1:])]


def _attribute_text(ctx: Context, cur: Cursor, stmt: Statement) -> str | None:
    """The pod attributes left on the statement, as written, when they are on its line
    and no block follows (None otherwise): what :func:`_pods` reads them once for."""
    if stmt.block is not None:
        return None
    items = cur.items
    if cur.pos >= len(items):
        return ""
    first, last = first_word(items[cur.pos]), last_word(items[-1])
    if first.line != last.line:
        return None
    return ctx.src.line_text(first.line)[first.column - 1:last.end_column - 1]


def _reusable(spec: PodSpec) -> bool:
    """Whether ``spec`` holds nothing but what its text says: no names of classes or
    claims, which the file may declare or delete later (a class another line
    names is looked up again)."""
    kw = spec.kwargs
    return not (spec.extras or spec.containers or spec.init_containers
                or kw.get("runtime_class") or kw.get("resource_claims")
                or kw.get("priority_class", SYSTEM_CLUSTER_CRITICAL) != SYSTEM_CLUSTER_CRITICAL)


def _default_renamed(pod: Pod, name: str) -> tuple[Container, ...]:
    """``pod``'s single default container, renamed for the pod ``name``."""
    spec = pod.container_spec
    if isinstance(spec, NamedAfterPod):
        return spec  # named after each pod that holds it
    c = spec[0]
    return (Container(name, c.requests, c.limits, image=c.image),)


def _deployment(ctx: Context, kind: Word, cur: Cursor, stmt: Statement, span: Span,
                timeline: bool) -> list[Object]:
    src = ctx.src
    ref_w = cur.word("a deployment reference")
    ns, name = pod_ref(src, ref_w, what="deployment")
    if cur.peek_word() == "on":
        raise cur.error("a deployment's pods are placed by the scheduler; 'on' is for pods")
    spec = read_pod(ctx, cur, stmt, extras=("replicas", *STRATEGY_ATTRIBUTES))
    if spec.kwargs.get("static"):
        raise src.error("a deployment's pods cannot be static (mirror) pods", ref_w,
                        expected="a pod … on NODE static")
    for attr_name in STATUS_ATTRIBUTES:
        given = spec.given.get(attr_name)
        if given is not None and attr_name not in TEMPLATE_STATUS:
            raise src.error(f"'{attr_name}' is a pod's status, not its template's: give it to "
                            "a replica", given.key,
                            expected=f"pods {name}-[1..N] on NODE deployment={name} "
                                     f"{attr_name}=…")
    rep = spec.extras.get("replicas")
    if rep is None or rep.value is None:
        raise src.error("a deployment needs replicas=N", rep.key if rep else cur.end_word(),
                        expected="replicas=N")
    replicas = integer(src, rep.value, "replicas", minimum=0, maximum=MAX_REPLICAS)
    template = spec.make(ns, name, owner=name, span=span)
    fields = strategy_fields(src, spec.extras, ref_w)
    return [Deployment(ns, name, replicas, template, span=span, **fields)]


_HANDLERS: dict[str, Callable[..., list[Object]]] = {
    "priorityclass": _priorityclass,
    "runtimeclass": _runtimeclass,
    "namespace": _namespace,
    "node": _node,
    "nodes": _node,
    "quota": _quota,
    "pdb": _pdb,
    "pod": _pods,
    "pods": _pods,
    "deployment": _deployment,
    **DRA_HANDLERS,
}


def declare_handler(kind: str) -> Callable[..., list[Object]]:
    """The reader of declarations of ``kind`` (without registering what it reads)."""
    return _HANDLERS[kind]


def resolve_path(ctx: Context, word: Word) -> Path:
    """The file a ``include``/``config`` string names, relative to the .kr file's folder."""
    if word.kind != "STRING" or word.text is None:
        raise ctx.src.error("expected a file name in double quotes", word,
                            expected='"FILE.yaml"')
    path = Path(word.text)
    if not path.is_absolute():
        path = Path(ctx.src.folder or ".") / path
    try:
        check_regular(path)
    except FileNotFoundError:
        raise ctx.src.error(f"file not found: {word.text}", word,
                            expected="a path relative to the .kr file's folder") from None
    except NotRegularFile as e:
        raise ctx.src.error(f"{word.text}: {e.strerror}", word,
                            expected="a YAML or JSON file") from None
    except (OSError, ValueError) as e:  # a name too long, a NUL byte
        raise ctx.src.error(f"cannot use this file name: {getattr(e, 'strerror', None) or e}",
                            word, expected="a path relative to the .kr file's folder") from None
    return path

