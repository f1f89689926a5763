"""Priority admission and PriorityClass validation (plugin/pkg/admission/priority)."""

from __future__ import annotations

import pytest

from kruleset.model.objects import NEVER, PREEMPT_LOWER, Pod, PriorityClass
from kruleset.rules.engine import Failure
from kruleset.rules.priority import (
    admit_priority,
    global_default,
    validate_new_default,
    validate_priority_class,
    validate_priority_class_update,
)

HIGH = PriorityClass("high", 1_000_000)
DEV = PriorityClass("development", 100, preemption_policy=NEVER)


def _admit(pod: Pod, *classes: PriorityClass) -> Pod:
    out = admit_priority(pod, {c.name: c for c in classes})
    assert not isinstance(out, Failure), out
    return out


def test_named_class_gives_value_and_policy() -> None:
    p = _admit(Pod("default", "nginx", priority_class="high"), HIGH)
    assert (p.priority, p.preemption_policy, p.priority_class) == (1_000_000, PREEMPT_LOWER, "high")
    d = _admit(Pod("default", "dev", priority_class="development"), DEV)
    assert (d.priority, d.preemption_policy) == (100, NEVER)


def test_unknown_class_is_refused() -> None:
    out = admit_priority(Pod("default", "x", priority_class="hgh"), {"high": HIGH})
    assert isinstance(out, Failure) and out.reason == "no PriorityClass with name hgh was found"


def test_no_default_gives_zero_and_preempt_lower_priority() -> None:
    p = _admit(Pod("default", "web"), HIGH)
    assert (p.priority, p.preemption_policy, p.priority_class) == (0, PREEMPT_LOWER, "")


def test_lowest_global_default_wins_and_names_the_pod() -> None:
    # prio-default-multiple-lowest-wins
    a = PriorityClass("a", 200, global_default=True)
    b = PriorityClass("b", 50, global_default=True, preemption_policy=NEVER)
    p = _admit(Pod("default", "web"), a, b, HIGH)
    assert (p.priority, p.priority_class, p.preemption_policy) == (50, "b", NEVER)
    assert global_default({"a": a, "b": b}) is b


def test_explicit_priority_must_match_the_class() -> None:
    ok = _admit(Pod("default", "x", priority_class="high", priority=1_000_000), HIGH)
    assert ok.priority == 1_000_000
    bad = admit_priority(Pod("default", "y", priority_class="high", priority=5), {"high": HIGH})
    assert isinstance(bad, Failure) and "must not be provided in pod spec" in bad.reason
    assert "computed 1000000" in bad.reason


def test_system_classes_resolve_in_any_namespace() -> None:
    # prio-system-class-any-namespace
    p = _admit(Pod("team-a", "agent", priority_class="system-node-critical"))
    assert p.priority == 2_000_001_000 and p.critical and p.node_critical
    q = _admit(Pod("default", "dns", priority_class="system-cluster-critical"))
    assert q.priority == 2_000_000_000 and q.critical and not q.node_critical


def test_pod_policy_override_models_a_class_with_that_policy() -> None:
    p = _admit(Pod("default", "x", priority_class="high", preemption_policy=NEVER), HIGH)
    assert (p.priority, p.preemption_policy) == (1_000_000, NEVER)


@pytest.mark.parametrize("pc,message", [
    (PriorityClass("ok", 1_000_000_000), None),
    (PriorityClass("negative", -(2 ** 31)), None),
    (PriorityClass("too-high", 1_000_000_001),
     "maximum allowed value of a user defined priority is 1000000000"),
    (PriorityClass("system-mine", 1), "system-mine is not a known system priority class"),
    (PriorityClass("system-node-critical", 5), "value of system-node-critical PriorityClass must"),
    (PriorityClass("system-cluster-critical", 2_000_000_000), None),
    (PriorityClass("Bad_Name", 1), "RFC 1123"),
])
def test_validate_priority_class(pc: PriorityClass, message: str | None) -> None:
    got = validate_priority_class(pc)
    if message is None:
        assert got is None
    else:
        assert got is not None and message in got


def test_only_one_default_and_immutable_fields() -> None:
    a = PriorityClass("a", 1, global_default=True)
    b = PriorityClass("b", 2, global_default=True)
    assert validate_new_default({"a": a}, b) == (
        "PriorityClass a is already marked as default. Only one default can exist")
    assert validate_new_default({"a": a}, a) is None
    assert validate_priority_class_update(a, PriorityClass("a", 2)) is not None
    assert validate_priority_class_update(
        a, PriorityClass("a", 1, preemption_policy=NEVER)) is not None
    assert validate_priority_class_update(a, PriorityClass("a", 1, description="x")) is None
