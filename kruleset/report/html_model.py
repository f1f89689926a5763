"""What the HTML report shows, as compact JSON-ready data (built in the worker
that ran the file, so only plain values cross process boundaries).

The data is sized for 5,000 nodes and 20,000 pods, where a full trace holds
tens of millions of filter evaluations: strings are interned in one table
and referred to by index, and three budgets bound the file (a few MB):

* :data:`EXPAND_BUDGET` trace records are built from the trace's deferred
  groups (node searches, dry runs), three times over: once for any pod, once
  more for pods worth a closer look, once more for the last attempt of each
  pod pending at the end (what explains it); a group past the budget, or larger than
  :data:`GROUP_LIMIT`, is skipped unread, and its attempt keeps the outcome
  its decisions give (reading every record of a 5,000-node, 20,000-pod run
  would take minutes);
* :data:`ROW_BUDGET` node rows in all scheduling-attempt tables together.
  An attempt keeps its chosen node, the best-scored nodes and a few nodes per
  failure reason (at most :data:`ROWS_PER_ATTEMPT`); the other nodes are
  counted per reason, as upstream's message counts them;
* :data:`EXPLAIN_BUDGET` rule-chain lines for the decisions' explanations.

Attempts and explanations of pods whose story is not plain scheduling
(pending, preempted, evicted, rejected, nominated…) are served first.
What a budget leaves out is said in the report (``--explain POD`` gives
all of it).
"""

from __future__ import annotations

import re
from collections import Counter, deque
from typing import Any

from ..model.quantity import format_duration
from ..sim.result import Result
from .compact import pick_words
from .html_usage import Occupancy, end_state_data, queue_data, resources_data

__all__ = ["EXPAND_BUDGET", "EXPLAIN_BUDGET", "GROUP_LIMIT", "ROW_BUDGET", "ROWS_PER_ATTEMPT",
           "file_data"]

EXPAND_BUDGET = 200_000
GROUP_LIMIT = 40_000
ROW_BUDGET = 60_000
ROWS_PER_ATTEMPT = 40
EXPLAIN_BUDGET = 80_000
EXPLAIN_PER_DECISION = 400
_PLAIN = frozenset({"created", "scheduled", "running"})
_MARKS = frozenset({"preempted", "evicted", "nominated", "deleted", "rejected", "eviction-api",
                    "refused", "cordoned", "drain", "gated", "pending"})
_ENDS = ("preempted", "evicted", "deleted", "succeeded", "failed")
_CANDIDATE = re.compile(r"^(\S+): candidate: victims \[([^\]]*)\], (\d+) PDB violation")
_NOT_CANDIDATE = re.compile(r"^(\S+): not a candidate: (.*)$")
_CHOSE = re.compile(r"^chose (\S+): (.*)$")
_NOT_CHOSEN = re.compile(r"^(\S+) not chosen: (.*)$")
_VICTIM = re.compile(r"^victim of (\S+) on (\S+): (.*)$")
_CONDITIONS = re.compile(r"^(?:no pressure|\w+Pressure(?:, \w+Pressure)*)$")


