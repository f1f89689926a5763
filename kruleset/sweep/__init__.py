"""What-if sweeps: one scenario run under many variations, as a table.

``kruleset sweep SCENARIO.kr`` (see :mod:`kruleset.sweep.command`) or, from
Python::

    from kruleset.sweep import sweep
    s = sweep("examples/sweep-n1.kr", fail_each="node", jobs=2)
    print(s.text())

Modules: :mod:`.axes` (the axes and their grid), :mod:`.variants` (a variant
applied to a loaded scenario; the ``--set`` paths), :mod:`.failure` (deleting
a node or a zone from a running simulation), :mod:`.executors` (local
processes and Dask), :mod:`.table` (the rows, their order, text and JSON), :mod:`.html` (the
table as a self-contained page), :mod:`.replay` (``--variant``: one row again, in full),
:mod:`.single` (a row as ``kruleset run --set … --fail …``, and the commands that replay a
row), :mod:`.output` (what the command writes, ``--reports DIR``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ..model.limits import MAX_SEEDS, MAX_VARIANTS
from ..model.objects import Node
from ..model.quantity import format_duration
from ..model.scenario import Create, Scenario
from ..report.text import Style
from .axes import Failure, SetPath, SweepError, Variant, grid, parse_sets
from .executors import Job, Outcome, run_dask, run_local, run_replay
from .failure import zones
from .table import exit_code, render_json, render_text, sort_rows
from .variants import Choice, apply_sets, load_choice, prepare

__all__ = ["Plan", "Sweep", "SweepError", "failures", "plan", "sweep"]


def failures(scenario: Scenario, kind: str, at: int,
             option: str = "--fail-each") -> list[Failure]:
    """The nodes (or zones) that exist at ``at``, in declaration order.

    ``option`` names the command line's option in a refusal (``--fail`` for ``kruleset run``).
    """
    if kind not in ("node", "zone"):
        raise SweepError(f"{option} {kind}: expected node or zone")
    nodes: dict[str, Node] = {}
    for obj in scenario.objects:
        if isinstance(obj, Node):
            nodes[obj.name] = obj
    for e in scenario.events:
        if e.time <= at and isinstance(e.action, Create) and isinstance(e.action.obj, Node):
            nodes.setdefault(e.action.obj.name, e.action.obj)
    if kind == "node":
        return [Failure("node", n, (n,)) for n in nodes]
    found = zones(nodes.values())
    if not found:
        raise SweepError(f"{option} zone: no node has a topology.kubernetes.io/zone label",
                         suggestion=f"label the nodes, or fail a node ({option} node…)")
    return [Failure("zone", z, tuple(names)) for z, names in found.items()]


def check_at(scenario: Scenario, at: int) -> None:
    """Refuse a failure time after the scenario's last instant (as the simulation computes it)."""
    from ..sim.core import MAX_AFTER_LAST_EVENT

    if scenario.run_until is not None:
        end, why = scenario.run_until, f"run until {format_duration(scenario.run_until)}"
    else:
        times = [e.time for e in scenario.events]
        times += [x.time for x in scenario.expectations if x.time is not None]
        end = max(times + [0]) + MAX_AFTER_LAST_EVENT
        why = "an hour after its last event"
    if at > end:
        raise SweepError(f"--at {format_duration(at)} is after the scenario ends ({why})",
                         expected=f"a time from 0s to {format_duration(end)}")


@attrs.frozen(slots=True)
class Sweep:
    """A finished sweep: the base run and every variant's outcome, in grid order."""

    path: str
    at: int
    description: str
    axes: dict[str, Any]
    base: Outcome
    variants: list[Variant]
    outcomes: list[Outcome]

    def rows(self) -> list[tuple[Variant, Outcome]]:
        """Variants with their outcomes, worst first (:data:`kruleset.sweep.table.ORDER`)."""
        return sort_rows(self.variants, self.outcomes)

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return render_json(self.path, self.at, self.axes, self.base, self.rows())

    def text(self, style: Style | None = None) -> str:
        """The table."""
        return render_text(self.path, self.at, self.description, self.base, self.rows(),
                           style or Style(color=False), axes=self.axes)

    def html(self, reports: dict[int, str] | None = None) -> str:
        """The table as one self-contained HTML page (:mod:`kruleset.sweep.html`);
        ``reports`` maps a variant's index (-1: the base run) to its report's address."""
        from .html import render_html

        return render_html(self.to_json(), self.description, reports)

    @property
    def exit_code(self) -> int:
        """0 every variant passes, 1 some fail, 3 some could not run."""
        return exit_code(self.outcomes)


