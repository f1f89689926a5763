"""Decision lines that fit 120 columns on a real cluster, in words a user knows.

What makes the lines of a 300-node run wrap, and what is done about it:

- node names such as ``ip-10-0-1-17.eu-west-1.compute.internal``: when every
  node's name ends in the same dotted suffix, it is shown as ``…`` and a
  legend line says once what it stands for (the full name is one lookup away);
- upstream messages that repeat the line (``Successfully assigned default/a
  to n1``, ``Preempted by pod default/web on node n1``): left out, with the
  reason that goes with them; ``--format json`` keeps them word for word;
- the rules of the ordinary outcomes (scheduled, running, nominated,
  preempted): the preemption pick is said in plain words
  (``fewest victims``) and the rule names stay in ``--explain`` and JSON;
  a failure, an eviction or a rejection still names its rule (a filter by its
  plugin's name: ``NodeResourcesFit``);
- the same decision for many pods at once (3,120 pods pending for the same
  reason): one line with the first pods and the count; pods found running at
  the same instant (a dump's 3,500 pods at 0s) are one line whatever their
  nodes, with the count of pods and nodes (``--state`` lists them by node).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..model.quantity import format_duration

__all__ = ["GROUP_AT", "PICK_WORDS", "NodeNames", "decision_lines", "pick_words"]

#: Plain words for each preemption pick criterion (rule name → words).
PICK_WORDS = {
    "scheduler.preemption.pick.fewest-pdb-violations": "fewest PodDisruptionBudget violations",
    "scheduler.preemption.pick.lowest-highest-priority": "lowest-priority victims",
    "scheduler.preemption.pick.lowest-priority-sum": "lowest sum of victim priorities",
    "scheduler.preemption.pick.fewest-victims": "fewest victims",
    "scheduler.preemption.pick.latest-start": "victims that started last",
    "scheduler.preemption.pick.first-declared-node": "first node in the scheduler's order",
}

#: This many consecutive equal decisions (but for the pod) are shown as one line.
GROUP_AT = 4

# Outcomes whose rules are the scheduler's plugins as configured: not repeated per line.
_ORDINARY = frozenset({"scheduled", "running", "nominated", "preempted"})
# A suffix shorter than this is not worth a legend.
_MIN_SUFFIX = 8


def pick_words(decided_by: str, *, detail: bool = True) -> str:
    """``fewest victims (1 victim(s) < 2 victim(s))`` for a pick's ``rule: a < b``.

    The node-order tie-break's comparison (node #1 < node #2) says nothing a
    user can use, so only its words are kept.
    """
    rule, _, how = decided_by.partition(":")
    words = PICK_WORDS.get(rule.strip())
    if words is None:
        return decided_by
    how = how.strip()
    if not how or not detail or rule.strip().endswith("first-declared-node"):
        return words
    return f"{words} ({how})"


class NodeNames:
    """How node names are shown: the common dotted suffix elided, said once in a legend."""

    def __init__(self, names: Iterable[str]) -> None:
        self.suffix = _common_suffix(sorted(set(names)))

    def short(self, text: str) -> str:
        """``text`` with the common suffix shown as ``…``."""
        return text.replace(self.suffix, "…") if self.suffix else text

    def legend(self) -> str:
        """The legend line, or ``""`` when nothing is elided."""
        return f"  (… in node names stands for {self.suffix})" if self.suffix else ""


def _common_suffix(names: Sequence[str]) -> str:
    if len(names) < 2:
        return ""
    first = names[0]
    n = 0
    while n < len(first) and all(len(x) > n and x[-1 - n] == first[-1 - n] for x in names):
        n += 1
    tail = first[len(first) - n:]
    dot = tail.find(".")
    if dot < 0:
        return ""
    tail = tail[dot:]
    # A whole label must stay before the suffix in every name.
    if len(tail) < _MIN_SUFFIX or any(len(x) == len(tail) for x in names):
        return ""
    return tail


def _tail(d: Any) -> tuple[str, tuple[str, ...]]:
    """What follows the pod (and node) on the line: the reason and message, and the rules."""
    message = d.message
    standard = {"scheduled": f"Successfully assigned {d.pod} to {d.node}",
                "preempted": f"Preempted by pod {d.by} on node {d.node}"}.get(d.kind)
    rules = () if d.kind in _ORDINARY else tuple(d.rules)
    if d.kind == "nominated":
        return (f": {pick_words(message)}" if message else ""), rules
    if d.kind == "scaled":
        # upstream's event names the replica set the line already shows
        m = _SCALED.fullmatch(message)
        if m:
            return f" {m[1]} from {m[2]} to {m[3]}", rules
    if d.kind == "preempted":
        pick = next((r for r in d.rules if r in PICK_WORDS), "")
        if message == standard:
            return (f" ({PICK_WORDS[pick]})" if pick else ""), rules
    if message == standard:
        return "", rules
    # FailedScheduling is what `pending` says; the message is the reason.
    reason = f" {d.reason}" if d.reason and d.reason != "FailedScheduling" else ""
    return f"{reason}{': ' + message if message else ''}", rules


_SCALED = re.compile(r"Scaled (up|down) replica set \S+ from (\d+) to (\d+)")


def _plugin(rule: str) -> str:
    """A filter rule by its plugin's name, as upstream and scheduler configurations say it."""
    return rule[len(_FILTER):] if rule.startswith(_FILTER) else rule


_FILTER = "scheduler.filter."


def _key(d: Any) -> tuple[Any, ...]:
    if d.kind == "running":
        # where each runs is the state, not a decision: grouped across nodes
        return (d.time, d.kind, d.by, d.reason, d.message, d.rules)
    return (d.time, d.kind, d.node, d.by, d.reason, d.message, d.rules)


def _group(decisions: Sequence[Any], i: int, count: int) -> tuple[str, str]:
    """The pods of a group of ``count`` equal decisions from ``i``, and its node part."""
    first, second = decisions[i], decisions[i + 1]
    nodes = {d.node for d in decisions[i:i + count]}
    if len(nodes) == 1:
        return (f"{first.pod}, {second.pod} and {count - 2:,} more ({count:,} pods)",
                f" on {first.node}" if first.node else "")
    return (f"{first.pod} on {first.node}, {second.pod} on {second.node} and "
            f"{count - 2:,} more ({count:,} pods on {len(nodes):,} nodes)", "")


def decision_lines(decisions: Sequence[Any], names: NodeNames, style: Any) -> list[str]:
    """The report's lines for ``decisions`` (in order), equal neighbours grouped."""
    out = []
    i = 0
    while i < len(decisions):
        d = decisions[i]
        j = i + 1
        while j < len(decisions) and _key(decisions[j]) == _key(d) and d.kind != "scheduled":
            j += 1
        count = j - i if j - i >= GROUP_AT else 1
        pods, node = d.pod, f" on {d.node}" if d.node else ""
        if count > 1:
            pods, node = _group(decisions, i, count)
        by = f" by {d.by}" if d.by and d.kind in ("preempted", "evicted", "deleted") else ""
        tail, rules = _tail(d)
        shown = style.dim(f"  [{', '.join(map(_plugin, rules))}]") if rules else ""
        out.append(names.short(f"  {format_duration(d.time):>7}  {d.kind:<10} {pods}{node}{by}"
                               f"{tail}") + shown)
        i += count
    return out
