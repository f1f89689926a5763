"""The Gherkin step library: every `.kr` statement is a step.

- ``Given the scenario:`` with a docstring holding `.kr` text;
- ``Given <declaration>`` (``Given node n1 cpu=4``), ``When <timeline statement>``
  (``When at 10s create pod web cpu=1``), ``Then expect …`` — each adds its line
  to the scenario being built;
- ``When the scenario runs`` runs it (later ``Then`` steps run it on demand);
- ``Then the expectations hold`` asserts every ``expect`` line held;
- ``Then expect …`` asserts that one expectation held;
- ``Then the scenario is refused with "TEXT"`` asserts the scenario does not
  validate and the error message contains TEXT.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from ..errors import NotImplementedMechanism, ScenarioError
from ..report.text import Style, render_result
from .origin import Origin, feature_lines, located, shown_path, with_offset

__all__ = ["STEP", "KrScenario"]

#: Set by the plugin before each step: (feature file, step line, has a docstring).
STEP = pytest.StashKey[tuple[str, int, bool]]()


class KrScenario:
    """The scenario a Gherkin scenario builds, statement by statement.

    Each line remembers the ``.feature`` line it came from, so errors and
    failed expectations point there (see :mod:`kruleset.bdd.origin`).
    """

    def __init__(self, name: str, node: pytest.Item | None = None) -> None:
        self.name = name
        self.lines: list[str] = []
        self.origins: list[Origin | None] = []
        self._node = node
        self._result: Any = None
        self._text_run: str | None = None

    def add(self, text: str) -> None:
        """Append `.kr` text (one statement or a whole block)."""
        text = text.rstrip("\n")
        self.lines.append(text)
        added = text.split("\n")
        step = self._node.stash.get(STEP, None) if self._node is not None else None
        if step is None:
            self.origins.extend([None] * len(added))
        else:
            found = feature_lines(step[0], step[1], step[2], len(added))
            self.origins.extend(with_offset(o, t) for o, t in zip(found, added, strict=True))
        self._result = None

    def origin(self, line: int) -> Origin | None:
        """Where line ``line`` (1-based) of the text came from, if known."""
        return self.origins[line - 1] if 1 <= line <= len(self.origins) else None

    def where(self, line: int) -> str:
        """``FILE.feature:LINE`` of a line of the text (``NAME.kr:LINE`` if unknown)."""
        o = self.origin(line)
        return f"{o.file}:{o.line}" if o else f"{self.name}:{line}"

    @property
    def folder(self) -> str | None:
        """The ``.feature`` file's folder: ``include`` and ``config`` paths are relative to it,
        so a suite reads the same files whatever folder pytest is started from."""
        step = self._node.stash.get(STEP, None) if self._node is not None else None
        return os.path.dirname(os.path.abspath(step[0])) if step else None

    def step_where(self) -> str:
        """``FILE.feature:LINE`` of the step being run."""
        step = self._node.stash.get(STEP, None) if self._node is not None else None
        return f"{shown_path(step[0])}:{step[1]}" if step else self.name

    def fail(self, message: str) -> None:
        """Fail the Gherkin scenario at the current step, without a Python traceback."""
        pytest.fail(f"{self.step_where()}: {message}", pytrace=False)

    def located(self, error: ScenarioError) -> ScenarioError:
        """``error`` pointing at the ``.feature`` line its statement came from."""
        if error.file != self.name:
            return error  # it points into another file (an included manifest)
        return located(error, self.origin(error.line))

    @property
    def text(self) -> str:
        """The whole `.kr` text so far."""
        return "\n".join(self.lines) + "\n"

    def result(self) -> Any:
        """Run the scenario (once per text) and return the :class:`~kruleset.Result`."""
        from .. import api

        if self._result is None or self._text_run != self.text:
            problem = ""
            try:
                scenario = api.load(self.text, file=self.name, folder=self.folder)
                self._result = api.run(scenario, trace=True)
            except ScenarioError as e:
                problem = f"{self.located(e).render()}\n(the scenario is refused)"
            except NotImplementedMechanism as e:
                where = f"{self.where(e.span.line)}: " if e.span.line else ""
                problem = (f"{where}{e.mechanism} is not simulated yet by this version of "
                           "kruleset")
            if problem:  # failed outside the except block: no chained traceback
                pytest.fail(problem, pytrace=False)
            self._text_run = self.text
        return self._result

    def report(self) -> str:
        """The text report of the last run."""
        return render_result(self.name, self.result(), Style(color=False))


@pytest.fixture
def kr_scenario(request: pytest.FixtureRequest) -> KrScenario:
    """The `.kr` scenario being built by the current Gherkin scenario."""
    return KrScenario(f"{request.node.name}.kr", request.node)


@given("the scenario:")
def _given_scenario(kr_scenario: KrScenario, docstring: str) -> None:
    kr_scenario.add(docstring)


@given(parsers.re(r"(?P<statement>(?!the scenario:).+)"))
def _given_statement(kr_scenario: KrScenario, statement: str) -> None:
    kr_scenario.add(statement)


@when("the scenario runs")
def _when_runs(kr_scenario: KrScenario) -> None:
    kr_scenario.result()


@when(parsers.re(r"(?P<statement>(?!the scenario runs$).+)"))
def _when_statement(kr_scenario: KrScenario, statement: str) -> None:
    kr_scenario.add(statement)


@then("the expectations hold")
def _then_hold(kr_scenario: KrScenario) -> None:
    result = kr_scenario.result()
    if not result.expectations:
        kr_scenario.fail("the scenario has no expectations to hold")
    bad = [r for r in result.expectations if not r.passed]
    if bad:
        lines = "\n".join(f"{kr_scenario.where(r.line)}: {r.expectation.text}: {r.message}"
                          for r in bad)
        pytest.fail(f"{lines}\n({len(bad)} of {len(result.expectations)} expectations failed)"
                    f"\n\n{kr_scenario.report()}", pytrace=False)


@then(parsers.re(r"the scenario is refused with \"(?P<text>.*)\""))
def _then_refused(kr_scenario: KrScenario, text: str) -> None:
    from .. import api

    try:
        api.load(kr_scenario.text, file=kr_scenario.name, folder=kr_scenario.folder)
    except ScenarioError as e:
        if text not in e.render():
            kr_scenario.fail(f"refused, but without {text!r}; the error was:\n"
                             f"{kr_scenario.located(e).render()}")
        return
    kr_scenario.fail(f"the scenario was accepted; expected a refusal with {text!r}")


@then(parsers.re(r"(?P<statement>expect .+)"))
def _then_expect(kr_scenario: KrScenario, statement: str) -> None:
    kr_scenario.add(statement)
    result = kr_scenario.result()
    last = result.expectations[-1]
    if not last.passed:
        pytest.fail(f"{kr_scenario.where(last.line)}: {statement}: {last.message}\n\n"
                    f"{kr_scenario.report()}", pytrace=False)


@then(parsers.re(r"the report says \"(?P<text>.*)\""))
def _then_report_says(kr_scenario: KrScenario, text: str) -> None:
    report = kr_scenario.report()
    if text not in report:
        kr_scenario.fail(f"the report does not say {text!r}:\n\n{report}")


@then(parsers.re(r"the scenario's expectation on line (?P<line>\d+) fails with \"(?P<text>.*)\""))
def _then_line_fails(kr_scenario: KrScenario, line: str, text: str) -> None:
    result = kr_scenario.result()
    for r in result.expectations:
        if r.line == int(line):
            if r.passed:
                kr_scenario.fail(f"{kr_scenario.where(r.line)}: {r.expectation.text}: held")
            if text not in r.message:
                kr_scenario.fail(f"{kr_scenario.where(r.line)}: {r.expectation.text}: "
                                 f"failed with: {r.message}")
            return
    kr_scenario.fail(f"no expectation on line {line}")
