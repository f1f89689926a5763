"""CEL device selectors, with the Kubernetes layer upstream's DRA environment has.

The expressions run on ``common-expression-language`` (``import cel``, a Rust
core: ~43 µs an evaluation, and syntax errors positioned as cel-go positions
them).  kruleset adds what the Kubernetes environment declares:

* ``device`` is the only variable: ``driver``, ``attributes`` and ``capacity``
  (maps domain -> id -> value).  A domain the device lacks reads as an empty
  map, so ``"d" in device.attributes`` is false and ``device.attributes["d"].x``
  fails with ``no such key: x`` as cel-go does.
* Quantities (``quantity("1Gi")``, capacities) are maps tagged
  ``__k8s_quantity__`` holding an exact, normalised fraction, so ``==`` is
  exact (``quantity("1Gi") == quantity("1024Mi")``); semantic versions are
  tagged ``__semver__``.  Their methods are registered as functions.
* A selector must compile, name only ``device`` and known functions, and give
  a bool; :func:`check` says what is wrong and where (line and column within
  the expression), in cel-go's words.

Results are kept per (device, expression), as upstream's allocator caches
them: devices never change, so each pair is evaluated once per process.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

from .dra import Device, Version
from .dra_cel_ext import EXTENSIONS, CelExtError, rewrite
from .quantity import QuantityError, exact_value

__all__ = [
    "CelCompileError",
    "CelRuntimeError",
    "check",
    "device_value",
    "evaluate",
    "program",
    "SEMVER",
]

_Q = "__k8s_quantity__"
_V = "__semver__"
#: A semantic version as DRA's ``semver`` attributes are written.
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$")
_POSITION = re.compile(r"ERROR: <input>:(\d+):(\d+): ([^\n]*)")
_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


# resource.k8s.io's CELSelectorExpressionMaxLength (10 Ki bytes).
MAX_EXPRESSION_BYTES = 10 * 1024


class CelCompileError(ValueError):
    """An expression the API server would refuse: message, 1-based line and column in it."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class CelRuntimeError(RuntimeError):
    """An evaluation error, in cel-go's words (``no such key: x``)."""


# --- quantities and versions -------------------------------------------------------

def _q(value: Fraction) -> dict[str, str]:
    return {_Q: f"{value.numerator}/{value.denominator}"}


def _qval(x: Any) -> Fraction:
    if isinstance(x, dict) and _Q in x:
        num, _, den = x[_Q].partition("/")
        return Fraction(int(num), int(den))
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise CelRuntimeError("no such overload")
    return Fraction(x)


def _quantity(text: str) -> dict[str, str]:
    try:
        return _q(exact_value(text))
    except QuantityError:
        raise CelRuntimeError(f"quantities must match the regular expression: {text}") from None


def _is_quantity(text: str) -> bool:
    try:
        exact_value(text)
    except QuantityError:
        return False
    return True


def _semver_key(x: Any) -> tuple[Any, ...]:
    m = SEMVER.match(x[_V])
    assert m is not None
    pre = m.group(4)
    # A release sorts after its pre-releases (semver §11).
    pre_key: tuple[Any, ...] = ((1,),) if pre is None else tuple(
        (0, int(p)) if p.isdigit() else (0.5, p) for p in pre.split("."))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre_key)


def _semver(text: str) -> dict[str, str]:
    if not SEMVER.match(text):
        raise CelRuntimeError(f"could not parse {text} as semver")
    return {_V: text}


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, dict) and _V in a:
        if not (isinstance(b, dict) and _V in b):
            raise CelRuntimeError("no such overload")
        ka, kb = _semver_key(a), _semver_key(b)
    else:
        ka, kb = _qval(a), _qval(b)  # type: ignore[assignment]
    return (ka > kb) - (ka < kb)


def _as_integer(x: Any) -> int:
    v = _qval(x)
    if v.denominator != 1 or not -(2**63) <= v.numerator < 2**63:
        raise CelRuntimeError("cannot convert value to integer")
    return int(v)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "semver": _semver,
    "isSemver": lambda s: bool(SEMVER.match(s)),
    "compareTo": _cmp,
    "isGreaterThan": lambda a, b: _cmp(a, b) > 0,
    "isLessThan": lambda a, b: _cmp(a, b) < 0,
    "add": lambda a, b: _q(_qval(a) + _qval(b)),
    "sub": lambda a, b: _q(_qval(a) - _qval(b)),
    "asInteger": _as_integer,
    "asApproximateFloat": lambda a: float(_qval(a)),
    "sign": lambda a: (_qval(a) > 0) - (_qval(a) < 0),
    "isInteger": lambda a: _qval(a).denominator == 1,
    "major": lambda v: _semver_key(v)[0],
    "minor": lambda v: _semver_key(v)[1],
    "patch": lambda v: _semver_key(v)[2],
    **EXTENSIONS,
}
# CEL's standard functions and macros (cel-spec), and the string/list helpers
# of the Kubernetes base environment that the library implements.
_BUILTINS = frozenset({
    "size", "contains", "startsWith", "endsWith", "matches", "int", "uint", "double", "string",
    "bytes", "bool", "type", "dyn", "has", "all", "exists", "exists_one", "map", "filter",
    "duration", "timestamp", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear",
    "getFullYear", "getHours", "getMilliseconds", "getMinutes", "getMonth", "getSeconds",
    "lowerAscii", "upperAscii", "trim", "split", "join", "replace", "indexOf", "lastIndexOf",
    "substring", "charAt", "min", "max",
})


