"""``--explain REF``: a conclusion in one line, then the decisions, then each attempt.

A traced run records every rule evaluation in order: hundreds of lines for one
pod on a few nodes, thousands at real size.  This view reads them as a user
asks them:

1. the conclusion first, in words (``web: scheduled on node-1 at 40s after
   preempting batch-1 at 10s (lowest sum of victim priorities); node-2 lost on
   lowest sum of victim priorities``);
2. the decisions about the pod, with upstream's messages word for word;
3. each scheduling attempt (a new one starts where the pod enters the queue's
   checks again), its filter results per node (the failing rules with their
   reasons, the passing ones counted; nodes alike share a line), the rules that are not per-node
   (prefilter, postfilter, preemption's victims and pick, scores, the
   kubelet's admission) by their rule names, passes counted.

Rule names stay as recorded, so a line can be looked up in ``kruleset rules``.
A node's explanation is every entry that names it, grouped by time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..model.quantity import format_duration
from .compact import NodeNames, pick_words

if TYPE_CHECKING:
    from ..rules.engine import TraceEntry
    from ..sim.result import Result

__all__ = ["conclusion", "node_conclusion", "render_explain"]

_FILTER = "scheduler.filter."
_QUEUE = ("scheduler.preenqueue.", "scheduler.prefilter.")
# The queue's entries that lead into an attempt (its verdicts after one, such as
# scheduler.queue.unschedulable, end that attempt instead).
_INTO = (*_QUEUE, "scheduler.queue.add", "scheduler.queue.requeue", "scheduler.queue.pop",
         "scheduler.queue.flush-", "scheduler.queue.gated", "scheduler.queue.preemption-gate")
# At most this many nodes are named in the conclusion's "lost on" list.
_LOSERS = 3
# Nodes with the same filter outcome are one line; more than this many are counted.
_NODES = 4


class Style(Protocol):
    """The text report's styling (:class:`kruleset.report.text.Style`)."""

    def bold(self, text: str) -> str: ...
    def bad(self, text: str) -> str: ...


def render_explain(ref: str, result: Result, style: Style) -> str:
    """Everything the trace says about ``ref`` (a pod, or a node), grouped."""
    out = [style.bold(f"explain {ref}")]
    if ref.startswith("deployment/"):
        return _explain_deployment(ref, result, style, out)
    kind, slash, rest = ref.partition("/")
    if slash and kind in _WORKLOADS:
        return _explain_workload(out, _WORKLOADS[kind], rest, result, style)
    key = ref if "/" in ref else f"default/{ref}"
    if key not in result.state.pods:
        if ref not in result.state.nodes:
            return style.bad(f"no pod or node called {ref} in this run")
        return "\n".join(out + _node_lines(ref, result))
    names = NodeNames(result.state.nodes)
    if names.legend():
        out.append(names.legend())
    out.append(names.short(f"  {conclusion(key, result)}"))
    out.append("  decisions:")
    for d in result.decisions:
        if d.pod == key or d.by == key:
            out.append(f"  {format_duration(d.time):>7}  {d.kind} {d.pod}"
                       f"{' on ' + d.node if d.node else ''}: {d.reason} {d.message}".rstrip())
    if result.trace is not None:
        mentions = _mentions(key)
        entries = [e for e in result.trace.entries
                   if mentions(e.subject) or mentions(e.why)]
        out.extend(names.short(line) for line in _attempt_blocks(entries, key, result))
    return "\n".join(out)


def _attempt_blocks(entries: Sequence[TraceEntry], key: str, result: Result) -> list[str]:
    """Each attempt's head and lines; attempts that repeat the one before them word for
    word (the queue's retries of a pod nothing changed for, every 5 minutes) are one line."""
    out: list[str] = []
    same: list[tuple[int, int]] = []  # (attempt number, time) of repeats not yet told
    prev: list[str] | None = None
    first = 0
    n = 0
    for attempt in _attempts(entries):
        # Only attempts are numbered: the queue's verdicts on events between them
        # (a QueueingHint's Queue or QueueSkip) are told under their time alone.
        n += any(e.rule.startswith(_QUEUE) for e in attempt)
        head = _attempt_head(n, attempt, key, result)
        lines = _attempt_lines(attempt, key)
        # what the attempt decided, without the queue's words on when and why it ran
        sig = [x for x in lines if not x.lstrip().startswith("scheduler.queue.")]
        if prev is not None and sig == prev and head.startswith("  attempt "):
            same.append((n, attempt[0].time))
            continue
        out.extend(_repeats(same, first))
        same = []
        prev, first = sig, n
        out.append(head)
        out.extend(lines)
    out.extend(_repeats(same, first))
    return out


