"""``expect …`` lines (LANGUAGE.md §4) into :class:`Expectation` objects.

The ``args`` of each form (the lead's simulation reads these names):

========================  ==================================================
form                      args
========================  ==================================================
``pod``                   ``node`` (running on / nominated), ``reason``
                          (pending, rejected: a substring; evicted: a word),
                          ``by`` (preempted by)
``pods-count``            ``count``, ``op`` (``=``, ``>=``, ``<=``, ``>``, ``<``,
                          ``!=``), ``labels`` (dict: the pods carrying them,
                          ``ref`` then globs the namespace)
``victims``               ``refs`` (tuple of ``ns/name``)
``evictions``             ``refs`` (tuple, in order)
``eviction-status``       ``status`` (200, 429 or 500), ``message`` (a substring of
                          the answer's message and cause, or absent)
``node-condition``        ``condition``, ``value`` (``False`` for ``false``,
                          which also sets ``negated``)
``node-taint``            ``taint`` (:class:`Taint`; value ``""`` when not
                          given), ``absent``
``quota-used``            ``used`` (dict resource -> exact int)
``pdb-status``            ``fields`` (dict: status field -> int), ``condition``,
                          ``message``, ``value`` (disruptions-allowed, if given)
``drain``                 ``verdict`` (complete, blocked, failed), ``by``
``qos``                   ``value``
``priority``              ``value``, ``preemption`` (or absent)
``critical``              (``negated`` for ``not critical``)
``oom-score-adj``         ``value``, ``container`` (absent for the
                          single-container form)
``deployment-status``     ``replicas``, ``updated``, ``ready``, ``available``,
                          ``unavailable`` (those given)
``workload-status``,      see :mod:`.expect_workloads`
``job-condition``
``attempts``              ``value``: scheduling attempts made so far
========================  ==================================================

Any form but ``victims``, ``evictions``, ``eviction`` and ``drain`` may be
preceded by ``always`` or ``never`` and followed by ``from T1 to T2``:
``args["window"]`` is then ``(mode, T1, T2)`` in ms.

``ref`` is ``ns/name`` for pods and PDBs (globs kept as written, namespace
``default`` added), the node name for node forms, the namespace for quota,
``""`` for ``evictions``.
"""

from __future__ import annotations

from typing import Any

from ..errors import Span
from ..model.scenario import Expectation
from .cursor import Cursor
from .errors import Source
from .expect_disruption import (
    NOT_IN_WINDOW,
    WINDOW_MODES,
    count_condition,
    parse_drain,
    parse_pdb_status,
    split_window,
)
from .expect_words import Check, checked_ref, checked_refs, keyed_value
from .rollout import parse_expect_deployment
from .syntax import Item, Word, first_word, last_word
from .values import check_namespace, integer, label_key, label_value, pod_ref, resources, taint

__all__ = ["Check", "parse_expect", "statement_text", "POD_STATES"]

POD_STATES = ("running", "pending", "nominated", "preempted", "evicted", "rejected", "deleted",
              "terminating", "succeeded", "failed")
COUNT_STATES = ("running", "ready", "pending", "terminating", "preempted", "evicted",
                "rejected", "deleted", "succeeded", "failed")
EVICTION_REASONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "EphemeralStorage", "API",
                    "Taint")
CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure")
QOS = ("Guaranteed", "Burstable", "BestEffort")
SUBJECTS = ("pod", "pods", "victims", "evictions", "eviction", "node", "quota", "pdb",
            "drain", "claim", "claims", "device", "deployment", "statefulset", "daemonset", "job")


def statement_text(src: Source, items: list[Item]) -> str:
    """The source text of ``items`` (several lines joined by single spaces)."""
    first, last = first_word(items[0]), last_word(items[-1])
    if first.line == last.line:
        return src.line_text(first.line)[first.column - 1:last.end_column - 1]
    parts = [src.line_text(first.line)[first.column - 1:]]
    parts += [src.line_text(n).strip() for n in range(first.line + 1, last.line)]
    parts.append(src.line_text(last.line)[:last.end_column - 1].strip())
    text = " ".join(p.split("#")[0].strip() if '"' not in p else p.strip() for p in parts)
    return " ".join(text.split())


def _choice(src: Source, w: Word, choices: tuple[str, ...], what: str) -> str:
    text = w.text if w.text is not None else w.value
    if text not in choices:
        raise src.unknown(what, text, w, choices, expected=" | ".join(choices))
    return text


