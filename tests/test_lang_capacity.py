"""A million pods: ranges up to 1,000,000 names, and the memory-aware guard.

The guard compares, every ``CHECK_EVERY`` pods declared, the memory the
system has left with what the next pods need, and refuses the scenario at
the statement that crossed the mark; here the mark and the machine's memory
are made small so the test stays fast.
"""

from __future__ import annotations

import pytest

import kruleset
from kruleset.errors import ScenarioError
from kruleset.lang import capacity
from kruleset.lang.values import MAX_RANGE, RangeError, expand_range

TEXT = ('scenario "big"\nnodes n-[1..3] cpu=4 memory=32Gi\n'
        "pods default/a-[1..8] on n-1 cpu=100m\n"
        "pods default/b-[1..8] on n-2 cpu=100m\n"
        "pods default/c-[1..8] on n-3 cpu=100m\n")


def test_one_range_may_name_a_million_and_no_more() -> None:
    assert MAX_RANGE == 1_000_000
    with pytest.raises(RangeError, match="more than 1,000,000 names; split it"):
        expand_range("p-[1..1000001]")


def test_the_guard_refuses_at_the_statement_that_crosses_the_mark(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "CHECK_EVERY", 10)
    # The next 10 pods need 2 x 10 x 3 KiB = 60 KiB; 40 KiB are left.
    monkeypatch.setattr(capacity, "available_memory", lambda: 40 * 1024)
    with pytest.raises(ScenarioError) as e:
        kruleset.load(TEXT)
    assert e.value.line == 4  # 8 pods, then 16: the second range crosses 10
    assert "16 pods are declared so far and only 0 MiB of memory is left" in e.value.message
    assert "declare fewer pods, or run on a machine with more memory" in e.value.message


def test_with_memory_enough_or_unknown_the_scenario_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "CHECK_EVERY", 10)
    monkeypatch.setattr(capacity, "available_memory", lambda: 64 * 2**30)
    assert len(kruleset.load(TEXT).objects) == 3 + 24
    monkeypatch.setattr(capacity, "available_memory", lambda: None)
    assert len(kruleset.load(TEXT).objects) == 3 + 24


def test_available_memory_reads_the_system() -> None:
    got = capacity.available_memory()
    assert got is None or got > 0
