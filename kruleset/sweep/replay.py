"""``kruleset sweep … --variant ID``: one variant of a sweep, simulated again in full.

A sweep's table says which variant failed; this says why.  The variant is
simulated from time 0 in this process, as ``sweep(replay=True)`` does, but
traced and kept whole: the same report as ``kruleset run`` (every decision,
every expectation) and ``--explain`` work on it.

ID is the variant's name as the table shows it (``node=c-1``,
``pdb:default/web:min-available=2 seed=3``) or its position in the grid
(``3``, as the JSON report's ``index`` counts from 0, written ``#3``); ``base``
is the run without a variation.
"""

from __future__ import annotations

import attrs

from ..sim.core import Simulation
from ..sim.result import Result
from .axes import SweepError, Variant
from .executors import Job, run_failing_at
from .failure import guard_removed
from .variants import prepare

__all__ = ["Replayed", "find_variant", "replay_variant"]


@attrs.frozen(slots=True)
class Replayed:
    """The variant replayed, what the failure removed, and the whole traced result."""

    variant: Variant
    result: Result
    removed: int


def find_variant(variants: list[Variant], ident: str) -> Variant:
    """The variant ``ident`` names (see the module's doc); :class:`SweepError` if none."""
    ident = ident.strip()
    if ident == "base":
        return Variant(-1)
    if ident.startswith("#") and ident[1:].isdigit():
        index = int(ident[1:])
        if 0 <= index < len(variants):
            return variants[index]
        raise SweepError(f"--variant {ident}: the sweep has variants #0 to #{len(variants) - 1}")
    for v in variants:
        if v.name == ident:
            return v
    from ..errors import did_you_mean

    hint = did_you_mean(ident, [v.name for v in variants])
    shown = ", ".join(v.name for v in variants[:5]) + (", …" if len(variants) > 5 else "")
    raise SweepError(f"--variant {ident}: no such variant in this sweep"
                     + (f"; {hint}" if hint else ""),
                     expected=f"a name from the table ({shown}), #INDEX or base")


def replay_variant(job: Job, variant: Variant) -> Replayed:
    """Simulate ``variant`` from time 0, traced (its failure applied once ``--at`` settled)."""
    scenario, profile = prepare(job.scenario, variant, job.choices)
    sim = Simulation(scenario, profile=profile, trace=True)
    guard_removed(sim)
    result, removed = run_failing_at(sim, job, variant)
    return Replayed(variant, result, removed)