class _Strings:
    """One table of strings; everything else refers to them by index."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        i = self.index.get(text)
        if i is None:
            i = self.index[text] = len(self.table)
            self.table.append(text)
        return i


class _Attempt:
    __slots__ = ("pod", "time", "phase", "filters", "fail", "order", "scores", "only",
                 "candidates", "picks", "detail", "prefilter")

    def __init__(self, pod: str, time: int) -> None:
        self.pod = pod
        self.time = time
        self.phase = "filter"
        self.filters: list[str] = []                        # filter plugins, in order seen
        self.fail: dict[str, tuple[str, str]] = {}          # node -> (plugin, reason)
        self.order: list[str] = []                          # nodes in visiting order
        self.scores: dict[str, tuple[int, str]] = {}            # node -> (total, parts)
        self.only = ""                                      # the only feasible node
        self.candidates: dict[str, list[Any]] = {}
        self.picks: dict[str, tuple[int, str]] = {}
        self.detail = True
        self.prefilter: list[str] = []


def _text(result: str, why: str) -> str:
    return f"{result}: {why}" if why else result


def _interesting(result: Result) -> set[str]:
    pods = {d.pod for d in result.decisions if d.kind not in _PLAIN}
    pods.update(d.by for d in result.decisions if d.by and "/" in d.by)
    for r in result.expectations:
        if not r.passed:
            pods.add(r.expectation.ref)
    return pods


def _pending_at_end(result: Result, pod: str) -> bool:
    ps = result.state.pods.get(pod)
    return ps is not None and not ps.gone and ps.node is None and ps.phase not in (
        "Succeeded", "Failed")


def _walk(result: Result) -> tuple[list[_Attempt], dict[tuple[str, int], list[Any]], list[Any]]:
    """Scheduling attempts, rule lines per (pod, time), node condition changes."""
    trace = result.trace
    attempts: list[_Attempt] = []
    lines: dict[tuple[str, int], list[Any]] = {}
    conditions: list[Any] = []
    if trace is None:
        return attempts, lines, conditions
    interesting = _interesting(result)
    # A pod pending at the end is explained by its last attempt, which comes
    # after the budget for its kind may be spent: those attempts have their own.
    final = {a.pod: a.time for a in result.attempts}
    final = {pod: t for pod, t in final.items() if _pending_at_end(result, pod)}
    # general, pods worth a closer look, the last attempts of pods pending at the end
    budget = [EXPAND_BUDGET, EXPAND_BUDGET, EXPAND_BUDGET]
    current: list[_Attempt | None] = [None]

    def expand(count: int) -> bool:
        att = current[0]
        slot = 0 if att is None else 2 if final.get(att.pod) == att.time else (
            1 if att.pod in interesting else 0)
        if count <= GROUP_LIMIT and budget[slot] >= count:
            budget[slot] -= count
            return True
        if att is not None:
            att.detail = False
        return False

    explain_left = EXPLAIN_BUDGET
    att: _Attempt | None = None
    prefix = "\0"      # "POD on ": the subject of the current attempt's node records
    att_time = -1
    popped = bool(result.attempts)  # the run has the scheduling queue's records
    for rule, subject, res, why, time in trace.walk(expand):
        # The hot path: the node-by-node records of the current attempt.
        if time == att_time and subject.startswith(prefix):
            assert att is not None
            node = subject[len(prefix):]
            if rule.startswith("scheduler.filter."):
                if att.phase == "filter":
                    plugin = rule[17:]
                    if plugin not in att.filters:
                        att.filters.append(plugin)
                    if node not in att.fail:
                        if not att.order or att.order[-1] != node:
                            att.order.append(node)
                        if res != "pass":
                            att.fail[node] = (plugin, why or res)
                continue
            if rule == "scheduler.score":
                if res == "only feasible node":
                    att.only = node
                else:
                    att.scores[node] = (int(res), why)
                continue
        elif rule.startswith("scheduler.filter.") or rule == "scheduler.score":
            continue  # another pod's records (a dry run): not shown
        pod = subject.partition(" on ")[0]
        # An attempt starts when the scheduling queue pops its pod; a trace
        # without the queue's records starts it at the pod's PreEnqueue checks.
        if (rule == "scheduler.queue.pop" or not popped and rule.startswith(
                "scheduler.preenqueue.")) and (
                att is None or att.pod != pod or att_time != time or att.order
                or att.phase != "filter" or rule == "scheduler.queue.pop"):
            att = current[0] = _Attempt(pod, time)
            attempts.append(att)
            prefix, att_time = pod + " on ", time
        if att is not None and pod == att.pod and time == att_time:
            if rule.startswith(("scheduler.preemption.", "scheduler.postfilter.",
                                "scheduler.quota.")):
                att.phase = "postfilter"
                text = _text(res, why)
                m = _CANDIDATE.match(text)
                if m:
                    victims = [v.strip() for v in m.group(2).split(",") if v.strip()]
                    att.candidates[m.group(1)] = [victims, int(m.group(3)), text]
                elif (m := _NOT_CANDIDATE.match(text)) is not None:
                    att.candidates[m.group(1)] = [None, 0, m.group(2)]
                elif (m := _CHOSE.match(text)) is not None:
                    att.picks[m.group(1)] = (1, m.group(2))
                elif (m := _NOT_CHOSEN.match(text)) is not None:
                    att.picks[m.group(1)] = (0, m.group(2))
            elif rule.startswith("scheduler.prefilter.") and res != "pass":
                att.prefilter.append(f"{rule}: {_text(res, why)}")
        if rule == "kubelet.eviction.pass.conditions" and _CONDITIONS.match(res):
            conditions.append((subject, time, res))
        text = _text(res, why)
        keys = [pod]
        m = _VICTIM.match(text) if "victim of" in text else None
        if m is not None:
            keys.append(m.group(1))  # the preemptor's explanation names its victims
        for key in keys:
            if explain_left <= 0:
                break
            bucket = lines.setdefault((key, time), [])
            if len(bucket) < EXPLAIN_PER_DECISION:
                bucket.append((rule, subject, text))
                explain_left -= 1
    return attempts, lines, conditions


def _parts(why: str) -> dict[str, int]:
    """``plugin=score, …`` of a score record."""
    out = {}
    for part in why.split(", "):
        k, _, v = part.rpartition("=")
        out[k] = int(v)
    return out


def _score_cells(att: _Attempt, keep: list[str], scored: Any
                 ) -> tuple[list[str], list[int | None], dict[str, list[list[int | None]]]]:
    """Score plugins, their weights, and per shown node ``[raw, normalized]`` per plugin.

    From the scheduler's record of the cycle when there is one; else from the
    trace's score lines, which hold the normalised scores only.
    """
    cells: dict[str, list[list[int | None]]] = {}
    if scored is not None:
        names, _, rules = scored
        at = {n: i for i, n in enumerate(names)}
        for n in keep:
            i = at.get(n)
            if i is not None:
                cells[n] = [[raw[i], norm[i]] for _, _, raw, norm in rules]
        return [r[0] for r in rules], [r[1] for r in rules], cells
    plugins: list[str] = []
    parsed = {n: _parts(att.scores[n][1]) for n in keep if att.scores.get(n, (0, ""))[1]}
    for parts in parsed.values():
        plugins.extend(k for k in parts if k not in plugins)
    for n, parts in parsed.items():
        cells[n] = [[None, parts.get(p)] for p in plugins]
    return plugins, [None] * len(plugins), cells


def _rows(att: _Attempt, chosen: str, cap: int) -> tuple[list[str], list[tuple[str, int]]]:
    """The nodes an attempt's table shows, and the others counted per reason."""
    keep: list[str] = []
    if chosen:
        keep.append(chosen)
    ranked = sorted(att.scores, key=lambda n: -att.scores[n][0])
    for n in ranked:
        if len(keep) >= max(1, cap // 2):
            break
        if n not in keep:
            keep.append(n)
    per_reason: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    for n in att.order:
        f = att.fail.get(n)
        if f is None:
            if n not in keep and len(keep) < cap and (att.only == n or not att.scores):
                keep.append(n)
            continue
        reason = f[1]
        per_reason[reason] += 1
        if shown[reason] < 3 and len(keep) < cap:
            keep.append(n)
            shown[reason] += 1
    for n in att.candidates:
        if n not in keep and len(keep) < cap + 5:
            keep.append(n)
    omitted = Counter({r: c - shown[r] for r, c in per_reason.items() if c > shown[r]})
    feasible_hidden = sum(1 for n in att.order if n not in att.fail and n not in keep)
    out = sorted(omitted.items(), key=lambda t: (-t[1], t[0]))
    if feasible_hidden:
        out.insert(0, ("feasible, lower score", feasible_hidden))
    order = {n: i for i, n in enumerate(att.order)}
    keep.sort(key=lambda n: (n != chosen, order.get(n, len(order))))
    return keep, out


class _Index:
    """Index tables of the file's strings, nodes (declared ones first) and pods.

    Indexes are given in the order things are first met, so the builders below
    must run in the report's order: attempts, decisions, runs, marks, pressure.
    """

    def __init__(self, result: Result, strings: _Strings) -> None:
        self.s = strings
        self.nodes: dict[str, int] = {}
        for name in result.state.nodes:
            self.nodes[name] = len(self.nodes)
        self.pods: dict[str, int] = {}

    def node(self, name: str | None) -> int:
        if not name:
            return -1
        i = self.nodes.get(name)
        if i is None:
            i = self.nodes[name] = len(self.nodes)
        return i

    def pod(self, key: str) -> int:
        i = self.pods.get(key)
        if i is None:
            i = self.pods[key] = len(self.pods)
        return i


def file_data(path: str, status: str, result: Result | None = None,
              error: dict[str, Any] | None = None, source: str = "",
              errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Everything the report shows about one file, as plain JSON values.

    ``error`` is the JSON report's ``{"line", "column", "message"}`` with the
    refusal as shown (``text``), ``errors`` every error found in the file (the
    first is ``error``); ``source`` the file highlighted as HTML.
    """
    s = _Strings()
    data: dict[str, Any] = {"path": path, "status": status, "title": "", "error": error,
                            "errors": errors if errors is not None else
                            ([error] if error else []),
                            "source": source, "S": s.table}
    if result is None:
        return data
    data["title"] = result.scenario.title
    data["end"] = result.end_time
    data["traced"] = result.trace is not None
    attempts, lines, conditions = _walk(result)
    ix = _Index(result, s)
    cap = max(3, min(ROWS_PER_ATTEMPT, ROW_BUDGET // max(1, len(attempts))))
    out_attempts, decision_attempt = _attempts_data(result, attempts, ix, cap,
                                                    Occupancy(result))
    decisions, explains = _decisions_data(result, lines, decision_attempt, ix)
    runs = _runs(result, ix)
    marks = [[d.time, s(d.kind), ix.node(d.node), i] for i, d in enumerate(result.decisions)
             if d.kind in _MARKS and d.node]
    pressure = _pressure(conditions, result.end_time, ix)
    data.update({
        "nodes": list(ix.nodes), "pods": list(ix.pods), "decisions": decisions, "runs": runs,
        "marks": marks, "pressure": pressure, "attempts": out_attempts,
        "explain": explains, "expectations": _expectations(result),
        "counts": dict(Counter(d.kind for d in result.decisions)),
        "budgets": {"expand": EXPAND_BUDGET, "rows": ROW_BUDGET, "explain": EXPLAIN_BUDGET,
                    "rows_per_attempt": cap},
        "endstate": end_state_data(result, ix.node, ix.pod, s),
        "queue": queue_data(result, ix.pod, ix.node, s),
    })
    data.update(resources_data(result, list(ix.nodes), list(ix.pods)))
    return data


def _attempts_data(result: Result, attempts: list[_Attempt], ix: _Index, cap: int,
                   occupancy: Occupancy) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The scheduling attempts' tables, and which attempt ended each decision.

    Each attempt is matched to the scheduler's own record of its cycle (chosen
    node, feasible nodes, raw and normalised scores per plugin), by pod and
    time in order, and to the decision that ended it.
    """
    by_pod_time: dict[tuple[str, int], list[int]] = {}
    for i, d in enumerate(result.decisions):
        by_pod_time.setdefault((d.pod, d.time), []).append(i)
    recorded: dict[tuple[str, int], deque[tuple[Any, ...]]] = {}
    for rec in getattr(result.trace, "attempts", ()):
        recorded.setdefault((rec[1], rec[0]), deque()).append(rec)
    interesting = _interesting(result)
    decision_attempt: dict[int, int] = {}
    used: set[int] = set()
    out: list[dict[str, Any]] = []
    for att in attempts:
        queue = recorded.get((att.pod, att.time))
        rec = queue.popleft() if queue else None
        scheduled = ""
        before = -1
        for i in by_pod_time.get((att.pod, att.time), ()):
            d = result.decisions[i]
            if i in used or d.kind not in ("scheduled", "pending", "nominated", "gated"):
                continue
            used.add(i)
            if before < 0:
                before = i
            decision_attempt[i] = len(out)
            if d.kind == "scheduled":
                scheduled = d.node or ""
            if d.kind != "nominated":
                break
        row_cap = ROWS_PER_ATTEMPT if att.pod in interesting else cap
        if before < 0:
            before = occupancy.index_at(att.time)
        out.append(_attempt_data(att, rec, scheduled, row_cap, ix,
                                 lambda n, a=att, b=before: occupancy.why_not(a.pod, n, a.time, b)))
    _last_failures(result, attempts, decision_attempt)
    return out, decision_attempt


def _last_failures(result: Result, attempts: list[_Attempt],
                   decision_attempt: dict[int, int]) -> None:
    """A pod pending at the end is explained by its last attempt: its last pending
    decision shows that attempt's table (a retry ending as the one before made no
    decision of its own)."""
    last_attempt: dict[str, int] = {}
    for k, att in enumerate(attempts):
        if att.detail and att.order:
            last_attempt[att.pod] = k
    last_pending: dict[str, int] = {}
    for i, d in enumerate(result.decisions):
        if d.kind == "pending":
            last_pending[d.pod] = i
    for pod, i in last_pending.items():
        last = last_attempt.get(pod)
        if last is not None and _pending_at_end(result, pod) and attempts[last].time >= \
                result.decisions[i].time:
            decision_attempt[i] = last


def _attempt_data(att: _Attempt, rec: tuple[Any, ...] | None, scheduled: str, row_cap: int,
                  ix: _Index, why_not: Any) -> dict[str, Any]:
    """One attempt's table: its nodes' rows, the others counted, its candidates.

    A row failed for want of resources carries the amounts (``why_not(node)``).
    """
    s = ix.s
    feasible = [n for n in att.order if n not in att.fail]
    scored = rec[4] if rec is not None else None
    if rec is not None:
        chosen = rec[2] or ""
        feasible = list(rec[3]) or feasible
        if scored is not None:
            for n, total in zip(scored[0], scored[1], strict=True):
                att.scores[n] = (total, "")
    else:
        chosen = scheduled if scheduled in feasible or scheduled == att.only else ""
        if not chosen and att.scores:
            chosen = max(att.scores, key=lambda n: att.scores[n][0])
        elif not chosen and att.only:
            chosen = att.only
    keep, omitted = _rows(att, chosen, row_cap)
    plugins, weights, cells = _score_cells(att, keep, scored)
    rows = []
    for n in keep:
        f = att.fail.get(n)
        sc = att.scores.get(n)
        amounts = -1
        if f is not None and f[1].startswith(("Insufficient ", "Too many pods")):
            amounts = s(why_not(n))
        rows.append([ix.node(n), s(f[0]) if f else -1, s(f[1]) if f else -1,
                     sc[0] if sc else None, cells.get(n), amounts])
    cands = []
    for n, (victims, pdb, text) in att.candidates.items():
        pick = att.picks.get(n)
        cands.append([ix.node(n), None if victims is None else [ix.pod(v) for v in victims],
                      pdb, s(text), -1 if pick is None else pick[0],
                      s(_plain(pick[1])) if pick else -1, s(pick[1]) if pick else -1])
    out = {
        "p": ix.pod(att.pod), "t": att.time, "c": ix.node(chosen),
        "f": [s(p) for p in att.filters], "sp": [s(p) for p in plugins], "sw": weights,
        "rows": rows, "om": [[s(r), c] for r, c in omitted],
        "v": max(len(att.order), len(feasible)), "ok": len(feasible), "cand": cands,
        "pre": [s(x) for x in att.prefilter], "d": att.detail,
    }
    # Most attempts at real size are retries without a table: what they leave
    # empty is left out (the page reads a missing key as empty), a third of the file.
    return {k: v for k, v in out.items() if k not in _ATTEMPT_DEFAULTS
            or v != _ATTEMPT_DEFAULTS[k]}


_ATTEMPT_DEFAULTS: dict[str, Any] = {"c": -1, "f": [], "sp": [], "sw": [], "rows": [], "om": [],
                                     "v": 0, "ok": 0, "cand": [], "pre": [], "d": False}


def _plain(text: str) -> str:
    """A preemption pick in plain words (``fewest victims``); the rule chain keeps its name."""
    return pick_words(text) if text.startswith("scheduler.preemption.pick.") else text


def _decisions_data(result: Result, lines: dict[tuple[str, int], list[Any]],
                    decision_attempt: dict[int, int], ix: _Index
                    ) -> tuple[list[list[Any]], list[list[list[int]]]]:
    """The decisions, each with its explanation (the rule lines about its pod then)."""
    s = ix.s
    explains: list[list[list[int]]] = []
    explain_of: dict[tuple[str, int], int] = {}
    decisions = []
    for i, d in enumerate(result.decisions):
        k = (d.pod, d.time)
        ex = explain_of.get(k)
        if ex is None and k in lines:
            ex = explain_of[k] = len(explains)
            # the subject is left out (-1) when it is the decision's own pod
            explains.append([[s(r), -1 if sub == d.pod else s(sub), s(t)]
                             for r, sub, t in lines[k]])
        decisions.append([d.time, s(d.kind), ix.pod(d.pod) if "/" in d.pod else -1,
                          ix.node(d.node), s(d.by), s(d.reason), s(_plain(d.message)),
                          [s(r) for r in d.rules], decision_attempt.get(i, -1),
                          -1 if ex is None else ex, s(d.pod)])
    return decisions, explains


def _runs(result: Result, ix: _Index) -> list[list[Any]]:
    """Which pod ran where and when: a bar from binding to the end of its grace period."""
    runs: list[list[Any]] = []
    open_runs: dict[str, list[Any]] = {}
    for d in result.decisions:
        if d.kind in ("scheduled", "running") and d.node and "/" in d.pod:
            run = [ix.node(d.node), ix.pod(d.pod), d.time, None, -1, None]
            open_runs[d.pod] = run
            runs.append(run)
        elif d.kind in _ENDS and d.pod in open_runs:
            run = open_runs.pop(d.pod)
            run[3] = d.time
            run[4] = ix.s(d.kind)
            ps = result.state.pods.get(d.pod)
            run[5] = ps.deletion_time if ps is not None and ps.deletion_time is not None \
                else d.time
    for key, run in open_runs.items():
        ps = result.state.pods.get(key)
        if ps is not None and ps.gone and ps.deletion_time is not None:
            run[3] = run[5] = ps.deletion_time
        else:
            run[3] = run[5] = result.end_time
    return runs


def _pressure(conditions: list[Any], end: int, ix: _Index) -> list[list[Any]]:
    """Each node's pressure conditions as spans of time (to ``end`` when still held)."""
    pressure: list[list[Any]] = []
    since: dict[str, tuple[int, str]] = {}
    for node, time, res in conditions:
        prev = since.pop(node, None)
        if prev is not None and prev[1] != "no pressure":
            pressure.append([ix.node(node), ix.s(prev[1]), prev[0], time])
        since[node] = (time, res)
    for node, (time, res) in since.items():
        if res != "no pressure":
            pressure.append([ix.node(node), ix.s(res), time, end])
    return pressure


def _expectations(result: Result) -> list[list[Any]]:
    out = []
    for r in result.expectations:
        state = "unsupported" if r.unsupported else "passed" if r.passed else "failed"
        out.append([r.line, r.expectation.text, state, r.message,
                    None if r.expectation.time is None
                    else format_duration(r.expectation.time)])
    return out
