"""Kubernetes quantities as exact integers.

CPU is kept in millicores and everything else in base units (bytes, counts).
Parsing follows ``k8s.io/apimachinery/pkg/api/resource``: a signed decimal
number followed by a binary-SI suffix (Ki … Ei), a decimal-SI suffix (n u m ""
k M G T P E) or a decimal exponent (e3, E-2).  Converting to an integer rounds
up, as ``Quantity.Value()`` and ``MilliValue()`` do.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = [
    "MAX_QUANTITY",
    "QuantityError",
    "format_cpu",
    "format_bytes",
    "format_quantity",
    "parse_duration",
    "format_duration",
    "parse_quantity",
    "parse_percentage",
    "resource_unit",
    "exact_value",
]

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|[eE](?P<exp>[+-]?[0-9]+)|(?P<dec>[numkMGTPE]?))$"
)


# The largest value a quantity may have in its internal unit: Kubernetes keeps
# Value() and MilliValue() in an int64, and the scheduler and kubelet compute
# with those, so a larger quantity cannot come from a real cluster.
MAX_QUANTITY = 2**63 - 1
_MAX_TEXT = 64  # characters: no int64 quantity needs more


class QuantityError(ValueError):
    """A quantity, percentage or duration that does not parse."""


def resource_unit(resource: str) -> int:
    """How many internal units make one of ``resource``: 1000 for cpu, else 1."""
    return 1000 if resource == "cpu" else 1


def exact_value(text: str) -> Fraction:
    """A Kubernetes quantity's exact value (in its unit, not scaled to milli), or
    :class:`QuantityError`."""
    if len(text) > _MAX_TEXT:
        raise QuantityError(f"'{text[:20]}…' ({len(text)} characters) is too long to be "
                            f"a quantity: the largest is {MAX_QUANTITY}")
    m = _QUANTITY.match(text)
    if not m:
        raise QuantityError(
            f"'{text}' is not a quantity (examples: 2, 500m, 128Mi, 1Gi, 1e3, 100k)"
        )
    value = Fraction(m.group("num"))
    if m.group("bin"):
        value *= _BINARY[m.group("bin")]
    elif m.group("exp") is not None:
        exp = int(m.group("exp"))
        if abs(exp) > 30:
            raise QuantityError(f"'{text}': exponent out of range")
        value *= Fraction(10) ** exp
    else:
        value *= _DECIMAL[m.group("dec") or ""]
    if m.group("sign") == "-":
        value = -value
    return value


def parse_quantity(text: str, resource: str = "memory", *, allow_negative: bool = False) -> int:
    """Parse ``text`` into an exact integer of ``resource``'s internal unit.

    >>> parse_quantity("500m", "cpu"), parse_quantity("2", "cpu"), parse_quantity("1Ki")
    (500, 2000, 1024)
    """
    value = exact_value(text) * resource_unit(resource)
    if value < 0 and not allow_negative:
        raise QuantityError(f"'{text}': a quantity may not be negative")
    # Value()/MilliValue() round up (towards +inf) to the next integer.
    n = -((-value.numerator) // value.denominator)
    if abs(n) > MAX_QUANTITY:
        unit = "millicores" if resource == "cpu" else "units"
        raise QuantityError(f"'{text}' is too large: a quantity holds at most {MAX_QUANTITY} "
                            f"{unit} (a 64-bit integer, as in Kubernetes)")
    return int(n)


def parse_percentage(text: str) -> Fraction:
    """``'10%'`` -> ``Fraction(10)``; refuses values outside 0-100."""
    t = text.strip()
    if not t.endswith("%"):
        raise QuantityError(f"'{text}' is not a percentage (example: 10%)")
    try:
        value = Fraction(t[:-1])
    except (ValueError, ZeroDivisionError):
        raise QuantityError(f"'{text}' is not a percentage (example: 10%)") from None
    if value < 0:
        raise QuantityError(f"'{text}': a percentage may not be negative")
    if value > 100:
        raise QuantityError(f"'{text}': a percentage may not be over 100%")
    return value


_DURATION_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|h|m|s)")


def parse_duration(text: str, *, allow_negative: bool = False) -> int:
    """Parse a Go-style duration (``250ms``, ``1m30s``, ``1h``) into milliseconds."""
    t = text.strip()
    sign = 1
    if t.startswith("-"):
        if not allow_negative:
            raise QuantityError(f"'{text}': a duration may not be negative here")
        sign, t = -1, t[1:]
    elif t.startswith("+"):
        t = t[1:]
    if t == "0":
        return 0
    pos, total = 0, Fraction(0)
    scale = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
    while pos < len(t):
        m = _DURATION_PART.match(t, pos)
        if not m:
            raise QuantityError(f"'{text}' is not a duration (examples: 0s, 250ms, 30s, 5m, 1m30s)")
        total += Fraction(m.group(1)) * scale[m.group(2)]
        pos = m.end()
    if not t:
        raise QuantityError(f"'{text}' is not a duration (examples: 0s, 250ms, 30s, 5m, 1m30s)")
    if total.denominator != 1:
        raise QuantityError(f"'{text}': durations are counted in whole milliseconds")
    return sign * int(total)


def format_duration(ms: int) -> str:
    """Milliseconds as a short Go-style duration: ``90000`` -> ``1m30s``."""
    if ms == 0:
        return "0s"
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    out = []
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    if h:
        out.append(f"{h}h")
    if m:
        out.append(f"{m}m")
    if s or (ms and not out):
        if ms:
            out.append(f"{s}.{ms:03d}".rstrip("0") + "s")
        else:
            out.append(f"{s}s")
    elif ms:
        out.append(f"{ms}ms")
    return sign + "".join(out)


def format_cpu(millis: int) -> str:
    """Millicores the way kubectl prints them: ``2000`` -> ``2``, ``500`` -> ``500m``."""
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def format_bytes(n: int) -> str:
    """Bytes with the largest exact binary suffix: ``1073741824`` -> ``1Gi``."""
    if n == 0:
        return "0"
    for suffix, size in reversed(list(_BINARY.items())):
        if n % size == 0:
            return f"{n // size}{suffix}"
    for suffix in ("E", "P", "T", "G", "M", "k"):
        size = int(_DECIMAL[suffix])
        if n % size == 0:
            return f"{n // size}{suffix}"
    return str(n)


def format_quantity(resource: str, value: int) -> str:
    """Format ``value`` (internal units of ``resource``) as a Kubernetes quantity."""
    if resource == "cpu":
        return format_cpu(value)
    if resource in ("pods",) or "inodes" in resource or resource.startswith("pid"):
        return str(value)
    return format_bytes(value)
