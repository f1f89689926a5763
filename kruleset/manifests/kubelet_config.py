"""KubeletConfiguration files into :class:`~kruleset.model.KubeletConfig`.

This module only reads the YAML fields.  The kubelet's rules for eviction
thresholds (which signals exist, ``0%``/``100%`` dropping a threshold, a zero
quantity refused, soft thresholds needing a grace period, min-reclaim,
defaults replaced all-or-nothing) live in one place,
``kruleset.model.kubelet_settings.make_kubelet_config``, which the ``.kr`` kubelet block
uses too; this module hands it the same strings the kubelet flags would carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs

from ..errors import NO_SPAN, ManifestError, Span
from ..model.config import DEFAULT_HARD_THRESHOLDS, KubeletConfig
from ..model.kubelet_settings import KubeletConfigError, make_kubelet_config
from ..model.resources import ZERO, Resources
from ._fields import Doc, boolean, integer, mapping, resources, string, string_list
from .documents import read_documents
from .known_fields import KUBELET_CONFIGURATION
from .schema import vet

__all__ = ["KubeletConfigFile", "KubeletFields", "load_kubelet_config", "read_kubelet_fields"]

KIND = "KubeletConfiguration"
API_VERSIONS = ("kubelet.config.k8s.io/v1beta1",)  # the only version of v1.35


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
    eviction_pressure_transition_period: str | None = None  # a Go duration, as written
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
    for doc, value in read_documents(path, span, strict=True):
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
        doc.fail("apiVersion", f"'{api_version}' is not a {KIND} apiVersion the v1.35 kubelet "
                               f"reads; supported: {', '.join(API_VERSIONS)}")
    vet(doc, body, KUBELET_CONFIGURATION)
    g = body.get
    max_grace = integer(doc, g("evictionMaxPodGracePeriod"), "evictionMaxPodGracePeriod")
    enforce = None
    if g("enforceNodeAllocatable") is not None:
        enforce = string_list(doc, g("enforceNodeAllocatable"), "enforceNodeAllocatable")
    return doc, KubeletFields(
        eviction_hard=None if g("evictionHard") is None else
        _signal_map(doc, g("evictionHard"), "evictionHard"),
        eviction_soft=_signal_map(doc, g("evictionSoft"), "evictionSoft"),
        eviction_soft_grace_period=_signal_map(doc, g("evictionSoftGracePeriod"),
                                               "evictionSoftGracePeriod"),
        eviction_minimum_reclaim=_signal_map(doc, g("evictionMinimumReclaim"),
                                             "evictionMinimumReclaim"),
        eviction_pressure_transition_period=string(
            doc, g("evictionPressureTransitionPeriod"), "evictionPressureTransitionPeriod") or None,
        eviction_max_pod_grace_period=None if max_grace is None else max_grace * 1000,
        enforce_node_allocatable=enforce,
        merge_default_eviction_settings=boolean(doc, g("mergeDefaultEvictionSettings"),
                                                "mergeDefaultEvictionSettings"),
        system_reserved=_reserved(doc, g("systemReserved"), "systemReserved"),
        kube_reserved=_reserved(doc, g("kubeReserved"), "kubeReserved"),
    )


# make_kubelet_config's setting names -> the KubeletConfiguration field.
_SETTING_FIELDS = {
    "hard": "evictionHard",
    "soft": "evictionSoft",
    "soft_grace_period": "evictionSoftGracePeriod",
    "minimum_reclaim": "evictionMinimumReclaim",
    "max_pod_grace_period": "evictionMaxPodGracePeriod",
    "pressure_transition_period": "evictionPressureTransitionPeriod",
    "enforce_node_allocatable": "enforceNodeAllocatable",
}


def _merged_hard(fields: KubeletFields) -> dict[str, str] | None:
    """evictionHard, with the defaults filled in for absent signals when asked to merge."""
    if fields.eviction_hard is None:
        return None
    hard = dict(fields.eviction_hard)
    if fields.merge_default_eviction_settings:
        for th in DEFAULT_HARD_THRESHOLDS:
            if th.signal not in hard:
                hard[th.signal] = f"{th.percentage}%" if th.percentage is not None \
                    else str(th.quantity)
    return hard


def load_kubelet_config(path: Path, span: Span | None = None) -> KubeletConfigFile:
    """Read a KubeletConfiguration's eviction and reservation settings.

    Reads evictionHard, evictionSoft, evictionSoftGracePeriod,
    evictionMinimumReclaim, evictionPressureTransitionPeriod,
    evictionMaxPodGracePeriod (seconds), enforceNodeAllocatable,
    mergeDefaultEvictionSettings, systemReserved and kubeReserved.  The
    result is a :class:`KubeletConfig` (a :class:`KubeletConfigFile`) that
    also carries the two reservations and their sum.  Thresholds follow the
    kubelet's own parsing exactly (see the module docstring); its refusals
    come back as :class:`ManifestError` naming the field and signal.
    """
    doc, fields = read_kubelet_fields(path, span)
    optional: dict[str, Any] = {}
    if fields.eviction_pressure_transition_period is not None:
        optional["pressure_transition_period"] = fields.eviction_pressure_transition_period
    if fields.eviction_max_pod_grace_period is not None:
        optional["max_pod_grace_period"] = fields.eviction_max_pod_grace_period
    if fields.enforce_node_allocatable is not None:
        optional["enforce_node_allocatable"] = fields.enforce_node_allocatable
    try:
        config = make_kubelet_config(
            _merged_hard(fields),
            dict(fields.eviction_soft),
            dict(fields.eviction_soft_grace_period),
            dict(fields.eviction_minimum_reclaim),
            span=span or NO_SPAN,
            **optional,
        )
    except KubeletConfigError as e:
        field = _SETTING_FIELDS.get(e.setting, "")
        if field and e.signal:
            field += f".{e.signal}"
        raise doc.error(field, e.message, e.suggestion) from None
    return KubeletConfigFile(
        **{a.name: getattr(config, a.name) for a in attrs.fields(KubeletConfig)},
        system_reserved=fields.system_reserved,
        kube_reserved=fields.kube_reserved,
        reserved=fields.system_reserved + fields.kube_reserved,
    )
