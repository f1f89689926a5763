"""KubeletConfiguration files into :class:`~kruleset.model.KubeletConfig`.

This module only reads the YAML fields.  The kubelet's rules for eviction
thresholds (which signals exist, ``0%``/``100%`` dropping a threshold, a zero
quantity refused, soft thresholds needing a grace period, min-reclaim,
defaults replaced all-or-nothing) live in one place,
``kruleset.lang.kubelet.make_kubelet_config``, which the ``.kr`` kubelet block
uses too; this module hands it the same strings the kubelet flags would carry.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs

from ..errors import NO_SPAN, ManifestError, NotImplementedMechanism, ScenarioError, Span
from ..model.config import KubeletConfig
from ..model.quantity import QuantityError, parse_duration
from ..model.resources import ZERO, Resources
from ._fields import Doc, boolean, integer, mapping, resources, string, string_list
from .loader import read_documents

__all__ = ["KubeletConfigFile", "KubeletFields", "load_kubelet_config", "read_kubelet_fields"]

KIND = "KubeletConfiguration"
API_VERSIONS = ("kubelet.config.k8s.io/v1beta1", "kubelet.config.k8s.io/v1")
_ENFORCE = ("pods", "system-reserved", "kube-reserved", "none")


@attrs.frozen(slots=True)
class KubeletConfigFile(KubeletConfig):
    """A :class:`KubeletConfig` read from a file, with the node reservations it states.

    ``reserved`` is ``systemReserved + kubeReserved``: a node's allocatable is
    its capacity minus this (the hard eviction threshold for memory is taken
    off by the eviction manager, not here).
    """

    system_reserved: Resources = ZERO
    kube_reserved: Resources = ZERO
    reserved: Resources = ZERO


def _str_map() -> Any:
    return attrs.field(factory=dict, converter=lambda m: MappingProxyType(dict(m)))


@attrs.frozen(slots=True)
class KubeletFields:
    """The eviction-related fields exactly as the file gives them (strings keyed by signal)."""

    eviction_hard: Mapping[str, str] | None = None  # None: not set, so the defaults apply
    eviction_soft: Mapping[str, str] = _str_map()
    eviction_soft_grace_period: Mapping[str, str] = _str_map()
    eviction_minimum_reclaim: Mapping[str, str] = _str_map()
    eviction_pressure_transition_period: int | None = None  # ms
    eviction_max_pod_grace_period: int | None = None       # ms
    enforce_node_allocatable: tuple[str, ...] | None = None
    merge_default_eviction_settings: bool = False
    system_reserved: Resources = ZERO
    kube_reserved: Resources = ZERO


def _signal_map(doc: Doc, raw: object, field: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in mapping(doc, raw, field).items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            doc.fail(f"{field}.{key}", f"expected a string such as 100Mi or 10%, found {value!r}")
        out[str(key)] = str(value)
    return out


def _duration(doc: Doc, raw: object, field: str) -> int | None:
    if raw is None:
        return None
    text = string(doc, raw, field)
    try:
        return parse_duration(text)
    except QuantityError as e:
        doc.fail(field, str(e))


def _reserved(doc: Doc, raw: object, field: str) -> Resources:
    for key in mapping(doc, raw, field):
        if key not in ("cpu", "memory", "ephemeral-storage", "pid") and \
                not str(key).startswith("hugepages-"):
            doc.fail(f"{field}.{key}", f"'{key}' cannot be reserved (cpu, memory, "
                                       "ephemeral-storage, pid, hugepages-*)")
    return resources(doc, raw, field)


def read_kubelet_fields(path: Path, span: Span | None = None) -> tuple[Doc, KubeletFields]:
    """Read the KubeletConfiguration document of ``path`` into :class:`KubeletFields`."""
    path = Path(path)
    found: tuple[Doc, dict[str, Any]] | None = None
    for doc, value in read_documents(path, span):
        body = mapping(doc, value, "")
        if body.get("kind") != KIND:
            doc.fail("kind", f"expected kind {KIND}, found {body.get('kind')!r}")
        if found is not None:
            doc.fail("", f"a second {KIND}; give one per file")
        found = (doc, body)
    if found is None:
        raise ManifestError(f"the file holds no {KIND}", file=str(path), span=span)
    doc, body = found
    api_version = string(doc, body.get("apiVersion"), "apiVersion")
    if api_version not in API_VERSIONS:
        doc.fail("apiVersion", f"'{api_version}' is not a {KIND} apiVersion kruleset reads "
                               f"({', '.join(API_VERSIONS)})")
    g = body.get
    max_grace = integer(doc, g("evictionMaxPodGracePeriod"), "evictionMaxPodGracePeriod")
    enforce = None
    if g("enforceNodeAllocatable") is not None:
        enforce = string_list(doc, g("enforceNodeAllocatable"), "enforceNodeAllocatable")
        for i, item in enumerate(enforce):
            if item not in _ENFORCE:
                doc.fail(f"enforceNodeAllocatable[{i}]",
                         f"'{item}' is not one of {', '.join(_ENFORCE)}")
    return doc, KubeletFields(
        eviction_hard=None if g("evictionHard") is None else
        _signal_map(doc, g("evictionHard"), "evictionHard"),
        eviction_soft=_signal_map(doc, g("evictionSoft"), "evictionSoft"),
        eviction_soft_grace_period=_signal_map(doc, g("evictionSoftGracePeriod"),
                                               "evictionSoftGracePeriod"),
        eviction_minimum_reclaim=_signal_map(doc, g("evictionMinimumReclaim"),
                                             "evictionMinimumReclaim"),
        eviction_pressure_transition_period=_duration(
            doc, g("evictionPressureTransitionPeriod"), "evictionPressureTransitionPeriod"),
        eviction_max_pod_grace_period=None if max_grace is None else max_grace * 1000,
        enforce_node_allocatable=enforce,
        merge_default_eviction_settings=boolean(doc, g("mergeDefaultEvictionSettings"),
                                                "mergeDefaultEvictionSettings"),
        system_reserved=_reserved(doc, g("systemReserved"), "systemReserved"),
        kube_reserved=_reserved(doc, g("kubeReserved"), "kubeReserved"),
    )


_FIELD_NAMES = (
    ("eviction_hard", "evictionHard"),
    ("eviction_soft", "evictionSoft"),
    ("eviction_soft_grace_period", "evictionSoftGracePeriod"),
    ("eviction_minimum_reclaim", "evictionMinimumReclaim"),
)


def _field_of(fields: KubeletFields, message: str) -> str:
    """The field a threshold refusal is about, found by the signal it names."""
    for attr, yaml_name in _FIELD_NAMES:
        values = getattr(fields, attr) or {}
        for signal in sorted(values, key=len, reverse=True):
            if re.search(rf"(?<![\w.]){re.escape(signal)}(?![\w.])", message):
                return f"{yaml_name}.{signal}"
    return ""


def load_kubelet_config(path: Path, span: Span | None = None) -> KubeletConfigFile:
    """Read a KubeletConfiguration's eviction and reservation settings.

    Reads evictionHard, evictionSoft, evictionSoftGracePeriod,
    evictionMinimumReclaim, evictionPressureTransitionPeriod,
    evictionMaxPodGracePeriod (seconds), enforceNodeAllocatable,
    systemReserved and kubeReserved; the result is a :class:`KubeletConfig`
    (a :class:`KubeletConfigFile`) that also carries the two reservations and
    their sum.  Thresholds follow the kubelet's own parsing exactly (see the
    module docstring); its refusals come back as :class:`ManifestError`
    naming the field.
    """
    doc, fields = read_kubelet_fields(path, span)
    try:
        from ..lang import kubelet as lang_kubelet
    except ImportError:
        raise NotImplementedMechanism("reading eviction thresholds from a KubeletConfiguration",
                                      span) from None
    try:
        config = _call_maker(lang_kubelet.make_kubelet_config, fields, span)
    except ManifestError:
        raise
    except ScenarioError as e:
        raise doc.error(_field_of(fields, e.message), e.message, e.suggestion) from None
    return _with_reservations(config, fields)


def _call_maker(maker: Any, fields: KubeletFields, span: Span | None) -> KubeletConfig:
    """Call the shared threshold builder with the arguments it takes."""
    offered: dict[str, Any] = {
        "hard": None if fields.eviction_hard is None else dict(fields.eviction_hard),
        "soft": dict(fields.eviction_soft),
        "grace": dict(fields.eviction_soft_grace_period),
        "min_reclaim": dict(fields.eviction_minimum_reclaim),
        "pressure_transition_period": fields.eviction_pressure_transition_period,
        "max_pod_grace_period": fields.eviction_max_pod_grace_period,
        "enforce_node_allocatable": fields.enforce_node_allocatable,
        "merge_defaults": fields.merge_default_eviction_settings,
        "span": span or NO_SPAN,
    }
    params = inspect.signature(maker).parameters
    return maker(**{k: v for k, v in offered.items() if k in params and v is not None})


def _with_reservations(config: KubeletConfig, fields: KubeletFields) -> KubeletConfigFile:
    values = {a.name: getattr(config, a.name) for a in attrs.fields(KubeletConfig)}
    return KubeletConfigFile(
        **values,
        system_reserved=fields.system_reserved,
        kube_reserved=fields.kube_reserved,
        reserved=fields.system_reserved + fields.kube_reserved,
    )