# --- compiling ----------------------------------------------------------------

_PROGRAMS: dict[str, Any] = {}
_DOMAINS: set[str] = set()
_domains_version = [0]


def program(expression: str) -> Any:
    """The compiled program of ``expression`` (checked once, then kept)."""
    prog = _PROGRAMS.get(expression)
    if prog is None:
        check(expression)
        prog = _PROGRAMS[expression]
    return prog


def _cel() -> Any:
    """The CEL library, imported on first use.

    ``import cel`` also imports the package's interactive shell (prompt_toolkit
    and more: about a third of a second), which a scenario without a CEL
    selector should not pay at every start.
    """
    import cel

    return cel


def check(expression: str) -> None:
    """Raise :class:`CelCompileError` if the API server would refuse ``expression``."""
    if expression in _PROGRAMS:
        return
    if not expression.strip():
        raise CelCompileError("compilation failed: expression is empty")
    if len(expression.encode("utf-8")) > MAX_EXPRESSION_BYTES:
        # As validateCELSelector: too long an expression is not compiled at all.
        raise CelCompileError(f"Too long: may not be more than {MAX_EXPRESSION_BYTES} bytes")
    source = rewrite(expression)
    try:
        prog = _cel().compile(source)
    except ValueError as exc:
        raise _syntax_error(str(exc)) from None
    bound = {m.group(1) for m in _MACRO_VARIABLE.finditer(source)}
    for name in prog.variables():
        if name != "device" and name not in bound:
            raise _undeclared(expression, name)
    for fn in prog.functions():
        if fn[0] in "_@!" or fn in _FUNCTIONS or fn in _BUILTINS:
            continue
        raise _undeclared(expression, fn)
    # cel-python has no type checker: a probe device with every domain empty
    # shows a literal non-bool result; errors are left for run time.
    try:
        with _quiet_stderr():
            probe = prog.execute(_context({"driver": "", "attributes": {}, "capacity": {}}))
    except Exception:  # noqa: BLE001 - any runtime failure is not a compile error
        probe = True
    if not isinstance(probe, bool):
        raise CelCompileError("must evaluate to bool or the unknown type, not "
                              + _type_name(probe))
    _PROGRAMS[expression] = _present_rewrite(source, prog)
    new = {m.group(1) or m.group(2) or "" for m in _STRING.finditer(expression)} - _DOMAINS
    if new:
        _DOMAINS.update(new)
        _domains_version[0] += 1


# The iteration variables the comprehension macros (and cel.bind, rewritten as one) declare.
_MACRO_VARIABLE = re.compile(r"\.\s*(?:all|exists|exists_one|map|filter)\s*\(\s*([A-Za-z_]\w*)\s*,")


# ``"d" in device.attributes`` must see only the device's own domains while
# ``device.attributes["d"]`` reads a missing domain as an empty map: the
# membership test reads a map of the real domains instead.
_PRESENT = re.compile(r"\bin\s+device\s*\.\s*(attributes|capacity)\b(?!\s*[\[.])")


def _present_rewrite(expression: str, prog: Any) -> Any:
    if not _PRESENT.search(expression):
        return prog
    return _cel().compile(_PRESENT.sub(r"in device.kruleset_present_\1", expression))


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "map" if _Q not in value else "k8s.io/Quantity"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def _syntax_error(text: str) -> CelCompileError:
    found = list(_POSITION.finditer(text))
    # cel-go reports the syntax errors; the Rust parser may add a note first.
    best = next((m for m in found if m.group(3).startswith("Syntax error")), None)
    best = best or (found[0] if found else None)
    if best is None:
        return CelCompileError(text)
    return CelCompileError(best.group(3), int(best.group(1)), int(best.group(2)))


