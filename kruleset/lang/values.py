"""Values of the language: numbers, quantities, names, references, ranges,
label maps, resource lists, selectors, taints and tolerations."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from ..errors import did_you_mean
from ..model.limits import INT64_MAX, INT64_MIN
from ..model.quantity import QuantityError, parse_duration, parse_percentage, parse_quantity
from ..model.selectors import (
    DOES_NOT_EXIST,
    EFFECTS,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_IN,
    LabelSelector,
    NodeSelectorTerm,
    Requirement,
    Taint,
    Toleration,
)
from .cursor import Cursor, split_commas
from .errors import Source
from .syntax import BList, Group, Item, Word, describe

__all__ = [
    "expand_range",
    "RangeError",
    "integer",
    "quantity",
    "duration",
    "percentage",
    "check_name",
    "check_namespace",
    "pod_ref",
    "labels",
    "resources",
    "label_selector",
    "requirement",
    "node_terms",
    "taint",
    "toleration",
    "word_list",
]

_INT = re.compile(r"[+-]?[0-9]+\Z")
_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?\Z")
_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
_NS = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_RANGE = re.compile(r"\[([0-9]+)\.\.([0-9]+)\]")
_STANDARD_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")
# One range may name up to a million objects (a GKE-size cluster's pods in one
# line); what a scenario may hold in total is bounded by memory (capacity.py).
MAX_RANGE = 1_000_000


class RangeError(ValueError):
    """A range ``[A..B]`` that cannot be expanded."""


def expand_range(text: str) -> list[str]:
    """Expand ``prefix[A..B]suffix`` into the names it stands for.

    Leading zeros in ``A`` give the width (``n[01..10]`` is ``n01 … n10``).
    Text without a range is returned alone.  Raises :class:`RangeError` when
    ``A > B``, when there are two ranges or when the range is too large.
    """
    ranges = list(_RANGE.finditer(text))
    if not ranges:
        return [text]
    if len(ranges) > 1:
        raise RangeError(f"'{text}' has more than one range")
    m = ranges[0]
    lo_s, hi_s = m.group(1), m.group(2)
    lo, hi = int(lo_s), int(hi_s)
    if lo > hi:
        raise RangeError(f"range [{lo_s}..{hi_s}] goes down; write the smaller number first")
    if hi - lo + 1 > MAX_RANGE:
        raise RangeError(f"range [{lo_s}..{hi_s}] has more than {MAX_RANGE:,} names; split it "
                         "into several ranges (for pods, one per node, with 'on NODE')")
    width = len(lo_s) if lo_s.startswith("0") and len(lo_s) > 1 else 0
    prefix, suffix = text[:m.start()], text[m.end():]
    return [f"{prefix}{n:0{width}d}{suffix}" for n in range(lo, hi + 1)]


def integer(src: Source, word: Word, what: str, *, minimum: int | None = None,
            maximum: int | None = None) -> int:
    """A base-10 integer (may be negative unless ``minimum`` says otherwise).

    No Kubernetes integer is wider than 64 bits: without bounds of its own,
    a value is refused outside the int64 range.
    """
    text = word.value
    if not _INT.match(text):
        raise src.error(f"{what} must be a whole number, found '{text[:60]}'", word,
                        expected="a whole number such as 3")
    minimum = INT64_MIN if minimum is None else minimum
    maximum = INT64_MAX if maximum is None else maximum
    # Beyond 40 digits a number is past every bound (and int() refuses 4,300).
    value = int(text) if len(text) <= 40 else (minimum - 1 if text[0] == "-" else maximum + 1)
    shown = text if len(text) <= 60 else text[:57] + "..."
    if value < minimum:
        raise src.error(f"{what} must be at least {minimum}, found {shown}", word)
    if value > maximum:
        raise src.error(f"{what} must be at most {maximum}, found {shown}", word)
    return value


@lru_cache(maxsize=4096)
def _parse_quantity(text: str, resource: str) -> int:
    # Hand-written files repeat the same few quantities; parsing is exact but slow.
    return parse_quantity(text, resource)


def quantity(src: Source, word: Word, resource: str, what: str = "") -> int:
    """A Kubernetes quantity in ``resource``'s internal unit (millicores for cpu)."""
    try:
        value = _parse_quantity(word.value, "cpu" if resource == "cpu" else "memory")
    except QuantityError as exc:
        text = str(exc)
        if "negative" in text:
            raise src.error(f"{what or resource} may not be negative: '{word.value}'", word,
                            expected="a quantity of 0 or more") from None
        raise src.error(f"{what or resource}: {text}", word,
                        expected="a quantity such as 2, 500m, 128Mi, 1Gi") from None
    if resource != "cpu" and "/" in resource:
        try:
            whole = parse_quantity(word.value, "cpu")
        except QuantityError as exc:  # in thousandths it may pass the bound
            raise src.error(f"{resource}: {exc}", word) from None
        if whole % 1000:
            raise src.error(f"{resource} must be a whole number, found '{word.value}'", word)
    return value