def parse_expect(src: Source, head: Word, cur: Cursor, span: Span,
                 time: int | None) -> tuple[Expectation, list[Check]]:
    """Read ``expect …`` (``head`` is the ``expect`` word) into an Expectation.

    Returns the references it names, to be checked against what the scenario
    declares and creates (globs are not checked: they fail at run time).
    """
    checks: list[Check] = []
    args: dict[str, Any] = {}
    subject, text = _subject(src, cur, args, time)
    state = ""
    negated = False
    ref = ""
    form = subject
    if subject == "pod":
        ref_w = cur.word("a pod reference")
        ref = checked_ref(src, ref_w, checks)
        form, state, negated = _pod_form(src, cur, args, checks)
        if "container" in args:
            # Which pods the container is looked for in (a glob too).
            checks.append(("containers-of", ref, ref_w))
            checks.append(checks.pop(-2))
    elif subject == "pods":
        ref_w = cur.word("a pod reference, glob or LABEL=VALUE")
        if "=" in ref_w.value:
            ref, args["labels"] = _label_ref(src, ref_w)
        else:
            ref = checked_ref(src, ref_w, checks)
        state = _choice(src, cur.word("a state"), COUNT_STATES, "pod state")
        op, args["count"] = count_condition(src, cur)
        if op != "=":
            args["op"] = op
        form = "pods-count"
    elif subject == "victims":
        cur.keyword("of")
        ref = checked_ref(src, cur.word("a pod reference"), checks, glob=False)
        cur.keyword("=")
        args["refs"] = checked_refs(src, cur.blist("the victims"), checks)
    elif subject == "evictions":
        cur.keyword("=")
        args["refs"] = checked_refs(src, cur.blist("the evictions"), checks)
    elif subject == "eviction":
        ref = _eviction_form(src, cur, args, checks)
        form = "eviction-status"
    elif subject == "node":
        node_w = cur.word("a node name")
        ref = node_w.value
        checks.append(("node", ref, node_w))
        what = cur.keyword("condition", "taint").value
        if what == "condition":
            args["condition"] = _choice(src, cur.word("a condition"), CONDITIONS, "condition")
            args["value"] = cur.accept("false") is None
            negated = not args["value"]
            form = "node-condition"
        else:
            tw = cur.word("key[=value]:Effect")
            args["taint"] = taint(src, tw)
            args["absent"] = cur.accept("absent") is not None
            form = "node-taint"
    elif subject in ("claim", "claims", "device"):  # DRA (LANGUAGE-DRA.md §6)
        from .dra import parse_expect_dra

        form, ref, state = parse_expect_dra(src, subject, cur, args, checks)
    elif subject == "deployment":
        ref = parse_expect_deployment(src, cur, args, checks)
        form = "deployment-status"
    elif subject in ("statefulset", "daemonset", "job"):
        from .expect_workloads import parse_expect_workload

        form, ref = parse_expect_workload(src, subject, cur, args, checks)
    elif subject == "quota":
        ns_w = cur.word("a namespace")
        ref = ns_w.value
        checks.append(("quota", ref, ns_w))
        used_w = cur.keyword("used")
        group = cur.group("used")
        args["used"] = resources(src, group, "used", pods=True)
        if not args["used"]:
            raise src.error("used(…) names no resource", used_w, expected="used(cpu=2, …)")
        form = "quota-used"
    elif subject == "drain":
        ref = parse_drain(src, cur, args, checks)
        form = "drain"
    else:  # pdb
        ref_w = cur.word("a pdb reference")
        ns, name = pod_ref(src, ref_w, what="pdb")
        ref = f"{ns}/{name}"
        checks.append(("pdb", ref, ref_w))
        parse_pdb_status(src, cur, args)
        form = "pdb-status"
    cur.done()
    return Expectation(form, ref, text, state, negated, args, time, span), checks


def _subject(src: Source, cur: Cursor, args: dict[str, Any],
             time: int | None) -> tuple[str, str]:
    """The subject word (after ``always``/``never`` and its window) and the statement text."""
    text_from = cur.pos - 1
    window = None
    mode = cur.peek_word()
    text = ""
    if mode in WINDOW_MODES:
        mode_w = cur.keyword(*WINDOW_MODES)
        text = statement_text(src, cur.items[text_from:]) if text_from >= 0 else ""
        window = (mode, *split_window(src, cur, mode_w, time))
    subject_w = cur.keyword(*SUBJECTS)
    subject = subject_w.value
    if window is None:
        text = statement_text(src, cur.items[cur.pos - 2:]) if cur.pos >= 2 else ""
    else:
        if subject in NOT_IN_WINDOW:
            raise src.error(f"'expect {window[0]} {subject}' is not a state that holds at an "
                            "instant", subject_w, expected="pod, pods, pdb, node, quota, claim")
        args["window"] = window
    return subject, text


