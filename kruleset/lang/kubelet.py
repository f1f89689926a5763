"""Kubelet eviction configuration: the kubelet's own parsing rules, and the
``kubelet NODE|* { … }`` block of ``.kr`` files.

:func:`make_kubelet_config` is shared with the KubeletConfiguration YAML loader,
so both refuse the same things the kubelet refuses (ParseThresholdConfig).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import attrs

from ..errors import NO_SPAN, Span, did_you_mean
from ..model.config import DEFAULT_HARD_THRESHOLDS, SIGNALS, EvictionThreshold, KubeletConfig
from ..model.quantity import QuantityError, parse_duration, parse_percentage, parse_quantity
from .cursor import Cursor
from .errors import Source
from .syntax import Statement, Word

__all__ = [
    "FILESYSTEMS",
    "KubeletConfigError",
    "make_kubelet_config",
    "kubelet_block",
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


def _threshold_value(signal: str, text: str, setting: str) -> EvictionThreshold | None:
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
    reclaim: dict[str, tuple[int | None, Fraction | None]] = {}
    for signal, text in (minimum_reclaim or {}).items():
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

    def attach(th: EvictionThreshold, grace_ms: int = 0) -> EvictionThreshold:
        q, p = reclaim.get(th.signal, (None, None))
        return attrs.evolve(th, grace_period=grace_ms, min_reclaim_quantity=q,
                            min_reclaim_percentage=p, span=span)

    hard_out: tuple[EvictionThreshold, ...] | None = None
    if hard is not None:
        items = []
        for signal, text in hard.items():
            _check_signal(signal, "hard")
            th = _threshold_value(signal, text, "hard")
            if th is not None:
                items.append(attach(th))
        hard_out = tuple(items)
    elif reclaim:
        hard_out = tuple(attach(th) for th in DEFAULT_HARD_THRESHOLDS)
    soft_out = []
    for signal, text in (soft or {}).items():
        _check_signal(signal, "soft")
        th = _threshold_value(signal, text, "soft")
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
    enforce = []
    for name in enforce_node_allocatable:
        if name not in ENFORCE:
            hint = did_you_mean(name, ENFORCE)
            raise KubeletConfigError(f"unknown enforce-node-allocatable value '{name}'"
                                     + (f", {hint}" if hint else ""), "enforce_node_allocatable")
        if name != "none":
            enforce.append(name)
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


_MAP_FLAGS = {
    "eviction-hard": ("hard", "<"),
    "eviction-soft": ("soft", "<"),
    "eviction-soft-grace-period": ("soft_grace_period", "="),
    "eviction-minimum-reclaim": ("minimum_reclaim", "="),
}
_DURATION_FLAGS = {
    "eviction-max-pod-grace-period": "max_pod_grace_period",
    "eviction-pressure-transition-period": "pressure_transition_period",
    "housekeeping-interval": "housekeeping_interval",
}
FLAGS = (*_MAP_FLAGS, *_DURATION_FLAGS, "filesystems", "enforce-node-allocatable")


def kubelet_block(src: Source, items: Statement, span: Span) -> KubeletConfig:
    """The configuration of a ``kubelet NODE|* { … }`` block (its statements)."""
    assert items.block is not None
    maps: dict[str, dict[str, str]] = {}
    where: dict[tuple[str, str], Word] = {}
    flag_word: dict[str, Word] = {}
    kwargs: dict[str, object] = {}
    for stmt in items.block.statements:
        cur = Cursor(src, stmt.items)
        flag = cur.word("a kubelet flag")
        name = flag.value
        if stmt.block is not None:
            raise src.error("a kubelet flag takes no block", stmt.block.open)
        if name not in FLAGS:
            raise src.unknown("kubelet flag", name, flag, FLAGS, expected=", ".join(FLAGS))
        if name in flag_word and name not in _MAP_FLAGS:
            raise src.error(f"kubelet flag '{name}' is given twice", flag)
        flag_word[name] = flag
        if name in _MAP_FLAGS:
            setting, op = _MAP_FLAGS[name]
            entries = maps.setdefault(setting, {})
            if cur.at_end():
                raise cur.error(f"'{name}' needs at least one signal{op}value",
                                expected=f"signal{op}value, e.g. memory.available{op}"
                                         + ("100Mi" if op == "<" else "1m30s"))
            while not cur.at_end():
                w = cur.word(f"signal{op}value")
                if w.value.startswith(","):  # pragma: no cover - commas are separate items
                    continue
                sig, found, value = w.value.partition(op)
                if not found or not sig or not value:
                    raise src.error(f"expected signal{op}value, found '{w.value}'", w,
                                    expected=f"e.g. memory.available{op}"
                                             + ("100Mi" if op == "<" else "1m30s"))
                if sig in entries:
                    raise src.error(f"signal '{sig}' is given twice for {name}", w)
                entries[sig] = value
                where[(setting, sig)] = w
                nxt = cur.peek()
                if isinstance(nxt, Word) and nxt.kind == "COMMA":
                    cur.pos += 1
        elif name in _DURATION_FLAGS:
            w = cur.word(f"a duration after {name}")
            kwargs[_DURATION_FLAGS[name]] = w.value
            where[(_DURATION_FLAGS[name], "")] = w
        elif name == "filesystems":
            w = cur.word("nodefs, nodefs+imagefs or nodefs+imagefs+containerfs")
            kwargs["filesystems"] = w.value
            where[("filesystems", "")] = w
        else:
            values = []
            while not cur.at_end():
                w = cur.word("pods, system-reserved, kube-reserved or none")
                values.append(w.value)
                where[("enforce_node_allocatable", "")] = where.get(
                    ("enforce_node_allocatable", ""), w)
                nxt = cur.peek()
                if isinstance(nxt, Word) and nxt.kind == "COMMA":
                    cur.pos += 1
            if not values:
                raise cur.error("enforce-node-allocatable needs a value",
                                expected="pods, system-reserved, kube-reserved or none")
            kwargs["enforce_node_allocatable"] = tuple(values)
        cur.done()
    try:
        return make_kubelet_config(
            maps.get("hard") if "eviction-hard" in flag_word else None,
            maps.get("soft"),
            maps.get("soft_grace_period"),
            maps.get("minimum_reclaim"),
            span=span,
            **kwargs,  # type: ignore[arg-type]
        )
    except KubeletConfigError as exc:
        word = where.get((exc.setting, exc.signal)) or where.get((exc.setting, ""))
        if word is not None and exc.signal:
            # point at the value when it is at fault, at the signal otherwise
            sig_len = len(exc.signal) + 1
            value_at_fault = (exc.signal in SIGNALS and exc.message.startswith(exc.signal)
                              or "must be positive" in exc.message or "above 0%" in exc.message)
            if value_at_fault:
                word = word.at(sig_len, word.value[sig_len:])
        target = word or items.items[0]
        raise src.error(exc.message, target, suggestion=exc.suggestion) from None
