"""Words shared by the ``expect`` forms of :mod:`.expectations` and :mod:`.dra`.

Pod references (checked against what the scenario declares once every name
is known), lists of them, and ``key=VALUE`` words.
"""

from __future__ import annotations

from .cursor import Cursor, split_commas
from .errors import Source
from .syntax import BList, Item, Word, describe
from .values import pod_ref

__all__ = ["Check", "checked_ref", "checked_refs", "keyed_value"]

Check = tuple[str, str, Item]
"""A reference to check once the names are known: (kind, key, item)."""


def checked_ref(src: Source, w: Word, checks: list[Check], *, glob: bool = True) -> str:
    """The pod reference ``w`` as ``ns/name``, checked once names are known (unless a glob)."""
    ns, name = pod_ref(src, w, glob=glob)
    key = f"{ns}/{name}"
    if "*" not in key:
        checks.append(("pod", key, w))
    return key


def checked_refs(src: Source, blist: BList, checks: list[Check]) -> tuple[str, ...]:
    """A bracketed list of pod references (no globs, none twice), each checked as
    :func:`checked_ref`."""
    out = []
    for entry in split_commas(src, blist):
        w = entry[0]
        if len(entry) != 1 or not isinstance(w, Word) or w.kind != "WORD":
            bad = entry[1] if len(entry) > 1 else w
            raise src.error(f"unexpected {describe(bad)} in the list", bad,
                            expected="pod references separated by commas")
        if "*" in w.value:
            raise src.error("a glob is not allowed in a list of pods; name each pod", w)
        key = checked_ref(src, w, checks, glob=False)
        if key in out:
            raise src.error(f"'{key}' is listed twice", w)
        out.append(key)
    return tuple(out)


def keyed_value(cur: Cursor, key: str) -> Word:
    """Read ``key=VALUE`` and return the value's word."""
    w = cur.word(f"{key}=…")
    name, eq, value = w.value.partition("=")
    if name != key or not eq:
        raise cur.error(f"expected {key}=…, found '{w.value}'", w, expected=f"{key}=…")
    if not value and w.text is None:
        raise cur.error(f"missing value after '{key}='", w, expected=f"{key}=VALUE")
    sub = w.at(len(key) + 1, value)
    sub.text = w.text
    return sub
