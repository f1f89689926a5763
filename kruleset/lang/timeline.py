"""Timeline statements (LANGUAGE.md §3) into actions.

Choices where LANGUAGE.md is silent:

* A pod, node, priority class or PDB may be created again only after a
  ``delete`` of it earlier in the timeline; ``create quota`` replaces.
* ``ungate pod REF GATE`` must name a gate the pod (or its deployment's
  template) has.
* ``kubelet NODE|* { … }`` is also accepted in the timeline (an addition):
  from that instant the node's kubelet uses the new configuration.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import Span
from ..model.config import SIGNALS
from ..model.objects import MAX_REPLICAS, Deployment
from ..model.observed import ContainerUsage
from ..model.scenario import (
    Action,
    ApplyObject,
    Cordon,
    Create,
    DeleteObject,
    DeletePod,
    DrainNode,
    EvictPod,
    KubeletBlock,
    LabelNode,
    NodeReadiness,
    NodeUsage,
    PodPhase,
    PodReadiness,
    PodUsage,
    ScaleDeployment,
    TaintNode,
    Ungate,
)
from .context import Context
from .cursor import Cursor
from .declarations import DECLARATIONS, declare, declare_handler
from .files import file_actions
from .kubelet import kubelet_block
from .pods import USAGE_KEYS
from .rollout import rollout_statement
from .syntax import Statement, Word
from .values import check_name, duration, integer, label_key, label_value, pod_ref, quantity, taint

__all__ = ["TIMELINE_STATEMENTS", "timeline_statement"]

TIMELINE_STATEMENTS = ("create", "apply", "scale", "rollout", "delete", "evict", "drain",
                       "cordon", "uncordon", "taint", "untaint", "label", "node", "usage",
                       "ungate", "ready", "unready",
                       "complete", "fail", "expect", "kubelet")


def _pod(ctx: Context, cur: Cursor) -> tuple[str, Word]:
    w = cur.word("a pod reference")
    ns, name = pod_ref(ctx.src, w)
    key = f"{ns}/{name}"
    ctx.need_pod(key, w)
    return key, w


def _node(ctx: Context, cur: Cursor) -> str:
    w = cur.word("a node name")
    return ctx.need_node(w.value, w).name


def timeline_statement(ctx: Context, head: Word, cur: Cursor, stmt: Statement, span: Span,
                       where: str, evicted: set[str]) -> list[Action]:
    """The actions of one timeline statement (``head`` is its first word, consumed)."""
    src = ctx.src
    verb = head.value
    handler = _VERBS.get(verb)
    if handler is None:
        if verb in ("run", "scenario", "include", "config"):
            raise src.error(f"'{verb}' is not allowed inside the timeline", head,
                            expected=", ".join(TIMELINE_STATEMENTS))
        if verb in DECLARATIONS:
            raise src.error(f"declarations in the timeline are written 'create {verb} …'",
                            head, expected=f"create {verb} …")
        raise src.unknown("timeline statement", verb, head, TIMELINE_STATEMENTS,
                          expected=", ".join(TIMELINE_STATEMENTS))
    if stmt.block is not None and verb not in ("create", "kubelet"):
        raise src.error(f"'{verb}' takes no block", stmt.block.open)
    actions = handler(ctx, cur, stmt, span, where, evicted)
    cur.done()
    return actions


def _create(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
            evicted: set[str]) -> list[Action]:
    kind = cur.word("what to create")
    if kind.value not in DECLARATIONS:
        raise ctx.src.unknown("kind to create", kind.value, kind, DECLARATIONS,
                              expected=", ".join(DECLARATIONS))
    objs = declare(ctx, kind, cur, stmt, span, where, timeline=True)
    return [Create(obj, span=span) for obj in objs]


def _scale(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
           evicted: set[str]) -> list[Action]:
    cur.keyword("deployment")
    w = cur.word("a deployment reference")
    ns, name = pod_ref(ctx.src, w, what="deployment")
    key = f"{ns}/{name}"
    if key not in ctx.deployments:
        raise ctx.src.unknown("deployment", key, w, ctx.deployments)
    rw = cur.word("replicas=N")
    k, eq, v = rw.value.partition("=")
    if k != "replicas" or not eq:
        raise ctx.src.error(f"expected replicas=N, found '{rw.value}'", rw, expected="replicas=N")
    return [ScaleDeployment(key, integer(ctx.src, rw.at(9, v), "replicas", minimum=0,
                                          maximum=MAX_REPLICAS), span=span)]


def _apply(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
           evicted: set[str]) -> list[Action]:
    nxt = cur.peek()
    if isinstance(nxt, Word) and nxt.value == "deployment":
        return _apply_deployment(ctx, cur, stmt, span)
    if not (isinstance(nxt, Word) and nxt.kind == "STRING"):
        raise cur.error("expected a file name in double quotes after 'apply'",
                        expected='apply "FILE.yaml"')
    return file_actions(ctx, cur, "apply", span)


def _apply_deployment(ctx: Context, cur: Cursor, stmt: Statement, span: Span
                      ) -> list[Action]:
    """``apply deployment REF replicas=N …``: the deployment's new spec (kubectl apply)."""
    kind = cur.keyword("deployment")
    ref_w = cur.peek()
    objs = declare_handler("deployment")(ctx, kind, cur, stmt, span, True)
    dep = objs[0]
    assert isinstance(dep, Deployment)
    if dep.key not in ctx.deployments:
        raise ctx.src.unknown("deployment", dep.key, ref_w or kind,
                              ctx.deployments, expected="a deployment declared or created "
                              "earlier (create deployment … makes a new one)")
    ctx.deployments[dep.key] = dep
    return [ApplyObject(dep, span=span)]


