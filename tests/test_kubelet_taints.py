"""Taint manager decisions and DefaultTolerationSeconds (seed 003 §6)."""

from __future__ import annotations

from kubelet_helpers import pod

from kruleset.model.selectors import Taint, Toleration
from kruleset.rules.disruption.taint_manager import (
    NOT_READY,
    UNREACHABLE,
    decide,
    default_tolerations,
)

NE = Taint("k", "v", "NoExecute")


def test_untolerated_is_immediate_and_min_seconds_wins() -> None:
    assert decide(None, pod("a"), [NE]).delay == 0
    p = pod("b", tolerations=(Toleration("k", "Exists", "", "NoExecute", 60),
                              Toleration("x", "Exists", "", "NoExecute", 10)))
    assert decide(None, p, [NE, Taint("x", "", "NoExecute")]).delay == 10_000
    forever = pod("c", tolerations=(Toleration("k", "Exists", "", "NoExecute"),))
    assert decide(None, forever, [NE]).delay is None
    negative = pod("d", tolerations=(Toleration("k", "Exists", "", "NoExecute", -5),))
    assert decide(None, negative, [NE]).delay == 0


def test_default_toleration_seconds() -> None:
    p = default_tolerations(pod("a"))
    assert {(t.key, t.toleration_seconds) for t in p.tolerations} == {(NOT_READY, 300),
                                                                      (UNREACHABLE, 300)}
    own = pod("b", tolerations=(Toleration(NOT_READY, "Exists", "", "NoExecute", 6000),))
    keys = [t.key for t in default_tolerations(own).tolerations]
    assert keys == [NOT_READY, UNREACHABLE]
    everything = pod("c", tolerations=(Toleration("", "Exists"),))
    assert default_tolerations(everything).tolerations == everything.tolerations