@attrs.frozen(slots=True)
class Plan:
    """A sweep's variants before anything runs: the loaded scenario, its grid, its files."""

    path: str
    scenario: Scenario
    variants: list[Variant]
    choices: dict[str, Choice]
    set_axes: list[tuple[SetPath, tuple[str, ...]]]


def plan(scenario: str | os.PathLike[str] | Scenario, *, fail_each: str | None = None,
         at: int = 0, sets: Sequence[str] = (), profiles: Sequence[str] = (),
         seeds: int = 0) -> Plan:
    """Check the options of :func:`sweep` and build its grid (nothing is simulated)."""
    from .. import api

    path = str(scenario) if not isinstance(scenario, Scenario) else scenario.file
    loaded = scenario if isinstance(scenario, Scenario) else api.load(scenario)
    if at < 0:
        raise SweepError("--at must not be negative")
    set_axes = parse_sets(sets)
    choices: dict[str, Choice] = {}
    for p in profiles:
        if p in choices:
            raise SweepError(f"--profile {p} is given twice")
        choices[p] = load_choice(p)
    if not 0 <= seeds <= MAX_SEEDS:
        raise SweepError(f"--seeds {seeds}: must be from 0 to {MAX_SEEDS:,}",
                         suggestion="each seed is a whole simulation; a few dozen show "
                                    "whether arrival order matters")
    check_at(loaded, at)
    fails = failures(loaded, fail_each, at) if fail_each else []
    size = max(len(choices), 1) * max(seeds, 1) * max(len(fails), 1)
    for _, values in set_axes:
        size *= len(values)
    if size > MAX_VARIANTS:
        raise SweepError(f"the sweep has {size:,} variants, more than the {MAX_VARIANTS:,} "
                         "one sweep runs", suggestion="fewer values, profiles or seeds")
    variants = grid(set_axes, list(choices), seeds, fails)
    if not (set_axes or choices or seeds or fails):
        raise SweepError("a sweep needs at least one axis",
                         expected="--fail-each node|zone, --set PATH=V1,V2, "
                                  "--profile A.yaml,B.yaml or --seeds N")
    # Every value is tried on the scenario now, so a bad one stops the sweep before it runs.
    for set_path, values in set_axes:
        for value in values:
            apply_sets(loaded, ((set_path, value),))
    for p in choices:
        prepare(loaded, Variant(0, profile=p), choices)
    return Plan(path, loaded, variants, choices, set_axes)


def sweep(scenario: str | os.PathLike[str] | Scenario, *, fail_each: str | None = None,
          at: int = 0, sets: Sequence[str] = (), profiles: Sequence[str] = (),
          seeds: int = 0, jobs: int = 1, dask: Any = None, replay: bool = False,
          progress: Callable[[int, int], None] | None = None) -> Sweep:
    """Run ``scenario`` under every combination of the axes given.

    ``sets`` are ``KIND:NAME:FIELD=V1,V2`` strings, ``profiles`` file paths,
    ``at`` the failure time in ms.  ``dask`` is a scheduler address (or a
    ``dask.distributed.Client``); otherwise ``jobs`` local processes.
    ``replay=True`` simulates every variant from time 0 in this process (no
    shared copy: slower, for checking).  ``progress(done, total)`` is called
    as variants finish.  Raises :class:`SweepError` (a ``ScenarioError``) for
    bad options and ``ScenarioError`` for a refused scenario.
    """
    planned = plan(scenario, fail_each=fail_each, at=at, sets=sets, profiles=profiles,
                   seeds=seeds)
    path, loaded, variants, choices = (planned.path, planned.scenario, planned.variants,
                                       planned.choices)
    set_axes = planned.set_axes
    base = Variant(-1)
    everything = [base] + variants
    job = Job(loaded, choices, at)
    total = len(everything)
    report: Callable[[int], None] | None = (
        (lambda done: progress(done, total)) if progress is not None else None)
    if replay:
        outcomes = run_replay(job, everything, report)
    elif dask is not None:
        outcomes = run_dask(job, everything, dask, report)
    else:
        outcomes = run_local(job, everything, jobs, report)
    axes: dict[str, Any] = {p.text: list(v) for p, v in set_axes}
    words = [f"{p.text}={','.join(v)}" for p, v in set_axes]
    if choices:
        axes["profile"] = list(choices)
        words.append("profile=" + ",".join(choices))
    if seeds:
        axes["seeds"] = seeds
        words.append(f"seeds 1..{seeds}")
    if fail_each:
        axes["fail-each"] = fail_each
        words.append(f"fail-each {fail_each} at {format_duration(at)}")
    return Sweep(path, at, " × ".join(words), axes, outcomes[0], variants, outcomes[1:])
