"""Reading Kubernetes object files (``kubectl get -o yaml|json`` output, manifests).

A file is read whole, then converted in two passes: the first indexes what
one object's meaning depends on (RuntimeClass overheads, which ReplicaSets
belong to which Deployment, the newest pod start time), the second converts
every document in file order.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

import attrs
import yaml

from ..errors import ManifestError, ScenarioError, Span, combined, did_you_mean
from ..model.objects import MAX_REPLICAS, Deployment, Pod, Workload
from ..model.resources import Resources
from ..model.scenario import Object
from ._fields import Doc, choice, integer, mapping, string, string_map, timestamp_ms
from ._jsonitems import ItemDecoder
from .dra import DRA_KINDS, DRA_VERSIONS, dra_object
from .kinds import (
    DNS_LABEL,
    DNS_SUBDOMAIN,
    IGNORED_KINDS,
    check_name,
    check_priority_class,
    ignored_summary,
    is_custom_resource,
    limit_range_from,
    resource_quota_from,
)
from .known_fields import OBJECT_META, OBJECTS, POD_SPEC, POD_STATUS
from .nodes import namespace_from, node_from
from .pods import (
    PodContext,
    SpecFields,
    build_spec_pod,
    is_static,
    make_pod,
    spec_fields,
)
from .policy import elastic_quota_from, pdb_from, priority_class_from, runtime_class_from
from .schema import ANY, MAX_ERRORS, notice, vet

__all__ = ["SUPPORTED_KINDS", "LoadedManifests", "load_manifests", "load_objects",
           "read_documents"]

_MERGE = "tag:yaml.org,2002:merge"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader, refusing a key given twice in one mapping (YAML keeps the last)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        keys = [k.value for k, _ in node.value
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE]
        if len(keys) != len(set(keys)):
            seen: set[str] = set()
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE:
                    if k.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {k.value!r} is given twice", k.start_mark)
                    seen.add(k.value)
        return super().construct_mapping(node, deep)


_LOADER: Any = _Loader

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
    "ReplicationController": ("",),
    "StatefulSet": ("apps",),
    "DaemonSet": ("apps",),
    "Job": ("batch",),
    "CronJob": ("batch",),
    "LimitRange": ("",),
    "ResourceQuota": ("",),
    **dict.fromkeys(DRA_KINDS, ("resource.k8s.io",)),
})
# Versions read per kind (default v1): older versions the v1.35 API server no longer serves.
_VERSIONS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "ElasticQuota": ("v1alpha1",),
})
_CLUSTER_SCOPED = frozenset({"Node", "Namespace", "PriorityClass", "RuntimeClass",
                             "DeviceClass", "ResourceSlice"})
_WORKLOADS = frozenset({"Deployment", "ReplicaSet", "ReplicationController", "StatefulSet",
                        "DaemonSet", "Job"})
_POD_NAME = DNS_SUBDOMAIN.match  # names of 254+ characters fail the full check in _entry
_NAMESPACE = DNS_LABEL.match
_POD_KEYS = frozenset(OBJECTS["Pod"])
_META_KEYS = frozenset(OBJECT_META)
_POD_STATUS_KEYS = frozenset(POD_STATUS)
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
    ``warnings`` are flaws read past (a stale apiVersion, a misplaced name).
    """

    objects: tuple[Object, ...]
    pod_phases: Mapping[str, str] = attrs.field(factory=dict)
    notes: tuple[str, ...] = ()
    # Pod state the scheduler acts on: pending pods' status.nominatedNodeName
    # (key -> node), terminating pods' time left before they are gone (key ->
    # ms, from metadata.deletionTimestamp and deletionGracePeriodSeconds,
    # relative to the newest time in the file), and nodes whose Ready
    # condition is not True.
    nominated: Mapping[str, str] = attrs.field(factory=dict)
    terminating: Mapping[str, int] = attrs.field(factory=dict)
    not_ready: tuple[str, ...] = ()

    @property
    def terminated(self) -> tuple[str, ...]:
        """Keys of pods whose phase is Succeeded or Failed, in file order."""
        return tuple(k for k, v in self.pod_phases.items() if v in _TERMINAL_PHASES)


