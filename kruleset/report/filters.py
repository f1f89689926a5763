"""Which decisions a report shows: ``--only``, ``--namespace``, ``--from``/``--to``, ``--pod``.

A 300-node run decides thousands of things; these options keep the ones a
question is about (the evictions, one namespace, a time window, one
workload).  They filter what the text and JSON reports list as decisions, not
what is simulated: expectations are checked on the whole run, and the text
report says how many decisions it left out.

``--to``/``--from`` rather than ``--until``: ``run --until T`` already stops
the *simulation* at T.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from typing import Any

import attrs

from ..errors import did_you_mean
from ..model.quantity import QuantityError, format_duration, parse_duration

__all__ = ["KINDS", "DecisionFilter", "FilterError", "make_filter"]

#: The decision kinds a run records, as ``--only`` accepts them.
KINDS = ("scheduled", "running", "pending", "nominated", "preempted", "evicted", "deleted",
         "rejected", "refused", "gated", "created", "cordoned", "uncordoned", "drain",
         "eviction-api", "ignored", "unchanged", "node-deleted", "claim-created", "succeeded",
         "failed", "ready", "rollout", "scaled", "warning", "job-failure-target",
         "job-success-criteria-met", "job-failed", "job-complete")


class FilterError(ValueError):
    """A filter option that cannot be used: the message names the option."""


@attrs.frozen(slots=True)
class DecisionFilter:
    """The decisions to keep; every part given must match (picklable, sent to workers)."""

    kinds: frozenset[str] | None = None
    namespace: str | None = None
    start: int | None = None   # ms, inclusive
    end: int | None = None     # ms, inclusive
    pod: str | None = None     # a glob on NAMESPACE/NAME, or on NAME without a slash
    options: str = ""          # as given, for the report's note

    @property
    def active(self) -> bool:
        """Whether any part is given."""
        return bool(self.options)

    def keep(self, d: Any) -> bool:
        """Whether decision ``d`` is shown."""
        if self.kinds is not None and d.kind not in self.kinds:
            return False
        if self.start is not None and d.time < self.start:
            return False
        if self.end is not None and d.time > self.end:
            return False
        if self.namespace is not None and d.pod.partition("/")[0] != self.namespace:
            return False
        return self.pod is None or self._pod_matches(d.pod) or (
            bool(d.by) and self._pod_matches(d.by))

    def _pod_matches(self, key: str) -> bool:
        assert self.pod is not None
        if "/" not in key:
            return False  # a node's decision (cordoned, drain): no pod
        name = key if "/" in self.pod else key.partition("/")[2]
        return fnmatch.fnmatchcase(name, self.pod)

    def apply(self, decisions: Iterable[Any]) -> list[Any]:
        """The decisions kept, in order."""
        return [d for d in decisions if self.keep(d)]


def make_filter(only: str | None = None, namespace: str | None = None,
                start: str | None = None, end: str | None = None,
                pod: str | None = None) -> DecisionFilter:
    """The filter the options describe; :class:`FilterError` for a bad one."""
    kinds = None
    shown: list[str] = []
    if only is not None:
        kinds = frozenset(k.strip() for k in only.split(",") if k.strip())
        if not kinds:
            raise FilterError("--only: expected KIND[,KIND…] (e.g. --only preempted,evicted)")
        for k in sorted(kinds):
            if k not in KINDS:
                hint = did_you_mean(k, KINDS)
                raise FilterError(f"--only: no decision kind '{k}'"
                                  f"{'; ' + hint if hint else ''} "
                                  f"(kinds: {', '.join(KINDS)})")
        shown.append(f"--only {','.join(k for k in KINDS if k in kinds)}")
    if namespace is not None:
        shown.append(f"--namespace {namespace}")
    times: list[int | None] = []
    for option, value in (("--from", start), ("--to", end)):
        if value is None:
            times.append(None)
            continue
        try:
            times.append(parse_duration(value))
        except QuantityError as e:
            raise FilterError(f"{option}: {e}") from None
        shown.append(f"{option} {format_duration(times[-1] or 0)}")
    if times[0] is not None and times[1] is not None and times[0] > times[1]:
        raise FilterError(f"--from {start} is after --to {end}: no decision can be shown")
    if pod is not None:
        shown.append(f"--pod {pod}")
    return DecisionFilter(kinds, namespace, times[0], times[1], pod, " ".join(shown))


def add_arguments(parser: Any) -> None:
    """The filter options of ``kruleset run`` (an argparse parser)."""
    group = parser.add_argument_group(
        "report filters", "which decisions the text and JSON reports list (expectations are "
        "checked on the whole run)")
    group.add_argument("--only", metavar="KIND,…",
                       help="only these decision kinds (e.g. preempted,evicted)")
    group.add_argument("--namespace", metavar="NS", help="only the pods of namespace NS")
    group.add_argument("--from", dest="from_time", metavar="T",
                       help="only decisions at or after simulated time T (e.g. 30s)")
    group.add_argument("--to", dest="to_time", metavar="T",
                       help="only decisions at or before simulated time T (--until stops "
                            "the simulation itself)")
    group.add_argument("--pod", metavar="PATTERN",
                       help="only the pods matching PATTERN (a glob on NAME or NS/NAME), and "
                            "what they preempted or evicted")


def from_args(args: Any) -> DecisionFilter:
    """The filter given on a parsed command line (:class:`FilterError` for a bad one)."""
    return make_filter(getattr(args, "only", None), getattr(args, "namespace", None),
                       getattr(args, "from_time", None), getattr(args, "to_time", None),
                       getattr(args, "pod", None))
