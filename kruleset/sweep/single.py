"""One variant of a sweep as a plain run: ``kruleset run FILE --set … --fail … --at … --seed …``.

``kruleset run`` takes a sweep's axes with one value each, so any row of a
sweep's table can be run again with everything ``run`` offers (every format,
``--explain``, ``--state``).  The options are checked by the same functions as
the sweep's (:func:`kruleset.sweep.axes.parse_sets`,
:func:`kruleset.sweep.variants.apply_sets`, :func:`kruleset.sweep.failures`,
:func:`kruleset.sweep.check_at`), so a value a sweep refuses, a run refuses with
the same words.

``--set PATH=VALUE``
    as the sweep's ``--set`` with one value (``PATH=V1,V2`` is refused: that is a sweep);
``--fail node=NAME`` / ``--fail zone=NAME``
    the node, or every node of the zone, deleted at ``--at T`` (default 0s), as the
    sweep's ``--fail-each`` does for its variant ``node=NAME``;
``--seed N``
    the arrival order the sweep's ``--seeds`` numbers ``N``.

The run's scenario title says which variant it is (``… [variant node=c-1]``).
A sweep's ``--profile`` axis has no run option: ``kruleset run --profile`` takes a
kruleset profile that replaces the scheduler's, where a sweep's profile is added
to the scenario's own, so those variants are replayed by ``sweep --variant``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ..model.limits import MAX_SEEDS
from ..model.quantity import format_duration
from ..model.scenario import Scenario
from ..rules.profile import Profile
from .axes import SweepError, Variant, parse_sets
from .variants import prepare

__all__ = ["RunVariant", "add_arguments", "from_args", "prepared", "run_command",
           "simulate", "sweep_command"]


@attrs.frozen(slots=True)
class RunVariant:
    """``kruleset run``'s variant options as given (picklable: sent to ``-j`` workers)."""

    sets: tuple[str, ...] = ()
    fail: str | None = None
    at: int = 0
    seed: int | None = None

    @classmethod
    def of(cls, variant: Variant, at: int) -> RunVariant:
        """The run options of a sweep's variant (one without a ``--profile``)."""
        f = variant.failure
        return cls(tuple(f"{p.text}={v}" for p, v in variant.sets),
                   f"{f.kind}={f.name}" if f is not None else None, at if f else 0,
                   variant.seed)


def add_arguments(parser: Any) -> None:
    """``--set``, ``--fail``, ``--at`` and ``--seed`` on ``kruleset run``."""
    group = parser.add_argument_group(
        "a sweep's variant", "run one row of kruleset sweep's table (the sweep prints the "
                             "command for each row); one file only")
    group.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                        dest="sets", help="run a sweep's variant: one value of the scenario, "
                                          "as kruleset sweep --set takes it (repeatable)")
    group.add_argument("--fail", metavar="node=NAME|zone=NAME",
                        help="delete that node, or every node of that zone, at --at")
    group.add_argument("--at", metavar="T", default=None,
                        help="with --fail: when the failure happens (default 0s)")
    group.add_argument("--seed", type=int, default=None, metavar="N",
                        help="the arrival order a sweep's --seeds numbers N")


def from_args(args: Any) -> RunVariant | None:
    """The options as given, or None without any; raises :class:`SweepError` for --at alone."""
    from ..model.quantity import QuantityError, parse_duration

    sets = tuple(getattr(args, "sets", None) or ())
    fail, at_text, seed = (getattr(args, "fail", None), getattr(args, "at", None),
                           getattr(args, "seed", None))
    if at_text is not None and fail is None:
        raise SweepError("--at needs --fail (the failure it times)",
                         suggestion="add --fail node=NAME, or use --until to stop the run")
    if not sets and fail is None and seed is None:
        return None
    at = 0
    if at_text is not None:
        try:
            at = parse_duration(at_text)
        except QuantityError as e:
            raise SweepError(f"--at: {e}") from None
    return RunVariant(sets, fail, at, seed)


