"""Reading Kubernetes object files (``kubectl get -o yaml|json`` output, manifests).

Each object is converted as soon as it is decoded (a JSON dump is read a
chunk at a time, see :mod:`.documents`); what one object's meaning depends
on later in the file (RuntimeClass overheads, which ReplicaSets belong to
which Deployment, the newest pod start time) is settled once the file is
read (:meth:`.reader.Reader.finish`).

The work is shared by :mod:`.documents` (the file's documents),
:mod:`.entries` (the kinds and API versions read, each object's header),
:mod:`.reader` (the conversion by kind, pods) and :mod:`.workloads`; this
module runs them over a file and says what was read past.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import attrs

from ..errors import ScenarioError, Span, combined, is_bug
from ..model.scenario import Object
from ._fields import Doc
from ._jsonitems import ItemDecoder
from .documents import file_label, iter_documents, read_documents
from .dra import DRA_KINDS
from .entries import SUPPORTED_KINDS, entry
from .kinds import ignored_summary
from .reader import LoadedManifests, Reader, internal_error
from .schema import MAX_ERRORS, notice
from .usage_docs import METRICS_KINDS, UsageReader, is_summary

__all__ = ["SUPPORTED_KINDS", "LoadedManifests", "load_manifests", "load_objects",
           "read_documents"]


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
    reader = Reader(items)
    pod = reader.pod
    errors: list[ScenarioError] = []
    flaws: list[str] = []  # the seed's DRA example as written (see _seed_flaws)
    usage = UsageReader()  # Summary API and metrics.k8s.io documents
    # The loader only reads decoded values, so pod specs may be shared (ItemDecoder).
    # A refused object does not stop the reading: every error of the file is
    # reported in one run (up to MAX_ERRORS).
    try:
        for doc, value in iter_documents(path, span, items):
            try:
                if type(value) is dict and value.get("kind") == "Pod" and pod(doc, value):
                    continue
                if is_summary(value):
                    usage.summary(doc, value)  # type: ignore[arg-type]
                    continue
                if type(value) is dict and value.get("kind") in METRICS_KINDS:
                    usage.metrics(doc, value)
                    continue
                if type(value) is dict and value.get("kind") in DRA_KINDS:
                    value = _seed_flaws(doc, value, flaws)
                reader.add(entry(doc, value))
            except ScenarioError as err:
                errors.extend(getattr(err, "errors", (err,)))
                if len(errors) >= MAX_ERRORS:
                    break
            except BaseException as err:  # a bug must still name the document
                if not is_bug(err):
                    raise
                errors.append(internal_error(doc, err))
                break
    except ScenarioError as err:  # the file itself (syntax): nothing after it can be read
        errors.append(err)
    if errors:
        raise combined(errors)
    loaded = reader.finish()
    if usage.nodes or usage.pods:
        loaded = attrs.evolve(loaded, usage=usage)
    file = file_label(path)
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
        value = {**{k: v for k, v in value.items() if k != "name"},
                 "metadata": {**(value.get("metadata") or {}), "name": value["name"]}}
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
