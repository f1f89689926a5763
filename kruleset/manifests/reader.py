"""Converting the objects of one file, document by document, into kruleset's model.

:class:`Reader` reads each checked object (:func:`.entries.entry`) as soon as
it is decoded, so the decoded file is never held whole; what depends on later
documents (which Deployment a ReplicaSet belongs to, the newest start time,
RuntimeClass overheads) is settled by :meth:`Reader.finish`.  Pods, nearly
every object of a cluster dump, have their own fast path (:meth:`Reader.pod`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import attrs

from ..errors import NO_SPAN, ManifestError, internal, is_bug
from ..model.objects import Pod
from ..model.resources import Resources
from ..model.scenario import Object
from ._fastpod import checked_labels
from ._fields import Doc, integer, mapping, seq, string, string_map, timestamp_ms
from ._jsonitems import ItemDecoder
from .dra import DRA_KINDS, dra_object
from .entries import Entry
from .kinds import (
    DNS_LABEL,
    DNS_SUBDOMAIN,
    check_priority_class,
    limit_range_from,
    resource_quota_from,
)
from .known_fields import DRA_OBJECTS, OBJECT_META, OBJECTS, POD_SPEC, POD_STATUS
from .nodes import namespace_from, node_from
from .pod_ranking import ranking_fields, set_ranking
from .pods import (
    COPY,
    PodContext,
    SpecFields,
    build_spec_pod,
    is_static,
    make_pod,
    spec_fields,
)
from .policy import elastic_quota_from, pdb_from, priority_class_from, runtime_class_from
from .schema import ANY, vet
from .workloads import WORKLOADS, PendingWorkload, WorkloadIndex, build_workload, controlled_by

__all__ = ["LoadedManifests", "Reader", "internal_error"]

_POD_NAME = DNS_SUBDOMAIN.match  # names of 254+ characters fail the full check in entry
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
    # Usage read from Summary API and metrics.k8s.io documents (usage_docs.UsageReader).
    usage: Any = None

    @property
    def terminated(self) -> tuple[str, ...]:
        """Keys of pods whose phase is Succeeded or Failed, in file order."""
        return tuple(k for k, v in self.pod_phases.items() if v in _TERMINAL_PHASES)


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
    ranking: dict[str, int] | None = None  # restarts, sidecar_restarts, deletion_cost



_Record = Object | _PendingPod | PendingWorkload


class Reader:
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
        self.workloads = WorkloadIndex()
        self.spec_memo: dict[tuple[str, str, str], SpecFields] = {}
        self.newest: int | None = None
        self.started: list[Pod] = []  # pods built with their absolute start time
        self.rs_pods: list[Pod] = []  # pods built with their ReplicaSet as owner
        self.pending = False  # records hold a _PendingPod or PendingWorkload
        self.phases: dict[str, str] = {}
        self.notes: list[str] = []
        self.warnings: dict[str, int] = {}  # warning -> how many objects it concerns
        self.ignored: dict[str, int] = {}   # kind -> objects accepted but not read
        self.cronjobs: list[str] = []
        self.nominated: dict[str, str] = {}
        self.deleting: dict[str, tuple[int, int | None]] = {}  # key -> (deletion ms, grace s)
        self.not_ready: list[str] = []

    def add(self, e: Entry | str) -> None:
        """Read one object (a kind's name: an object of a kind that plays no part)."""
        if type(e) is str:
            self.ignored[e] = self.ignored.get(e, 0) + 1
            return
        assert isinstance(e, Entry)
        doc, obj, kind = e.doc, e.obj, e.kind
        if kind in DRA_KINDS:
            # Each API version of a DRA kind has its own shape (entry() admitted the version).
            version = str(obj.get("apiVersion") or "resource.k8s.io/v1").rpartition("/")[2]
            vet(doc, obj, DRA_OBJECTS[kind][version], "", self.warnings)
            self.records.append(dra_object(doc, obj, kind, version, e.namespace, e.name))
            return
        vet(doc, obj, OBJECTS.get(kind, ANY), "", self.warnings)
        if kind == "Pod":
            self._pod(doc, obj, e.namespace, e.name, e.meta, checked=True)
        elif kind == "Node":
            meta = mapping(doc, obj.get("metadata"), "metadata")
            self.records.append(node_from(doc, obj, e.name, string_map(
                doc, meta.get("labels"), "metadata.labels")))
            if not _node_ready(obj):
                self.not_ready.append(e.name)
        elif kind in WORKLOADS:
            self.pending = True
            self.records.append(self.workloads.read(e))
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
        else:  # pragma: no cover - entry admits only SUPPORTED_KINDS
            raise AssertionError(kind)

    def pod(self, doc: Doc, obj: dict[str, Any]) -> bool:
        """Read a Pod object; False (nothing read) when :func:`~.entries.entry` has to check it.

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
            return False  # entry() says what is wrong with it
        if not self._quick_pod(doc, obj, namespace or "default", name, meta):
            self._pod(doc, obj, namespace or "default", name, meta)
        return True

    def _quick_pod(self, doc: Doc, obj: dict[str, Any], namespace: str, name: str,
                   meta: dict[str, Any]) -> bool:
        """:meth:`_pod` for a well-formed running pod whose spec was read before.

        What nearly every pod of a dump is: known fields only, a spec text
        seen before (its :class:`SpecFields` noted by the item decoder),
        string labels, one controller reference, no deletion or nomination.
        Everything is checked before anything is recorded: on anything else
        it returns False having changed nothing, and :meth:`_pod` reads the
        pod (with its errors and warnings).
        """
        items = self.items
        seen = items.spec_seen if items is not None else None
        spec = seen.note if seen is not None else None
        status = obj.get("status")
        if type(spec) is not SpecFields or spec.runtime_overhead or type(status) is not dict \
                or not (obj.keys() <= _POD_KEYS and meta.keys() <= _META_KEYS
                        and status.keys() <= _POD_STATUS_KEYS) \
                or "deletionTimestamp" in meta or status.get("nominatedNodeName"):
            return False
        labels: Any = meta.get("labels")
        shared = checked_labels(labels) if type(labels) is dict else None
        annotations = meta.get("annotations")
        static = False
        if annotations:
            if type(annotations) is not dict:
                return False
            # Only these two are read (and so checked), as in _used_annotations.
            source = annotations.get(_CONFIG_SOURCE, "api")
            mirror = annotations.get(_CONFIG_MIRROR, "")
            if type(source) is not str or type(mirror) is not str:
                return False
            static = source != "api" or _CONFIG_MIRROR in annotations
        elif annotations is not None and type(annotations) is not dict:
            return False
        phase = status.get("phase")
        start = status.get("startTime")
        conditions = status.get("conditions")
        node_name = obj["spec"].get("nodeName", "")  # a seen spec is a mapping
        refs = meta.get("ownerReferences")
        if shared is None or (phase is not None and type(phase) is not str) or \
                type(start) is not str or type(node_name) is not str or \
                (conditions is not None and type(conditions) is not list):
            return False
        controller = _controller(refs)
        started = _iso_ms(start)
        if controller is None or started is None:
            return False
        ranking = ranking_fields(None, status, annotations, spec.sidecars)
        if ranking is None:
            return False
        ready = True
        for c in conditions or ():
            if type(c) is dict and c.get("type") == "Ready":
                ready = c.get("status") == "True"
                break
        # Checked: from here on the pod is read as _pod would read it.
        if phase:
            self._note_phase(f"{namespace}/{name}", phase)
        if self.newest is None or started > self.newest:
            self.newest = started
        template = spec.templates.get(static)
        if template is not None and COPY is not None:
            pod = COPY(template, namespace, name, shared, node_name, started, controller[0],
                       controller[1], ready, doc.span or NO_SPAN)
        else:
            pod = build_spec_pod(doc, spec, static, namespace, name, labels, node_name,
                                 controller[0], controller[1], started, ready)
        if ranking:
            set_ranking(pod, ranking)
        self.records.append(pod)
        self.started.append(pod)
        if controller[0] == "ReplicaSet":
            self.rs_pods.append(pod)
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
        labels, static = _labels_and_static(doc, meta)
        status, start = self._status(doc, obj, namespace, name)
        controller = controlled_by(doc, meta)
        if controller[0] == "ReplicationController":
            # Simulated as a ReplicaSet is (the deployment controller keeps its replicas).
            controller = ("ReplicaSet", controller[1])
        spec_raw = obj.get("spec")
        spec = self._spec(doc, spec_raw, namespace, controller, checked)
        node_name = ""
        if type(spec_raw) is dict:
            given = spec_raw.get("nodeName")
            node_name = given if type(given) is str else string(doc, given, "spec.nodeName")
        ready = self._ready_and_more(doc, status, meta, namespace, name, node_name)
        ranking = ranking_fields(doc, status, meta.get("annotations"), spec.sidecars)
        if spec.runtime_overhead:
            # Its overhead is that of a RuntimeClass, which may come later in the file.
            self.records.append(_PendingPod(doc, spec, namespace, name, labels, node_name,
                                            static, controller, start, ready, ranking))
            self.pending = True
            return
        # Built now, so that no copy of what it is made of waits for the end of
        # the file; its start time and owner, which depend on the rest of the
        # file, are settled by finish() before anyone else sees it.
        pod = build_spec_pod(doc, spec, static, namespace, name, labels, node_name,
                             controller[0], controller[1], start, ready)
        if ranking:
            set_ranking(pod, ranking)
        self.records.append(pod)
        if start is not None:
            self.started.append(pod)
        if controller[0] == "ReplicaSet":
            self.rs_pods.append(pod)

    def _note_phase(self, key: str, phase: str) -> None:
        """Keep a pod's declared phase (``pod_phases``); a terminal one is also a note."""
        self.phases[key] = phase
        if phase in _TERMINAL_PHASES:
            self.notes.append(f"pod {key} is {phase}: returned as declared, see pod_phases")

    def _status(self, doc: Doc, obj: dict[str, Any], namespace: str, name: str
                ) -> tuple[dict[str, Any], Any]:
        """The pod's status and start time; its phase noted, the newest start time kept."""
        status = obj.get("status")
        if type(status) is not dict:
            status = mapping(doc, status, "status")
        phase = status.get("phase")
        if phase is not None:
            if type(phase) is not str:
                phase = string(doc, phase, "status.phase")
            if phase:
                self._note_phase(f"{namespace}/{name}", phase)
        start = status.get("startTime")
        if start is not None:
            start = timestamp_ms(doc, start, "status.startTime")
            if self.newest is None or start > self.newest:  # type: ignore[operator]
                self.newest = start
        return status, start

    def _spec(self, doc: Doc, spec_raw: Any, namespace: str, controller: tuple[str, str],
              checked: bool) -> SpecFields:
        """The pod's spec read, or the same SpecFields as an earlier pod with the same spec."""
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
        return spec

    def _ready_and_more(self, doc: Doc, status: dict[str, Any], meta: dict[str, Any],
                        namespace: str, name: str, node_name: str) -> bool:
        """Whether the pod is Ready; its nomination and deletion noted."""
        ready = True
        if status:
            for c in seq(doc, status.get("conditions"), "status.conditions"):
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
        return ready

    def finish(self) -> LoadedManifests:
        """Build the pods and workloads, in file order."""
        # A ReplicaSet may come before its Deployment, so this is settled last.
        workloads = self.workloads
        rs_owner = workloads.folded()
        newest = self.newest or 0
        set_field = object.__setattr__  # Pod is frozen; these pods are not shared yet
        if newest:
            for pod in self.started:
                set_field(pod, "started", pod.started - newest)  # type: ignore[operator]
        if workloads.deployments:
            for pod in self.rs_pods:
                owner = workloads.owner(pod.namespace, pod.owner_kind, pod.owner_name,
                                        pod.labels, rs_owner)
                if owner != pod.owner_name:
                    set_field(pod, "owner_name", owner)
        if not self.pending:
            return self._result(self.records)  # type: ignore[arg-type]
        ctx = PodContext(self.runtime_overheads)
        objects: list[Object] = []
        for rec in self.records:
            try:
                if type(rec) is _PendingPod:
                    owner = workloads.owner(rec.namespace, *rec.controller, rec.labels,
                                            rs_owner)
                    objects.append(make_pod(
                        rec.doc, ctx, rec.spec, namespace=rec.namespace, name=rec.name,
                        labels=rec.labels, node_name=rec.node_name, static=rec.static,
                        owner_kind=rec.controller[0], owner_name=owner,
                        started=None if rec.start is None else rec.start - newest,
                        ready=rec.ready))
                    if rec.ranking:
                        set_ranking(objects[-1], rec.ranking)
                elif type(rec) is PendingWorkload:
                    built = build_workload(rec, ctx, rs_owner, self.notes)
                    if built is not None:
                        objects.append(built)
                else:
                    objects.append(rec)  # type: ignore[arg-type]
            except ManifestError:
                raise
            except BaseException as err:
                if not is_bug(err):
                    raise
                raise internal_error(rec.doc, err) from err  # type: ignore[union-attr]
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


_CONFIG_SOURCE = "kubernetes.io/config.source"
_CONFIG_MIRROR = "kubernetes.io/config.mirror"
_USED_ANNOTATIONS = (_CONFIG_SOURCE, _CONFIG_MIRROR)


def _used_annotations(doc: Doc, raw: object) -> dict[str, str]:
    """The annotations kruleset reads (checked), without copying or checking the others."""
    annotations = mapping(doc, raw, "metadata.annotations")
    if not annotations:
        return annotations
    used = {k: annotations[k] for k in _USED_ANNOTATIONS if k in annotations}
    return string_map(doc, used, "metadata.annotations") if used else used


def internal_error(doc: Doc, err: BaseException) -> ManifestError:
    """The error naming the object being read when reading it raised ``err`` (a bug)."""
    return internal(doc.error("", f"internal error while reading this object "
                                  f"({type(err).__name__}: {err}); this is a bug in "
                                  "kruleset, please report it with the file"))


def _labels_and_static(doc: Doc, meta: dict[str, Any]) -> tuple[Any, bool]:
    """The pod's labels and whether its annotations make it a static pod."""
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
    return labels, static


def _controller(refs: object) -> tuple[str, str] | None:
    """:func:`controlled_by` for no references or one well-formed controller reference.

    ``None`` for anything else (read by :func:`controlled_by` itself).
    """
    if not refs:
        return ("", "") if refs is None or type(refs) is list else None
    if type(refs) is list and len(refs) == 1:
        ref = refs[0]
        if type(ref) is dict and ref.get("controller") is True:
            kind, name = ref.get("kind"), ref.get("name")
            if type(kind) is str and type(name) is str:
                # Simulated as a ReplicaSet is (the deployment controller keeps its replicas).
                return ("ReplicaSet" if kind == "ReplicationController" else kind), name
    return None


_ISO_HOURS: dict[str, int] = {}
# kubectl's form of a time: the hour, then minutes and seconds that are certain to be valid.
_ISO_SECOND = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:)([0-5]\d):([0-5]\d)Z", re.ASCII)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def _iso_ms(value: str) -> int | None:
    """:func:`timestamp_ms` of a time written ``YYYY-MM-DDTHH:MM:SSZ`` (as kubectl does),
    ``None`` for any other text and for an invalid date or hour (read by
    :func:`timestamp_ms` itself, which says what is wrong).

    Pods start at different seconds but in few different hours: each hour
    is parsed once, its minutes and seconds are added.
    """
    m = _ISO_SECOND.fullmatch(value)
    if m is None:
        return None
    hour = m.group(1)
    base = _ISO_HOURS.get(hour)
    if base is None:
        try:
            base = (datetime.fromisoformat(hour + "00:00+00:00") - _EPOCH) // _MILLISECOND
        except ValueError:
            return None
        if len(_ISO_HOURS) > 100_000:
            _ISO_HOURS.clear()
        _ISO_HOURS[hour] = base
    return base + (int(m.group(2)) * 60 + int(m.group(3))) * 1000
