"""What a scenario has declared so far: the names references are checked against."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Any

from ..model.objects import (
    BUILTIN_PRIORITY_CLASSES,
    Deployment,
    ElasticQuota,
    LimitRange,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ResourceQuota,
    RuntimeClass,
    Workload,
)
from ..model.scenario import Object
from . import capacity
from .errors import Source
from .syntax import Item

__all__ = ["Context"]

_GENERATED = re.compile(r"(.+)-([1-9][0-9]*)\Z")
_BUILTIN = {c.name: c for c in BUILTIN_PRIORITY_CLASSES}


def _builtin_unchanged(pc: PriorityClass) -> bool:
    b = _BUILTIN.get(pc.name)
    return b is not None and (b.value, b.global_default, b.preemption_policy) == \
        (pc.value, pc.global_default, pc.preemption_policy)


class Context:
    """Objects known at the current point of the file (time 0, then the timeline).

    ``origin`` remembers where each name was declared, for duplicate messages.
    ``gone`` holds pods, nodes, classes and PDBs deleted in the timeline, which
    may then be created again.
    """

    def __init__(self, src: Source) -> None:
        self.src = src
        self.classes: dict[str, PriorityClass] = {c.name: c for c in BUILTIN_PRIORITY_CLASSES}
        self.runtimeclasses: dict[str, RuntimeClass] = {}
        self.namespaces: dict[str, Namespace] = {}
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}
        self.deployments: dict[str, Deployment] = {}
        self.pdbs: dict[str, PodDisruptionBudget] = {}
        self.quotas: dict[str, ElasticQuota] = {}
        self.workloads: dict[str, Workload] = {}  # "Kind/namespace/name"
        self.limit_ranges: dict[str, LimitRange] = {}
        self.resource_quotas: dict[str, ResourceQuota] = {}
        self.origin: dict[tuple[str, str], str] = {}
        self.pod_origin: dict[str, str] = {}  # a pod's origin, by key (a million pods)
        self.gone: set[tuple[str, str]] = set()
        self.time = 0
        # Pod attributes as written on a `pod`/`pods` line -> what they were read
        # as and a pod made from them (kruleset.lang.declarations._pods): a
        # large cluster repeats a few attribute texts on thousands of lines.
        self.pod_specs: dict[str, tuple[Any, Pod]] = {}
        # Deployment key -> (the deployment, a running replica of it): what the
        # replicas declared with `deployment=` are copied from.
        self.replica_of: dict[str, tuple[Deployment, Pod]] = {}

    # --- registering --------------------------------------------------------

    def register(self, obj: Object, item: Item, where: str) -> None:
        """Record a new object, refusing a name already in use."""
        kind, key, table = self._slot(obj)
        if isinstance(obj, PriorityClass):
            if _builtin_unchanged(obj):
                return  # a dump's copy of a built-in class: it is already there
            if obj.global_default:
                for other in self.classes.values():
                    if other.global_default and ("priority class", other.name) not in self.gone:
                        raise self.src.error(f"priority class '{other.name}' is already the "
                                             f"default; '{obj.name}' cannot be one too", item,
                                             expected="one default class")
        if key in table and (kind, key) not in self.gone:
            before = self.declared_at(kind, key)
            raise self.src.error(f"{kind} '{key}' is already declared ({before})", item,
                                 expected=f"a {kind} name not used yet")
        if isinstance(obj, Pod):
            self._check_generated_clash(obj.namespace, obj.name, item)
        if isinstance(obj, Deployment):
            for pod_key in self.pods:
                ns, _, name = pod_key.partition("/")
                m = _GENERATED.match(name)
                if ns == obj.namespace and m and m.group(1) == obj.name:
                    raise self.src.error(
                        f"deployment '{obj.key}' would create pods named like the pod "
                        f"'{pod_key}' ({self.declared_at('pod', pod_key)})", item)
        self.gone.discard((kind, key))
        table[key] = obj
        if kind == "pod":
            self.pod_origin[key] = where
        else:
            self.origin[(kind, key)] = where

    def declared_at(self, kind: str, key: str) -> str:
        """Where the object ``kind``/``key`` was declared (``line N``), for messages."""
        if kind == "pod":
            where = self.pod_origin.get(key)
            if where is None:
                pod = self.pods.get(key)
                # Not kept where the pod's own span says it (register_pods).
                return f"line {pod.span.line}" if pod is not None else "earlier"
            return where
        return self.origin.get((kind, key), "earlier")

    def register_pods(self, pods: list[Object], item: Item, where: str) -> None:
        """:meth:`register` each of ``pods`` (all :class:`Pod`), in order, with the same checks.

        A ``pods`` range registers thousands of pods: the per-object dispatch
        is done once, and the name-clash check against deployments only runs
        when a deployment is declared (it can only fail then).
        """
        table, gone, origin = self.pods, self.gone, self.pod_origin
        declared = len(table)
        if (declared + len(pods)) // capacity.CHECK_EVERY > declared // capacity.CHECK_EVERY:
            refusal = capacity.memory_refusal(declared + len(pods))
            if refusal is not None:
                raise self.src.error(refusal, item, expected="fewer pods")
        keys = [obj.key for obj in pods]  # type: ignore[union-attr]
        if not gone and not self.deployments and table.keys().isdisjoint(keys):
            # The usual case, checked at once: no name is taken and no
            # deployment gives its pods names.
            table.update(zip(keys, pods, strict=True))  # type: ignore[arg-type]
            if len(table) == declared + len(keys):
                if _told_by_span(pods, where):
                    # A string a pod ("line 1234") for a million one-line
                    # pods: declared_at reads it from the pod's span instead.
                    if origin:
                        for key in keys:
                            origin.pop(key, None)
                else:
                    origin.update(dict.fromkeys(keys, where))
                return
            # A name given twice (in one dump): taken out again, each once,
            # and refused below as one by one.
            for key in dict.fromkeys(keys):
                del table[key]
        for obj in pods:
            assert isinstance(obj, Pod)
            key = obj.key
            slot = ("pod", key)
            if key in table and slot not in gone:
                before = self.declared_at("pod", key)
                raise self.src.error(f"pod '{key}' is already declared ({before})", item,
                                     expected="a pod name not used yet")
            if self.deployments:
                self._check_generated_clash(obj.namespace, obj.name, item, obj)
            if gone:
                gone.discard(slot)
            table[key] = obj
            origin[key] = where

    def _check_generated_clash(self, ns: str, name: str, item: Item,
                               pod: Pod | None = None) -> None:
        m = _GENERATED.match(name)
        if pod is not None and pod.owner_kind == "ReplicaSet" and m \
                and pod.owner_name == m.group(1):
            return  # a replica of that deployment (deployment=) bears the names it gives
        if m and f"{ns}/{m.group(1)}" in self.deployments:
            raise self.src.error(
                f"pod '{ns}/{name}' has the name deployment '{ns}/{m.group(1)}' gives its pods",
                item, expected="another pod name")

    def _slot(self, obj: Object) -> tuple[str, str, dict]:  # type: ignore[type-arg]
        if isinstance(obj, Pod):
            return "pod", obj.key, self.pods
        if isinstance(obj, Node):
            return "node", obj.name, self.nodes
        if isinstance(obj, PriorityClass):
            return "priority class", obj.name, self.classes
        if isinstance(obj, RuntimeClass):
            return "runtime class", obj.name, self.runtimeclasses
        if isinstance(obj, Deployment):
            return "deployment", obj.key, self.deployments
        if isinstance(obj, PodDisruptionBudget):
            return "pdb", obj.key, self.pdbs
        if isinstance(obj, ElasticQuota):
            return "quota", obj.namespace, self.quotas
        if isinstance(obj, Workload):
            return obj.kind.lower(), f"{obj.kind}/{obj.key}", self.workloads
        if isinstance(obj, LimitRange):
            return "limitrange", obj.key, self.limit_ranges
        if isinstance(obj, ResourceQuota):
            return "resourcequota", obj.key, self.resource_quotas
        # DRA objects are registered by kruleset.lang.dra, never here.
        assert isinstance(obj, Namespace), type(obj).__name__
        return "namespace", obj.name, self.namespaces

    # --- lookups ------------------------------------------------------------

    def pod_exists(self, key: str) -> bool:
        """A declared or created pod, or a name a known deployment gives its pods."""
        if key in self.pods:
            return True
        ns, _, name = key.partition("/")
        m = _GENERATED.match(name)
        if m and f"{ns}/{m.group(1)}" in self.deployments:
            return True
        # StatefulSet, DaemonSet and Job pods are named NAME-<ordinal, node or number>.
        return any(w.namespace == ns and name.startswith(w.name + "-")
                   for w in self.workloads.values())

    def pod_names(self) -> list[str]:
        """Names to suggest for a misspelt pod."""
        names = list(self.pods)
        for d in self.deployments.values():
            names.extend(f"{d.key}-{i}" for i in range(1, max(d.replicas, 1) + 1))
        return names

    def need_node(self, name: str, item: Item) -> Node:
        """The node called ``name`` or a refusal naming the nearest one."""
        node = self.nodes.get(name)
        if node is None:
            raise self.src.unknown("node", name, item, self.nodes)
        return node

    def need_pod(self, key: str, item: Item) -> None:
        """Refuse a pod reference nothing declared or created so far could mean."""
        if not self.pod_exists(key):
            raise self.src.unknown("pod", key, item, self.pod_names())

    def need_container(self, ref: str, name: str, item: Item) -> None:
        """Refuse a container no pod matching ``ref`` (a key or a glob) has.

        Pods created later by files read at run time are not known here; with
        no known pod matching, the expectation is left to the run.
        """
        pods = [p for k, p in self.pods.items() if fnmatchcase(k, ref)]
        ns, _, name_part = ref.partition("/")
        for d in self.deployments.values():
            m = _GENERATED.match(name_part)
            if d.namespace == ns and (fnmatchcase(d.name, name_part) or
                                      (m is not None and m.group(1) == d.name)):
                pods.append(d.template)
        names = sorted({c.name for p in pods for c in (*p.containers, *p.init_containers)})
        if pods and name not in names:
            raise self.src.unknown("container", name, item, names)

    def need_class(self, name: str, item: Item) -> PriorityClass:
        """The priority class called ``name``."""
        pc = self.classes.get(name)
        if pc is None:
            raise self.src.unknown("priority class", name, item, self.classes)
        return pc


def _told_by_span(pods: list[Object], where: str) -> bool:
    """Whether ``where`` is ``line N`` with N the line of every pod's span."""
    span = pods[0].span  # type: ignore[union-attr]
    return (where == f"line {span.line}"
            and all(p.span is span for p in pods))  # type: ignore[union-attr]
