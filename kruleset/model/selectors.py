"""Label selectors, node selector terms, taints and tolerations."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

__all__ = [
    "LabelSelector",
    "Requirement",
    "NodeSelectorTerm",
    "Taint",
    "Toleration",
    "EFFECTS",
]

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

# Operators as Kubernetes spells them.
IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT)


def _as_int(text: str) -> int | None:
    try:
        return int(text, 10)
    except ValueError:
        return None


@attrs.frozen(slots=True)
class Requirement:
    """One ``key OP values`` requirement (label selectors and node affinity)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy this requirement.

        NotIn and DoesNotExist match an absent label; Gt/Lt compare base-10
        integers and never match a non-integer (upstream labels.Requirement).
        """
        op = self.operator
        present = self.key in labels
        if op == IN:
            return present and labels[self.key] in self.values
        if op == NOT_IN:
            return not present or labels[self.key] not in self.values
        if op == EXISTS:
            return present
        if op == DOES_NOT_EXIST:
            return not present
        if not present or len(self.values) != 1:
            return False
        have, want = _as_int(labels[self.key]), _as_int(self.values[0])
        if have is None or want is None:
            return False
        return have > want if op == GT else have < want

    def __str__(self) -> str:
        if self.operator == EXISTS:
            return self.key
        if self.operator == DOES_NOT_EXIST:
            return f"!{self.key}"
        if self.operator == IN and len(self.values) == 1:
            return f"{self.key}={self.values[0]}"
        if self.operator == NOT_IN and len(self.values) == 1:
            return f"{self.key}!={self.values[0]}"
        if self.operator == GT:
            return f"{self.key} > {self.values[0]}"
        if self.operator == LT:
            return f"{self.key} < {self.values[0]}"
        return f"{self.key} {self.operator.lower()} ({', '.join(self.values)})"


@attrs.frozen(slots=True)
class LabelSelector:
    """A conjunction of requirements. ``empty`` tells an empty selector apart.

    What an empty selector selects depends on who asks (everything for the
    Eviction API and the disruption controller, nothing for scheduler
    preemption), so callers decide with :attr:`empty`.
    """

    requirements: tuple[Requirement, ...] = ()

    @property
    def empty(self) -> bool:
        """True for ``selector()`` / ``{}``."""
        return not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether every requirement holds (an empty selector matches everything)."""
        # a loop, not all(...): matching runs per pod and node, and the generator costs more
        for r in self.requirements:  # noqa: SIM110
            if not r.matches(labels):
                return False
        return True

    def __str__(self) -> str:
        return ", ".join(str(r) for r in self.requirements)


@attrs.frozen(slots=True)
class NodeSelectorTerm:
    """One nodeSelectorTerm: expressions on labels and fields, ANDed.

    A term with neither matches nothing (upstream component-helpers).
    """

    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()  # key metadata.name

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """Whether a node with these labels and name satisfies the term."""
        if not self.expressions and not self.fields:
            return False
        for r in self.expressions:
            if not r.matches(labels):
                return False
        return all(_field_matches(r, node_name) for r in self.fields)


def _field_matches(r: Requirement, node_name: str) -> bool:
    """A matchFields requirement, read as upstream reads it: as a field selector.

    Only ``In`` and ``NotIn`` with exactly one value can be one; any other
    requirement makes the term match no node (API validation refuses such a
    pod; the scheduler, given one, matches nothing).
    """
    if len(r.values) != 1 or r.operator not in (IN, NOT_IN):
        return False
    value = node_name if r.key == "metadata.name" else ""
    return (value == r.values[0]) == (r.operator == IN)


@attrs.frozen(slots=True)
class Taint:
    """A node taint ``key=value:Effect``."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"

    def __str__(self) -> str:
        v = f"={self.value}" if self.value else ""
        return f"{self.key}{v}:{self.effect}"


@attrs.frozen(slots=True)
class Toleration:
    """A pod toleration. ``operator`` is Equal or Exists; empty effect means every effect."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None  # seconds; None: tolerate forever

    def tolerates(self, taint: Taint) -> bool:
        """Upstream ``Toleration.ToleratesTaint``."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        # Equal (or empty): empty key with Equal only matches an empty-key taint,
        # which the key check above already handled.
        return self.value == taint.value

    def __str__(self) -> str:
        key = self.key or "*"
        val = f"={self.value}" if self.operator == "Equal" and self.value else ""
        eff = f":{self.effect}" if self.effect else ""
        secs = f" for {self.toleration_seconds}s" if self.toleration_seconds is not None else ""
        return f"{key}{val}{eff}{secs}"