@lru_cache(maxsize=1024)
def _parse_duration(text: str, allow_negative: bool) -> int:
    return parse_duration(text, allow_negative=allow_negative)


def duration(src: Source, word: Word, what: str, *, allow_negative: bool = False) -> int:
    """A duration in milliseconds."""
    try:
        return _parse_duration(word.value, allow_negative)
    except QuantityError as exc:
        text = str(exc)
        if "negative" in text:
            raise src.error(f"{what} may not be negative: '{word.value}'", word,
                            expected="a duration such as 30s") from None
        raise src.error(f"{what}: {text}", word,
                        expected="a duration such as 0s, 250ms, 30s, 5m, 1h, 1m30s") from None


def percentage(src: Source, word: Word, what: str) -> Fraction:
    """A percentage ``N%`` (0 to 100) as a Fraction of 100."""
    try:
        return parse_percentage(word.value)
    except QuantityError as exc:
        raise src.error(f"{what}: {exc}", word, expected="a percentage from 0% to 100%") from None


def check_name(src: Source, word: Word | Item, name: str, what: str) -> str:
    """A Kubernetes object name: lower-case letters, digits, '-' and '.'."""
    if len(name) > 253 or not _NAME.match(name):
        raise src.error(
            f"'{name}' is not a valid {what} name", word,
            expected="lower-case letters, digits, '-' and '.', starting and ending with a "
                     "letter or digit")
    return name


def check_namespace(src: Source, word: Word | Item, name: str) -> str:
    """A namespace name: lower-case letters, digits and '-' (no dots)."""
    if len(name) > 63 or not _NS.match(name):
        raise src.error(f"'{name}' is not a valid namespace name", word,
                        expected="lower-case letters, digits and '-', at most 63 characters")
    return name


def pod_ref(src: Source, word: Word, text: str | None = None, *, glob: bool = False,
            what: str = "pod") -> tuple[str, str]:
    """``namespace/name`` (namespace ``default`` when left out) as a pair.

    With ``glob``, ``*`` may stand anywhere; the parts are then not checked.
    """
    text = word.value if text is None else text
    if text.count("/") > 1:
        raise src.error(f"'{text}' is not a {what} reference", word,
                        expected="NAME or NAMESPACE/NAME")
    ns, _, name = text.rpartition("/")
    if not _:
        ns = "default"
    if "*" in text:
        if not glob:
            raise src.error(f"a glob ('*') is only allowed in expectations, found '{text}'",
                            word, expected=f"a {what} name")
        return ns, name
    if not name:
        raise src.error(f"'{text}' has no name after the namespace", word)
    check_namespace(src, word, ns)
    check_name(src, word, name, what)
    return ns, name


@lru_cache(maxsize=4096)
def _label_key_ok(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    if _ and (not prefix or len(prefix) > 253 or not _NAME.match(prefix)):
        return False
    return 0 < len(name) <= 63 and _LABEL_NAME.match(name) is not None


def label_key(src: Source, word: Word | Item, key: str) -> str:
    """A label key: ``[prefix/]name``."""
    if not _label_key_ok(key):
        raise src.error(f"'{key}' is not a valid label key", word,
                        expected="[prefix/]name with letters, digits, '-', '_' and '.'")
    return key


def label_value(src: Source, word: Word | Item, value: str) -> str:
    """A label value: empty or up to 63 letters, digits, '-', '_', '.'."""
    if value and (len(value) > 63 or not _LABEL_NAME.match(value)):
        raise src.error(f"'{value}' is not a valid label value", word,
                        expected="letters, digits, '-', '_' and '.', at most 63; \"\" for empty")
    return value


def _single_word(src: Source, entry: list[Item], what: str) -> Word:
    if len(entry) != 1 or not isinstance(entry[0], Word) or entry[0].kind != "WORD":
        item = entry[1] if len(entry) > 1 else entry[0]
        raise src.error(f"unexpected {describe(item)} in {what}", item,
                        expected=f"one {what} entry per comma")
    return entry[0]


def labels(src: Source, group: Group, what: str = "labels") -> dict[str, str]:
    """``labels(k=v, k="")`` as a dict (a key given twice is refused)."""
    out: dict[str, str] = {}
    for entry in split_commas(src, group):
        w = _single_word(src, entry, what)
        key, eq, value = w.value.partition("=")
        if not eq:
            raise src.error(f"expected key=value in {what}, found '{w.value}'", w,
                            expected='key=value (key="" for an empty value)')
        if w.text is not None:
            value = w.text
        elif not value:
            raise src.error(f"missing value after '{key}='", w.at(len(key) + 1, ""),
                            expected='a value; write key="" for an empty one')
        label_key(src, w, key)
        label_value(src, w.at(len(key) + 1, value), value)
        if key in out:
            raise src.error(f"label '{key}' is given twice", w)
        out[key] = value
    return out


_IMAGE_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@+-]*")