def _rollout(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
             evicted: set[str]) -> list[Action]:
    return list(rollout_statement(ctx.src, cur, span, ctx.deployments))


def _delete(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
            evicted: set[str]) -> list[Action]:
    src = ctx.src
    nxt = cur.peek()
    if isinstance(nxt, Word) and nxt.kind == "STRING":
        return file_actions(ctx, cur, "delete", span)
    kind = cur.keyword("pod", "node", "priorityclass", "quota", "pdb", "claim", "deviceclass",
                       "claimtemplate")
    if kind.value in ("claim", "deviceclass", "claimtemplate"):
        return [_delete_dra(ctx, cur, kind.value, span)]
    if kind.value == "node":
        name = _node(ctx, cur)
        if ("node", name) in ctx.gone:
            raise src.error(f"node {name} is already deleted", kind)
        ctx.gone.add(("node", name))
        return [DeleteObject("node", name, span=span)]
    if kind.value == "pod":
        key, _ = _pod(ctx, cur)
        grace = None
        if not cur.at_end():
            gw = cur.word("grace-period=DURATION")
            k, eq, v = gw.value.partition("=")
            if k != "grace-period" or not eq:
                raise src.unknown("delete option", k, gw, ("grace-period",),
                                  expected="grace-period=DURATION")
            grace = duration(src, gw.at(13, v), "grace-period")
        ctx.gone.add(("pod", key))
        return [DeletePod(key, grace, span=span)]
    w = cur.word(f"a {kind.value} name")
    if kind.value == "priorityclass":
        if w.value in ("system-node-critical", "system-cluster-critical"):
            raise src.error(f"the built-in priority class '{w.value}' cannot be deleted", w)
        ctx.need_class(w.value, w)
        ctx.gone.add(("priority class", w.value))
        return [DeleteObject("priorityclass", w.value, span=span)]
    if kind.value == "quota":
        if w.value not in ctx.quotas:
            raise src.unknown("quota for namespace", w.value, w, ctx.quotas)
        ctx.gone.add(("quota", w.value))
        return [DeleteObject("quota", w.value, span=span)]
    ns, name = pod_ref(src, w, what="pdb")
    key = f"{ns}/{name}"
    if key not in ctx.pdbs:
        raise src.unknown("pdb", key, w, ctx.pdbs)
    ctx.gone.add(("pdb", key))
    return [DeleteObject("pdb", key, span=span)]


def _delete_dra(ctx: Context, cur: Cursor, kind: str, span: Span) -> DeleteObject:
    """``delete claim REF`` / ``delete deviceclass NAME`` / ``delete claimtemplate REF``."""
    from .dra_names import names_of

    names = names_of(ctx)
    w = cur.word(f"a {kind} name")
    if kind == "deviceclass":
        if w.value not in names.classes:
            raise ctx.src.unknown("device class", w.value, w, names.classes)
        return DeleteObject(kind, w.value, span=span)
    ns, name = pod_ref(ctx.src, w, what=kind)
    key = f"{ns}/{name}"
    table = names.claims if kind == "claim" else names.templates
    if key not in table:
        raise ctx.src.unknown(kind, key, w, table)
    return DeleteObject(kind, key, span=span)


