"""What a ``.kr`` file declares for DRA, and the CEL selectors its statements hold.

:class:`DraNames` (kept on the reading context by :func:`names_of`) records the
classes, claims, templates, pools and devices declared so far, and the names
used before they are declared, for :func:`.dra.check_names` at the end of the
file.  :func:`cel_selector` compiles a ``"CEL"`` string as the API server does
on create, refusing a bad one at the ``.kr`` line and column of the offending
character.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ScenarioError
from ..model.dra import CelSelector
from ..model.dra_cel import CelCompileError, check
from .context import Context
from .cursor import Attr, split_commas
from .errors import Source
from .syntax import Group, Item, Word

__all__ = ["DraNames", "cel_selector", "dns_label", "name_words", "names_of", "selector_attr"]

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class DraNames:
    """What the file declares for DRA, for references checked at the end."""

    def __init__(self) -> None:
        self.classes: dict[str, Any] = {}
        self.templates: dict[str, Any] = {}
        self.claims: dict[str, Any] = {}
        # device name -> (driver, pool, name, node) of each device so called
        self.devices: dict[str, list[tuple[str, str, str, str]]] = {}
        self.pools: dict[tuple[str, str], list[tuple[int, bool]]] = {}  # -> (generation, counted)
        self.later: list[tuple[str, str, Item, str]] = []  # (kind, key, item, near)
        self.allocated: dict[str, str] = {}  # device id -> claim key
        self.running_claims: list[tuple[str, str, Item]] = []  # (pod key, claim key, item)
        self.gates: dict[str, Any] = {}


def names_of(ctx: Context) -> DraNames:
    """The DRA names of this file (kept on the context)."""
    got = getattr(ctx, "dra", None)
    if got is None:
        got = DraNames()
        ctx.dra = got  # type: ignore[attr-defined]
    return got


def dns_label(src: Source, w: Item, name: str, what: str) -> str:
    """``name`` when it is a DNS label, else a refusal at ``w`` calling it ``what``."""
    if not _DNS_LABEL.match(name) or len(name) > 63:
        raise src.error(f"{what} '{name}' is not a DNS label", w,
                        expected="lower-case letters, digits and '-', at most 63 characters")
    return name



# --- CEL ---------------------------------------------------------------------

def _raw_offsets(raw: str) -> list[int]:
    """For each character of a decoded ``"…"`` string, its offset in the raw text."""
    out: list[int] = []
    i = 1
    while i < len(raw) - 1:
        out.append(i)
        i += 2 if raw[i] == "\\" else 1
    out.append(i)
    return out


def cel_selector(src: Source, w: Word) -> CelSelector:
    """A ``"CEL"`` string compiled, or a refusal at the offending character."""
    text = w.text or ""
    raw = w.value[w.value.index('"'):] if '"' in w.value else w.value
    base = w.column + (len(w.value) - len(raw))
    try:
        check(text)
    except CelCompileError as exc:
        lines = text.split("\n")
        offset = sum(len(x) + 1 for x in lines[:exc.line - 1]) + exc.column - 1
        offsets = _raw_offsets(raw)
        col = base + offsets[min(offset, len(offsets) - 1)]
        raise ScenarioError(exc.message, src.span_at(w.line, col),
                            expected="a CEL expression over 'device' giving a bool") from None
    return CelSelector(text, src.span(w))


def selector_attr(src: Source, attr: Attr) -> CelSelector:
    """The compiled selector of a ``selector("CEL")`` attribute."""
    if attr.group is None or len(attr.group.items) != 1 or not isinstance(
            attr.group.items[0], Word) or attr.group.items[0].kind != "STRING":
        raise src.error("a selector is written selector(\"CEL\")", attr.key,
                        expected="selector(\"device.driver == 'd'\")")
    return cel_selector(src, attr.group.items[0])



def name_words(src: Source, group: Group) -> list[Word]:
    """The names of a ``(A, B, …)`` group, one word each."""
    out = []
    for entry in split_commas(src, group):
        w = entry[0]
        if len(entry) != 1 or not isinstance(w, Word) or w.kind != "WORD":
            raise src.error("expected a name", w)
        out.append(w)
    return out