def image_ref(src: Source, word: Word, text: str | None = None) -> str:
    """A container image reference (``nginx``, ``nginx:1.27``, ``reg.io/a/b@sha256:…``)."""
    ref = text if text is not None else word.value
    if not _IMAGE_REF.fullmatch(ref):
        raise src.error(f"'{ref}' is not an image reference", word,
                        expected="an image such as nginx:1.27 or registry.k8s.io/pause:3.10")
    return ref


def node_images(src: Source, group: Group) -> tuple[int, tuple[tuple[tuple[str, ...], int], ...]]:
    """A node's ``images(unused=Q, IMAGE=SIZE, …)``: bytes image GC can free, and the
    images it has (status.images: each name with its size)."""
    unused = 0
    found: dict[str, int] = {}
    for entry in split_commas(src, group):
        w = _single_word(src, entry, "images")
        name, eq, raw = w.value.partition("=")
        if not eq or not name:
            raise src.error(f"expected IMAGE=SIZE or unused=Q in images(…), found '{w.value}'",
                            w, expected="nginx:1.27=150Mi or unused=2Gi")
        if not raw:
            raise src.error(f"missing size after '{name}='", w.at(len(name) + 1, ""),
                            expected="a quantity")
        size = quantity(src, w.at(len(name) + 1, raw), "memory", f"images {name}")
        if name == "unused":
            if unused:
                raise src.error("'unused' is given twice in images(…)", w)
            unused = size
            continue
        image_ref(src, w.at(0, name), name)
        if name in found:
            raise src.error(f"image '{name}' is given twice in images(…)", w)
        found[name] = size
    return unused, tuple(((name,), size) for name, size in found.items())


def check_resource_name(src: Source, word: Word, name: str, *, pods: bool) -> None:
    """Standard resources by name, others must be ``domain/name`` or ``hugepages-…``."""
    if name in _STANDARD_RESOURCES:
        if name == "pods" and not pods:
            raise src.error("'pods' is not a container resource", word,
                            expected="cpu, memory, ephemeral-storage or DOMAIN/NAME")
        return
    if name.startswith("hugepages-") or ("/" in name and _label_key_ok(name)):
        return
    choices = _STANDARD_RESOURCES if pods else _STANDARD_RESOURCES[:3]
    hint = did_you_mean(name, choices)
    msg = f"unknown resource '{name}'" + (f", {hint}" if hint else "")
    raise src.error(msg, word, expected=", ".join(choices) + ", hugepages-SIZE or DOMAIN/NAME "
                    "(an extended resource such as nvidia.com/gpu)")


def resources(src: Source, group: Group, what: str, *, pods: bool = False,
              keys: tuple[str, ...] | None = None) -> dict[str, int]:
    """A resource list ``(cpu=2, memory=1Gi, …)`` as exact integers by name.

    ``keys`` restricts the names allowed (``usage(…)``); ``pods`` allows ``pods``.
    """
    out: dict[str, int] = {}
    for entry in split_commas(src, group):
        w = _single_word(src, entry, what)
        name, eq, raw = w.value.partition("=")
        if not eq:
            raise src.error(f"expected name=quantity in {what}(…), found '{w.value}'", w,
                            expected="name=quantity, e.g. cpu=2")
        if not raw:
            raise src.error(f"missing value after '{name}='", w.at(len(name) + 1, ""),
                            expected="a quantity")
        if keys is not None:
            if name not in keys:
                raise src.unknown(f"key in {what}(…)", name, w, keys,
                                  expected=", ".join(keys))
        else:
            check_resource_name(src, w, name, pods=pods)
        if name in out:
            raise src.error(f"'{name}' is given twice in {what}(…)", w)
        unit = "cpu" if name == "cpu" else ("pods" if keys is not None else name)
        out[name] = quantity(src, w.at(len(name) + 1, raw), unit, f"{what} {name}")
    return out