def _undeclared(expression: str, name: str) -> CelCompileError:
    m = re.search(rf"(?<![\w.\"']){re.escape(name)}\b", expression)
    offset = m.start() if m else 0
    line = expression.count("\n", 0, offset) + 1
    column = offset - (expression.rfind("\n", 0, offset) + 1) + 1
    return CelCompileError(f"undeclared reference to '{name}' (in container '')", line, column)


# --- evaluating ---------------------------------------------------------------

def _context(device: dict[str, Any]) -> Any:
    ctx = _cel().Context()
    for name, fn in _FUNCTIONS.items():
        ctx.add_function(name, fn)
    ctx.add_variable("device", device)
    return ctx


def _value(v: Any) -> Any:
    if isinstance(v, Version):
        return {_V: v.text}
    return v


def device_value(driver: str, device: Device, domains: Iterable[str] = ()) -> dict[str, Any]:
    """``device`` as CEL sees it, with an empty map for each domain in ``domains`` it lacks."""
    attributes: dict[str, dict[str, Any]] = {d: {} for d in domains}
    capacity: dict[str, dict[str, Any]] = {d: {} for d in domains}
    for dom, values in device.attributes.items():
        attributes[dom] = {k: _value(v) for k, v in values.items()}
    for dom, quantities in device.capacity.items():
        capacity[dom] = {k: _q(v) for k, v in quantities.items()}
    return {"driver": driver, "attributes": attributes, "capacity": capacity,
            "kruleset_present_attributes": dict.fromkeys(device.attributes, True),
            "kruleset_present_capacity": dict.fromkeys(device.capacity, True)}


class Evaluator:
    """Evaluates selectors on devices, each (device, expression) once."""

    def __init__(self) -> None:
        self._results: dict[tuple[int, str], bool | CelRuntimeError] = {}
        self._contexts: dict[int, tuple[int, Any, Device]] = {}

    def matches(self, driver: str, device: Device, expression: str) -> bool:
        """Whether ``device`` passes ``expression``; raises :class:`CelRuntimeError`."""
        key = (id(device), expression)
        got = self._results.get(key)
        if got is None:
            got = self._evaluate(driver, device, expression)
            self._results[key] = got
        if isinstance(got, CelRuntimeError):
            raise got
        return got

    def _evaluate(self, driver: str, device: Device, expression: str) -> bool | CelRuntimeError:
        prog = program(expression)
        kept = self._contexts.get(id(device))
        if kept is None or kept[0] != _domains_version[0]:
            # ``device`` is kept alive by the entry, so its id is not reused.
            kept = (_domains_version[0],
                    _context(device_value(driver, device, _DOMAINS)), device)
            self._contexts[id(device)] = kept
        try:
            with _quiet_stderr():
                result = prog.execute(kept[1])
        except KeyError as exc:
            return CelRuntimeError(f"no such key: {exc.args[0] if exc.args else ''}")
        except CelRuntimeError as exc:
            return exc
        except CelExtError as exc:
            return CelRuntimeError(str(exc))
        except Exception as exc:  # noqa: BLE001 - the library's own runtime errors
            return CelRuntimeError(_go_wording(exc))
        if not isinstance(result, bool):
            return CelRuntimeError(f"expression must evaluate to bool, got {_type_name(result)}")
        return result


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """The CEL library prints a failing Python function's error to the process's
    stderr before raising it; kruleset reports it itself, in cel-go's words."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        os.dup2(_devnull(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _devnull() -> int:
    if not _DEVNULL:
        _DEVNULL.append(os.open(os.devnull, os.O_WRONLY))
    return _DEVNULL[0]


_DEVNULL: list[int] = []
_WRAPPED = re.compile(r"Python function call failed: (\w+): (.*)\. Check function arguments "
                      r"and their types\.$", re.S)


def _go_wording(exc: Exception) -> str:
    """cel-go's text for one of the CEL library's runtime errors."""
    text = str(exc)
    wrapped = _WRAPPED.search(text)
    if wrapped is not None:
        # A kruleset function's own error (CelExtError, CelRuntimeError): its text.
        return wrapped.group(2)
    if text.startswith("No such overload") or text.startswith(
            "Undefined variable or function"):
        # Every function name was checked when compiling: a known function met
        # arguments of types it has no overload for (cel-go decides at run time
        # over dyn values).
        return "no such overload"
    if isinstance(exc, ZeroDivisionError):
        return "modulus by zero" if "modulo" in text or "remainder" in text else "division by zero"
    m = re.match(r"Function '(int|uint|double)' error: string parse error", text)
    if m:
        return f"type conversion error from 'string' to '{m.group(1)}'"
    return text


def evaluate(driver: str, device: Device, expression: str) -> bool:
    """One evaluation without a cache (tests, embedding)."""
    got = Evaluator()._evaluate(driver, device, expression)
    if isinstance(got, CelRuntimeError):
        raise got
    return got
