"""The ``expect`` forms of disruption: PDB status, an eviction's message, a drain's verdict,
and the window modifiers ``always`` / ``never`` (LANGUAGE.md §7).

``expect pdb REF FIELD=N … [condition=REASON] [message="TEXT"]`` — any of
``disruptions-allowed``, ``current-healthy``, ``desired-healthy``,
``expected-pods``, ``disrupted-pods`` (how many entries status.disruptedPods
holds), the DisruptionAllowed condition's reason and (a substring of) its
message.

``expect drain NODE complete | failed | blocked [by REF]``.

``expect always …  from T1 to T2`` and ``expect never … from T1 to T2``: the
expectation after the modifier is checked at every instant the simulation
stops at from T1 to T2 (both included); ``always`` must hold at each,
``never`` at none.
"""

from __future__ import annotations

import re
from typing import Any

from .cursor import Cursor
from .errors import Source
from .expect_words import Check, checked_ref, keyed_value
from .syntax import Word
from .values import duration, integer

__all__ = [
    "DRAIN_VERDICTS",
    "PDB_CONDITIONS",
    "PDB_FIELDS",
    "WINDOW_MODES",
    "count_condition",
    "parse_drain",
    "parse_pdb_status",
    "split_window",
]

PDB_FIELDS = ("disruptions-allowed", "current-healthy", "desired-healthy", "expected-pods",
              "disrupted-pods")
PDB_CONDITIONS = ("SufficientPods", "InsufficientPods", "SyncFailed")
DRAIN_VERDICTS = ("complete", "blocked", "failed")
WINDOW_MODES = ("always", "never")
# Subjects about what happened (a history), not a state that holds at an instant.
NOT_IN_WINDOW = ("victims", "evictions", "eviction", "drain")
COUNT_OPS = (">=", "<=", "!=", "=", ">", "<")
_COUNT = re.compile(r"count(>=|<=|!=|=|>|<)(.*)")


def parse_pdb_status(src: Source, cur: Cursor, args: dict[str, Any]) -> None:
    """The rest of ``expect pdb REF …``: one or more fields, a condition, a message."""
    fields: dict[str, int] = {}
    allowed = (*PDB_FIELDS, "condition", "message")
    while not cur.at_end():
        w = cur.word("a status field such as disruptions-allowed=N")
        key, eq, _ = w.value.partition("=")
        if not eq or key not in allowed:
            raise src.unknown("pdb status field", key, w, allowed,
                              expected="FIELD=N, condition=REASON or message=\"TEXT\"")
        if key in fields or key in args:
            raise src.error(f"'{key}' is given twice", w)
        cur.pos -= 1
        if key == "condition":
            vw = keyed_value(cur, "condition")
            if vw.value not in PDB_CONDITIONS:
                raise src.unknown("DisruptionAllowed condition reason", vw.value, vw,
                                  PDB_CONDITIONS, expected=" | ".join(PDB_CONDITIONS))
            args["condition"] = vw.value
        elif key == "message":
            mw = keyed_value(cur, "message")
            if mw.text is None:
                raise src.error('message is a string here: message="TEXT"', mw,
                                expected='message="TEXT"')
            args["message"] = mw.text
        else:
            fields[key] = integer(src, keyed_value(cur, key), key, minimum=0)
    if not fields and "condition" not in args and "message" not in args:
        raise cur.error("expect pdb needs at least one status field", cur.end_word(),
                        expected="disruptions-allowed=N, current-healthy=N, desired-healthy=N, "
                                 "expected-pods=N, disrupted-pods=N, condition=REASON")
    args["fields"] = fields
    if "disruptions-allowed" in fields:
        args["value"] = fields["disruptions-allowed"]


def parse_drain(src: Source, cur: Cursor, args: dict[str, Any], checks: list[Check]) -> str:
    """``expect drain NODE complete | failed | blocked [by REF]``; returns the node name."""
    node_w = cur.word("a node name")
    checks.append(("node", node_w.value, node_w))
    checks.append(("drain", node_w.value, node_w))
    vw = cur.word("complete, blocked or failed")
    if vw.value not in DRAIN_VERDICTS:
        raise src.unknown("drain verdict", vw.value, vw, DRAIN_VERDICTS,
                          expected=" | ".join(DRAIN_VERDICTS))
    args["verdict"] = vw.value
    if vw.value == "blocked" and cur.accept("by"):
        by_w = cur.word("a pod reference after 'by'")
        args["by"] = checked_ref(src, by_w, checks, glob=False)
    return node_w.value


def count_condition(src: Source, cur: Cursor) -> tuple[str, int]:
    """``count=N`` (or ``>=``, ``<=``, ``>``, ``<``, ``!=``): the operator and N."""
    w = cur.word("count=…")
    m = _COUNT.fullmatch(w.value)
    if m is None:
        raise src.error(f"expected count=… (or count>=…, count<=…), found '{w.value}'", w,
                        expected="count=N | count>=N | count<=N | count>N | count<N | count!=N")
    op, value = m.group(1), m.group(2)
    if not value:
        raise src.error(f"missing number after 'count{op}'", w, expected=f"count{op}N")
    n = integer(src, w.at(5 + len(op), value), "count", minimum=0)
    return op, n


def compare(op: str, have: int, want: int) -> bool:
    """``have OP want`` for the operators of :func:`count_condition`."""
    if op == "=":
        return have == want
    if op == ">=":
        return have >= want
    if op == "<=":
        return have <= want
    if op == ">":
        return have > want
    if op == "<":
        return have < want
    return have != want


def split_window(src: Source, cur: Cursor, mode: Word, time: int | None) -> tuple[int, int]:
    """Take ``from T1 to T2`` off the end of an ``always``/``never`` expectation."""
    if time is not None:
        raise src.error(f"'expect {mode.value}' has its own times: write it without 'at'", mode,
                        expected=f"expect {mode.value} … from T1 to T2")
    items = cur.items
    n = len(items)
    ok = n - cur.pos >= 5 and all(isinstance(items[i], Word) for i in (n - 4, n - 2)) \
        and items[n - 4].value == "from" and items[n - 2].value == "to"  # type: ignore[union-attr]
    if not ok:
        raise cur.error(f"'expect {mode.value}' ends with 'from T1 to T2'", cur.end_word(),
                        expected=f"expect {mode.value} pods GLOB ready count>=N from 1m to 10m")
    start_w, end_w = items[n - 3], items[n - 1]
    if not isinstance(start_w, Word) or not isinstance(end_w, Word):
        raise cur.error("expected durations after 'from' and 'to'", items[n - 3])
    start = duration(src, start_w, "from")
    end = duration(src, end_w, "to")
    if end < start:
        raise src.error(f"the window ends ({end_w.value}) before it starts ({start_w.value})",
                        end_w, expected=f"a time at or after {start_w.value}")
    cur.items = items[:n - 4]
    return start, end