def _evict(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
           evicted: set[str]) -> list[Action]:
    cur.keyword("pod")
    key, _ = _pod(ctx, cur)
    dry = cur.accept("dry-run") is not None
    evicted.add(key)
    if not dry:
        ctx.gone.add(("pod", key))
    return [EvictPod(key, dry, span=span)]


def _drain(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
           evicted: set[str]) -> list[Action]:
    cur.keyword("node")
    # A drain evicts whatever runs on the node then, through the Eviction API,
    # so `expect eviction P status N` may name any pod after it.
    evicted.add("*")
    node = _node(ctx, cur)
    # `expect drain NODE …` needs a drain of NODE before it.
    evicted.add(f"drain:{node}")
    return [DrainNode(node, span=span)]


def _cordon(unschedulable: bool) -> Callable[..., list[Action]]:
    def handler(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
                evicted: set[str]) -> list[Action]:
        cur.keyword("node")
        return [Cordon(_node(ctx, cur), unschedulable, span=span)]
    return handler


def _taint(add: bool) -> Callable[..., list[Action]]:
    def handler(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
                evicted: set[str]) -> list[Action]:
        cur.keyword("node")
        node = _node(ctx, cur)
        w = cur.word("key=value:Effect" if add else "key:Effect")
        return [TaintNode(node, taint(ctx.src, w), add, span=span)]
    return handler


def _label(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
           evicted: set[str]) -> list[Action]:
    cur.keyword("node")
    node = _node(ctx, cur)
    w = cur.word("key=value")
    k, eq, v = w.value.partition("=")
    if not eq:
        raise ctx.src.error(f"expected key=value, found '{w.value}'", w, expected="key=value")
    if w.text is not None:
        v = w.text
    label_key(ctx.src, w, k)
    label_value(ctx.src, w, v)
    return [LabelNode(node, k, v, span=span)]


def _node_readiness(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
                    evicted: set[str]) -> list[Action]:
    node = _node(ctx, cur)
    nxt = cur.peek_word() or ""
    if "=" in nxt or nxt in ("labels", "taints", "reserved"):
        raise cur.error("a node is added in the timeline with 'create node …'",
                        expected="node NAME ready | node NAME not-ready")
    state = cur.keyword("ready", "not-ready")
    return [NodeReadiness(node, state.value == "ready", span=span)]


def _pairs(ctx: Context, cur: Cursor, keys: tuple[str, ...], what: str) -> dict[str, int]:
    out: dict[str, int] = {}
    if cur.at_end():
        raise cur.error(f"expected at least one {what}=QUANTITY",
                        expected=f"{keys[0]}=QUANTITY")
    while not cur.at_end():
        w = cur.word(f"{what}=QUANTITY")
        k, eq, v = w.value.partition("=")
        if not eq:
            raise ctx.src.error(f"expected {what}=QUANTITY, found '{w.value}'", w)
        if k not in keys:
            raise ctx.src.unknown(what, k, w.at(0, k), keys, expected=", ".join(keys))
        if k in out:
            raise ctx.src.error(f"'{k}' is given twice", w)
        if not v:
            raise ctx.src.error(f"missing value after '{k}='", w, expected="a quantity")
        out[k] = quantity(ctx.src, w.at(len(k) + 1, v), "pods", k)
    return out


def _usage(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
           evicted: set[str]) -> list[Action]:
    kind = cur.keyword("pod", "node")
    if kind.value == "pod":
        key, _ = _pod(ctx, cur)
        nxt = cur.peek_word() or ""
        if nxt.startswith("container="):
            return [_container_usage(ctx, cur, key, span)]
        return [PodUsage(key, _pairs(ctx, cur, USAGE_KEYS, "usage key"), span=span)]
    node = _node(ctx, cur)
    return [NodeUsage(node, _pairs(ctx, cur, SIGNALS, "eviction signal"), span=span)]


#: What ``usage pod REF container=NAME …`` sets: the container's share of its pod's usage.
CONTAINER_USAGE_KEYS = ("memory", "ephemeral-storage", "writable-layer")