class _Entry(NamedTuple):
    doc: Doc
    obj: dict[str, Any]
    kind: str
    namespace: str
    name: str
    meta: dict[str, Any]


def _file_label(path: Path) -> str:
    return str(path)


def read_documents(path: Path, span: Span | None = None) -> Iterator[tuple[Doc, object]]:
    """Yield ``(Doc, value)`` for every document of ``path``, expanding ``kind: List``.

    ``.json`` files are read with the json module, the items of a List one at
    a time (a caller that drops each item after use never holds the whole
    decoded file); anything else as YAML (multi-document).  Empty YAML
    documents are skipped but still counted, so document numbers match what
    a reader counts between ``---`` lines.
    """
    return _documents(path, span, None)


def _documents(path: Path, span: Span | None,
               items: ItemDecoder | None) -> Iterator[tuple[Doc, object]]:
    """:func:`read_documents`; with ``items``, List items of a JSON file are read by it.

    Values read by an :class:`ItemDecoder` may share nested parts of their
    ``spec`` with other items: only a caller that never changes them may ask.
    """
    file = _file_label(path)
    try:
        text = _read_text(path)
    except FileNotFoundError:
        raise ManifestError("no such file", file=file, span=span) from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"not UTF-8 text ({e.reason} at byte {e.start})",
                            file=file, span=span) from None
    except OSError as e:
        raise ManifestError(f"cannot read the file: {e.strerror}", file=file, span=span) from None
    if path.suffix.lower() == ".json":
        try:
            yield from _json_documents(Doc(file, 1, "", span), text, items)
        except json.JSONDecodeError as e:
            raise ManifestError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}",
                                file=file, document=1, span=span) from None
        except RecursionError:
            raise ManifestError("the JSON is nested too deeply to read", file=file,
                                document=1, span=span) from None
        except ValueError:  # an integer of more than 4,300 digits
            raise ManifestError("a number has more than 4,300 digits: no quantity is that "
                                "large", file=file, document=1, span=span) from None
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
        except (ValueError, TypeError, RecursionError) as e:  # a huge integer, an odd key
            raise ManifestError(f"not valid YAML: {e}", file=file, document=number + 1,
                                span=span) from None
        number += 1
        if value is None:
            continue
        yield from _expand(Doc(file, number, "", span), value)