def _repeats(same: list[tuple[int, int]], first: int) -> list[str]:
    if not same:
        return []
    times = [format_duration(t) for _, t in same]
    when = ", ".join(times) if len(times) <= 3 else f"{times[0]}, {times[1]}, … {times[-1]}"
    if len(same) == 1:
        return [f"  attempt {same[0][0]} at {when}: as attempt {first}"]
    return [f"  attempts {same[0][0]} to {same[-1][0]} at {when}: each as attempt {first}"]


def _explain_deployment(ref: str, result: Result, style: Style, out: list[str]) -> str:
    """``--explain deployment/[NS/]NAME``: its controllers' decisions and rules, by time."""
    name = ref.split("/", 1)[1]
    key = name if "/" in name else f"default/{name}"
    if key not in result.state.deployments:
        return style.bad(f"no deployment called {key} in this run")
    subject = f"deployment/{key}"
    ns, short = key.split("/", 1)
    for d in result.decisions:
        if d.pod == subject or (d.by == f"deployment/{short}" and d.pod.startswith(ns + "/")):
            out.append(f"  {format_duration(d.time):>7}  {d.kind} {d.pod}"
                       f"{' on ' + d.node if d.node else ''}: {d.reason} {d.message}".rstrip())
    if result.trace is not None:
        _trace_lines(out, result.trace.entries, lambda e: e.subject == subject)
    return "\n".join(out)


_WORKLOADS = {"statefulset": "StatefulSet", "daemonset": "DaemonSet", "job": "Job"}


def _explain_workload(out: list[str], kind: str, rest: str, result: Result,
                      style: Style) -> str:
    """``--explain job/NAME`` (statefulset/…, daemonset/…): the controller's decisions."""
    key = rest if "/" in rest else f"default/{rest}"
    if f"{kind}/{key}" not in result.state.workloads:
        return style.bad(f"no {kind} called {key} in this run")
    by = f"{kind.lower()}/{key.split('/', 1)[1]}"
    for d in result.decisions:
        if d.by == by:
            out.append(f"  {format_duration(d.time):>7}  {d.kind} {d.pod}"
                       f"{' on ' + d.node if d.node else ''}: {d.reason} {d.message}".rstrip())
    if result.trace is not None:
        prefix = f"controllers.{kind.lower()}."
        _trace_lines(out, result.trace.entries,
                     lambda e: e.rule.startswith(prefix) and e.subject.startswith(key))
    return "\n".join(out)


def _trace_lines(out: list[str], entries: Any, keep: Callable[[Any], bool]) -> None:
    """The trace entries ``keep`` accepts, grouped by time, under ``rules:``."""
    out.append("  rules:")
    last_time = None
    for e in entries:
        if keep(e):
            if e.time != last_time:
                out.append(f"   at {format_duration(e.time)}:")
                last_time = e.time
            why = f": {e.why}" if e.why else ""
            out.append(f"    {e.rule} [{e.subject}] {e.result}{why}")


def _mentions(name: str) -> Callable[[str], bool]:
    """Whether a text names ``name`` itself (``default/web-7``, not ``default/web-70``)."""
    found = re.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w.-])").search

    def mentions(text: str) -> bool:
        return name in text and found(text) is not None  # the cheap test first

    return mentions


def _short(key: str) -> str:
    return key[len("default/"):] if key.startswith("default/") else key


