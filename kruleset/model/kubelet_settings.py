"""The kubelet's own rules for its eviction settings, shared by every reader of them.

:func:`make_kubelet_config` turns the settings as the kubelet flags or a
KubeletConfiguration carry them (strings keyed by signal) into a
:class:`~kruleset.model.config.KubeletConfig`, refusing what the kubelet
refuses (``ParseThresholdConfig``).  The ``.kr`` kubelet block
(:mod:`kruleset.lang.kubelet`) and the KubeletConfiguration reader
(:mod:`kruleset.manifests.kubelet_config`) both use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import attrs

from ..errors import NO_SPAN, Span, did_you_mean
from .config import DEFAULT_HARD_THRESHOLDS, SIGNALS, EvictionThreshold, KubeletConfig
from .quantity import QuantityError, parse_duration, parse_percentage, parse_quantity

__all__ = [
    "ENFORCE",
    "FILESYSTEMS",
    "KubeletConfigError",
    "make_kubelet_config",
    "threshold_value",
]

FILESYSTEMS = ("nodefs", "nodefs+imagefs", "nodefs+imagefs+containerfs")
ENFORCE = ("pods", "system-reserved", "kube-reserved", "none")


class KubeletConfigError(ValueError):
    """A kubelet setting the kubelet itself would refuse.

    ``setting`` is which input was wrong (``hard``, ``soft``,
    ``soft_grace_period``, ``minimum_reclaim``, ``max_pod_grace_period``,
    ``pressure_transition_period``, ``housekeeping_interval``, ``filesystems``,
    ``enforce_node_allocatable``) and ``signal`` the signal concerned ("" when
    none), so callers can point at the right place.
    """

    def __init__(self, message: str, setting: str, signal: str = "", suggestion: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.setting = setting
        self.signal = signal
        self.suggestion = suggestion


def _check_signal(signal: str, setting: str) -> None:
    if signal not in SIGNALS:
        hint = did_you_mean(signal, SIGNALS)
        raise KubeletConfigError(
            f"unsupported eviction signal '{signal}'" + (f", {hint}" if hint else ""),
            setting, signal, suggestion="signals: " + ", ".join(SIGNALS))


def threshold_value(signal: str, text: str, setting: str) -> EvictionThreshold | None:
    """One ``eviction-hard``/``-soft`` value for ``signal`` (a quantity or a percentage)
    as the kubelet reads it; None: the threshold is off (``0%``/``100%``)."""
    text = text.strip()
    if text.endswith("%"):
        if text in ("0%", "100%"):
            return None  # the kubelet drops these thresholds silently
        try:
            pct = parse_percentage(text)
        except QuantityError as exc:
            raise KubeletConfigError(f"{signal}: {exc}", setting, signal) from None
        return EvictionThreshold(signal, percentage=pct)
    try:
        value = parse_quantity(text, "memory", allow_negative=True)
    except QuantityError as exc:
        raise KubeletConfigError(f"{signal}: {exc}", setting, signal) from None
    if value <= 0:
        raise KubeletConfigError(
            f"eviction threshold {signal} must be positive, found '{text}'", setting, signal,
            suggestion="use 0% to turn the threshold off")
    return EvictionThreshold(signal, quantity=value)


def _duration(text: str | int, setting: str, signal: str = "") -> int:
    if isinstance(text, int):
        if text < 0:
            raise KubeletConfigError(f"{setting} may not be negative", setting, signal)
        return text
    try:
        return parse_duration(text)
    except QuantityError as exc:
        what = signal or setting
        raise KubeletConfigError(f"{what}: {exc}", setting, signal) from None


def make_kubelet_config(
    hard: Mapping[str, str] | None = None,
    soft: Mapping[str, str] | None = None,
    soft_grace_period: Mapping[str, str] | None = None,
    minimum_reclaim: Mapping[str, str] | None = None,
    *,
    max_pod_grace_period: str | int = 0,
    pressure_transition_period: str | int = 300_000,
    housekeeping_interval: str | int = 10_000,
    filesystems: str = "nodefs",
    enforce_node_allocatable: Sequence[str] = ("pods",),
    span: Span = NO_SPAN,
) -> KubeletConfig:
    """Build a :class:`KubeletConfig` the way the kubelet parses its flags.

    ``hard``, ``soft``, ``soft_grace_period`` and ``minimum_reclaim`` map a signal
    to the value as written (``"100Mi"``, ``"10%"``, ``"1m30s"``); ``hard=None``
    means evictionHard was not given, so the upstream defaults apply.  The
    durations are Go-style strings or integers of milliseconds.

    Rules (upstream ParseThresholdConfig): an unknown signal is an error; a
    threshold quantity of 0 (or less) is an error; ``0%`` and ``100%`` drop the
    threshold (its grace period is then not required); a percentage over 100%
    is an error; every soft threshold needs a grace period for its signal;
    grace periods for signals without a soft threshold are accepted; a minimum
    reclaim of ``0`` is accepted, ``0%`` is an error.  Minimum reclaim attaches
    to the hard and soft thresholds of its signal; given without
    ``hard``, it attaches to the default hard thresholds, which are then
    written out in ``KubeletConfig.hard``.  Thresholds keep the order given.

    Raises :class:`KubeletConfigError` (a ``ValueError``) naming the setting and
    signal at fault.
    """
    grace: dict[str, int] = {}
    for signal, text in (soft_grace_period or {}).items():
        _check_signal(signal, "soft_grace_period")
        grace[signal] = _duration(text, "soft_grace_period", signal)
    reclaim = _minimum_reclaims(minimum_reclaim or {})

    def attach(th: EvictionThreshold, grace_ms: int = 0) -> EvictionThreshold:
        q, p = reclaim.get(th.signal, (None, None))
        return attrs.evolve(th, grace_period=grace_ms, min_reclaim_quantity=q,
                            min_reclaim_percentage=p, span=span)

    hard_out: tuple[EvictionThreshold, ...] | None = None
    if hard is not None:
        items = []
        for signal, text in hard.items():
            _check_signal(signal, "hard")
            th = threshold_value(signal, text, "hard")
            if th is not None:
                items.append(attach(th))
        hard_out = tuple(items)
    elif reclaim:
        hard_out = tuple(attach(th) for th in DEFAULT_HARD_THRESHOLDS)
    soft_out = []
    for signal, text in (soft or {}).items():
        _check_signal(signal, "soft")
        th = threshold_value(signal, text, "soft")
        if th is None:
            continue
        if signal not in grace:
            raise KubeletConfigError(
                f"grace period must be specified for the soft eviction threshold {signal}",
                "soft", signal, suggestion=f"add eviction-soft-grace-period {signal}=1m30s")
        soft_out.append(attach(th, grace[signal]))
    if filesystems not in FILESYSTEMS:
        hint = did_you_mean(filesystems, FILESYSTEMS)
        raise KubeletConfigError(f"unknown filesystems '{filesystems}'"
                                 + (f", {hint}" if hint else ""), "filesystems",
                                 suggestion=" | ".join(FILESYSTEMS))
    enforce = _enforced(enforce_node_allocatable)
    return KubeletConfig(
        hard=hard_out,
        soft=tuple(soft_out),
        max_pod_grace_period=_duration(max_pod_grace_period, "max_pod_grace_period"),
        pressure_transition_period=_duration(pressure_transition_period,
                                             "pressure_transition_period"),
        housekeeping_interval=_duration(housekeeping_interval, "housekeeping_interval"),
        filesystems=filesystems,
        enforce_node_allocatable=tuple(enforce),
        span=span,
    )


def _minimum_reclaims(minimum_reclaim: Mapping[str, str]
                      ) -> dict[str, tuple[int | None, Fraction | None]]:
    """evictionMinimumReclaim: per signal, a quantity or a percentage (above 0%)."""
    reclaim: dict[str, tuple[int | None, Fraction | None]] = {}
    for signal, text in minimum_reclaim.items():
        _check_signal(signal, "minimum_reclaim")
        t = text.strip()
        try:
            if t.endswith("%"):
                pct = parse_percentage(t)
                if pct <= 0:
                    raise KubeletConfigError(
                        f"minimum reclaim for {signal} must be above 0%", "minimum_reclaim", signal)
                reclaim[signal] = (None, pct)
            else:
                reclaim[signal] = (parse_quantity(t, "memory"), None)
        except QuantityError as exc:
            raise KubeletConfigError(f"{signal}: {exc}", "minimum_reclaim", signal) from None
    return reclaim


def _enforced(enforce_node_allocatable: Sequence[str]) -> list[str]:
    """enforceNodeAllocatable's values, checked; ``none`` stands for no value."""
    enforce = []
    for name in enforce_node_allocatable:
        if name not in ENFORCE:
            hint = did_you_mean(name, ENFORCE)
            raise KubeletConfigError(f"unknown enforce-node-allocatable value '{name}'"
                                     + (f", {hint}" if hint else ""), "enforce_node_allocatable")
        if name != "none":
            enforce.append(name)
    return enforce
