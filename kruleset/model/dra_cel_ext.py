"""The CEL libraries of v1.35's DRA environment that the CEL library lacks.

Upstream compiles device selectors in the Kubernetes base environment
(``k8s.io/apiserver/pkg/cel/environment``): cel-go's string extensions
(``charAt``, ``indexOf``, ``lastIndexOf``, ``lowerAscii``, ``upperAscii``,
``replace``, ``split``, ``substring``, ``trim``, ``join``, ``format``,
``strings.quote``), ``cel.bind``, the Kubernetes lists library (``isSorted``,
``sum``, ``min``, ``max``, ``indexOf``, ``lastIndexOf``), regex (``find``,
``findAll``), URLs (``url``, ``isURL`` and the getters), IP addresses and
CIDRs (``ip``, ``isIP``, ``cidr``, ``isCIDR`` and their methods), and
``sets.contains|equivalent|intersects``, ``lists.range``.  Each is a Python
function here, with cel-go's runtime error texts (``index out of range: N``,
``no such overload``).  The macros (``all``, ``exists``, ``exists_one``,
``map``, ``filter``, ``has``) are the CEL library's own; ``cel.bind`` and the
namespaced functions are rewritten before compiling (:func:`rewrite`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

__all__ = ["EXTENSIONS", "CelExtError", "rewrite"]


class CelExtError(RuntimeError):
    """A runtime error of an extension function, in cel-go's words."""


_URL = "__url__"
_IP = "__ip__"
_CIDR = "__cidr__"


def _overload() -> CelExtError:
    return CelExtError("no such overload")


def _str(x: Any) -> str:
    if not isinstance(x, str):
        raise _overload()
    return x


def _int(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise _overload()
    return x


def _tagged(x: Any, tag: str) -> str | None:
    return x[tag] if isinstance(x, dict) and tag in x else None


# --- strings (cel-go ext.Strings, version 2) ------------------------------------------------

def _char_at(s: Any, i: Any) -> str:
    s, i = _str(s), _int(i)
    if i < 0 or i > len(s):
        raise CelExtError(f"index out of range: {i}")
    return s[i:i + 1]


def _index_of(s: Any, sub: Any, start: Any = 0) -> int:
    if isinstance(s, list):
        return next((i for i, v in enumerate(s) if _equal(v, sub)), -1)
    s, sub, start = _str(s), _str(sub), _int(start)
    if start < 0 or start >= max(len(s), 1) and start != 0:
        raise CelExtError(f"index out of range: {start}")
    return s.find(sub, start)


def _last_index_of(s: Any, sub: Any, end: Any = None) -> int:
    if isinstance(s, list):
        return next((i for i in range(len(s) - 1, -1, -1) if _equal(s[i], sub)), -1)
    s, sub = _str(s), _str(sub)
    if end is None:
        return s.rfind(sub)
    end = _int(end)
    if end < 0 or end >= max(len(s), 1) and end != 0:
        raise CelExtError(f"index out of range: {end}")
    return s.rfind(sub, 0, end + len(sub))


def _lower(s: Any) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in _str(s))


def _upper(s: Any) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in _str(s))


def _replace(s: Any, old: Any, new: Any, n: Any = -1) -> str:
    n = _int(n)
    return _str(s).replace(_str(old), _str(new), n if n >= 0 else -1)


def _split(s: Any, sep: Any, n: Any = -1) -> list[str]:
    s, sep, n = _str(s), _str(sep), _int(n)
    if n == 0:
        return []
    if sep == "":
        parts = list(s)
        if n > 0 and len(parts) > n:
            parts = parts[:n - 1] + ["".join(parts[n - 1:])]
        return parts
    return s.split(sep, n - 1) if n > 0 else s.split(sep)


def _substring(s: Any, start: Any, end: Any = None) -> str:
    s, start = _str(s), _int(start)
    stop = len(s) if end is None else _int(end)
    if start < 0 or start > len(s):
        raise CelExtError(f"index out of range: {start}")
    if stop < 0 or stop > len(s):
        raise CelExtError(f"index out of range: {stop}")
    if start > stop:
        raise CelExtError(f"invalid substring range. start: {start}, end: {stop}")
    return s[start:stop]


def _join(xs: Any, sep: Any = "") -> str:
    if not isinstance(xs, list):
        raise _overload()
    return _str(sep).join(_str(x) for x in xs)


