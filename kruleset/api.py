"""The library entry points: load a scenario, run it."""

from __future__ import annotations

import os

from .model.scenario import Scenario
from .rules.profile import Profile
from .sim.core import Simulation
from .sim.result import Result

__all__ = ["load", "run"]


def load(source: str | os.PathLike[str], *, file: str | None = None,
         allow_unknown_fields: bool = False,
         folder: str | os.PathLike[str] | None = None) -> Scenario:
    """Parse and validate a `.kr` scenario from a path or from text.

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
        scenario = lang.load(source, file=file, folder=folder)
    finally:
        STRICT.reset(token)
    return validate(scenario)


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


def run(scenario: Scenario | str | os.PathLike[str], *, profile: Profile | None = None,
        trace: bool = False, until: int | None = None) -> Result:
    """Simulate ``scenario`` (a :class:`Scenario`, a path or `.kr` text).

    ``trace=True`` records every rule evaluation (see :attr:`Result.trace`);
    ``until`` (ms) overrides the scenario's ``run until``.
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    return Simulation(scenario, profile=profile, trace=trace, until=until).run()