def conclusion(key: str, result: Result) -> str:
    """``web: scheduled on node-1 at 40s after preempting batch-1 at 10s (fewest victims); …``."""
    about = [d for d in result.decisions if d.pod == key]
    name = _short(key)
    if not about:
        return f"{name}: nothing was decided about it"
    last = about[-1]
    at = format_duration(last.time)
    if last.kind in ("scheduled", "running"):
        words = f"{last.kind} on {last.node} at {at}"
    elif last.kind == "pending":
        since = format_duration(_pending_since(about))
        words = f"pending (last tried at {at}, since {since}): {last.message}"
    elif last.kind == "nominated":
        words = f"nominated to {last.node} at {at}, waiting for its victims to end"
    else:
        by = f" by {_short(last.by)}" if last.by else ""
        node = f" on {last.node}" if last.node else ""
        # a preemption's message repeats the line; other endings say why
        said = f": {last.message}" if last.message and last.kind != "preempted" else ""
        words = f"{last.kind}{by}{node} at {at}{said}"
    victims = [d for d in result.decisions if d.kind == "preempted" and d.by == key]
    if victims:
        when = format_duration(victims[0].time)
        names = ", ".join(_short(d.pod) for d in victims[:_LOSERS])
        more = f" and {len(victims) - _LOSERS} more" if len(victims) > _LOSERS else ""
        words += f" after preempting {names}{more} at {when}"
        picked = [d for d in about if d.kind == "nominated" and d.message]
        if picked:
            words += f" ({pick_words(picked[-1].message, detail=False)})"
    lost = _losers(key, result)
    return f"{name}: {words}" + (f"; {lost}" if lost else "")


def _pending_since(about: Sequence[Any]) -> int:
    """When the pod's last stretch of pending began (after it last ran, if it did)."""
    since = about[0].time
    for d in about:
        if d.kind in ("scheduled", "running"):
            since = -1
        elif d.kind == "pending" and since < 0:
            since = d.time
    return max(since, 0)


def _losers(key: str, result: Result) -> str:
    """``node-2 lost on fewest victims, node-3 on lowest-priority victims`` (the last pick)."""
    if result.trace is None:
        return ""
    picks: list[TraceEntry] = []
    mentions = _mentions(key)
    for e in result.trace.entries:
        if e.rule != "scheduler.preemption.pick" or not mentions(e.subject):
            continue
        if e.result.startswith("chose "):
            picks = []  # a later preemption: only its pick is told
        elif e.result.endswith(" not chosen"):
            picks.append(e)
    parts = []
    for i, e in enumerate(picks[:_LOSERS]):
        node = e.result[: -len(" not chosen")]
        words = pick_words(e.why, detail=False)
        parts.append(f"{node} lost on {words}" if i == 0 else f"{node} on {words}")
    if len(picks) > _LOSERS:
        parts.append(f"{len(picks) - _LOSERS} more nodes lost")
    return ", ".join(parts)


def _attempts(entries: Sequence[TraceEntry]) -> list[list[TraceEntry]]:
    """The entries cut where an attempt starts: a new time, or the queue's checks again."""
    out: list[list[TraceEntry]] = []
    for e in entries:
        starts = e.rule.startswith(_INTO)
        if (not out or e.time != out[-1][-1].time
                or (starts and not out[-1][-1].rule.startswith(_INTO))):
            out.append([])
        out[-1].append(e)
    return out


def _attempt_head(n: int, attempt: Sequence[TraceEntry], key: str, result: Result) -> str:
    t = attempt[0].time
    said = [d for d in result.decisions if d.pod == key and d.time == t
            and d.kind in ("scheduled", "pending", "nominated", "rejected")]
    words = "; ".join(
        f"{d.kind}{' on ' + d.node if d.node and d.kind != 'nominated' else ''}"
        f"{' to ' + d.node if d.node and d.kind == 'nominated' else ''}"
        f"{': ' + d.message if d.kind == 'pending' and d.message else ''}" for d in said)
    is_attempt = any(e.rule.startswith(_QUEUE) for e in attempt)
    head = f"attempt {n} at {format_duration(t)}" if is_attempt else f"at {format_duration(t)}"
    return f"  {head}" + (f": {words}" if words and is_attempt else "")


