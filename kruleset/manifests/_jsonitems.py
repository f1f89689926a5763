"""Decoding the items of a large ``kubectl get -o json`` List faster than item by item.

Nearly half of the text of a pod is its ``spec``, and the pods of one
controller have the same spec text but for ``nodeName``.  :class:`ItemDecoder`
reads an item whose keys come in kubectl's order (``apiVersion``, ``kind``,
``metadata``, ``spec``, ``status``) with a few anchored regular expressions
and decodes ``metadata`` and ``status`` with the json module; a pod's spec
whose text was seen before (up to its ``nodeName`` value) is not decoded
again: it is a copy of the earlier spec with this pod's ``nodeName``.

The result is always equal to what ``json`` decodes from the same text (same
keys in the same order, same values).  Anything this does not recognise
(another key order, escapes in the few strings read by pattern, malformed
text) returns ``None``, and the caller decodes the item the ordinary way,
which also gives the ordinary error for malformed text.

The copies share their nested values (containers, tolerations, …) with the
spec they were made from: callers must treat decoded items as read-only below
their top-level ``spec`` mapping, as the manifest loader does.

:attr:`ItemDecoder.spec_seen` tells a caller which remembered spec text the
last item's spec was (copied or learnt from): items with the same one have
equal specs but for ``nodeName``, so what the caller makes of a spec that
does not read ``nodeName`` can be kept on it (:attr:`SeenSpec.note`) and
reused without comparing the specs again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["ItemDecoder", "SeenSpec"]

# A JSON string with no escape and no control character: its text between
# the quotes is its value, so a pattern can read it without the decoder.
_PLAIN = r'"([^"\\\x00-\x1f]*)"'
_WS = r"[ \t\n\r]*"
_HEAD = re.compile(
    rf'\{{{_WS}"apiVersion"{_WS}:{_WS}{_PLAIN}{_WS},{_WS}"kind"{_WS}:{_WS}{_PLAIN}'
    rf'{_WS},{_WS}"metadata"{_WS}:{_WS}')
_SPEC = re.compile(rf'{_WS},{_WS}"spec"{_WS}:{_WS}')
_STATUS = re.compile(rf'{_WS},{_WS}"status"{_WS}:{_WS}')
_END = re.compile(rf"{_WS}\}}")
_PLAIN_VALUE = re.compile(_PLAIN)
_NODE_NAME_VALUE = re.compile(rf'{_WS}:{_WS}(?={_PLAIN})')
_NODE_NAME_KEY = '"nodeName"'
# Stands for a node name while checking where the nodeName value sits (DEL
# is a plain character in JSON, so the probe needs no escaping).
_PROBE = "\x7fkruleset-node-name-probe\x7f"

_PREFIX = 64  # characters of a spec's text that index the specs seen before
_PER_PREFIX = 8  # specs kept per prefix (most recently learnt first)
_MAX_SPECS = 4096  # bound on the specs kept, so that memory stays small


class SeenSpec:
    """A spec text seen before: ``before`` + nodeName value + ``after``, and its value.

    ``after`` is ``None`` when the spec has no ``nodeName`` that can be
    replaced: then ``before`` is its whole text.  ``note`` is the caller's
    (``None`` until it sets it): something that depends on the spec's value
    but not on its ``nodeName``.
    """

    __slots__ = ("after", "before", "note", "value")

    def __init__(self, before: str, after: str | None, value: dict[str, Any]) -> None:
        self.before = before
        self.after = after
        self.value = value
        self.note: object = None


class ItemDecoder:
    """Decodes List items, remembering pod spec texts across items (see the module doc)."""

    def __init__(self) -> None:
        # The scanner behind raw_decode, called directly: on malformed text
        # it raises StopIteration or JSONDecodeError, and the item is then
        # decoded again as a whole for the ordinary message anyway.
        self._decode: Callable[[str, int], tuple[Any, int]] = \
            json.JSONDecoder().scan_once  # type: ignore[attr-defined]
        self._seen: dict[str, list[SeenSpec]] = {}
        self._count = 0
        self._spec_seen: SeenSpec | None = None
        # The remembered spec text of the last item read (None: not a copied
        # or learnt pod spec, or the item was not read by item()).
        self.spec_seen: SeenSpec | None = None

    def item(self, text: str, pos: int) -> tuple[dict[str, Any], int] | None:
        """The item starting at ``pos`` and the position after it, or ``None`` (decode it)."""
        self.spec_seen = self._spec_seen = None
        head = _HEAD.match(text, pos)
        if head is None:
            return None
        decode = self._decode
        try:
            meta, end = decode(text, head.end())
            kind = head.group(2)
            item = {"apiVersion": head.group(1), "kind": kind, "metadata": meta}
            at = _SPEC.match(text, end)
            if at is not None:
                if kind == "Pod" and text.startswith("{", at.end()):
                    item["spec"], end = self._spec(text, at.end())
                else:
                    item["spec"], end = decode(text, at.end())
            at = _STATUS.match(text, end)
            if at is not None:
                item["status"], end = decode(text, at.end())
        except (json.JSONDecodeError, StopIteration):
            return None  # decoded again as a whole, for the ordinary message
        close = _END.match(text, end)
        if close is None:
            return None
        self.spec_seen = self._spec_seen
        return item, close.end()

    def _spec(self, text: str, pos: int) -> tuple[dict[str, Any], int]:
        """The spec object at ``pos``: a copy of a seen one with the same text, or decoded."""
        key = text[pos:pos + _PREFIX]
        for seen in self._seen.get(key, ()):
            if not text.startswith(seen.before, pos):
                continue
            end = pos + len(seen.before)
            if seen.after is None:
                self._spec_seen = seen
                return dict(seen.value), end
            name = _PLAIN_VALUE.match(text, end)
            if name is not None and text.startswith(seen.after, name.end()):
                value = dict(seen.value)
                value["nodeName"] = name.group(1)
                self._spec_seen = seen
                return value, name.end() + len(seen.after)
        value, end = self._decode(text, pos)
        if type(value) is dict:
            self._spec_seen = self._learn(key, text[pos:end], value)
        return value, end

    def _learn(self, key: str, spec_text: str, value: dict[str, Any]) -> SeenSpec:
        """Remember ``spec_text``, split around its nodeName value when that is safe."""
        seen = _split(spec_text, value) or SeenSpec(spec_text, None, dict(value))
        if self._count >= _MAX_SPECS:
            self._seen.clear()
            self._count = 0
        found = self._seen.setdefault(key, [])
        found.insert(0, seen)
        self._count += 1
        if len(found) > _PER_PREFIX:
            found.pop()
            self._count -= 1
        return seen


def _split(spec_text: str, value: dict[str, Any]) -> SeenSpec | None:
    """``spec_text`` split around the value of its top-level ``nodeName``, if that is certain.

    The one place ``"nodeName"`` is written must be followed by a plain
    string; it is then certain to be the top-level key when the text with a
    probe name put there decodes to ``value`` with only ``nodeName`` changed
    (a string token replaced by another leaves everything else as it was).
    """
    name = value.get("nodeName")
    if type(name) is not str or name == _PROBE:
        return None
    at = spec_text.find(_NODE_NAME_KEY)
    if at < 0 or spec_text.find(_NODE_NAME_KEY, at + 1) >= 0:
        return None
    colon = _NODE_NAME_VALUE.match(spec_text, at + len(_NODE_NAME_KEY))
    if colon is None:
        return None
    token = _PLAIN_VALUE.match(spec_text, colon.end())
    if token is None:
        return None
    before, after = spec_text[:colon.end()], spec_text[token.end():]
    try:
        probed = json.loads(f'{before}"{_PROBE}"{after}')
    except json.JSONDecodeError:
        return None
    expected = dict(value)
    expected["nodeName"] = _PROBE
    if probed != expected or list(probed) != list(expected):
        return None
    return SeenSpec(before, after, dict(value))
