"""Typed reading of decoded YAML/JSON values, with errors that name the field.

Every reader takes a :class:`Doc` (which file and document it is in) and the
field path written the way a user finds it in the file
(``spec.containers[0].resources.requests.cpu``).  Quantities and resource maps
are parsed through small caches: a cluster dump repeats the same few strings
(``100m``, ``128Mi``) hundreds of thousands of times.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, NoReturn

from ..errors import ManifestError, Span
from ..model.limits import INT64_MAX, INT64_MIN
from ..model.quantity import QuantityError, parse_percentage, parse_quantity
from ..model.resources import ZERO, Resources
from ..model.selectors import LabelSelector, Requirement

__all__ = [
    "MATCH_NOTHING",
    "Doc",
    "boolean",
    "integer",
    "int_or_percent",
    "label_selector",
    "mapping",
    "quantity",
    "resources",
    "seq",
    "string",
    "string_list",
    "string_map",
    "timestamp_ms",
]

# A null label selector selects no object at all (apimachinery
# LabelSelectorAsSelector(nil) is labels.Nothing()), which LabelSelector cannot
# say directly.  An ``In`` requirement with no values never matches and the API
# server refuses one in real objects, so it cannot be confused with user input.
MATCH_NOTHING = LabelSelector((Requirement("", "In", ()),))

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class Doc:
    """Where a value comes from: the file, the 1-based document and a field prefix."""

    __slots__ = ("file", "document", "prefix", "span")

    def __init__(self, file: str, document: int | None, prefix: str = "",
                 span: Span | None = None) -> None:
        self.file = file
        self.document = document
        self.prefix = prefix  # "items[3]." inside a kind: List
        self.span = span

    def error(self, field: str, message: str, suggestion: str = "") -> ManifestError:
        """A :class:`ManifestError` for ``field`` of this document, with its line in the file."""
        from .lines import locate

        path = self.prefix + field if field else self.prefix.rstrip(".")
        where = locate(self.file, self.document, path)
        return ManifestError(message, file=self.file, document=self.document, field=path,
                             span=self.span, suggestion=suggestion,
                             line=where[0] if where else None)

    def fail(self, field: str, message: str, suggestion: str = "") -> NoReturn:
        """Raise :meth:`error`."""
        raise self.error(field, message, suggestion)


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def mapping(doc: Doc, value: object, field: str) -> dict[str, Any]:
    """A mapping (``{}`` for an absent or null value)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        doc.fail(field, f"expected a mapping, found {_type_name(value)}")
    return value


def seq(doc: Doc, value: object, field: str) -> list[Any]:
    """A list (``[]`` for an absent or null value)."""
    if value is None:
        return []
    if not isinstance(value, list):
        doc.fail(field, f"expected a list, found {_type_name(value)}")
    return value


def string(doc: Doc, value: object, field: str, default: str = "") -> str:
    """A string (``default`` when absent)."""
    if value is None:
        return default
    if not isinstance(value, str):
        doc.fail(field, f"expected a string, found {_type_name(value)}")
    return value


def choice(doc: Doc, value: object, field: str, choices: tuple[str, ...], default: str) -> str:
    """A string that must be one of ``choices`` (``default`` when absent)."""
    text = string(doc, value, field, default)
    if text not in choices:
        from ..errors import did_you_mean

        doc.fail(field, f"'{text}' is not one of {', '.join(choices)}",
                 did_you_mean(text, choices))
    return text


def integer(doc: Doc, value: object, field: str, default: int | None = None,
            minimum: int | None = None, maximum: int | None = None) -> int | None:
    """An integer (``default`` when absent), within bounds (int64 when none is given)."""
    if value is None:
        return default
    minimum = INT64_MIN if minimum is None else minimum
    maximum = INT64_MAX if maximum is None else maximum
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            doc.fail(field, f"expected an integer, found {_type_name(value)} ({value!r})")
    if minimum is not None and value < minimum:
        doc.fail(field, f"{value} is below the minimum {minimum}")
    if maximum is not None and value > maximum:
        doc.fail(field, f"{value} is above the maximum {maximum}")
    return value


def boolean(doc: Doc, value: object, field: str, default: bool = False) -> bool:
    """A boolean (``default`` when absent)."""
    if value is None:
        return default
    if not isinstance(value, bool):
        doc.fail(field, f"expected true or false, found {_type_name(value)} ({value!r})")
    return value


def string_list(doc: Doc, value: object, field: str) -> tuple[str, ...]:
    """A list of strings as a tuple."""
    items = seq(doc, value, field)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            doc.fail(f"{field}[{i}]", f"expected a string, found {_type_name(item)}")
    return tuple(items)


def string_map(doc: Doc, value: object, field: str) -> dict[str, str]:
    """A mapping of strings to strings (labels, annotations, nodeSelector)."""
    m = mapping(doc, value, field)
    for k, v in m.items():
        if not isinstance(k, str):
            doc.fail(f"{field}.{k}", f"the key {k!r} is not a string", "quote the key")
        if not isinstance(v, str):
            doc.fail(f"{field}.{k}", f"expected a string, found {_type_name(v)} ({v!r})",
                     "quote the value" if v is not None else "")
    return m


