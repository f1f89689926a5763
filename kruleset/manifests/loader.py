"""Reading Kubernetes object files (``kubectl get -o yaml|json`` output, manifests).

A file is read whole, then converted in two passes: the first indexes what
one object's meaning depends on (RuntimeClass overheads, which ReplicaSets
belong to which Deployment, the newest pod start time), the second converts
every document in file order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import yaml

from ..errors import ManifestError, Span, did_you_mean
from ..model.objects import Deployment
from ..model.resources import Resources
from ..model.scenario import Object
from ._fields import Doc, integer, mapping, string, string_map, timestamp_ms
from .nodes import namespace_from, node_from
from .pods import PodContext, SpecFields, make_pod, pod_from_spec, spec_fields
from .policy import elastic_quota_from, pdb_from, priority_class_from, runtime_class_from

__all__ = ["SUPPORTED_KINDS", "LoadedManifests", "load_manifests", "load_objects",
           "read_documents"]

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# kind -> API groups accepted for it ("" is the core group).
SUPPORTED_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "Node": ("",),
    "Pod": ("",),
    "Namespace": ("",),
    "PriorityClass": ("scheduling.k8s.io",),
    "RuntimeClass": ("node.k8s.io",),
    "PodDisruptionBudget": ("policy",),
    "ElasticQuota": ("scheduling.x-k8s.io", "scheduling.sigs.k8s.io"),
    "Deployment": ("apps",),
    "ReplicaSet": ("apps",),
})
_CLUSTER_SCOPED = frozenset({"Node", "Namespace", "PriorityClass", "RuntimeClass"})
_TERMINAL_PHASES = ("Succeeded", "Failed")


@attrs.frozen(slots=True)
class LoadedManifests:
    """Everything read from one file.

    ``objects`` are in file order.  ``pod_phases`` maps ``namespace/name`` of
    every Pod that states ``status.phase`` to that phase, so a caller can
    tell terminated pods (``Succeeded``/``Failed``) from running ones: the
    model has no phase, and those pods are returned like the others.
    ``notes`` says in words what was represented differently from the file
    (folded ReplicaSets, terminated pods), for ``--explain`` style output.
    """

    objects: tuple[Object, ...]
    pod_phases: Mapping[str, str] = attrs.field(factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def terminated(self) -> tuple[str, ...]:
        """Keys of pods whose phase is Succeeded or Failed, in file order."""
        return tuple(k for k, v in self.pod_phases.items() if v in _TERMINAL_PHASES)


@attrs.frozen(slots=True)
class _Entry:
    doc: Doc
    obj: dict[str, Any]
    kind: str
    namespace: str
    name: str


def _file_label(path: Path) -> str:
    return str(path)


def read_documents(path: Path, span: Span | None = None) -> Iterator[tuple[Doc, object]]:
    """Yield ``(Doc, value)`` for every document of ``path``, expanding ``kind: List``.

    ``.json`` files are read with the json module; anything else as YAML
    (multi-document).  Empty YAML documents are skipped but still counted,
    so document numbers match what a reader counts between ``---`` lines.
    """
    file = _file_label(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ManifestError("no such file", file=file, span=span) from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"not UTF-8 text ({e.reason} at byte {e.start})",
                            file=file, span=span) from None
    except OSError as e:
        raise ManifestError(f"cannot read the file: {e.strerror}", file=file, span=span) from None
    if path.suffix.lower() == ".json":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise ManifestError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}",
                                file=file, document=1, span=span) from None
        yield from _expand(Doc(file, 1, "", span), value)
        return
    number = 0
    docs = yaml.load_all(text, Loader=_LOADER)
    while True:
        try:
            value = next(docs)
        except StopIteration:
            return
        except yaml.YAMLError as e:
            raise ManifestError(_yaml_message(e), file=file, document=number + 1,
                                span=span) from None
        number += 1
        if value is None:
            continue
        yield from _expand(Doc(file, number, "", span), value)


def _yaml_message(e: yaml.YAMLError) -> str:
    if isinstance(e, yaml.MarkedYAMLError) and e.problem_mark is not None:
        mark = e.problem_mark
        what = e.problem or e.context or "syntax error"
        return f"not valid YAML: {what} at line {mark.line + 1}, column {mark.column + 1}"
    return f"not valid YAML: {e}"


def _expand(doc: Doc, value: object) -> Iterator[tuple[Doc, object]]:
    if isinstance(value, dict) and isinstance(value.get("kind"), str) and \
            value["kind"].endswith("List") and "items" in value:
        # kubectl writes kind: List; the API itself answers PodList, NodeList, …
        items = value.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            doc.fail("items", "expected a list of objects")
        for i, item in enumerate(items):
            yield Doc(doc.file, doc.document, f"items[{i}].", doc.span), item
        return
    yield doc, value


def _entry(doc: Doc, value: object) -> _Entry:
    """Check kind, apiVersion and metadata of one object."""
    if not isinstance(value, dict):
        doc.fail("", "expected a Kubernetes object (a mapping with apiVersion and kind)")
    kind = value.get("kind")
    if kind is None:
        doc.fail("kind", "the object has no kind")
    if not isinstance(kind, str) or kind not in SUPPORTED_KINDS:
        doc.fail("kind", f"kind {kind!r} is not simulated by kruleset; supported kinds: "
                         f"{', '.join(SUPPORTED_KINDS)}",
                 did_you_mean(str(kind), SUPPORTED_KINDS))
    api_version = value.get("apiVersion")
    if api_version is not None:
        api_version = string(doc, api_version, "apiVersion")
        group, _, version = api_version.rpartition("/")
        groups = SUPPORTED_KINDS[kind]
        if group not in groups:
            accepted = " or ".join(f"{g}/…" if g else "v1" for g in groups)
            doc.fail("apiVersion", f"{kind} is read from apiVersion {accepted}, "
                                   f"not {api_version}")
        if kind == "PodDisruptionBudget" and version != "v1":
            doc.fail("apiVersion", f"PodDisruptionBudget is read from policy/v1 only "
                                   f"(policy/{version} selects pods differently)")
    meta = mapping(doc, value.get("metadata"), "metadata")
    name = string(doc, meta.get("name"), "metadata.name")
    if not name:
        doc.fail("metadata.name", f"the {kind} has no name",
                 "generateName is not supported: give the object a name")
    namespace = ""
    if kind not in _CLUSTER_SCOPED:
        namespace = string(doc, meta.get("namespace"), "metadata.namespace") or "default"
    return _Entry(doc, value, kind, namespace, name)


def _controller(doc: Doc, meta: Mapping[str, Any]) -> tuple[str, str]:
    """``(kind, name)`` of the controlling owner reference, or ``("", "")``."""
    refs = meta.get("ownerReferences")
    if not refs:
        return "", ""
    if not isinstance(refs, list):
        doc.fail("metadata.ownerReferences", "expected a list")
    for i, ref in enumerate(refs):
        if isinstance(ref, dict) and ref.get("controller") is True:
            return (string(doc, ref.get("kind"), f"metadata.ownerReferences[{i}].kind"),
                    string(doc, ref.get("name"), f"metadata.ownerReferences[{i}].name"))
    return "", ""


class _Index:
    """What the second pass needs to know about the whole file."""

    def __init__(self) -> None:
        self.runtime_overheads: dict[str, Resources] = {}
        self.runtime_classes: dict[int, Object] = {}
        self.deployments: set[tuple[str, str]] = set()
        self.rs_controller: dict[tuple[str, str], str] = {}  # (ns, rs) -> its Deployment's name
        self.rs_owner: dict[tuple[str, str], str] = {}  # the same, for Deployments in the load
        self.start_times: dict[int, int] = {}
        self.spec_memo: dict[tuple[str, str, str], SpecFields] = {}
        self.newest: int | None = None


def _index(entries: list[_Entry]) -> _Index:
    idx = _Index()
    for n, e in enumerate(entries):
        try:
            _index_one(idx, n, e)
        except ManifestError:
            raise
        except Exception as err:
            raise _internal(e.doc, err) from err
    # A ReplicaSet may come before its Deployment, so resolve after the pass.
    idx.rs_owner = {k: d for k, d in idx.rs_controller.items()
                    if (k[0], d) in idx.deployments}
    return idx


def _index_one(idx: _Index, n: int, e: _Entry) -> None:
    kind = e.kind
    if kind == "Pod":
        status = e.obj.get("status")
        if isinstance(status, dict) and status.get("startTime") is not None:
            t = timestamp_ms(e.doc, status["startTime"], "status.startTime")
            if t is not None:
                idx.start_times[n] = t
                if idx.newest is None or t > idx.newest:
                    idx.newest = t
    elif kind == "Deployment":
        idx.deployments.add((e.namespace, e.name))
    elif kind == "ReplicaSet":
        owner_kind, owner = _controller(e.doc, mapping(e.doc, e.obj.get("metadata"), "metadata"))
        idx.rs_controller[(e.namespace, e.name)] = owner if owner_kind == "Deployment" else ""
    elif kind == "RuntimeClass":
        rc = runtime_class_from(e.doc, e.obj, e.name)
        idx.runtime_overheads[e.name] = rc.overhead
        idx.runtime_classes[n] = rc


def _pod_owner(idx: _Index, e: _Entry, kind: str, name: str,
               labels: Mapping[str, str]) -> tuple[str, str]:
    """The owner a pod is represented with: its Deployment when that is in the load."""
    if kind != "ReplicaSet":
        return kind, name
    key = (e.namespace, name)
    owner = idx.rs_owner.get(key)
    if owner is not None:
        return kind, owner
    if key not in idx.rs_controller:
        # The ReplicaSet itself was not dumped (kubectl get deploy,pods): the
        # deployment controller names it <deployment>-<pod-template-hash>, and
        # the hash is on the pod, so the deployment is known without guessing.
        h = labels.get("pod-template-hash")
        if h and name.endswith("-" + h) and (e.namespace, name[: -len(h) - 1]) in idx.deployments:
            return kind, name[: -len(h) - 1]
    return kind, name


def _ready(status: Mapping[str, Any]) -> bool:
    for c in status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            return c.get("status") == "True"
    return True


def _convert(e: _Entry, n: int, idx: _Index, ctx: PodContext,
             phases: dict[str, str], notes: list[str]) -> Object | None:
    doc, obj, kind = e.doc, e.obj, e.kind
    if kind == "Pod":
        meta = mapping(doc, obj.get("metadata"), "metadata")
        labels = string_map(doc, meta.get("labels"), "metadata.labels")
        annotations = string_map(doc, meta.get("annotations"), "metadata.annotations")
        status = mapping(doc, obj.get("status"), "status")
        phase = string(doc, status.get("phase"), "status.phase")
        key = f"{e.namespace}/{e.name}"
        if phase:
            phases[key] = phase
            if phase in _TERMINAL_PHASES:
                notes.append(f"pod {key} is {phase}: returned as declared, see pod_phases")
        ctrl_kind, ctrl_name = _controller(doc, meta)
        owner_kind, owner_name = _pod_owner(idx, e, ctrl_kind, ctrl_name, labels)
        started = idx.start_times.get(n)
        if started is not None and idx.newest is not None:
            started -= idx.newest
        spec_raw = obj.get("spec")
        spec = None
        memo_key = None
        if ctrl_kind and type(spec_raw) is dict:
            # Pods of one controller share their spec but for nodeName: compare
            # with the last one read (a C-level dict compare) and reuse it.
            memo_key = (e.namespace, ctrl_kind, ctrl_name)
            spec = idx.spec_memo.get(memo_key)
            if spec is not None:
                if "nodeName" in spec_raw:
                    node = spec_raw.pop("nodeName")
                    same = spec_raw == spec.raw
                    spec_raw["nodeName"] = node
                else:
                    same = spec_raw == spec.raw
                if not same:
                    spec = None
        if spec is None:
            spec = spec_fields(doc, ctx, spec_raw, "spec")
            if memo_key is not None:
                idx.spec_memo[memo_key] = spec
        node_name = ""
        if type(spec_raw) is dict:
            node_name = string(doc, spec_raw.get("nodeName"), "spec.nodeName")
        return make_pod(doc, spec, namespace=e.namespace, name=e.name, labels=labels,
                        node_name=node_name, annotations=annotations,
                        owner_kind=owner_kind, owner_name=owner_name, started=started,
                        ready=_ready(status) if status else True)
    if kind == "Node":
        meta = mapping(doc, obj.get("metadata"), "metadata")
        return node_from(doc, obj, e.name, string_map(doc, meta.get("labels"), "metadata.labels"))
    if kind in ("Deployment", "ReplicaSet"):
        if kind == "ReplicaSet":
            owner = idx.rs_owner.get((e.namespace, e.name))
            if owner is not None:
                notes.append(f"replicaset {e.namespace}/{e.name} is part of deployment "
                             f"{e.namespace}/{owner}")
                return None
        return _workload(e, ctx)
    if kind == "Namespace":
        return namespace_from(doc, obj, e.name)
    if kind == "PriorityClass":
        return priority_class_from(doc, obj, e.name)
    if kind == "RuntimeClass":
        return idx.runtime_classes[n]
    if kind == "PodDisruptionBudget":
        return pdb_from(doc, obj, e.namespace, e.name)
    if kind == "ElasticQuota":
        return elastic_quota_from(doc, obj, e.namespace, e.name)
    raise AssertionError(kind)  # _entry admits only SUPPORTED_KINDS


def _workload(e: _Entry, ctx: PodContext) -> Deployment:
    doc = e.doc
    spec = mapping(doc, e.obj.get("spec"), "spec")
    replicas = integer(doc, spec.get("replicas"), "spec.replicas", 1, 0)
    template = mapping(doc, spec.get("template"), "spec.template")
    if not template:
        doc.fail("spec.template", f"a {e.kind} needs a pod template")
    tmeta = mapping(doc, template.get("metadata"), "spec.template.metadata")
    pod = pod_from_spec(
        doc, ctx, template.get("spec"), "spec.template.spec", namespace=e.namespace,
        name=e.name,
        labels=string_map(doc, tmeta.get("labels"), "spec.template.metadata.labels"),
        annotations=string_map(doc, tmeta.get("annotations"),
                               "spec.template.metadata.annotations"),
        owner_kind="ReplicaSet", owner_name=e.name,
    )
    return Deployment(e.namespace, e.name, replicas or 0, pod, span=pod.span)


def _internal(doc: Doc, err: Exception) -> ManifestError:
    return doc.error("", f"internal error while reading this object "
                         f"({type(err).__name__}: {err}); this is a bug in kruleset, "
                         "please report it with the file")


def load_manifests(path: Path, span: Span | None = None) -> LoadedManifests:
    """Read every object of ``path`` into the model, with pod phases and notes.

    See :func:`load_objects` for what is read and how.
    """
    path = Path(path)
    entries: list[_Entry] = []
    for doc, value in read_documents(path, span):
        try:
            entries.append(_entry(doc, value))
        except ManifestError:
            raise
        except Exception as err:  # a bug must still name the document
            raise _internal(doc, err) from err
    idx = _index(entries)  # raises ManifestError naming the document
    ctx = PodContext(idx.runtime_overheads)
    objects: list[Object] = []
    phases: dict[str, str] = {}
    notes: list[str] = []
    for n, e in enumerate(entries):
        try:
            obj = _convert(e, n, idx, ctx, phases, notes)
        except ManifestError:
            raise
        except Exception as err:
            raise _internal(e.doc, err) from err
        if obj is not None:
            objects.append(obj)
    return LoadedManifests(tuple(objects), phases, tuple(notes))


def load_objects(path: Path, span: Span | None = None) -> list[Object]:
    """Read the Kubernetes objects of a YAML or JSON file into kruleset's model.

    Accepts multi-document YAML, ``kind: List`` (``kubectl get … -o yaml``)
    and ``.json`` files (``kubectl get … -o json``), with kinds Node, Pod,
    Namespace, PriorityClass, RuntimeClass, PodDisruptionBudget (policy/v1),
    ElasticQuota (scheduling.x-k8s.io or scheduling.sigs.k8s.io), Deployment
    and ReplicaSet.  Objects come back in file order.  Any other kind is
    refused, as is a used field with a bad value (:class:`ManifestError`
    naming file, 1-based document and field path); unused fields are ignored.
    ``span`` (the including statement) is attached to errors and objects.

    Representation choices:

    * A Pod keeps ``spec.nodeName`` as ``node_name``, so a Running pod is
      placed on its node.  Pods with phase Succeeded or Failed are returned
      too (nothing is dropped silently); :func:`load_manifests` reports their
      phase in ``pod_phases`` so the caller can keep them off their nodes.
    * ``status.startTime`` becomes ``started`` in milliseconds relative to the
      newest startTime in the same file (that pod gets 0, older pods negative
      values), so ordering by start time survives.
    * Deployment and ReplicaSet become :class:`Deployment` whose template is a
      Pod named after the workload with ``owner_kind="ReplicaSet"`` and
      ``owner_name=<workload>``.  A ReplicaSet controlled by a Deployment of
      the same file is folded into it (no object of its own).  Existing pods
      of such a deployment (owned by one of its ReplicaSets, whether that
      ReplicaSet is in the file or only named by the pod's
      ``pod-template-hash``) get ``owner_kind="ReplicaSet"`` and
      ``owner_name=<deployment>``: the deployment controller counts them
      toward its replicas instead of creating more.  Pods of a ReplicaSet
      without such a Deployment keep the ReplicaSet's name, which is then
      also the name of the Deployment the ReplicaSet became.
    * A null ``labelSelector`` (pod affinity terms, topology spread) and a
      PodDisruptionBudget without ``selector`` select nothing, as upstream;
      they carry a selector that never matches.
    * A RuntimeClass's ``overhead.podFixed`` is copied into pods naming it
      that have no ``spec.overhead`` (what the RuntimeClass admission
      plugin does), when the RuntimeClass is in the same file.
    """
    return list(load_manifests(path, span).objects)
