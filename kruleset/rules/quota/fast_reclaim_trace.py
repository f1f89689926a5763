"""The trace of quota reclaim's arithmetic dry run, formatted only when it is read.

:class:`~kruleset.rules.quota.fast_reclaim._Cycle` logs what it decides as flat
records of plain values (a tag, then its fields) and hands each flush to the
trace as one deferred group; :func:`cycle_entries` turns a group into the
entries the reference rules record (:mod:`~kruleset.rules.quota.reclaim`):
the victim rules' verdicts per pod, the filter runs, the candidates, the
nodes skipped.  A large cycle's thousands of entries cost nothing unless the
trace is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kruleset.model.resources import Resources

from .capacity_scheduling import skip_entry
from .reclaim import NO_QUOTA_PREEMPTOR, NO_QUOTA_SPARED, OWN_NAMESPACE, PLUGIN, RECLAIM

__all__ = ["Core", "cycle_entries"]

# The preemptor's mode: its quota stays within min (it reclaims), goes above it, or none.
RECLAIMING, OWN, NO_QUOTA = 0, 1, 2
# Refusal kinds: which victim rule spares a pod, and why (see _walk_entry).
NS_NO_QUOTA, OWN_WITHIN_MIN, NOT_ABOVE_MIN, OTHER_NS, NOT_LOWER, HAS_QUOTA = range(6)
# What the cycle's trace log holds (one deferred group per flush): records laid out flat,
# each a tag and its fields (walk 6, run 5, add 5, candidate 6), so recording allocates
# nothing the collector must keep tracking.
WALK, RUN, ADD, CANDIDATE, SKIP, REFUSED, NOT_CANDIDATE = range(7)
WALK_FIELDS = 6

Core = tuple[int, int, int, int]  # cpu, memory, ephemeral storage, pods


def _describe(c: Core) -> str:
    return Resources(c[0], c[1], c[2], c[3]).describe() or "nothing"


def cycle_entries(log: tuple[Any, ...], context: tuple[str, int, int, str, frozenset[str],
                                                       dict[str, Core]]
                   ) -> Iterator[tuple[str, str, str, str]]:
    """The entries a :class:`_Cycle` logged, formatted (see :meth:`_Cycle.flush`)."""
    ns, prio, mode, pod_key, infos, used = context
    i, end = 0, len(log)
    while i < end:
        tag = log[i]
        if tag == WALK:
            yield _walk_entry(log[i:i + WALK_FIELDS], pod_key, ns, prio, mode)
            i += WALK_FIELDS
        elif tag == RUN:
            _, subject, names, failed, why = log[i:i + 5]
            i += 5
            for name in names:
                if name == failed:
                    yield name, subject, "fail", why or ""
                    break
                yield name, subject, "pass", ""
        elif tag == ADD:
            yield log[i + 1], log[i + 2], log[i + 3], log[i + 4]
            i += 5
        elif tag == SKIP:
            yield skip_entry(pod_key, *log[i + 1:i + 4])
            i += 4
        elif tag == NOT_CANDIDATE:
            yield PLUGIN, pod_key, f"{log[i + 1]}: not a candidate", log[i + 2]
            i += 3
        elif tag == REFUSED:
            name = log[i + 1]
            for key, ons, p in log[i + 2]:
                kind = _refused_kind(mode, ns, prio, infos, ons, p)
                arg = used[ons] if kind == NOT_ABOVE_MIN else None
                yield _walk_entry((WALK, name, key, p, kind, arg), pod_key, ns, prio,
                                  mode)
            i += 3
        else:
            _, subject, node, victims, violations, reprieved = log[i:i + 6]
            i += 6
            yield (PLUGIN, subject, f"{node}: candidate",
                   f"victims [{', '.join(victims)}], "
                   f"{violations} PDB violation(s), reprieved "
                   f"[{', '.join(reprieved)}]")


def _refused_kind(mode: int, ns: str, prio: int, infos: frozenset[str], ons: str, p: int
                  ) -> int:
    """Why a pod of a node with no possible victim is no victim: what the walk
    finds for it when nothing was taken out yet."""
    if mode == RECLAIMING:
        if ons not in infos:
            return NS_NO_QUOTA
        return OWN_WITHIN_MIN if ons == ns else NOT_ABOVE_MIN
    if mode == OWN:
        if ons not in infos:
            return NS_NO_QUOTA
        return OTHER_NS if ons != ns else NOT_LOWER
    return HAS_QUOTA if ons in infos else NOT_LOWER


def _walk_entry(item: tuple[Any, ...], pod_key: str, ns: str, prio: int, mode: int
                ) -> tuple[str, str, str, str]:
    """The trace entry of one pod of a node's walk (what the victim rules said)."""
    _, name, key, p, kind, arg = item
    if kind < 0:
        if mode == RECLAIMING:
            text = (f"{key.split('/', 1)[0]} is above its min (used "
                    f"{_describe(arg)} before this pod goes), priority {p} does not "
                    f"matter when reclaiming")
        elif mode == OWN:
            text = f"priority {p} < {prio} in the preemptor's own namespace"
        else:
            text = f"priority {p} < {prio}, no ElasticQuota"
        return PLUGIN, key, f"potential victim on {name}", f"for {pod_key}: {text}"
    ons = key.split("/", 1)[0]
    if kind == NS_NO_QUOTA:
        rule_name, text = NO_QUOTA_SPARED, f"namespace {ons} has no ElasticQuota"
    elif kind == OWN_WITHIN_MIN:
        rule_name, text = RECLAIM, (f"{ns} is within its min: it reclaims from other "
                                    f"quotas, not its own pods")
    elif kind == NOT_ABOVE_MIN:
        rule_name, text = RECLAIM, (f"{ons} is not above its min (used "
                                    f"{_describe(arg)}): it has nothing borrowed")
    elif kind == OTHER_NS:
        rule_name, text = OWN_NAMESPACE, (f"{ns} is above its min: only its own "
                                          f"lower-priority pods may go")
    elif kind == NOT_LOWER:
        rule_name = OWN_NAMESPACE if mode == OWN else NO_QUOTA_PREEMPTOR
        text = f"priority {p} is not lower than {prio}"
    else:
        rule_name, text = NO_QUOTA_PREEMPTOR, (f"namespace {ons} has an ElasticQuota "
                                               f"and the preemptor has none")
    return rule_name, key, f"not a victim on {name}", f"for {pod_key}: {text}"