def _container_usage(ctx: Context, cur: Cursor, key: str, span: Span) -> Action:
    """``usage pod REF container=NAME memory=Q ephemeral-storage=Q writable-layer=Q``."""
    w = cur.word("container=NAME")
    name = w.value.partition("=")[2]
    if not name:
        raise ctx.src.error("missing the container's name after 'container='", w,
                            expected="container=NAME")
    pod = ctx.pods.get(key)
    if pod is not None and name not in {c.name for c in pod.containers}:
        raise ctx.src.unknown(f"container of pod {key}", name, w.at(len("container="), name),
                              tuple(c.name for c in pod.containers))
    values = _pairs(ctx, cur, CONTAINER_USAGE_KEYS, "container usage key")
    return ContainerUsage(key, name, values, span=span)  # type: ignore[return-value]


def _ungate(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
            evicted: set[str]) -> list[Action]:
    cur.keyword("pod")
    key, _ = _pod(ctx, cur)
    gw = cur.word("a scheduling gate")
    pod = ctx.pods.get(key)
    if pod is None:
        ns, _, name = key.partition("/")
        dep = ctx.deployments.get(f"{ns}/{name.rpartition('-')[0]}")
        pod = dep.template if dep is not None else None
    if pod is not None and gw.value not in pod.gates:
        raise ctx.src.unknown(f"scheduling gate of pod {key}", gw.value, gw, pod.gates)
    return [Ungate(key, gw.value, span=span)]


def _readiness(ready: bool) -> Callable[..., list[Action]]:
    def handler(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
                evicted: set[str]) -> list[Action]:
        cur.keyword("pod")
        key, _ = _pod(ctx, cur)
        return [PodReadiness(key, ready, span=span)]
    return handler


def _phase(phase: str) -> Callable[..., list[Action]]:
    def handler(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
                evicted: set[str]) -> list[Action]:
        cur.keyword("pod")
        key, _ = _pod(ctx, cur)
        if phase != "Failed":
            return [PodPhase(key, phase, span=span)]
        return [_failure(ctx, cur, key, span)]
    return handler


def _failure(ctx: Context, cur: Cursor, key: str, span: Span) -> PodPhase:
    """``fail pod REF [exit-code=N] [container=NAME]``: how its container ended."""
    code: int | None = None
    container: str | None = None
    while not cur.at_end():
        w = cur.word("exit-code=N or container=NAME")
        k, eq, v = w.value.partition("=")
        if k not in ("exit-code", "container") or not eq or not v:
            raise ctx.src.unknown("fail option", k, w, ("exit-code", "container"),
                                  expected="exit-code=N, container=NAME")
        if (code if k == "exit-code" else container) is not None:
            raise ctx.src.error(f"'{k}' is given twice", w)
        if k == "exit-code":
            code = integer(ctx.src, w.at(len(k) + 1, v), "exit-code", minimum=-(2 ** 31),
                           maximum=2 ** 31 - 1)
        else:
            ctx.need_container(key, v, w)
            container = v
    if container is not None and code is None:
        raise cur.error("container=NAME needs exit-code=N", expected="exit-code=N")
    return PodPhase(key, "Failed", span=span, exit_code=code, container=container)


def _kubelet(ctx: Context, cur: Cursor, stmt: Statement, span: Span, where: str,
             evicted: set[str]) -> list[Action]:
    w = cur.word("a node name or *")
    if w.value != "*":
        check_name(ctx.src, w, w.value, "node")
        ctx.need_node(w.value, w)
    if stmt.block is None:
        raise cur.error("a kubelet statement needs a { … } block of flags",
                        expected="kubelet NODE {")
    return [KubeletBlock(w.value, kubelet_block(ctx.src, stmt, span), span=span)]


_VERBS: dict[str, Callable[..., list[Action]]] = {
    "create": _create,
    "scale": _scale,
    "rollout": _rollout,
    "delete": _delete,
    "apply": _apply,
    "evict": _evict,
    "drain": _drain,
    "cordon": _cordon(True),
    "uncordon": _cordon(False),
    "taint": _taint(True),
    "untaint": _taint(False),
    "label": _label,
    "node": _node_readiness,
    "usage": _usage,
    "ungate": _ungate,
    "ready": _readiness(True),
    "unready": _readiness(False),
    "complete": _phase("Succeeded"),
    "fail": _phase("Failed"),
    "kubelet": _kubelet,
}