def variant_of(scenario: Scenario, rv: RunVariant) -> Variant:
    """The sweep's variant these options name, its axes checked as a sweep checks them
    (the values are checked when :func:`prepared` applies them)."""
    from . import check_at, failures

    set_axes = parse_sets(rv.sets)
    for text, (_path, values) in zip(rv.sets, set_axes, strict=True):
        if len(values) != 1:
            raise SweepError(f"--set {text}: kruleset run takes one value per path",
                             suggestion=f"kruleset sweep {scenario.file} --set {text} runs "
                                        "each value")
    if rv.seed is not None and not 1 <= rv.seed <= MAX_SEEDS:
        raise SweepError(f"--seed {rv.seed}: must be from 1 to {MAX_SEEDS:,}")
    if rv.at < 0:
        raise SweepError("--at must not be negative")
    check_at(scenario, rv.at)
    failure = None
    if rv.fail is not None:
        kind, eq, name = rv.fail.partition("=")
        if not eq or not name:
            raise SweepError(f"--fail {rv.fail}: expected node=NAME or zone=NAME",
                             expected="the variant's name as a sweep's table shows it, "
                                      "e.g. --fail node=c-1")
        found = failures(scenario, kind.strip(), rv.at, option="--fail")
        failure = next((f for f in found if f.name == name.strip()), None)
        if failure is None:
            from ..errors import did_you_mean

            names = [f.name for f in found]
            raise SweepError(
                f"--fail {rv.fail}: the scenario has no {kind} {name} at "
                f"{format_duration(rv.at)}",
                expected=f"one of: {', '.join(names[:10])}" + (" …" if len(names) > 10 else ""),
                suggestion=did_you_mean(name, names))
    sets = tuple((path, values[0]) for path, values in set_axes)
    return Variant(0, sets, None, rv.seed, failure)


def prepared(scenario: Scenario, rv: RunVariant, until: int | None
             ) -> tuple[Scenario, Profile, Variant]:
    """The variant's scenario (titled with its name), its scheduler profile and the variant."""
    variant = variant_of(scenario, rv)
    if until is not None and rv.fail is not None and rv.at > until:
        raise SweepError(f"--at {format_duration(rv.at)} is after --until "
                         f"{format_duration(until)}")
    sc, profile = prepare(scenario, variant, {})  # refuses a bad value, as a sweep's plan does
    title = f"{sc.title} [variant {variant.name}]" if sc.title else f"variant {variant.name}"
    return attrs.evolve(sc, title=title), profile, variant


def simulate(sim: Any, scenario: Scenario, variant: Variant, at: int) -> Any:
    """Run ``sim`` (built on :func:`prepared`'s scenario) with the variant's failure at ``at``."""
    if variant.failure is None:
        return sim.run()
    from .executors import Job, run_failing_at
    from .failure import guard_removed

    guard_removed(sim)
    result, _ = run_failing_at(sim, Job(scenario, {}, at), variant)
    return result


# --- the commands that replay a row ---------------------------------------------------------

def _quote(words: Sequence[str]) -> str:
    import shlex

    return " ".join(shlex.quote(w) for w in words)


def sweep_command(path: str, at: str, axes: dict[str, Any], name: str) -> str:
    """``kruleset sweep PATH <the sweep's axes> --variant NAME``: the row, replayed in full."""
    words = ["kruleset", "sweep", path]
    for key, values in axes.items():
        if key == "profile":
            words += ["--profile", ",".join(values)]
        elif key == "seeds":
            words += ["--seeds", str(values)]
        elif key == "fail-each":
            words += ["--fail-each", values]
        else:
            words += ["--set", f"{key}={','.join(values)}"]
    if "fail-each" in axes and at != "0s":
        words += ["--at", at]
    return _quote([*words, "--variant", name])


def run_command(path: str, at: str, variant_axes: dict[str, Any]) -> str | None:
    """``kruleset run PATH --set … --fail … --at …``, or None for a profile's variant."""
    if "profile" in variant_axes:
        return None
    words = ["kruleset", "run", path]
    fail: list[str] = []
    for key, value in variant_axes.items():
        if key == "seed":
            words += ["--seed", str(value)]
        elif key in ("node", "zone"):
            fail = ["--fail", f"{key}={value}"] + (["--at", at] if at != "0s" else [])
        else:
            words += ["--set", f"{key}={value}"]
    return _quote(words + fail)
