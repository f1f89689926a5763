"""The axes of a sweep and the grid of variants they make.

Axes (each optional, combined as a grid in this order):

``--set PATH=V1,V2,…``
    a value of the scenario, named ``KIND:NAME:FIELD`` (see
    :mod:`kruleset.sweep.variants` for every path);
``--profile A.yaml,B.yaml``
    a kruleset profile, a KubeSchedulerConfiguration or a KubeletConfiguration;
``--seeds N``
    arrival orders 1..N of the pods the scenario creates in one instant;
``--fail-each node|zone`` (with ``--at T``)
    each node, or each zone, deleted in turn at T.

Variants are numbered in grid order: the first ``--set`` varies slowest and
the failure fastest.  That order is the tie-break of the table's sort, so a
sweep's output is the same whatever runs it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs

from ..errors import ScenarioError

__all__ = ["Failure", "SetPath", "SweepError", "Variant", "grid", "parse_set", "parse_sets"]

FIELDS = {
    "priorityclass": ("value",),
    "pdb": ("min-available", "max-unavailable"),
    "quota": ("min.RESOURCE", "max.RESOURCE"),
    "deployment": ("replicas",),
    "kubelet": ("eviction-hard.SIGNAL", "eviction-soft.SIGNAL"),
}


class SweepError(ScenarioError):
    """A sweep's options refused before anything runs (exit status 2)."""


@attrs.frozen(slots=True)
class SetPath:
    """``KIND:NAME:FIELD[.SUB]``: one value of the scenario."""

    kind: str
    name: str
    field: str
    sub: str = ""  # the resource of a quota field, the signal of a kubelet threshold

    @property
    def text(self) -> str:
        """As written on the command line."""
        tail = f"{self.field}.{self.sub}" if self.sub else self.field
        return f"{self.kind}:{self.name}:{tail}"


@attrs.frozen(slots=True)
class Failure:
    """A node, or every node of a zone, deleted at the sweep's ``--at``."""

    kind: str              # "node" | "zone"
    name: str
    nodes: tuple[str, ...]


@attrs.frozen(slots=True)
class Variant:
    """One run of the sweep: its position in the grid and its value on each axis."""

    index: int
    sets: tuple[tuple[SetPath, str], ...] = ()
    profile: str | None = None
    seed: int | None = None
    failure: Failure | None = None

    @property
    def name(self) -> str:
        """``pdb:default/web:min-available=2 profile=a.yaml seed=3 node=n1``; ``base``."""
        parts = [f"{p.text}={v}" for p, v in self.sets]
        if self.profile is not None:
            parts.append(f"profile={self.profile}")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        if self.failure is not None:
            parts.append(f"{self.failure.kind}={self.failure.name}")
        return " ".join(parts) or "base"

    @property
    def prefix(self) -> tuple[object, ...]:
        """What the simulation before the failure depends on (variants sharing it share it)."""
        return (self.sets, self.profile, self.seed)

    def axes(self) -> dict[str, object]:
        """The variant's values as JSON."""
        out: dict[str, object] = {p.text: v for p, v in self.sets}
        if self.profile is not None:
            out["profile"] = self.profile
        if self.seed is not None:
            out["seed"] = self.seed
        if self.failure is not None:
            out[self.failure.kind] = self.failure.name
        return out


def parse_set(text: str) -> tuple[SetPath, tuple[str, ...]]:
    """``KIND:NAME:FIELD=V1,V2`` -> the path and its values (checked for shape only)."""
    path, eq, values = text.partition("=")
    hint = ("KIND:NAME:FIELD=V1,V2,… with KIND one of " + ", ".join(FIELDS)
            + ", e.g. pdb:web-pdb:min-available=1,2 or kubelet:*:eviction-hard."
              "memory.available=100Mi,1Gi")
    if not eq:
        raise SweepError(f"--set {text}: no '=' before the values", expected=hint)
    vals = tuple(v.strip() for v in values.split(","))
    if not values.strip() or any(not v for v in vals):
        raise SweepError(f"--set {text}: an empty value", expected=hint)
    parts = path.split(":")
    if len(parts) != 3 or not all(parts):
        raise SweepError(f"--set {path}: a path has three parts KIND:NAME:FIELD",
                         expected=hint)
    kind, name, field = (p.strip() for p in parts)
    if kind not in FIELDS:
        from ..errors import did_you_mean

        raise SweepError(f"--set {path}: unknown kind '{kind}'", expected=hint,
                         suggestion=did_you_mean(kind, FIELDS))
    sub = ""
    if kind in ("quota", "kubelet"):
        field, _, sub = field.partition(".")
    allowed = [f.split(".")[0] for f in FIELDS[kind]]
    if field not in allowed or (kind in ("quota", "kubelet")) != bool(sub):
        raise SweepError(f"--set {path}: a {kind} has no field '{parts[2]}'",
                         expected=f"{kind}:{name}:" + f" or {kind}:{name}:".join(FIELDS[kind]))
    if len(set(vals)) != len(vals):
        raise SweepError(f"--set {text}: a value is given twice")
    return SetPath(kind, name, field, sub), vals


def parse_sets(texts: Sequence[str]) -> list[tuple[SetPath, tuple[str, ...]]]:
    """Every ``--set`` of a command line (a sweep's or a run's), each path given once."""
    out = [parse_set(t) for t in texts]
    seen = [p for p, _ in out]
    if len(set(seen)) != len(seen):
        raise SweepError("--set: the same path is given twice",
                         suggestion="give its values as one list: PATH=V1,V2")
    return out


def grid(sets: Sequence[tuple[SetPath, Sequence[str]]], profiles: Sequence[str],
         seeds: int, failures: Sequence[Failure]) -> list[Variant]:
    """Every combination of the axes, in the order the module doc states."""
    set_axes = [[(p, v) for v in values] for p, values in sets]
    profile_axis: list[str | None] = list(profiles) or [None]
    seed_axis: list[int | None] = list(range(1, seeds + 1)) if seeds else [None]
    failure_axis: list[Failure | None] = list(failures) or [None]
    out: list[Variant] = []
    for combo in itertools.product(*set_axes, profile_axis, seed_axis, failure_axis):
        *chosen, profile, seed, failure = combo
        out.append(Variant(len(out), tuple(chosen), profile, seed, failure))  # type: ignore[arg-type]
    return out