def _eviction_form(src: Source, cur: Cursor, args: dict[str, Any], checks: list[Check]) -> str:
    """``expect eviction REF status N [message="TEXT"]``: returns the pod reference."""
    ref_w = cur.word("a pod reference")
    ref = checked_ref(src, ref_w, checks, glob=False)
    checks.append(("evict", ref, ref_w))
    cur.keyword("status")
    sw = cur.word("200, 429 or 500")
    if sw.value not in ("200", "429", "500"):
        raise src.error(f"eviction status is 200, 429 or 500, found '{sw.value}'", sw,
                        expected="200 | 429 | 500")
    args["status"] = int(sw.value)
    if not cur.at_end():
        mw = keyed_value(cur, "message")
        if mw.text is None:
            raise src.error('message is a string here: message="TEXT"', mw,
                            expected='message="TEXT"')
        args["message"] = mw.text
    return ref


def _label_ref(src: Source, w: Word) -> tuple[str, dict[str, str]]:
    """``[NAMESPACE/]KEY=VALUE``: the pods carrying the label (any namespace when none is named).

    A key may have a prefix (``app.kubernetes.io/name=web``): a part before a
    ``/`` that has a dot is a prefix (a namespace name has none), so
    ``shop/app.kubernetes.io/name=web`` names both.
    """
    label, _, value = w.value.partition("=")
    parts = label.split("/")
    ns, slash = "", ""
    if len(parts) == 3 or (len(parts) == 2 and "." not in parts[0]):
        ns, slash = parts[0], "/"
        label = "/".join(parts[1:])
    key = label
    if slash:
        check_namespace(src, w, ns)
    label_key(src, w, key)
    label_value(src, w, value)
    return (f"{ns}/*" if slash else "*/*"), {key: value}


def _pod_form(src: Source, cur: Cursor, args: dict[str, Any],
              checks: list[Check]) -> tuple[str, str, bool]:
    """The rest of ``expect pod REF …``: returns (form, state, negated)."""
    w = cur.word("a state such as running")
    word = w.value
    key, eq, _ = word.partition("=")
    if eq:
        cur.pos -= 1
        if key == "qos":
            args["value"] = _choice(src, keyed_value(cur, "qos"), QOS, "QoS class")
            return "qos", "", False
        if key == "priority":
            args["value"] = integer(src, keyed_value(cur, "priority"), "priority")
            if cur.peek_word() and cur.peek_word().startswith("preemption="):  # type: ignore[union-attr]
                args["preemption"] = _choice(src, keyed_value(cur, "preemption"),
                                             ("PreemptLowerPriority", "Never"), "preemption policy")
            return "priority", "", False
        if key == "oom-score-adj":
            args["value"] = integer(src, keyed_value(cur, "oom-score-adj"), "oom-score-adj")
            return "oom-score-adj", "", False
        if key == "attempts":
            args["value"] = integer(src, keyed_value(cur, "attempts"), "attempts", minimum=0)
            return "attempts", "", False
        raise src.unknown("pod expectation", key, w,
                          ("qos", "priority", "oom-score-adj", "attempts"),
                          expected="qos=…, priority=…, oom-score-adj=…, attempts=…")
    if word == "not":
        what = cur.keyword("preempted", "evicted", "critical").value
        if what == "critical":
            return "critical", "", True
        return "pod", what, True
    if word == "critical":
        return "critical", "", False
    if word == "container":
        name_w = cur.word("a container name")
        args["container"] = name_w.value
        checks.append(("container", name_w.value, name_w))
        args["value"] = integer(src, keyed_value(cur, "oom-score-adj"), "oom-score-adj")
        return "oom-score-adj", "", False
    if word not in POD_STATES:
        raise src.unknown("pod state", word, w,
                          (*POD_STATES, "not", "critical", "container", "qos", "priority",
                           "oom-score-adj"),
                          expected=" | ".join(POD_STATES))
    if word == "running" and cur.accept("on"):
        node_w = cur.word("a node name after 'on'")
        args["node"] = node_w.value
        checks.append(("node", node_w.value, node_w))
    elif word == "nominated":
        node_w = cur.word("a node name")
        args["node"] = node_w.value
        checks.append(("node", node_w.value, node_w))
    elif word in ("pending", "rejected") and not cur.at_end():
        rw = keyed_value(cur, "reason")
        if rw.text is None:
            raise src.error('reason is a string here: reason="TEXT"', rw,
                            expected='reason="TEXT"')
        args["reason"] = rw.text
    elif word == "evicted" and not cur.at_end():
        args["reason"] = _choice(src, keyed_value(cur, "reason"), EVICTION_REASONS,
                                 "eviction reason")
    elif word == "preempted" and cur.accept("by"):
        by_w = cur.word("a pod reference after 'by'")
        args["by"] = checked_ref(src, by_w, checks, glob=False)
    return "pod", word, False
