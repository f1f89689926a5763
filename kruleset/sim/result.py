"""The outcome of a run: decisions, expectation results, the final state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ..model.scenario import Expectation, Scenario
from ..model.state import ClusterState
from ..rules.engine import Trace

__all__ = ["Decision", "ExpectationResult", "Result", "NOT_SIMULATED"]

NOT_SIMULATED = "not simulated yet"


@attrs.frozen(slots=True)
class Decision:
    """One thing the simulated cluster decided, with the rules that decided it."""

    time: int
    kind: str
    pod: str
    node: str | None = None
    by: str = ""
    reason: str = ""
    message: str = ""
    rules: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The decision as DESIGN.md's JSON form."""
        from ..model.quantity import format_duration

        return {
            "time": format_duration(self.time), "kind": self.kind, "pod": self.pod,
            "node": self.node, "by": self.by or None, "reason": self.reason,
            "message": self.message, "rules": list(self.rules),
        }


@attrs.frozen(slots=True)
class ExpectationResult:
    """Whether one ``expect`` line held; ``unsupported`` when its mechanism is not built."""

    expectation: Expectation
    passed: bool
    message: str = ""
    unsupported: bool = False

    @property
    def line(self) -> int:
        """The line of the expectation in its file."""
        return self.expectation.span.line

    def to_json(self) -> dict[str, Any]:
        """As in DESIGN.md's JSON form."""
        return {"line": self.line, "text": self.expectation.text, "passed": self.passed,
                "message": self.message}


@attrs.frozen(slots=True)
class Result:
    """What :func:`kruleset.run` returns."""

    scenario: Scenario
    decisions: list[Decision]
    expectations: list[ExpectationResult]
    state: ClusterState
    trace: Trace | None
    end_time: int
    # Each StatefulSet's, DaemonSet's and Job's status at the end of the run.
    workloads: tuple[dict[str, Any], ...] = ()
    # Every scheduling attempt as the queue ran it (kruleset.sim.scheduler.AttemptRecord).
    attempts: Sequence[Any] = attrs.field(factory=list)

    @property
    def passed(self) -> bool:
        """Every expectation held."""
        return all(r.passed for r in self.expectations)

    @property
    def unsupported(self) -> list[ExpectationResult]:
        """Expectations whose mechanism is not simulated yet."""
        return [r for r in self.expectations if r.unsupported]

    @property
    def failed(self) -> list[ExpectationResult]:
        """Expectations that did not hold."""
        return [r for r in self.expectations if not r.passed and not r.unsupported]
