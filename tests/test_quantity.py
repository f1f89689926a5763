"""Kubernetes quantities, percentages and durations as exact integers."""

from fractions import Fraction

import pytest

from kruleset.model.quantity import (
    QuantityError,
    format_bytes,
    format_cpu,
    format_duration,
    parse_duration,
    parse_percentage,
    parse_quantity,
)


@pytest.mark.parametrize(("text", "resource", "value"), [
    ("2", "cpu", 2000),
    ("0.5", "cpu", 500),
    ("500m", "cpu", 500),
    ("1.5", "cpu", 1500),
    ("0.1m", "cpu", 1),          # MilliValue rounds up
    ("100n", "cpu", 1),
    ("1e3", "cpu", 1_000_000),
    ("128Mi", "memory", 128 * 2**20),
    ("1Gi", "memory", 2**30),
    ("1G", "memory", 10**9),
    ("1e3", "memory", 1000),
    ("1E3", "memory", 1000),
    ("100k", "memory", 100_000),
    ("1.5Gi", "memory", 3 * 2**29),
    ("1Ki", "memory", 1024),
    ("2Ti", "memory", 2 * 2**40),
    ("1Pi", "memory", 2**50),
    ("1Ei", "memory", 2**60),
    ("1M", "memory", 10**6),
    ("1T", "memory", 10**12),
    ("1P", "memory", 10**15),
    ("1E", "memory", 10**18),
    ("0.5", "memory", 1),         # Value rounds up
    ("110", "pods", 110),
    ("1", "nvidia.com/gpu", 1),
    (".5", "cpu", 500),
    ("+2", "cpu", 2000),
])
def test_parse_quantity(text: str, resource: str, value: int) -> None:
    assert parse_quantity(text, resource) == value


@pytest.mark.parametrize("text", ["", "abc", "1Kb", "1.2.3", "Mi", "1 Gi", "1e", "--1", "1mi"])
def test_bad_quantities_are_refused(text: str) -> None:
    with pytest.raises(QuantityError, match="not a quantity"):
        parse_quantity(text)


def test_negative_quantity_refused_unless_allowed() -> None:
    with pytest.raises(QuantityError, match="negative"):
        parse_quantity("-1Gi")
    assert parse_quantity("-1Gi", allow_negative=True) == -(2**30)


@pytest.mark.parametrize(("text", "ms"), [
    ("0s", 0), ("0", 0), ("250ms", 250), ("30s", 30_000), ("5m", 300_000), ("1h", 3_600_000),
    ("1m30s", 90_000), ("1.5s", 1500), ("2h3m4s", 7_384_000),
])
def test_parse_duration(text: str, ms: int) -> None:
    assert parse_duration(text) == ms


def test_negative_duration_only_where_allowed() -> None:
    with pytest.raises(QuantityError):
        parse_duration("-2h")
    assert parse_duration("-2h", allow_negative=True) == -7_200_000


@pytest.mark.parametrize("text", ["10", "s", "1d", "1m30", "abc"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_duration(text)


def test_percentages() -> None:
    assert parse_percentage("10%") == 10
    assert parse_percentage("10.5%") == Fraction(21, 2)
    with pytest.raises(QuantityError, match="over 100%"):
        parse_percentage("100.1%")
    with pytest.raises(QuantityError):
        parse_percentage("10")


def test_formatting_round_trips() -> None:
    assert format_cpu(2000) == "2" and format_cpu(500) == "500m"
    assert format_bytes(2**30) == "1Gi" and format_bytes(10**9) == "1G" and format_bytes(7) == "7"
    for ms in (0, 250, 1500, 30_000, 90_000, 3_600_000, 7_384_000):
        assert parse_duration(format_duration(ms)) == ms