# --- selectors --------------------------------------------------------------

_OPS = re.compile(r"(!=|==|=|>|<)")


def requirement(src: Source, cur: Cursor, *, gtlt: bool) -> tuple[Requirement, Word]:
    """Read one selector requirement at the cursor; returns it and its key's word."""
    item = cur.next()
    if not isinstance(item, Word) or item.kind != "WORD":
        raise cur.error(f"expected a selector such as app=web, found {describe(item)}", item,
                        expected="key=value, key!=value, key in (…), key notin (…), key, !key")
    text = item.value
    if text.startswith("!"):
        key = text[1:]
        if not key or _OPS.search(key):
            raise src.error(f"'{text}' is not a selector", item, expected="!key")
        return Requirement(label_key(src, item.at(1, key), key), DOES_NOT_EXIST), item
    m = _OPS.search(text)
    if m is None:
        nxt = cur.peek_word()
        if nxt in ("in", "notin") and isinstance(cur.peek(1), Group):
            cur.pos += 1
            group = cur.next()
            assert isinstance(group, Group)
            values = [label_value(src, w, w.value)
                      for w in (_single_word(src, e, "values") for e in split_commas(src, group))]
            if not values:
                raise src.error(f"'{nxt}' needs at least one value", group.open)
            op = IN if nxt == "in" else NOT_IN
            return Requirement(label_key(src, item, text), op, tuple(values)), item
        if nxt is not None and nxt[:1] in (">", "<"):
            op_word = cur.next()
            assert isinstance(op_word, Word)
            text = text + op_word.value
            if op_word.value in (">", "<"):
                val = cur.word("a number after '" + op_word.value + "'")
                text += val.value
            m = _OPS.search(text)
        elif nxt in ("in", "notin"):
            raise cur.error(f"expected '(' after '{nxt}'", cur.peek(1) or cur.end_word(),
                            expected=f"{nxt} (a, b)")
        else:
            return Requirement(label_key(src, item, text), EXISTS), item
    assert m is not None
    key, op, value = text[:m.start()], m.group(), text[m.end():]
    if not key:
        raise src.error(f"missing key before '{op}'", item)
    label_key(src, item, key)
    if op in (">", "<"):
        if not gtlt:
            raise src.error(f"'{op}' is only allowed in node affinity", item,
                            expected="key=value, key!=value, key in (…), key notin (…)")
        if not _INT.match(value):
            raise src.error(f"'{op}' needs a whole number, found '{value}'", item,
                            expected=f"{key} {op} 4")
        return Requirement(key, GT if op == ">" else LT, (value,)), item
    if item.text is not None:
        value = item.text
    elif not value:
        raise src.error(f"missing value after '{key}{op}'", item,
                        expected='a value, or "" for empty')
    if _OPS.search(value):
        raise src.error(f"'{text}' is not a selector", item, expected="key=value")
    label_value(src, item, value)
    return Requirement(key, IN if op in ("=", "==") else NOT_IN, (value,)), item


def _stop(cur: Cursor, stops: tuple[str, ...]) -> bool:
    w = cur.peek_word()
    if w is None:
        return False
    name = w.partition("=")[0]
    return name in stops and ("=" in w or isinstance(cur.peek(1), Group))


def requirements(src: Source, cur: Cursor, *, gtlt: bool, stops: tuple[str, ...] = (),
                 bar: bool = False) -> list[tuple[Requirement, Word]]:
    """Comma-separated requirements at the cursor.

    Reading stops at the end, at a ``|`` (when ``bar``), or at a word that is
    not preceded by a comma.  A word in ``stops`` (``topology=…``) ends the
    selector even at its start, so an empty selector can be left out.
    """
    out: list[tuple[Requirement, Word]] = []
    if cur.at_end() or _stop(cur, stops):
        return out
    while True:
        nxt = cur.peek()
        if bar and isinstance(nxt, Word) and nxt.kind == "BAR":
            raise cur.error("expected a selector before '|'", nxt)
        out.append(requirement(src, cur, gtlt=gtlt))
        nxt = cur.peek()
        if isinstance(nxt, Word) and nxt.kind == "COMMA":
            cur.pos += 1
            if cur.at_end():
                raise cur.error("expected a selector after ','", expected="a selector")
            continue
        return out


def label_selector(src: Source, group: Group) -> LabelSelector:
    """``selector(…)``: the whole group must be requirements."""
    cur = Cursor(src, group.items, group.open)
    reqs = requirements(src, cur, gtlt=False)
    cur.done(expected="',' between selectors")
    return LabelSelector(tuple(r for r, _ in reqs))