@lru_cache(maxsize=4096)
def _cached_quantity(text: str, resource: str) -> int:
    return parse_quantity(text, resource)


def quantity(doc: Doc, value: object, field: str, resource: str) -> int:
    """A Kubernetes quantity (a string or a bare number) in ``resource``'s unit."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        doc.fail(field, f"expected a quantity such as 500m or 1Gi, found {_type_name(value)}")
    # cpu is the only resource whose internal unit differs; everything else
    # shares one cache entry per string.
    try:
        return _cached_quantity(str(value), "cpu" if resource == "cpu" else "memory")
    except QuantityError as e:
        doc.fail(field, str(e))


_RESOURCES_CACHE: dict[tuple[tuple[str, object], ...], Resources] = {}


def resources(doc: Doc, value: object, field: str) -> Resources:
    """A resource list (``{cpu: 500m, memory: 1Gi}``) as :class:`Resources`."""
    if value is None:
        return ZERO
    if not isinstance(value, dict):
        doc.fail(field, f"expected a mapping of resource names to quantities, "
                        f"found {_type_name(value)}")
    if not value:
        return ZERO
    try:
        key = tuple(value.items())
        cached = _RESOURCES_CACHE.get(key)
    except TypeError:  # an unhashable value: let the slow path name it
        key, cached = (), None
    if cached is not None:
        return cached
    parsed = {}
    for name, text in value.items():
        if not isinstance(name, str) or not name:
            doc.fail(field, f"resource name {name!r} is not a string")
        parsed[name] = quantity(doc, text, f"{field}.{name}", name)
    res = Resources.of(parsed)
    if key:
        if len(_RESOURCES_CACHE) > 50_000:
            _RESOURCES_CACHE.clear()
        _RESOURCES_CACHE[key] = res
    return res


def int_or_percent(doc: Doc, value: object, field: str) -> int | str | None:
    """An IntOrString that must be a non-negative integer or a percentage ``"N%"``."""
    if value is None:
        return None
    if isinstance(value, bool):
        doc.fail(field, "expected an integer or a percentage such as 50%, found a boolean")
    if isinstance(value, int):
        if value < 0:
            doc.fail(field, f"{value} may not be negative")
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            try:
                pct = parse_percentage(text)
            except QuantityError as e:
                doc.fail(field, str(e))
            if pct.denominator != 1:
                doc.fail(field, f"'{value}': a percentage must be a whole number")
            return f"{int(pct)}%"
        if text.isdigit():
            # An IntOrString holding a digit string is a string, and the
            # API server refuses it for these fields; say so plainly.
            doc.fail(field, f"'{value}' is a string; write {text} without quotes "
                            f"or a percentage such as {text}%")
    doc.fail(field, f"expected an integer or a percentage such as 50%, found {value!r}")


def _requirement(doc: Doc, expr: object, field: str) -> Requirement:
    e = mapping(doc, expr, field)
    key = string(doc, e.get("key"), f"{field}.key")
    if not key:
        doc.fail(f"{field}.key", "a requirement needs a key")
    op = choice(doc, e.get("operator"), f"{field}.operator", _SELECTOR_OPERATORS, "")
    values = string_list(doc, e.get("values"), f"{field}.values")
    if op in ("In", "NotIn") and not values:
        doc.fail(f"{field}.values", f"operator {op} needs at least one value")
    if op in ("Exists", "DoesNotExist") and values:
        doc.fail(f"{field}.values", f"operator {op} takes no values")
    return Requirement(key, op, values)


def label_selector(doc: Doc, value: object, field: str) -> LabelSelector | None:
    """A metav1.LabelSelector: ``None`` when absent, empty for ``{}``.

    matchLabels come first (sorted by key), then matchExpressions in order.
    """
    if value is None:
        return None
    sel = mapping(doc, value, field)
    reqs = [Requirement(k, "In", (v,)) for k, v in
            sorted(string_map(doc, sel.get("matchLabels"), f"{field}.matchLabels").items())]
    for i, expr in enumerate(seq(doc, sel.get("matchExpressions"), f"{field}.matchExpressions")):
        reqs.append(_requirement(doc, expr, f"{field}.matchExpressions[{i}]"))
    return LabelSelector(tuple(reqs))


def timestamp_ms(doc: Doc, value: object, field: str) -> int | None:
    """An RFC 3339 time as milliseconds since the epoch (``None`` when absent)."""
    if value is None:
        return None
    if isinstance(value, datetime):  # an unquoted time in hand-written YAML
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            doc.fail(field, f"'{value}' is not an RFC 3339 time such as 2024-05-01T12:00:00Z")
    else:
        doc.fail(field, f"expected an RFC 3339 time, found {_type_name(value)}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MILLISECOND


def get_path(obj: Mapping[str, Any], *keys: str) -> object:
    """``obj[k1][k2]…`` or ``None`` when any step is missing or not a mapping."""
    cur: object = obj
    for k in keys:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(k)
    return cur
