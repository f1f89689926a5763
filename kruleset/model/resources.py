"""Exact integer resource vectors.

The four resources every decision touches (cpu in millicores, memory and
ephemeral-storage in bytes, the pod count) are plain slots so the hot paths
read attributes, not dictionaries; extended resources ride along in a sorted
tuple.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from ..errors import ScenarioError
from .quantity import QuantityError, format_quantity, parse_quantity

__all__ = ["Resources", "ZERO", "CPU", "MEMORY", "EPHEMERAL", "PODS"]

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL = "ephemeral-storage"
PODS = "pods"
_BASIC = (CPU, MEMORY, EPHEMERAL, PODS)


@attrs.frozen(slots=True)
class Resources:
    """An immutable vector of resource quantities (internal integer units)."""

    cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    pods: int = 0
    scalars: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, values: Mapping[str, int | str]) -> Resources:
        """Build from ``{"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": 1}``.

        A string is a Kubernetes quantity as a manifest writes it (``"2"`` cpu is
        2000 millicores); an ``int`` is already in the internal unit (millicores
        for cpu, bytes, counts).  Anything else, or a string that is not a
        quantity, is refused with a :class:`~kruleset.errors.ScenarioError`.
        """
        if not all(type(v) is int for v in values.values()):
            values = {k: _quantity(k, v) for k, v in values.items()}
        ints: Mapping[str, int] = values  # type: ignore[assignment]
        scalars = tuple(sorted((k, v) for k, v in ints.items() if k not in _BASIC))
        return cls(
            ints.get(CPU, 0),
            ints.get(MEMORY, 0),
            ints.get(EPHEMERAL, 0),
            ints.get(PODS, 0),
            scalars,
        )

    def get(self, name: str) -> int:
        """The quantity of ``name`` (0 when absent)."""
        if name == CPU:
            return self.cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL:
            return self.ephemeral_storage
        if name == PODS:
            return self.pods
        for k, v in self.scalars:
            if k == name:
                return v
        return 0

    def has(self, name: str) -> bool:
        """Whether ``name`` is set to a non-zero value."""
        return self.get(name) != 0

    def items(self) -> Iterator[tuple[str, int]]:
        """Non-zero entries in a fixed order: cpu, memory, ephemeral-storage, pods, others."""
        if self.cpu:
            yield CPU, self.cpu
        if self.memory:
            yield MEMORY, self.memory
        if self.ephemeral_storage:
            yield EPHEMERAL, self.ephemeral_storage
        if self.pods:
            yield PODS, self.pods
        for k, v in self.scalars:
            if v:
                yield k, v

    def as_dict(self) -> dict[str, int]:
        """Non-zero entries as a plain dict."""
        return dict(self.items())

    def names(self) -> tuple[str, ...]:
        """Names of the non-zero entries."""
        return tuple(k for k, _ in self.items())

    def __add__(self, other: Resources) -> Resources:
        if not other.scalars and not self.scalars:
            return Resources(
                self.cpu + other.cpu,
                self.memory + other.memory,
                self.ephemeral_storage + other.ephemeral_storage,
                self.pods + other.pods,
            )
        merged = dict(self.scalars)
        for k, v in other.scalars:
            merged[k] = merged.get(k, 0) + v
        return Resources(
            self.cpu + other.cpu,
            self.memory + other.memory,
            self.ephemeral_storage + other.ephemeral_storage,
            self.pods + other.pods,
            tuple(sorted(merged.items())),
        )

    def __sub__(self, other: Resources) -> Resources:
        merged = dict(self.scalars)
        for k, v in other.scalars:
            merged[k] = merged.get(k, 0) - v
        return Resources(
            self.cpu - other.cpu,
            self.memory - other.memory,
            self.ephemeral_storage - other.ephemeral_storage,
            self.pods - other.pods,
            tuple(sorted(merged.items())),
        )

    def max_with(self, other: Resources) -> Resources:
        """Element-wise maximum."""
        merged = dict(self.scalars)
        for k, v in other.scalars:
            merged[k] = max(merged.get(k, 0), v)
        return Resources(
            max(self.cpu, other.cpu),
            max(self.memory, other.memory),
            max(self.ephemeral_storage, other.ephemeral_storage),
            max(self.pods, other.pods),
            tuple(sorted(merged.items())),
        )

    def is_zero(self) -> bool:
        """True when every entry is zero."""
        return not (
            self.cpu or self.memory or self.ephemeral_storage or self.pods
            or any(v for _, v in self.scalars)
        )

    def describe(self) -> str:
        """``cpu=2, memory=1Gi`` in Kubernetes notation."""
        return ", ".join(f"{k}={format_quantity(k, v)}" for k, v in self.items())


ZERO = Resources()


def _quantity(name: str, value: object) -> int:
    """One value of :meth:`Resources.of`: an int as is, a string parsed as Kubernetes does."""
    if type(value) is int:
        return value
    if isinstance(value, str):
        try:
            return parse_quantity(value.strip(), name)
        except QuantityError as e:
            raise ScenarioError(f"resource {name}: {e}",
                                expected="a quantity such as 500m, 2, 1Gi, 128Mi") from None
    raise ScenarioError(f"resource {name}: {value!r} ({type(value).__name__}) is not a quantity",
                        expected="a string such as '500m' or '1Gi', or an int in the "
                                 "internal unit (millicores for cpu, bytes)")