def node_terms(src: Source, cur: Cursor, *, ored: bool) -> list[NodeSelectorTerm]:
    """Node affinity terms: requirements, ``|`` between ORed terms when ``ored``.

    Key ``metadata.name`` goes to the term's fields (matchFields), which take
    In or NotIn with exactly one value, as the API server requires.
    """
    terms = []
    while True:
        start = cur.here()
        reqs = requirements(src, cur, gtlt=True, bar=True)
        if not reqs:
            raise cur.error("expected a node selector such as zone=a", start,
                            expected="key=value, key in (…), key > N, …")
        exprs: list[Requirement] = []
        fields: list[Requirement] = []
        for req, word in reqs:
            if req.key == "metadata.name":
                if req.operator not in (IN, NOT_IN) or len(req.values) != 1:
                    raise src.error("metadata.name takes In or NotIn with exactly one value",
                                    word, expected="metadata.name=NODE or metadata.name!=NODE")
                fields.append(req)
            else:
                exprs.append(req)
        terms.append(NodeSelectorTerm(tuple(exprs), tuple(fields)))
        nxt = cur.peek()
        if isinstance(nxt, Word) and nxt.kind == "BAR":
            if not ored:
                raise cur.error("'|' is only allowed in affinity node required", nxt)
            cur.pos += 1
            continue
        return terms


# --- taints and tolerations -------------------------------------------------

def _effect(src: Source, word: Word, effect: str, offset: int) -> str:
    if effect not in EFFECTS:
        hint = did_you_mean(effect, EFFECTS)
        raise src.error(f"unknown taint effect '{effect}'" + (f", {hint}" if hint else ""),
                        word.at(offset, effect), expected=" | ".join(EFFECTS))
    return effect


def taint(src: Source, word: Word, *, need_effect: bool = True) -> Taint:
    """``key=value:Effect`` or ``key:Effect``."""
    text = word.value
    head, colon, effect = text.partition(":")
    key, eq, value = head.partition("=")
    if not colon and need_effect:
        raise src.error(f"taint '{text}' needs an effect", word,
                        expected="key=value:Effect or key:Effect (NoSchedule, "
                                 "PreferNoSchedule, NoExecute)")
    if not key:
        raise src.error(f"taint '{text}' has no key", word, expected="key=value:Effect")
    label_key(src, word, key)
    if eq and not value:
        raise src.error(f"missing value after '{key}='", word, expected="key=value:Effect")
    label_value(src, word, value)
    return Taint(key, value, _effect(src, word, effect, len(head) + 1))


def toleration(src: Source, entry: list[Item]) -> Toleration:
    """One toleration: ``key=value:Effect``, ``key:Effect``, ``key=value``, ``key``,
    ``*:Effect``, ``*``, each optionally followed by ``for DURATION``."""
    word = entry[0]
    if not isinstance(word, Word) or word.kind != "WORD":
        raise src.error(f"expected a toleration, found {describe(word)}", word,
                        expected="key=value:Effect, key:Effect, key=value, key, *:Effect or *")
    text = word.value
    head, colon, effect = text.partition(":")
    key, eq, value = head.partition("=")
    if colon:
        _effect(src, word, effect, len(head) + 1)
    if key == "*":
        if eq:
            raise src.error("'*' tolerates every key and takes no value", word,
                            expected="* or *:Effect")
        key, operator = "", "Exists"
    else:
        if not key:
            raise src.error(f"toleration '{text}' has no key", word, expected="key=value:Effect")
        label_key(src, word, key)
        operator = "Equal" if eq else "Exists"
        if eq and not value:
            raise src.error(f"missing value after '{key}='", word, expected="key=value")
        label_value(src, word, value)
    seconds = None
    if len(entry) > 1:
        cur = Cursor(src, entry[1:])
        cur.keyword("for")
        dw = cur.word("a duration after 'for'")
        cur.done()
        ms = duration(src, dw, "toleration time")
        if ms % 1000:
            raise src.error("tolerationSeconds is counted in whole seconds", dw,
                            expected="a duration such as 60s or 5m")
        if effect != "NoExecute":
            raise src.error("'for' (tolerationSeconds) needs the NoExecute effect", entry[1],
                            expected=f"{text.partition(':')[0]}:NoExecute for …")
        seconds = ms // 1000
    return Toleration(key, operator, value, effect, seconds)


def word_list(src: Source, group: Group | BList, what: str) -> list[Word]:
    """A list of single words ``(a, b, c)``."""
    return [_single_word(src, e, what) for e in split_commas(src, group)]
