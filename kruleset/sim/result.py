"""The outcome of a run: decisions, expectation results, the final state."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import attrs

from ..model.scenario import Expectation, Scenario
from ..model.state import ClusterState
from ..rules.engine import Trace

__all__ = ["Decision", "ExpectationResult", "Result", "NOT_SIMULATED"]

NOT_SIMULATED = "not simulated yet"


@attrs.frozen(slots=True)
class Decision:
    """One thing the simulated cluster decided, with the rules that decided it.

    Fields:

    - ``time``: when, in milliseconds of simulated time since 0s (the JSON
      report writes it as ``1m30s``; :attr:`at` gives it as a ``timedelta``);
    - ``kind``: what happened: ``scheduled``, ``pending``, ``nominated``,
      ``preempted``, ``evicted``, ``running``, ``eviction-api``, ``drain``, …;
    - ``pod``: the pod's ``namespace/name`` (a node's or object's name for a
      decision about one);
    - ``node``: the node concerned, or ``None``;
    - ``by``: who decided (``scheduler``, ``kubelet``, ``API``, a pod's key for a
      preemption, ``kubectl drain NODE``), or ``""``;
    - ``reason``: the Kubernetes event reason (``Scheduled``,
      ``FailedScheduling``, ``Preempted``, ``Evicted``, …);
    - ``message``: the Kubernetes message, word for word;
    - ``rules``: the names of the rules that decided (``kruleset rules`` lists them).
    """

    time: int
    kind: str
    pod: str
    node: str | None = None
    by: str = ""
    reason: str = ""
    message: str = ""
    rules: tuple[str, ...] = ()

    @property
    def at(self) -> timedelta:
        """:attr:`time` as a ``timedelta``."""
        return timedelta(milliseconds=self.time)

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
    """Whether one ``expect`` line held.

    Fields:

    - ``expectation``: the :class:`~kruleset.model.scenario.Expectation` (its
      ``text``, ``span`` with file and line, ``time`` in ms or ``None`` for an
      end-of-run check);
    - ``passed``: whether it held;
    - ``message``: why not (what was found instead), ``""`` when it held;
    - ``unsupported``: its mechanism is not simulated yet (then it fails).
    """

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
    """What :func:`kruleset.run` returns.

    Fields:

    - ``scenario``: the :class:`~kruleset.Scenario` that ran;
    - ``decisions``: every :class:`Decision`, in the order made;
    - ``expectations``: one :class:`ExpectationResult` per ``expect`` line, in
      file order (:attr:`passed`: all held);
    - ``state``: the :class:`~kruleset.ClusterState` at the end (nodes, pods,
      budgets, …), which the embedding functions (:func:`kruleset.schedule_pod`, …)
      take;
    - ``trace``: every rule evaluation when run with ``trace=True``, else ``None``;
    - ``end_time``: when the run ended, in milliseconds (:attr:`end` as a
      ``timedelta``);
    - ``workloads``: each StatefulSet's, DaemonSet's and Job's status at the
      end, as the JSON report writes it;
    - ``attempts``: every scheduling attempt as the queue ran it (time,
      pod, result, node, message, victims, where the pod went in the queue).
    """

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
    def end(self) -> timedelta:
        """:attr:`end_time` as a ``timedelta``."""
        return timedelta(milliseconds=self.end_time)

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
