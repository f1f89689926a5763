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

from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from ..errors import ScenarioError
from ..report.text import Style, render_result

__all__ = ["KrScenario"]


class KrScenario:
    """The scenario a Gherkin scenario builds, statement by statement."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[str] = []
        self._result: Any = None
        self._text_run: str | None = None

    def add(self, text: str) -> None:
        """Append `.kr` text (one statement or a whole block)."""
        self.lines.append(text.rstrip("\n"))
        self._result = None

    @property
    def text(self) -> str:
        """The whole `.kr` text so far."""
        return "\n".join(self.lines) + "\n"

    def result(self) -> Any:
        """Run the scenario (once per text) and return the :class:`~kruleset.Result`."""
        from .. import api

        if self._result is None or self._text_run != self.text:
            scenario = api.load(self.text, file=self.name)
            self._result = api.run(scenario, trace=True)
            self._text_run = self.text
        return self._result

    def report(self) -> str:
        """The text report of the last run."""
        return render_result(self.name, self.result(), Style(color=False))


@pytest.fixture
def kr_scenario(request: pytest.FixtureRequest) -> KrScenario:
    """The `.kr` scenario being built by the current Gherkin scenario."""
    return KrScenario(f"{request.node.name}.kr")


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
        pytest.fail("the scenario has no expectations to hold")
    bad = [r for r in result.expectations if not r.passed]
    if bad:
        lines = "\n".join(f"line {r.line}: {r.expectation.text}: {r.message}" for r in bad)
        pytest.fail(f"{len(bad)} expectation(s) failed:\n{lines}\n\n{kr_scenario.report()}")


@then(parsers.re(r"the scenario is refused with \"(?P<text>.*)\""))
def _then_refused(kr_scenario: KrScenario, text: str) -> None:
    from .. import api

    try:
        api.load(kr_scenario.text, file=kr_scenario.name)
    except ScenarioError as e:
        assert text in e.render(), f"error was:\n{e.render()}"
        return
    pytest.fail("the scenario was accepted")


@then(parsers.re(r"(?P<statement>expect .+)"))
def _then_expect(kr_scenario: KrScenario, statement: str) -> None:
    kr_scenario.add(statement)
    result = kr_scenario.result()
    last = result.expectations[-1]
    if not last.passed:
        pytest.fail(f"{statement}: {last.message}\n\n{kr_scenario.report()}")


@then(parsers.re(r"the scenario's expectation on line (?P<line>\d+) fails with \"(?P<text>.*)\""))
def _then_line_fails(kr_scenario: KrScenario, line: str, text: str) -> None:
    result = kr_scenario.result()
    for r in result.expectations:
        if r.line == int(line):
            assert not r.passed, f"line {line} held"
            assert text in r.message, f"line {line} failed with: {r.message}"
            return
    pytest.fail(f"no expectation on line {line}")