def _read_text(path: Path) -> str:
    """The file's text, without a leading byte order mark (YAML and JSON alike).

    Read whole, not mapped into memory: a file truncated while it is read
    must give a short text (and a syntax error), not a bus error.
    """
    with open(path, encoding="utf-8-sig") as f:
        return f.read()


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _json_documents(doc: Doc, text: str,
                    items: ItemDecoder | None = None) -> Iterator[tuple[Doc, object]]:
    """The objects of a JSON text; a top-level ``items`` array is decoded item by item.

    An item ``items`` does not recognise (or without ``items``) is decoded by
    the json module, which also reports malformed text.
    """
    decode = _DECODER.raw_decode
    fast = items.item if items is not None else None
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("{", pos):
        value, end = decode(text, pos)
        _json_end(text, end)
        yield from _expand(doc, value)
        return
    top: dict[str, Any] = {}
    streamed = False
    pos += 1
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith("}", pos):
            pos += 1
            break
        key, pos = decode(text, pos)
        if not isinstance(key, str):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes",
                                       text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        if key == "items" and text.startswith("[", pos) and not streamed:
            streamed = True
            index = 0
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            if text.startswith("]", pos):
                pos += 1
            else:
                while True:
                    read = fast(text, pos) if fast is not None else None
                    if read is None:
                        item, pos = decode(text, pos)
                    else:
                        item, pos = read
                    yield Doc(doc.file, doc.document, f"items[{index}].", doc.span), item
                    index += 1
                    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
                    if text.startswith(",", pos):
                        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                        continue
                    if text.startswith("]", pos):
                        pos += 1
                        break
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        else:
            top[key], pos = decode(text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos += 1
        elif not text.startswith("}", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
    _json_end(text, pos)
    if streamed:
        kind = top.get("kind")
        if not (isinstance(kind, str) and kind.endswith("List")):
            doc.fail("kind", f"an object with items must be a List, found kind {kind!r}")
        return
    yield from _expand(doc, top)


def _json_end(text: str, pos: int) -> None:
    end = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)


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


def _entry(doc: Doc, value: object) -> _Entry | str:
    """Check kind, apiVersion and metadata of one object; a kind that plays no part: its name."""
    if not isinstance(value, dict):
        doc.fail("", "expected a Kubernetes object (a mapping with apiVersion and kind)")
    kind = value.get("kind")
    if kind is None:
        doc.fail("kind", "the object has no kind")
    if not isinstance(kind, str) or kind not in SUPPORTED_KINDS:
        if isinstance(kind, str) and (kind in IGNORED_KINDS or
                                      is_custom_resource(value.get("apiVersion"))):
            return kind
        near = did_you_mean(str(kind), (*SUPPORTED_KINDS, *IGNORED_KINDS))
        doc.fail("kind", f"kind {kind!r} is not read by kruleset; kinds read: "
                         f"{', '.join(SUPPORTED_KINDS)}; kinds accepted and ignored: Service, "
                         "ConfigMap, Secret, Event, … and custom resources", near)
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
        if kind in DRA_KINDS and version not in DRA_VERSIONS:
            doc.fail("apiVersion", f"{kind} is read from resource.k8s.io/"
                                   f"{', '.join(DRA_VERSIONS)}, not {api_version}")
        elif kind not in DRA_KINDS and version not in _VERSIONS.get(kind, ("v1",)):
            doc.fail("apiVersion", f"{api_version} is not a version of {kind} kruleset reads; "
                                   f"supported: " + ", ".join(
                                       f"{groups[0]}/{v}" if groups[0] else v
                                       for v in _VERSIONS.get(kind, ("v1",))))
    meta = mapping(doc, value.get("metadata"), "metadata")
    name = string(doc, meta.get("name"), "metadata.name")
    if not name:
        doc.fail("metadata.name", f"the {kind} has no name",
                 "generateName is not supported: give the object a name")
    check_name(doc, kind, name)
    namespace = ""
    if kind not in _CLUSTER_SCOPED:
        namespace = string(doc, meta.get("namespace"), "metadata.namespace") or "default"
        check_name(doc, "Namespace", namespace, "metadata.namespace")
    return _Entry(doc, value, kind, namespace, name, meta)


class _PendingPod(NamedTuple):
    """A Pod not built yet: its overhead is that of a RuntimeClass, maybe later in the file."""

    doc: Doc
    spec: SpecFields
    namespace: str
    name: str
    labels: dict[str, str]
    node_name: str
    static: bool
    controller: tuple[str, str]
    start: int | None
    ready: bool


class _PendingWorkload(NamedTuple):
    """A Deployment or ReplicaSet read but not built yet (it may be folded, or need overheads)."""

    doc: Doc
    kind: str
    namespace: str
    name: str
    replicas: int
    spec: SpecFields
    labels: dict[str, str]
    annotations: dict[str, str]
    completions: int | None = None  # a Job's
    ordered: bool = True            # a StatefulSet's podManagementPolicy OrderedReady


_Record = Object | _PendingPod | _PendingWorkload


class _Reader:
    """One pass over the documents, then :meth:`finish` once everything is known.

    Each document is converted as soon as it is decoded, so the decoded file
    never has to be held whole; what depends on later documents (which
    Deployment a ReplicaSet belongs to, the newest start time, RuntimeClass
    overheads) is settled in :meth:`finish`.
    """

    def __init__(self, items: ItemDecoder | None = None) -> None:
        # The decoder of the JSON items read: which remembered spec text the
        # current pod's spec is (its SpecFields are kept on it).
        self.items = items
        self.records: list[_Record] = []
        self.runtime_overheads: dict[str, Resources] = {}
        self.deployments: set[tuple[str, str]] = set()
        self.rs_controller: dict[tuple[str, str], str] = {}  # (ns, rs) -> its Deployment
        self.spec_memo: dict[tuple[str, str, str], SpecFields] = {}
        self.newest: int | None = None
        self.started: list[Pod] = []  # pods built with their absolute start time
        self.rs_pods: list[Pod] = []  # pods built with their ReplicaSet as owner
        self.pending = False  # records hold a _PendingPod or _PendingWorkload
        self.phases: dict[str, str] = {}
        self.notes: list[str] = []
        self.warnings: dict[str, int] = {}  # warning -> how many objects it concerns
        self.ignored: dict[str, int] = {}   # kind -> objects accepted but not read
        self.cronjobs: list[str] = []
        self.nominated: dict[str, str] = {}
        self.deleting: dict[str, tuple[int, int | None]] = {}  # key -> (deletion ms, grace s)
        self.not_ready: list[str] = []

    def add(self, e: _Entry | str) -> None:
        """Read one object (a kind's name: an object of a kind that plays no part)."""
        if type(e) is str:
            self.ignored[e] = self.ignored.get(e, 0) + 1
            return
        assert isinstance(e, _Entry)
        doc, obj, kind = e.doc, e.obj, e.kind
        # DRA kinds have no schema here: manifests.dra reads them field by field.
        vet(doc, obj, OBJECTS.get(kind, ANY), "", self.warnings)
        if kind == "Pod":
            self._pod(doc, obj, e.namespace, e.name, e.meta, checked=True)
        elif kind == "Node":
            meta = mapping(doc, obj.get("metadata"), "metadata")
            self.records.append(node_from(doc, obj, e.name, string_map(
                doc, meta.get("labels"), "metadata.labels")))
            if not _node_ready(obj):
                self.not_ready.append(e.name)
        elif kind in _WORKLOADS:
            self.records.append(self._workload(e))
        elif kind == "CronJob":
            self.cronjobs.append(f"{e.namespace}/{e.name}")
        elif kind == "LimitRange":
            self.records.append(limit_range_from(doc, obj, e.namespace, e.name))
        elif kind == "ResourceQuota":
            self.records.append(resource_quota_from(doc, obj, e.namespace, e.name))
        elif kind == "Namespace":
            self.records.append(namespace_from(doc, obj, e.name))
        elif kind == "PriorityClass":
            pc = priority_class_from(doc, obj, e.name)
            check_priority_class(doc, pc)
            self.records.append(pc)
        elif kind == "RuntimeClass":
            rc = runtime_class_from(doc, obj, e.name)
            self.runtime_overheads[e.name] = rc.overhead
            self.records.append(rc)
        elif kind == "PodDisruptionBudget":
            self.records.append(pdb_from(doc, obj, e.namespace, e.name))
        elif kind == "ElasticQuota":
            self.records.append(elastic_quota_from(doc, obj, e.namespace, e.name))
        elif kind in DRA_KINDS:
            version = str(obj.get("apiVersion") or "resource.k8s.io/v1").rpartition("/")[2]
            self.records.append(dra_object(doc, obj, kind, version, e.namespace, e.name))
        else:  # pragma: no cover - _entry admits only SUPPORTED_KINDS
            raise AssertionError(kind)

    def pod(self, doc: Doc, obj: dict[str, Any]) -> bool:
        """Read a Pod object; False (nothing read) when :func:`_entry` has to check it.

        Nearly every object of a cluster dump is a pod with apiVersion v1 and
        a name: that case skips the general checks, which could only pass.
        """
        api_version = obj.get("apiVersion")
        meta = obj.get("metadata")
        if (api_version != "v1" and api_version is not None) or type(meta) is not dict:
            return False
        name = meta.get("name")
        namespace = meta.get("namespace")
        if type(name) is not str or not name or \
                (namespace is not None and type(namespace) is not str):
            return False
        if not _POD_NAME(name) or (namespace is not None and not _NAMESPACE(namespace)):
            return False  # _entry says what is wrong with it
        self._pod(doc, obj, namespace or "default", name, meta)
        return True

    def _pod(self, doc: Doc, obj: dict[str, Any], namespace: str, name: str,
             meta: dict[str, Any], checked: bool = False) -> None:
        if not checked:
            # Every field known (set operations on the key views, in C): nothing to vet,
            # but for the spec, vetted when it is read below (specs repeat).
            status = obj.get("status")
            if not (obj.keys() <= _POD_KEYS and meta.keys() <= _META_KEYS and
                    (type(status) is not dict or status.keys() <= _POD_STATUS_KEYS)):
                vet(doc, {k: v for k, v in obj.items() if k != "spec"}, OBJECTS["Pod"], "",
                    self.warnings)
        # The checks are those of string_map, _used_annotations and mapping,
        # made inline for well-formed values (which they would return as is);
        # anything else goes through them for their message.
        labels = meta.get("labels")
        if type(labels) is dict:
            for key, value in labels.items():
                if type(value) is not str or type(key) is not str:
                    string_map(doc, labels, "metadata.labels")
        else:
            labels = string_map(doc, labels, "metadata.labels")
        annotations = meta.get("annotations")
        static = False
        if annotations:
            static = is_static(_used_annotations(doc, annotations))
        elif annotations is not None:
            mapping(doc, annotations, "metadata.annotations")
        status = obj.get("status")
        if type(status) is not dict:
            status = mapping(doc, status, "status")
        phase = status.get("phase")
        if phase is not None:
            if type(phase) is not str:
                phase = string(doc, phase, "status.phase")
            if phase:
                key = f"{namespace}/{name}"
                self.phases[key] = phase
                if phase in _TERMINAL_PHASES:
                    self.notes.append(f"pod {key} is {phase}: returned as declared, "
                                      "see pod_phases")
        start = status.get("startTime")
        if start is not None:
            start = timestamp_ms(doc, start, "status.startTime")
            if self.newest is None or start > self.newest:  # type: ignore[operator]
                self.newest = start
        controller = _controller(doc, meta)
        if controller[0] == "ReplicationController":
            # Simulated as a ReplicaSet is (the deployment controller keeps its replicas).
            controller = ("ReplicaSet", controller[1])
        spec_raw = obj.get("spec")
        spec = None
        memo_key = None
        seen = self.items.spec_seen if self.items is not None else None
        if seen is not None:
            # The same spec text as earlier pods (but for nodeName, which
            # spec_fields does not read): the same SpecFields, no compare.
            note = seen.note
            if type(note) is SpecFields:
                spec = note
        elif controller[0] and type(spec_raw) is dict:
            # Pods of one controller share their spec but for nodeName: compare
            # with the last one read (a C-level dict compare) and reuse it.
            memo_key = (namespace, *controller)
            spec = self.spec_memo.get(memo_key)
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
            if not checked:
                vet(doc, spec_raw, POD_SPEC, "spec", self.warnings)
            spec = spec_fields(doc, spec_raw, "spec")
            if memo_key is not None:
                self.spec_memo[memo_key] = spec
            if seen is not None:
                seen.note = spec
        node_name = ""
        if type(spec_raw) is dict:
            given = spec_raw.get("nodeName")
            node_name = given if type(given) is str else string(doc, given, "spec.nodeName")
        ready = True
        if status:
            for c in status.get("conditions") or ():
                if isinstance(c, dict) and c.get("type") == "Ready":
                    ready = c.get("status") == "True"
                    break
            nominated = status.get("nominatedNodeName")
            if nominated and not node_name:
                self.nominated[f"{namespace}/{name}"] = string(doc, nominated,
                                                               "status.nominatedNodeName")
        deletion = meta.get("deletionTimestamp")
        if deletion is not None:
            self.deleting[f"{namespace}/{name}"] = (
                timestamp_ms(doc, deletion, "metadata.deletionTimestamp") or 0,
                integer(doc, meta.get("deletionGracePeriodSeconds"),
                        "metadata.deletionGracePeriodSeconds", None, 0))
        if spec.runtime_overhead:
            # Its overhead is that of a RuntimeClass, which may come later in the file.
            self.records.append(_PendingPod(doc, spec, namespace, name, labels, node_name,
                                            static, controller, start, ready))
            self.pending = True
            return
        # Built now, so that no copy of what it is made of waits for the end of
        # the file; its start time and owner, which depend on the rest of the
        # file, are settled by finish() before anyone else sees it.
        pod = build_spec_pod(doc, spec, static, namespace, name, labels, node_name,
                             controller[0], controller[1], start, ready)
        self.records.append(pod)
        if start is not None:
            self.started.append(pod)
        if controller[0] == "ReplicaSet":
            self.rs_pods.append(pod)

    def _workload(self, e: _Entry) -> _PendingWorkload:
        self.pending = True
        doc, kind = e.doc, e.kind
        spec = mapping(doc, e.obj.get("spec"), "spec")
        completions = None
        ordered = True
        if kind == "Job":
            parallelism = integer(doc, spec.get("parallelism"), "spec.parallelism", None, 0,
                                  MAX_REPLICAS)
            completions = integer(doc, spec.get("completions"), "spec.completions", None, 0,
                                  MAX_REPLICAS)
            if parallelism is None:
                parallelism = 1
                if completions is None:
                    completions = 1  # neither set: one pod, one completion
            replicas = parallelism
        elif kind == "DaemonSet":
            replicas = 0  # one pod per eligible node
        else:
            replicas = integer(doc, spec.get("replicas"), "spec.replicas", 1, 0,
                               MAX_REPLICAS) or 0
        if kind == "StatefulSet":
            ordered = choice(doc, spec.get("podManagementPolicy"), "spec.podManagementPolicy",
                             ("OrderedReady", "Parallel"), "OrderedReady") == "OrderedReady"
        template = mapping(doc, spec.get("template"), "spec.template")
        if not template:
            doc.fail("spec.template", f"a {kind} needs a pod template")
        tmeta = mapping(doc, template.get("metadata"), "spec.template.metadata")
        if kind == "Deployment":
            self.deployments.add((e.namespace, e.name))
        elif kind in ("ReplicaSet", "ReplicationController"):
            owner_kind, owner = _controller(doc, mapping(doc, e.obj.get("metadata"), "metadata"))
            self.rs_controller[(e.namespace, e.name)] = \
                owner if owner_kind == "Deployment" else ""
        return _PendingWorkload(
            doc, kind, e.namespace, e.name, replicas,
            spec_fields(doc, template.get("spec"), "spec.template.spec"),
            string_map(doc, tmeta.get("labels"), "spec.template.metadata.labels"),
            string_map(doc, tmeta.get("annotations"), "spec.template.metadata.annotations"),
            completions, ordered,
        )

    def _owner(self, namespace: str, kind: str, name: str, labels: Mapping[str, str],
               rs_owner: Mapping[tuple[str, str], str]) -> str:
        """The owner name a pod is represented with: its Deployment when that is in the load.

        ``kind`` and ``name`` are the pod's controller.
        """
        if kind != "ReplicaSet":
            return name
        key = (namespace, name)
        owner = rs_owner.get(key)
        if owner is not None:
            return owner
        if key not in self.rs_controller:
            # The ReplicaSet itself was not dumped (kubectl get deploy,pods): the
            # deployment controller names it <deployment>-<pod-template-hash>, and
            # the hash is on the pod, so the deployment is known without guessing.
            h = labels.get("pod-template-hash")
            if h and name.endswith("-" + h) and \
                    (namespace, name[: -len(h) - 1]) in self.deployments:
                return name[: -len(h) - 1]
        return name

    def finish(self) -> LoadedManifests:
        """Build the pods and workloads, in file order."""
        # A ReplicaSet may come before its Deployment, so this is settled last.
        rs_owner = {k: d for k, d in self.rs_controller.items()
                    if d and (k[0], d) in self.deployments}
        newest = self.newest or 0
        set_field = object.__setattr__  # Pod is frozen; these pods are not shared yet
        if newest:
            for pod in self.started:
                set_field(pod, "started", pod.started - newest)  # type: ignore[operator]
        if self.deployments:
            for pod in self.rs_pods:
                owner = self._owner(pod.namespace, pod.owner_kind, pod.owner_name, pod.labels,
                                    rs_owner)
                if owner != pod.owner_name:
                    set_field(pod, "owner_name", owner)
        if not self.pending:
            return self._result(self.records)  # type: ignore[arg-type]
        ctx = PodContext(self.runtime_overheads)
        objects: list[Object] = []
        for rec in self.records:
            try:
                if type(rec) is _PendingPod:
                    owner = self._owner(rec.namespace, *rec.controller, rec.labels, rs_owner)
                    objects.append(make_pod(
                        rec.doc, ctx, rec.spec, namespace=rec.namespace, name=rec.name,
                        labels=rec.labels, node_name=rec.node_name, static=rec.static,
                        owner_kind=rec.controller[0], owner_name=owner,
                        started=None if rec.start is None else rec.start - newest,
                        ready=rec.ready))
                elif type(rec) is _PendingWorkload:
                    folded = rs_owner.get((rec.namespace, rec.name))
                    if rec.kind == "ReplicaSet" and folded is not None:
                        self.notes.append(f"replicaset {rec.namespace}/{rec.name} is part of "
                                          f"deployment {rec.namespace}/{folded}")
                        continue
                    simulated = rec.kind in ("StatefulSet", "DaemonSet", "Job")
                    pod = make_pod(rec.doc, ctx, rec.spec, namespace=rec.namespace,
                                   name=rec.name, labels=rec.labels,
                                   annotations=rec.annotations,
                                   owner_kind=rec.kind if simulated else "ReplicaSet",
                                   owner_name=rec.name)
                    if simulated:
                        objects.append(Workload(rec.kind, rec.namespace, rec.name, pod,
                                                rec.replicas, rec.completions, rec.ordered,
                                                span=pod.span))
                    else:
                        objects.append(Deployment(rec.namespace, rec.name, rec.replicas, pod,
                                                  span=pod.span))
                else:
                    objects.append(rec)  # type: ignore[arg-type]
            except ManifestError:
                raise
            except Exception as err:
                raise _internal(rec.doc, err) from err  # type: ignore[union-attr]
        return self._result(objects)

    def _result(self, objects: list[Object]) -> LoadedManifests:
        newest = self.newest or 0
        terminating = {}
        for key, (at, grace) in self.deleting.items():
            # deletionTimestamp is when the grace period ends; the file's
            # newest start time stands for "now", as for started=.
            left = at - newest if newest else (grace or 0) * 1000
            if grace is not None:
                left = min(left, grace * 1000)
            terminating[key] = max(left, 0)
        return LoadedManifests(tuple(objects), self.phases, tuple(self.notes),
                               self.nominated, terminating, tuple(self.not_ready))


def _node_ready(obj: Mapping[str, Any]) -> bool:
    """False when the Node's Ready condition is there and not True (False or Unknown)."""
    status = obj.get("status")
    for c in (status.get("conditions") or ()) if isinstance(status, dict) else ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            return c.get("status") == "True"
    return True


def _controller(doc: Doc, meta: Mapping[str, Any]) -> tuple[str, str]:
    """``(kind, name)`` of the controlling owner reference, or ``("", "")``."""
    refs = meta.get("ownerReferences")
    if not refs:
        return "", ""
    if type(refs) is list and len(refs) == 1:
        # Nearly every owned pod has its controller as its one reference.
        ref = refs[0]
        if type(ref) is dict and ref.get("controller") is True:
            kind, name = ref.get("kind"), ref.get("name")
            if type(kind) is str and type(name) is str:
                return kind, name
    if not isinstance(refs, list):
        doc.fail("metadata.ownerReferences", "expected a list")
    for i, ref in enumerate(refs):
        if isinstance(ref, dict) and ref.get("controller") is True:
            kind, name = ref.get("kind"), ref.get("name")
            if type(kind) is str and type(name) is str:
                return kind, name
            return (string(doc, kind, f"metadata.ownerReferences[{i}].kind"),
                    string(doc, name, f"metadata.ownerReferences[{i}].name"))
    return "", ""


_USED_ANNOTATIONS = ("kubernetes.io/config.source", "kubernetes.io/config.mirror")


def _used_annotations(doc: Doc, raw: object) -> dict[str, str]:
    """The annotations kruleset reads (checked), without copying or checking the others."""
    annotations = mapping(doc, raw, "metadata.annotations")
    if not annotations:
        return annotations
    used = {k: annotations[k] for k in _USED_ANNOTATIONS if k in annotations}
    return string_map(doc, used, "metadata.annotations") if used else used


def _internal(doc: Doc, err: Exception) -> ManifestError:
    return doc.error("", f"internal error while reading this object "
                         f"({type(err).__name__}: {err}); this is a bug in kruleset, "
                         "please report it with the file")


def load_manifests(path: Path, span: Span | None = None) -> LoadedManifests:
    """Read every object of ``path`` into the model, with pod phases and notes.

    See :func:`load_objects` for what is read and how.
    """
    path = Path(path)
    # Decoding builds millions of small containers, none of them cyclic; the
    # cyclic collector would rescan them over and over (3x the load time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(path, span)
    finally:
        if collecting:
            gc.enable()


def _load(path: Path, span: Span | None) -> LoadedManifests:
    items = ItemDecoder()
    reader = _Reader(items)
    pod = reader.pod
    errors: list[ScenarioError] = []
    flaws: list[str] = []  # the seed's DRA example as written (see _seed_flaws)
    # The loader only reads decoded values, so pod specs may be shared (ItemDecoder).
    # A refused object does not stop the reading: every error of the file is
    # reported in one run (up to MAX_ERRORS).
    try:
        for doc, value in _documents(path, span, items):
            try:
                if type(value) is dict and value.get("kind") == "Pod" and pod(doc, value):
                    continue
                if type(value) is dict and value.get("kind") in DRA_KINDS:
                    value = _seed_flaws(doc, value, flaws)
                reader.add(_entry(doc, value))
            except ScenarioError as err:
                errors.extend(getattr(err, "errors", (err,)))
                if len(errors) >= MAX_ERRORS:
                    break
            except Exception as err:  # a bug must still name the document
                errors.append(_internal(doc, err))
                break
    except ScenarioError as err:  # the file itself (syntax): nothing after it can be read
        errors.append(err)
    if errors:
        raise combined(errors)
    loaded = reader.finish()
    file = _file_label(path)
    for text, n in reader.warnings.items():
        notice(f"{file}: warning: {text}" + (f" (in {n:,} objects)" if n > 1 else ""))
    if reader.cronjobs:
        n = len(reader.cronjobs)
        notice(f"{file}: warning: {n} CronJob{'s' if n > 1 else ''} read but not simulated "
               f"({', '.join(reader.cronjobs[:5])}{', …' if n > 5 else ''}): their schedules "
               "create no Jobs here; the Jobs and pods they created are read")
    for text in flaws:
        notice(text)
    if reader.ignored:
        notice(ignored_summary(file, reader.ignored))
    return loaded


def _seed_flaws(doc: Doc, value: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """Read the seed's DRA example as written, warning about its two flaws.

    Its ResourceClaimTemplate says ``resource.k8s.io/v1alpha2`` but has the
    v1alpha3 shape (read as v1alpha3), and its DeviceClass has ``name:`` at
    the top level (read as ``metadata.name``).
    """
    where = f"{doc.file}, document {doc.document}"
    if value.get("apiVersion") == "resource.k8s.io/v1alpha2":
        warnings.append(f"{where}: {value['kind']} says apiVersion resource.k8s.io/v1alpha2, "
                        "which has another shape; read as resource.k8s.io/v1alpha3")
        value = {**value, "apiVersion": "resource.k8s.io/v1alpha3"}
    if "name" in value and not (value.get("metadata") or {}).get("name"):
        warnings.append(f"{where}: {value['kind']} has 'name' at the top level; read as "
                        "metadata.name")
        value = {**value, "metadata": {**(value.get("metadata") or {}), "name": value["name"]}}
    return value


def load_objects(path: Path, span: Span | None = None) -> list[Object]:
    """Read the Kubernetes objects of a YAML or JSON file into kruleset's model.

    Accepts multi-document YAML, ``kind: List`` (``kubectl get … -o yaml``)
    and ``.json`` files (``kubectl get … -o json``) with the kinds of
    :data:`SUPPORTED_KINDS`; kinds that play no part (Services, ConfigMaps,
    Events, custom resources, …) are counted in one summary notice.  Objects
    come back in file order.  An unknown kind, an unknown field (a warning
    when :data:`kruleset.errors.STRICT` is off) or a used field with a bad
    value is refused (:class:`ManifestError` naming file, line, 1-based
    document and field path; every refusal of the file at once).  ``span``
    (the including statement) is attached to errors and objects.

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