def _quote(s: Any) -> str:
    out = ['"']
    for c in _str(s):
        out.append({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r",
                    "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}.get(c, c))
    out.append('"')
    return "".join(out)


_VERB = re.compile(r"%(?:\.(\d+))?([sdfeEbxXo%])")


def _format(fmt: Any, args: Any) -> str:
    fmt = _str(fmt)
    if not isinstance(args, list):
        raise _overload()
    out: list[str] = []
    pos = 0
    i = 0
    for m in _VERB.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        verb = m.group(2)
        if verb == "%":
            out.append("%")
            continue
        if i >= len(args):
            raise CelExtError(f"index {i} out of range")
        out.append(_formatted(verb, m.group(1), args[i]))
        i += 1
    out.append(fmt[pos:])
    return "".join(out)


def _formatted(verb: str, precision: str | None, v: Any) -> str:
    if verb == "s":
        return _as_string(v)
    if verb == "d":
        return str(_int(v))
    if verb in "fe" or verb == "E":
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise _overload()
        p = 6 if precision is None else int(precision)
        return f"{float(v):.{p}{verb}}"
    n = _int(v) if not isinstance(v, str) else None
    if verb in "xX" and isinstance(v, str):
        text = v.encode().hex()
        return text.upper() if verb == "X" else text
    assert n is not None
    return format(n, verb)


def _as_string(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_as_string(x) for x in v) + "]"
    raise _overload()


# --- lists (k8s library.Lists; cel-go lists.range) --------------------------------------

def _equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _list(xs: Any) -> list[Any]:
    if not isinstance(xs, list):
        raise _overload()
    return xs


def _is_sorted(xs: Any) -> bool:
    xs = _list(xs)
    try:
        return all(xs[i] <= xs[i + 1] for i in range(len(xs) - 1))
    except TypeError:
        raise _overload() from None


def _sum(xs: Any) -> Any:
    xs = _list(xs)
    if any(isinstance(x, bool) or not isinstance(x, int | float) for x in xs):
        raise _overload()
    return sum(xs)


def _extreme(name: str, pick: Callable[..., Any]) -> Callable[..., Any]:
    def fn(xs: Any, *more: Any) -> Any:
        if more or not isinstance(xs, list):
            raise _overload()
        if not xs:
            raise CelExtError(f"{name} called on empty list")
        try:
            return pick(xs)
        except TypeError:
            raise _overload() from None
    return fn


def _range(n: Any) -> list[int]:
    return list(range(_int(n)))


def _sets_contains(a: Any, b: Any) -> bool:
    return all(any(_equal(x, y) for y in _list(a)) for x in _list(b))


def _sets_intersects(a: Any, b: Any) -> bool:
    return any(any(_equal(x, y) for y in _list(a)) for x in _list(b))


# --- regex, URLs, IPs --------------------------------------------------------------------

def _find(s: Any, pattern: Any) -> str:
    m = re.search(_str(pattern), _str(s))
    return m.group(0) if m else ""


def _find_all(s: Any, pattern: Any, n: Any = -1) -> list[str]:
    found = [m.group(0) for m in re.finditer(_str(pattern), _str(s))]
    n = _int(n)
    return found if n < 0 else found[:n]


def _url_ok(s: str) -> bool:
    if not s or " " in s:
        return False
    try:
        parts = urlsplit(s)
    except ValueError:
        return False
    return bool(parts.scheme) or s.startswith("/")


def _url(s: Any) -> dict[str, str]:
    s = _str(s)
    if not _url_ok(s):
        raise CelExtError(f"URL parse error during conversion from string: parse {s!r}: "
                          "invalid URI for request")
    return {_URL: s}


def _url_part(part: str) -> Callable[[Any], Any]:
    def fn(u: Any) -> Any:
        text = _tagged(u, _URL)
        if text is None:
            raise _overload()
        p = urlsplit(text)
        return {"scheme": p.scheme, "host": p.netloc, "hostname": p.hostname or "",
                "port": str(p.port or "") if p.netloc else "", "path": p.path,
                "query": p.query}[part]
    return fn


def _ip_ok(s: str) -> bool:
    try:
        addr = ipaddress.ip_address(s)
    except ValueError:
        return False
    # Kubernetes refuses IPv4-mapped IPv6 addresses and zones.
    return not (isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None)


def _ip(x: Any) -> dict[str, str]:
    cidr = _tagged(x, _CIDR)
    if cidr is not None:
        return {_IP: cidr.split("/")[0]}
    s = _str(x)
    if not _ip_ok(s):
        raise CelExtError(f"IP Address {s!r} parse error during conversion from string")
    return {_IP: s}


def _addr(x: Any) -> Any:
    text = _tagged(x, _IP)
    if text is None:
        raise _overload()
    return ipaddress.ip_address(text)


def _cidr_ok(s: str) -> bool:
    try:
        ipaddress.ip_network(s, strict=False)
    except ValueError:
        return False
    return "/" in s and _ip_ok(s.split("/")[0])


def _cidr(s: Any) -> dict[str, str]:
    s = _str(s)
    if not _cidr_ok(s):
        raise CelExtError(f"network address parse error during conversion from string: {s}")
    return {_CIDR: s}


def _net(x: Any) -> Any:
    text = _tagged(x, _CIDR)
    if text is None:
        raise _overload()
    return ipaddress.ip_network(text, strict=False)


def _contains_ip(c: Any, x: Any) -> bool:
    addr = ipaddress.ip_address(x) if isinstance(x, str) else _addr(x)
    return addr in _net(c)


def _contains_cidr(c: Any, x: Any) -> bool:
    other = ipaddress.ip_network(x, strict=False) if isinstance(x, str) else _net(x)
    mine = _net(c)
    return other.version == mine.version and other.subnet_of(mine)  # type: ignore[arg-type]


def _masked(c: Any) -> dict[str, str]:
    return {_CIDR: str(_net(c))}


EXTENSIONS: dict[str, Callable[..., Any]] = {
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": _lower,
    "upperAscii": _upper,
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda s: _str(s).strip(),
    "join": _join,
    "format": _format,
    "krStringsQuote": _quote,
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min", min),
    "max": _extreme("max", max),
    "krListsRange": _range,
    "krSetsContains": _sets_contains,
    "krSetsEquivalent": lambda a, b: _sets_contains(a, b) and _sets_contains(b, a),
    "krSetsIntersects": _sets_intersects,
    "find": _find,
    "findAll": _find_all,
    "url": _url,
    "isURL": lambda s: _url_ok(_str(s)),
    "getScheme": _url_part("scheme"),
    "getHost": _url_part("host"),
    "getHostname": _url_part("hostname"),
    "getPort": _url_part("port"),
    "getEscapedPath": _url_part("path"),
    "getQuery": lambda u: {k: [v] for k, _, v in (kv.partition("=") for kv in
                                                  _url_part("query")(u).split("&") if kv)},
    "ip": _ip,
    "isIP": lambda s: _ip_ok(_str(s)),
    "family": lambda x: _addr(x).version,
    "isUnspecified": lambda x: _addr(x).is_unspecified,
    "isLoopback": lambda x: _addr(x).is_loopback,
    "isLinkLocalMulticast": lambda x: _addr(x).is_multicast and _addr(x).is_link_local,
    "isLinkLocalUnicast": lambda x: not _addr(x).is_multicast and _addr(x).is_link_local,
    "isGlobalUnicast": lambda x: _addr(x).is_global and not _addr(x).is_multicast,
    "cidr": _cidr,
    "isCIDR": lambda s: _cidr_ok(_str(s)),
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "prefixLength": lambda c: _net(c).prefixlen,
    "masked": _masked,
}

# Namespaced functions, called by a plain name the CEL library can dispatch.
_NAMESPACED = {"strings.quote": "krStringsQuote", "lists.range": "krListsRange",
               "sets.contains": "krSetsContains", "sets.equivalent": "krSetsEquivalent",
               "sets.intersects": "krSetsIntersects"}
_NAMESPACE = re.compile(r"\b(strings\.quote|lists\.range|sets\.(?:contains|equivalent|"
                        r"intersects))\s*\(")
_BIND = re.compile(r"\bcel\s*\.\s*bind\s*\(")
_LITERAL = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


def _outside_literals(expression: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    spans = [m.span() for m in _LITERAL.finditer(expression)]
    for m in pattern.finditer(expression):
        if not any(a <= m.start() < b for a, b in spans):
            return m
    return None


def _arguments(text: str, start: int) -> tuple[list[str], int] | None:
    """The top-level arguments of the call whose ``(`` is just before ``start``."""
    depth = 0
    args: list[str] = []
    begin = start
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            m = _LITERAL.match(text, i)
            i = m.end() if m else len(text)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(text[begin:i])
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[begin:i])
            begin = i + 1
        i += 1
    return None


def rewrite(expression: str) -> str:
    """``expression`` with ``cel.bind`` as a one-element comprehension and the
    namespaced functions under their plain names (the CEL library has neither)."""
    for _ in range(64):
        m = _outside_literals(expression, _NAMESPACE)
        if m is None:
            break
        expression = (expression[:m.start()] + _NAMESPACED[re.sub(r"\s", "", m.group(1))] + "("
                      + expression[m.end():])
    for _ in range(64):
        m = _outside_literals(expression, _BIND)
        if m is None:
            break
        got = _arguments(expression, m.end())
        if got is None or len(got[0]) != 3:
            break  # left for the compiler to refuse
        (var, init, body), end = got
        expression = (expression[:m.start()] + f"[{init.strip()}].map({var.strip()}, "
                      f"{body.strip()})[0]" + expression[end:])
    return expression
