"""API admission in one copy: the steps' ``changes`` forms give what the steps give.

``Simulation.admit_to_api`` asks each registered step for the fields it would
set and copies the pod once; here every combination of the fields the steps
read is admitted both ways (the one-copy path, and each step's function in
turn) and the results must be equal, refusals included.  When the admission
rules are not the default ones, the step cannot say and the functions run.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import kruleset
from kruleset.model.objects import Pod, PriorityClass
from kruleset.model.selectors import Toleration
from kruleset.rules import priority
from kruleset.rules.engine import Failure
from kruleset.sim import core
from kruleset.sim.core import Simulation

_TOLERATIONS = (
    (),
    (Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 60),),
    (Toleration("node.kubernetes.io/unreachable", "Exists", "", "", None),),
    (Toleration("", "Exists", "", "", None),),
    (Toleration("dedicated", "Equal", "x", "NoSchedule", None),),
)


def _pods() -> list[Pod]:
    out = []
    grid = itertools.product((None, 0, 7, 1000), ("", "high", "low", "missing",
                                                   "system-node-critical"),
                             ("", "Never", "PreemptLowerPriority"), _TOLERATIONS)
    for i, (prio, cls, policy, tolerations) in enumerate(grid):
        out.append(Pod("default", f"p{i}", priority=prio, priority_class=cls,
                       preemption_policy=policy, tolerations=tolerations))
    return out


def _sim(default: bool) -> Simulation:
    sim = Simulation(kruleset.load('scenario "admission"\n'))
    classes = sim.state.priority_classes
    classes["high"] = PriorityClass("high", 1000, preemption_policy="Never")
    classes["low"] = PriorityClass("low", 7, global_default=default)
    return sim


def _by_steps(sim: Simulation, pod: Pod) -> Any:
    for fn in core.POD_ADMISSION:
        pod = fn(sim, pod)
        if isinstance(pod, Failure):
            return pod
    return pod


def _fields(x: Any) -> Any:
    if isinstance(x, Failure):
        return ("refused", x.reason, x.code)
    return (x.priority, x.priority_class, x.preemption_policy, x.tolerations, x.critical, x)


@pytest.mark.parametrize("default", [False, True])
def test_one_copy_admits_as_the_steps(default: bool) -> None:
    """Every priority/class/policy/tolerations combination, with and without a
    global default class: the same pod (or the same refusal) both ways."""
    sim = _sim(default)
    pods = _pods()
    assert all(step is not None for step in core.POD_CHANGES)
    got = [_fields(sim.admit_to_api(p)) for p in pods]
    want = [_fields(_by_steps(sim, p)) for p in pods]
    assert got == want
    assert sum(isinstance(g[0], str) for g in got) > 10  # refusals are among them
    assert any(g[-1] is p for g, p in zip(got, pods, strict=True) if g[0] != "refused")


def test_other_admission_rules_run_the_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """With admission rules other than the default one, the priority step cannot
    tell its changes and the steps' functions decide."""
    sim = _sim(False)
    calls: list[str] = []
    original = core.POD_ADMISSION[:]

    def spy(fn: Any) -> Any:
        def run(s: Simulation, pod: Any) -> Any:
            calls.append(fn.__name__)
            return fn(s, pod)
        return run

    monkeypatch.setattr(core, "POD_ADMISSION", [spy(fn) for fn in original])
    # As if other rules were active: the resolved set still runs, but is not
    # known to be the default single rule.
    monkeypatch.setattr(priority, "_ACTIVE", list(priority._ACTIVE))
    real = priority._default_admission

    def other_rules() -> Any:
        active = real()
        priority._ACTIVE[2] = False
        return active

    monkeypatch.setattr(priority, "_default_admission", other_rules)
    pod = Pod("default", "p", priority_class="high")
    admitted = sim.admit_to_api(pod)
    assert calls == [fn.__name__ for fn in original]
    assert admitted.priority == 1000 and admitted.preemption_policy == "Never"


def test_a_class_created_later_counts_for_the_pods_after_it() -> None:
    """The per-simulation memo of what priority admission sets is dropped when a
    PriorityClass is created: a new global default applies to the next pods."""
    from kruleset.sim.setup import create_object

    sim = Simulation(kruleset.load('scenario "admission"\n'))
    before = sim.admit_to_api(Pod("default", "a"))
    create_object(sim, PriorityClass("batch", 7, global_default=True))
    after = sim.admit_to_api(Pod("default", "b"))
    assert (before.priority, before.priority_class) == (0, "")
    assert (after.priority, after.priority_class) == (7, "batch")


def test_pods_sharing_tolerations_get_their_own_answer() -> None:
    """The default-tolerations memo answers by the tolerations tuple itself: equal
    answers for one tuple, and a different tuple at a reused place is not mistaken."""
    from kruleset.rules.disruption.taint_manager import default_toleration_changes

    shared = _TOLERATIONS[4]
    a = default_toleration_changes(Pod("default", "a", tolerations=shared))
    b = default_toleration_changes(Pod("default", "b", tolerations=shared))
    assert a is b and len(a["tolerations"]) == 3
    for tolerations in _TOLERATIONS:
        got = default_toleration_changes(Pod("default", "c", tolerations=tuple(tolerations)))
        want = _by_steps(_sim(False), Pod("default", "c", tolerations=tuple(tolerations)))
        assert got.get("tolerations", tuple(tolerations)) == want.tolerations
