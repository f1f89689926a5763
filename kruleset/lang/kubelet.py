"""The ``kubelet NODE|* { … }`` block of ``.kr`` files.

The settings are checked by :func:`kruleset.model.kubelet_settings.make_kubelet_config`,
which the KubeletConfiguration YAML loader shares, so both refuse the same
things the kubelet refuses (ParseThresholdConfig).
"""

from __future__ import annotations

from ..errors import Span
from ..model.config import SIGNALS, KubeletConfig
from ..model.kubelet_settings import (
    FILESYSTEMS,
    KubeletConfigError,
    make_kubelet_config,
)
from .cursor import Cursor
from .errors import Source
from .syntax import Statement, Word

__all__ = [
    "FILESYSTEMS",
    "KubeletConfigError",
    "make_kubelet_config",
    "kubelet_block",
]

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
