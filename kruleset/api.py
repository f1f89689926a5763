"""The library entry points: load a scenario, run it; durations as users write them.

Every duration the library takes (``run(until=…)``, the embedding functions'
``timeout`` and ``advance``) may be a Go-style string (``"90s"``, ``"1m30s"``,
``"250ms"``), a :class:`datetime.timedelta`, or an ``int`` of milliseconds
(the unit kruleset counts in: :attr:`Decision.time <kruleset.Decision>`,
:attr:`Result.end_time <kruleset.Result>`; their ``at``/``end`` properties
give the same instants as ``timedelta``).
"""

from __future__ import annotations

import os
from datetime import timedelta

from .model.scenario import Scenario
from .rules.profile import Profile
from .sim.core import Simulation
from .sim.result import Result

__all__ = ["Duration", "duration_ms", "load", "run"]

#: What a duration argument accepts.
Duration = str | timedelta | int


def load(source: str | os.PathLike[str], *, file: str | None = None,
         allow_unknown_fields: bool = False,
         folder: str | os.PathLike[str] | None = None) -> Scenario:
    """Parse and validate a `.kr` scenario from a path or from text, or a dump.

    A path ending in ``.yaml``, ``.yml`` or ``.json`` is a Kubernetes dump
    (``kubectl get -A -o yaml``), a scenario of its own as ``kruleset run``
    reads it: its objects declared, no timeline.

    Raises :class:`kruleset.ScenarioError` (a ``ValueError``) with file, line,
    column and a suggestion when the scenario is refused.  An unknown field in
    an included Kubernetes file or a component configuration is an error,
    unless ``allow_unknown_fields`` (then it is a warning among the
    scenario's ``notices``).
    """
    from . import lang
    from .errors import STRICT

    token = STRICT.set(not allow_unknown_fields)
    try:
        scenario = _load_dump(source) if _is_dump(source) else \
            lang.load(source, file=file, folder=folder)
    finally:
        STRICT.reset(token)
    return validate(scenario)


def _is_dump(source: str | os.PathLike[str]) -> bool:
    text = os.fspath(source)
    return "\n" not in text and text.lower().endswith((".yaml", ".yml", ".json"))


def _load_dump(source: str | os.PathLike[str]) -> Scenario:
    """A Kubernetes dump as a scenario of its own (as ``kruleset run dump.yaml`` reads it)."""
    from pathlib import Path

    import attrs

    from . import lang
    from .errors import ScenarioError, Span
    from .lang.loader import CLUSTER_FILES

    path = os.fspath(source)
    if not Path(path).is_file():
        raise ScenarioError("no such file", Span(path, 0, 0, ""),
                            expected="a kubectl get -A -o yaml|json dump, a .kr file or .kr text")
    files = CLUSTER_FILES.set(((path, path),))
    try:
        scenario = lang.load("", file=path)
    finally:
        CLUSTER_FILES.reset(files)
    return attrs.evolve(scenario, title=f"{Path(path).name} as it settles")


def validate(scenario: Scenario) -> Scenario:
    """Refuse a scenario whose scheduler configuration cannot be built, at its line."""
    from .errors import ScenarioError
    from .sim.setup import build_profile

    try:
        build_profile(scenario)
    except ScenarioError as e:
        if e.line or scenario.scheduler is None:
            raise
        raise ScenarioError(e.message, scenario.scheduler.span, expected=e.expected,
                            suggestion=e.suggestion) from None
    return scenario


def duration_ms(value: Duration, what: str = "duration") -> int:
    """``value`` (``"1m30s"``, a ``timedelta`` or an int of ms) in milliseconds.

    Refuses, with a :class:`~kruleset.ScenarioError` naming ``what``, a string
    that is not a duration, a negative or sub-millisecond one, and any other type.
    """
    from .errors import ScenarioError
    from .model.quantity import QuantityError, parse_duration

    examples = "a duration such as '90s', '1m30s', '250ms', a timedelta, or an int of ms"
    if isinstance(value, timedelta):
        ms, rest = divmod(value, timedelta(milliseconds=1))
        if rest or ms < 0:
            raise ScenarioError(f"{what}: {value!r} is not a whole, non-negative number of "
                                "milliseconds", expected=examples)
        return int(ms)
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except QuantityError as e:
            raise ScenarioError(f"{what}: {e}", expected=examples) from None
    if type(value) is int and value >= 0:
        return value
    raise ScenarioError(f"{what}: {value!r} ({type(value).__name__}) is not a duration",
                        expected=examples)


def run(scenario: Scenario | str | os.PathLike[str], *, profile: Profile | None = None,
        trace: bool = False, until: Duration | None = None) -> Result:
    """Simulate ``scenario`` (a :class:`Scenario`, a path or `.kr` text).

    ``trace=True`` records every rule evaluation (see :attr:`Result.trace`);
    ``until`` (``"90s"``, a ``timedelta``, or an int of ms) overrides the
    scenario's ``run until``.
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    end = None if until is None else duration_ms(until, "until")
    result: Result = Simulation(scenario, profile=profile, trace=trace, until=end).run()
    return result
