"""Which fields a Kubernetes object or component configuration may have.

``kubectl --validate=strict`` and the component config loaders refuse a
field their API does not define; kruleset does the same before reading a
document, so ``priorityClasName`` or ``evictionHrad`` is an error naming the
field and the nearest known name instead of a default silently used.

A schema is written with plain values:

* a ``dict`` is an object whose keys are the only fields allowed;
* :data:`ANY` accepts any value (subtrees kruleset does not read: volume
  sources, probes, status details), so newer fields there never fail a load;
* ``[S]`` is a list of ``S``; :class:`MapOf` a mapping of any keys to ``S``;
* ``str``, ``int``, ``bool``, ``float`` (any number) and ``QTY`` (a number or
  a string) check the type too (component configuration arguments, which
  kruleset reads without a typed reader of its own);
* :class:`Unsimulated` wraps a field that is read but not simulated: giving
  it is a warning naming it.

:func:`check` walks a value and returns every problem, so a file reports all
its unknown fields in one run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import NOTICES, STRICT, ScenarioError, combined, did_you_mean, notice

if TYPE_CHECKING:
    from ._fields import Doc

__all__ = ["ANY", "NOTICES", "QTY", "STRICT", "MapOf", "Problem", "Unsimulated", "check",
           "notice", "vet"]

MAX_ERRORS = 50  # per file: enough to fix a file in one go, bounded for a broken dump


def vet(doc: Doc, value: Any, schema: Any, path: str = "",
        warnings: dict[str, int] | None = None, *, types: bool = False) -> None:
    """Check ``value`` at ``path`` of ``doc``: raise every error found, note the warnings.

    Unknown fields are errors unless :data:`STRICT` is off; warnings are
    counted in ``warnings`` (message -> objects) when given, else noticed.
    ``types``: a mapping or list of the wrong type is an error too (for
    values no typed reader checks, such as plugin args).
    """
    errors: list[ScenarioError] = []
    for p in check(value, schema, path, types):
        if p.level == "warning" or (p.level == "unknown" and not STRICT.get()):
            field = doc.prefix + p.field
            text = p.message if p.level == "warning" else \
                f"field {_shape(p.field)}: {p.message}, ignored ({p.suggestion})"
            if warnings is not None:
                warnings[text] = warnings.get(text, 0) + 1
            else:
                notice(f"{doc.file}: warning: {text}" if p.level != "warning"
                       else f"{doc.file}: warning: {text} ({field})")
            continue
        errors.append(doc.error(p.field, p.message, p.suggestion))
        if len(errors) >= MAX_ERRORS:
            break
    if errors:
        raise combined(errors)


_INDEXES = re.compile(r"\[[0-9]+\]")


def _shape(field: str) -> str:
    """A field path without list indexes: one warning for every item of a list."""
    return _INDEXES.sub("[]", field)


class _Any:
    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()
QTY: Any = object()


class MapOf(NamedTuple):
    """A mapping of any string keys to values of one schema."""

    value: Any


class Unsimulated(NamedTuple):
    """A field kruleset reads but does not simulate: a warning when it is given
    (unless it is ``default``, the value the API server fills in, which every
    dump has and which asks for nothing the simulation leaves out)."""

    schema: Any
    why: str
    default: Any = None


class Problem(NamedTuple):
    """One finding: ``level`` is ``unknown`` (an unknown field), ``type`` or ``warning``."""

    level: str
    field: str
    message: str
    suggestion: str = ""


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false", float: "a number"}


def _type_ok(schema: Any, value: Any) -> bool:
    if schema is bool:
        return isinstance(value, bool)
    if schema is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if schema is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if schema is QTY:
        return isinstance(value, int | float | str) and not isinstance(value, bool)
    return isinstance(value, schema)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def check(value: Any, schema: Any, path: str = "", types: bool = False) -> Iterator[Problem]:
    """Every problem of ``value`` against ``schema``; ``path`` prefixes the field paths.

    A value of the wrong container type (a list where a mapping belongs) is
    left to the typed readers, which say what they expected, unless
    ``types``; typed scalars are always checked.
    """
    if schema is ANY or value is None:
        return
    if type(schema) is dict:
        if type(value) is not dict:
            if types:
                yield Problem("type", path, f"expected a mapping, found {value!r}")
            return
        for key, sub in value.items():
            field = schema.get(key) if type(key) is str else None
            if field is None:
                name = str(key)
                yield Problem("unknown", _join(path, name),
                              f"unknown field \"{name}\"",
                              did_you_mean(name, schema) or
                              f"known fields here: {', '.join(sorted(schema))}")
                continue
            if field is not ANY:
                yield from check(sub, field, _join(path, key), types)
        return
    if type(schema) is list:
        if type(value) is list:
            for i, item in enumerate(value):
                if item is None and schema[0] is not ANY:
                    # What a null item would decode to upstream (an empty
                    # object or value) is never what was meant: refused.
                    yield Problem("type", f"{path}[{i}]", "a list item is null",
                                  "remove the item or give its fields")
                    continue
                yield from check(item, schema[0], f"{path}[{i}]", types)
        elif types:
            yield Problem("type", path, f"expected a list, found {value!r}")
        return
    if type(schema) is MapOf:
        if type(value) is dict and schema.value is not ANY:
            for key, sub in value.items():
                yield from check(sub, schema.value, _join(path, str(key)), types)
        elif types and type(value) is not dict:
            yield Problem("type", path, f"expected a mapping, found {value!r}")
        return
    if type(schema) is Unsimulated:
        if schema.default is not None and value == schema.default:
            yield from check(value, schema.schema, path, types)
            return
        yield Problem("warning", path, f"{_shape(path)} is read but not simulated by kruleset: "
                                       f"{schema.why}")
        yield from check(value, schema.schema, path, types)
        return
    if not _type_ok(schema, value):
        want = "a quantity (a number or a string)" if schema is QTY else _TYPE_NAMES[schema]
        yield Problem("type", path, f"expected {want}, found {value!r}")