def _attempt_lines(attempt: Sequence[TraceEntry], key: str) -> list[str]:
    """Runs of filter entries per node; other entries as recorded, passes counted."""
    out: list[str] = []
    in_preemption = False
    i = 0
    while i < len(attempt):
        e = attempt[i]
        j = i
        if e.rule.startswith(_FILTER):
            while j < len(attempt) and attempt[j].rule.startswith(_FILTER):
                j += 1
            label = "dry run on " if in_preemption else ""
            out.extend(f"    {label}{line}" for line in _per_node(attempt[i:j]))
        elif e.result == "pass" and e.subject == key:
            while (j < len(attempt) and attempt[j].result == "pass"
                   and attempt[j].subject == key and not attempt[j].rule.startswith(_FILTER)):
                j += 1
            out.append(f"    {_families(attempt[i:j])}: {j - i} pass")
        else:
            in_preemption = in_preemption or e.rule.startswith(
                ("scheduler.postfilter.", "scheduler.preemption."))
            out.append(f"    {e}")
            j = i + 1
        i = j
    return out


def _families(entries: Iterable[TraceEntry]) -> str:
    """``scheduler.preenqueue.*, scheduler.prefilter.*`` for a run of rules."""
    seen: dict[str, None] = {}
    for e in entries:
        seen.setdefault(e.rule.rsplit(".", 1)[0] + ".*", None)
    return ", ".join(seen)


def _per_node(entries: Sequence[TraceEntry]) -> list[str]:
    """``node-1, node-2: scheduler.filter.NodeResourcesFit fail: Insufficient cpu (3 pass)``.

    Nodes with the same outcome share a line (the first two named, the rest
    counted when there are many): at 300 nodes an attempt is a few lines.
    """
    nodes: dict[str, list[TraceEntry]] = {}
    for e in entries:
        node = e.subject.rpartition(" on ")[2] or e.subject
        nodes.setdefault(node, []).append(e)
    said: dict[str, list[str]] = {}   # the outcome → the nodes that had it, in order
    for node, es in nodes.items():
        bad = [e for e in es if e.result != "pass"]
        passed = len(es) - len(bad)
        fails: dict[str, int] = {}
        for e in bad:
            text = f"{e.rule} {e.result}{': ' + e.why if e.why else ''}"
            fails[text] = fails.get(text, 0) + 1
        text = "; ".join(f"{t}{f' (×{n})' if n > 1 else ''}" for t, n in fails.items())
        if text:
            text += f" ({passed} pass)" if passed else ""
        else:
            text = f"{passed} filters pass"
        said.setdefault(text, []).append(node)
    out = []
    for text, names in said.items():
        if len(names) > _NODES:
            shown = (f"{', '.join(names[:2])} and {len(names) - 2:,} more nodes "
                     f"({len(names):,})")
        else:
            shown = ", ".join(names)
        out.append(f"{shown}: {text}")
    return out


def node_conclusion(ref: str, result: Result) -> str:
    """``node-2: 2 pods running at the end (batch-2, batch-3); 5 decisions on it``."""
    running = sorted(ps.key for ps in result.state.pods.values()
                     if ps.node == ref and ps.phase == "Running" and not ps.gone
                     and not ps.terminating)
    names = ", ".join(_short(k) for k in running[:_NODES])
    more = f" and {len(running) - _NODES:,} more" if len(running) > _NODES else ""
    count = sum(1 for d in result.decisions if d.node == ref or d.pod == ref)
    shown = f" ({names}{more})" if running else ""
    return (f"{ref}: {len(running):,} pod{'s' if len(running) != 1 else ''} running at the "
            f"end{shown}; {count:,} decision{'s' if count != 1 else ''} on it")


def _node_lines(ref: str, result: Result) -> list[str]:
    out = [f"  {node_conclusion(ref, result)}"]
    for d in result.decisions:
        if d.node == ref or d.pod == ref:
            out.append(f"  {format_duration(d.time):>7}  {d.kind} {d.pod}"
                       f"{' on ' + d.node if d.node else ''}: {d.reason} {d.message}".rstrip())
    if result.trace is not None:
        out.append("  rules:")
        last: Any = None
        mentions = _mentions(ref)
        for e in result.trace.entries:
            if mentions(e.subject) or mentions(e.why):
                if e.time != last:
                    out.append(f"   at {format_duration(e.time)}:")
                    last = e.time
                out.append(f"    {e}")
    return out
