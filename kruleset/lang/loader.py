"""Assembling a :class:`Scenario` from parsed statements.

Declarations are the cluster at time 0 and may come in any order: classes,
runtime classes, namespaces, nodes, quotas and included files are read first,
then kubelet blocks, pods, deployments and PDBs (which refer to them), each
group in file order.  The timeline is then read in file order, so a reference
in the timeline must name something declared or created before it (earlier
in the file, at the same or an earlier time).  End-of-run ``expect`` lines are
checked last, against everything the file ever declares or creates.
"""

from __future__ import annotations

import gc
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import repeat
from pathlib import Path
from typing import Any, Protocol

import attrs

from ..errors import NOTICES, ScenarioError, Span, combined, notice
from ..model.config import KubeletConfig, SchedulerConfig
from ..model.objects import Pod
from ..model.scenario import (
    MAX_SIMULATED_TIME,
    DeletePod,
    Event,
    Expectation,
    KubeletBlock,
    NodeReadiness,
    NominatePod,
    Object,
    PodPhase,
    Scenario,
)
from .chunks import OTHER, Chunked, Classes, Fallback, scan
from .context import Context
from .cursor import Cursor
from .declarations import DECLARATIONS, declare, resolve_path
from .dra import finish as dra_finish
from .dra import register_included as dra_register
from .errors import Source
from .expectations import Check, parse_expect
from .files import call_loader as _call_loader
from .grammar import parse_statements_raw
from .include_filter import IncludeFilter, filter_loaded, load_summary, parse_filter
from .kubelet import kubelet_block
from .syntax import Statement, Word
from .timeline import TIMELINE_STATEMENTS, timeline_statement
from .usage_include import ObservedUsageBuilder
from .values import check_name, duration

__all__ = ["CLUSTER_FILES", "build_scenario", "TOP_LEVEL"]

#: Kubernetes files (path, name shown) declared before every statement of each
#: scenario read: ``kruleset run --cluster FILE`` and a dump run as a scenario.
CLUSTER_FILES: ContextVar[tuple[tuple[str, str], ...]] = ContextVar(
    "kruleset_cluster_files", default=())

TOP_LEVEL = ("scenario", *DECLARATIONS, "kubelet", "include", "config", "at", "run", "expect")
_FIRST = ("scenario", "priorityclass", "runtimeclass", "namespace", "node", "nodes", "quota",
          "include", "config", "devices", "deviceclass", "claimtemplate", "feature-gates")
_DECLARED = ("kubelet", "pod", "pods", "deployment", "pdb")
_CLAIMS = ("claim",)
#: The statements each pass of :meth:`_Builder.run` reads, in the order it reads them.
PASSES = [_FIRST, _DECLARED, _CLAIMS, ("at",), ("expect",), ("run",)]
_TIMELINE_ONLY = tuple(v for v in TIMELINE_STATEMENTS if v not in TOP_LEVEL)
_CLASSES = Classes(PASSES, TOP_LEVEL)


class _Declared:
    """The objects declared so far, each with the index of its statement.

    The passes add them out of statement order (nodes before pods, claims
    last); :meth:`in_order` gives them by statement, a statement's own in the
    order they were added, sorting only when a pass went back.
    """

    __slots__ = ("objects", "indexes", "ordered")

    def __init__(self) -> None:
        self.objects: list[Object] = []
        self.indexes = array("q")
        self.ordered = True

    def add(self, index: int, objects: Iterable[Object]) -> None:
        before = len(self.objects)
        self.objects.extend(objects)
        indexes = self.indexes
        if indexes and index < indexes[-1]:
            self.ordered = False
        indexes.extend(repeat(index, len(self.objects) - before))

    def in_order(self) -> list[Object]:
        objects = self.objects
        if self.ordered:
            return objects
        # sorted() is stable: a statement's objects keep the order they were added in.
        return [objects[i] for i in sorted(range(len(objects)), key=self.indexes.__getitem__)]


class _Builder:
    def __init__(self, src: Source) -> None:
        self.src = src
        self.ctx = Context(src)
        self.title = ""
        self.title_word: Word | None = None
        # The objects declared, with the index of the statement of each: a
        # list and an array rather than a tuple a pod (a million one-line
        # pods would hold a million tuples and indexes until the end).
        self.objects = _Declared()
        self.kubelets: list[tuple[int, KubeletBlock]] = []
        self.kubelet_nodes: dict[str, str] = {}
        self.scheduler: SchedulerConfig | None = None
        self.scheduler_where = ""
        self.events: list[Event] = []
        self.expectations: list[Expectation] = []
        self.deferred: list[tuple[list[Check], Expectation]] = []
        self.run_until: int | None = None
        self.run_word: Word | None = None
        self.last_time = 0
        self.last_time_word: Word | None = None
        self.evicted_ever: set[str] = set()
        self.errors: list[ScenarioError] = []
        self.failed: list[str] = []  # lines of refused statements
        self.observed = ObservedUsageBuilder()  # Summary API / metrics documents

    def where(self, item: Word) -> str:
        return f"line {item.line + self.src.base_line}"

    def span(self, item: Word) -> Span:
        return self.src.kept_span(item)

    # --- passes -------------------------------------------------------------

    def run(self, statements: _Statements) -> Scenario:
        # A refused statement does not stop the reading: every statement is
        # tried, so one run reports every error it can (see _keep_going).
        for index, stmt in statements.unchecked():
            head = stmt.items[0]
            with self._keep_going():
                if not isinstance(head, Word) or head.kind != "WORD":
                    raise self.src.error("a statement starts with a keyword", head,
                                         expected=", ".join(TOP_LEVEL))
                if head.value not in TOP_LEVEL:
                    self._unknown_top(head)
                statements.accept(index)
        for path, label in CLUSTER_FILES.get():
            with self._keep_going():
                # Before every statement of the file, as if included on line 0.
                word = Word("STRING", label, 0, 0, text=label)
                self.include(-1, Path(path), word, f"from {label}", Span(label, 0, 0, ""),
                             IncludeFilter(), summary=label)
        for index, stmt, head in statements.heads(_FIRST):
            with self._keep_going():
                self.first_pass(index, stmt, head)
        for index, stmt, head in statements.heads(_DECLARED):
            with self._keep_going():
                self.declaration(index, stmt, head)
        for index, stmt, head in statements.heads(_CLAIMS):
            # DRA claims name pods (reserved-for)
            with self._keep_going():
                self.declaration(index, stmt, head)
        observed = self.observed.action(self.ctx)
        if observed is not None:
            # After the declarations and the dump's own state at 0s, before the timeline.
            self.events.append(Event(0, -1_000_000 + len(self.events),
                                     observed))  # type: ignore[arg-type]
        for _index, stmt, head in statements.heads(("at",)):
            with self._keep_going():
                self.at(stmt, head)
        for _index, stmt, head in statements.heads(("expect",)):
            with self._keep_going():
                self.expect_stmt(stmt, head)
        for _index, stmt, head in statements.heads(("run",)):
            with self._keep_going():
                self.run_until_stmt(stmt, head)
        if self.errors:
            self.errors.sort(key=lambda e: (e.line, e.column))
            raise combined(self.errors)
        objects = self.objects.in_order()
        self.objects = _Declared()
        dra_finish(self.ctx, objects, self.events)
        self.expectations.sort(key=lambda e: (e.span.line, e.span.column))
        self.kubelets.sort(key=lambda t: t[0])
        return Scenario(
            title=self.title,
            file=self.src.file,
            objects=tuple(objects),
            kubelets=tuple(k for _, k in self.kubelets),
            scheduler=self.scheduler,
            events=tuple(self.events),
            expectations=tuple(self.expectations),
            run_until=self.run_until,
            source=self.src.text,
        )

    def expect_stmt(self, stmt: Statement, head: Word) -> None:
        cur = Cursor(self.src, stmt.items)
        cur.pos = 1
        if stmt.block is not None:
            raise self.src.error("'expect' takes no block", stmt.block.open)
        exp, checks = parse_expect(self.src, head, cur, self.span(head), None)
        self.check_refs(checks, self.evicted_ever)
        self.expectations.append(exp)

    @contextmanager
    def _keep_going(self) -> Iterator[None]:
        """Collect a refusal and go on with the next statement (up to MAX_ERRORS).

        A refusal that only follows from an earlier one (a name the refused
        statement would have declared) is not reported again.
        """
        # Refusals that only follow from earlier ones are not reported but still
        # counted: each is checked against every refused line before it, and a
        # file of a million bad lines must not take hours to refuse.
        if len(self.errors) >= MAX_ERRORS or (self.errors and
                                              len(self.failed) >= MAX_REFUSED_STATEMENTS):
            raise combined(self.errors)
        try:
            yield
        except ScenarioError as err:
            m = _QUOTED.search(err.message)  # the name refused, before any suggestion
            names = {m.group(1), m.group(1).rpartition("/")[2]} if m else set()
            follows = "unknown" in err.message and any(
                re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])", line)
                for n in names for line in self.failed)
            self.failed.append(err.source_line)
            if not follows:
                self.errors.append(err)

    def _unknown_top(self, head: Word) -> None:
        if head.value in _TIMELINE_ONLY:
            raise self.src.error(
                f"'{head.value}' is a timeline statement and needs a time", head,
                expected=f"at DURATION {head.value} …",
                suggestion=f"write: at 0s {head.value} …")
        raise self.src.unknown("statement", head.value, head, TOP_LEVEL,
                               expected=", ".join(TOP_LEVEL))

    def first_pass(self, index: int, stmt: Statement, head: Word) -> None:
        src = self.src
        cur = Cursor(src, stmt.items)
        cur.pos = 1
        kind = head.value
        if kind == "scenario":
            if self.title_word is not None:
                first = self.where(self.title_word)
                raise src.error(f"'scenario' is given twice (first at {first})", head)
            w = cur.peek()
            if not isinstance(w, Word) or w.kind != "STRING" or w.text is None:
                raise cur.error('expected the title in double quotes', expected='scenario "TITLE"')
            cur.pos += 1
            self.title, self.title_word = w.text, head
            if stmt.block is not None:
                raise src.error("'scenario' takes no block", stmt.block.open)
            cur.done()
        elif kind in ("include", "config"):
            self.files(index, stmt, head, cur)
        else:
            self.declaration(index, stmt, head, cur)

    def declaration(self, index: int, stmt: Statement, head: Word,
                    cur: Cursor | None = None) -> None:
        src = self.src
        if cur is None:
            cur = Cursor(src, stmt.items)
            cur.pos = 1
        if head.value == "kubelet":
            self.kubelet(index, stmt, head, cur)
            return
        if head.value == "node" and cur.peek_word(1) in ("ready", "not-ready"):
            raise src.error("a node's readiness changes in the timeline", head,
                            expected=f"at DURATION node {cur.peek_word()} {cur.peek_word(1)}")
        objs = declare(self.ctx, head, cur, stmt, self.span(head), self.where(head),
                       timeline=False)
        cur.done()
        self.objects.add(index, objs)

    def kubelet(self, index: int, stmt: Statement, head: Word, cur: Cursor) -> None:
        src = self.src
        w = cur.word("a node name or *")
        if w.value != "*":
            check_name(src, w, w.value, "node")
            self.ctx.need_node(w.value, w)
        cur.done(expected="'{' at the end of the line")
        if stmt.block is None:
            raise cur.error("a kubelet statement needs a { … } block of flags",
                            expected="kubelet NODE {")
        if w.value in self.kubelet_nodes:
            which = "every node" if w.value == "*" else f"node '{w.value}'"
            raise src.error(f"the kubelet of {which} is already configured "
                            f"({self.kubelet_nodes[w.value]})", w)
        self.kubelet_nodes[w.value] = self.where(head)
        cfg = kubelet_block(src, stmt, self.span(head))
        self.kubelets.append((index, KubeletBlock(w.value, cfg, span=self.span(head))))

    def files(self, index: int, stmt: Statement, head: Word, cur: Cursor) -> None:
        src = self.src
        if stmt.block is not None:
            raise src.error(f"'{head.value}' takes no block", stmt.block.open)
        span = self.span(head)
        if head.value == "config":
            what = cur.keyword("scheduler", "kubelet")
        path_w = cur.peek()
        if not isinstance(path_w, Word):
            raise cur.error("expected a file name in double quotes", expected='"FILE.yaml"')
        cur.pos += 1
        if head.value == "include":
            wanted = parse_filter(src, cur)
        cur.done()
        path = resolve_path(self.ctx, path_w)
        if head.value == "include":
            self.include(index, path, path_w, f"from {path_w.text}, {self.where(head)}", span,
                         wanted)
        elif what.value == "scheduler":
            if self.scheduler is not None:
                raise src.error(f"the scheduler is already configured ({self.scheduler_where})",
                                head)
            self.scheduler = _call_loader("load_scheduler_config", path, span)
            self.scheduler_where = self.where(head)
        else:
            if "*" in self.kubelet_nodes:
                raise src.error("the kubelet of every node is already configured "
                                f"({self.kubelet_nodes['*']})", head)
            cfg: KubeletConfig = _call_loader("load_kubelet_config", path, span)
            self.kubelet_nodes["*"] = self.where(head)
            self.kubelets.append((index, KubeletBlock("*", cfg, span=span)))

    def include(self, index: int, path: Any, path_w: Word, where: str, span: Span,
                wanted: IncludeFilter, summary: str | None = None) -> None:
        """Declare the objects of a Kubernetes file (``include`` or ``--cluster``).

        ``summary`` names the file in a load summary notice (always given for
        ``--cluster`` and for a dump run; an ``include`` with filters gets one
        naming the file as written).
        """
        loaded = _call_loader("load_manifests", path, span)
        if loaded.usage is not None:
            self.observed.add(loaded.usage, span)
        dropped: Any = None
        if not wanted.empty:
            loaded, dropped = filter_loaded(loaded, wanted)
            summary = summary or path_w.text
        if summary is not None:
            notice(load_summary(summary, loaded, dropped or Counter(), wanted))
        objects = loaded.objects
        start = 0
        while start < len(objects):
            # A cluster dump is mostly runs of pods, registered a run at a time.
            end = start
            while end < len(objects) and type(objects[end]) is Pod:
                end += 1
            if end > start:
                self.ctx.register_pods(list(objects[start:end]), path_w, where)
            elif not dra_register(self.ctx, objects[start], path_w):
                self.ctx.register(objects[start], path_w, where)
                end += 1
            else:
                end += 1
            start = end
        self.objects.add(index, objects)
        # The model has no phase: a pod the file shows as Succeeded/Failed
        # is declared where it ran and ends at 0s, before any other event,
        # so it holds no resources (as upstream's scheduler cache).
        for key in loaded.terminated:
            phase = loaded.pod_phases[key]
            self.events.append(Event(0, -1_000_000 + len(self.events),
                                     PodPhase(key, phase, span=span)))
        # State the file shows that the scheduler and kubelet act on, at 0s
        # before any other event: nominations, terminating pods, NotReady nodes.
        state_events: list[Any] = [
            *(NodeReadiness(n, False, span=span) for n in loaded.not_ready),
            *(DeletePod(k, ms, span=span) for k, ms in loaded.terminating.items()),
            *(NominatePod(k, n, span=span) for k, n in loaded.nominated.items()),
        ]
        for action in state_events:
            self.events.append(Event(0, -1_000_000 + len(self.events), action))

    # --- timeline -------------------------------------------------------------

    def at(self, stmt: Statement, head: Word) -> None:
        src = self.src
        cur = Cursor(src, stmt.items)
        cur.pos = 1
        tw = cur.word("a time such as 10s after 'at'")
        time = _within_horizon(src, tw, duration(src, tw, "time"))
        if time < self.last_time:
            assert self.last_time_word is not None
            raise src.error(f"time goes backwards: at {tw.value} comes after at "
                            f"{self.last_time_word.value} ({self.where(self.last_time_word)})", tw,
                            expected=f"a time of {self.last_time_word.value} or later; "
                                     "the timeline is written in time order")
        self.last_time, self.last_time_word = time, tw
        self.ctx.time = time
        if cur.at_end():
            if stmt.block is None:
                raise cur.error("expected a statement after the time",
                                expected="a timeline statement, or '{' for several")
            for inner in stmt.block.statements:
                self.timed(inner, Cursor(src, inner.items), time)
            return
        rest = Statement(stmt.items[2:], stmt.block)
        self.timed(rest, Cursor(src, rest.items), time)

    def timed(self, stmt: Statement, cur: Cursor, time: int) -> None:
        src = self.src
        head = cur.word("a timeline statement")
        if head.value == "at":
            raise src.error("'at' cannot be nested", head,
                            expected="a timeline statement")
        span = self.span(head)
        if head.value == "expect":
            if stmt.block is not None:
                raise src.error("'expect' takes no block", stmt.block.open)
            exp, checks = parse_expect(src, head, cur, span, time)
            self.check_refs(checks, self.evicted_ever)
            self.expectations.append(exp)
            return
        actions = timeline_statement(self.ctx, head, cur, stmt, span, self.where(head),
                                     self.evicted_ever)
        for action in actions:
            self.events.append(Event(time, len(self.events), action))

    def check_refs(self, checks: list[Check], evicted: set[str]) -> None:
        ctx = self.ctx
        src = self.src
        pod_ref = ""
        for kind, key, item in checks:
            if kind == "pod":
                ctx.need_pod(key, item)
            elif kind == "containers-of":
                pod_ref = key
            elif kind == "container":
                ctx.need_container(pod_ref, key, item)
            elif kind == "node":
                ctx.need_node(key, item)
            elif kind == "pdb":
                if key not in ctx.pdbs:
                    raise src.unknown("pdb", key, item, ctx.pdbs)
            elif kind == "deployment":
                if key not in ctx.deployments:
                    raise src.unknown("deployment", key, item, ctx.deployments)
            elif kind == "workload":
                if key not in ctx.workloads:
                    raise src.unknown(key.split("/", 1)[0].lower(), key.split("/", 1)[1],
                                      item, [k.split("/", 1)[1] for k in ctx.workloads
                                             if k.startswith(key.split("/", 1)[0] + "/")])
            elif kind == "quota":
                if key not in ctx.quotas:
                    raise src.unknown("quota for namespace", key, item, ctx.quotas)
            elif kind == "drain" and f"drain:{key}" not in evicted:
                raise src.error(f"no 'drain node {key}' statement comes before this expectation",
                                item, expected=f"at DURATION drain node {key}")
            elif kind == "evict" and key not in evicted and "*" not in evicted:
                raise src.error(f"no 'evict pod {key}' statement comes before this expectation",
                                item, expected=f"at DURATION evict pod {key}")

    def run_until_stmt(self, stmt: Statement, head: Word) -> None:
        src = self.src
        cur = Cursor(src, stmt.items)
        cur.pos = 1
        cur.keyword("until")
        tw = cur.word("a duration after 'run until'")
        cur.done()
        if stmt.block is not None:
            raise src.error("'run' takes no block", stmt.block.open)
        if self.run_word is not None:
            raise src.error(f"'run until' is given twice (first at {self.where(self.run_word)})",
                            head)
        self.run_until = _within_horizon(src, tw, duration(src, tw, "run until"))
        self.run_word = head
        last = max([e.time for e in self.events] +
                   [e.time for e in self.expectations if e.time is not None] + [0])
        if self.run_until < last:
            raise src.error(f"run until {tw.value} stops before the last timeline entry "
                            f"(at {self.last_time_word.value if self.last_time_word else last})",
                            tw, expected="a time at or after the last 'at'")


class _Statements(Protocol):
    """A file's statements as the passes of :meth:`_Builder.run` read them: a whole
    file's list (:class:`_Listed`) or its chunks a pass at a time (:class:`_ByClass`)."""

    def unchecked(self) -> Iterator[tuple[int, Statement]]:
        """(index, statement) of the statements whose first word is still to be checked."""
        ...

    def accept(self, index: int) -> None:
        """The statement at ``index`` starts with a keyword: a later pass reads it."""
        ...

    def heads(self, kinds: tuple[str, ...]) -> Iterator[tuple[int, Statement, Word]]:
        """(index, statement, head) of the accepted statements of ``kinds``, in file order.

        The index orders what the statements declare as they stand in the file.
        """
        ...


class _Listed:
    """Every statement of the file, parsed at once (what a chunked reading falls back to)."""

    def __init__(self, statements: list[Statement]) -> None:
        self.statements = statements
        # Statements whose head is a keyword, by index: a byte each rather
        # than a tuple each (a file of millions of short statements).
        self.good = bytearray(len(statements))

    def unchecked(self) -> Iterator[tuple[int, Statement]]:
        return enumerate(self.statements)

    def accept(self, index: int) -> None:
        self.good[index] = 1

    def heads(self, kinds: tuple[str, ...]) -> Iterator[tuple[int, Statement, Word]]:
        # Each statement is read by one pass only, so once read it is dropped: a
        # large file's statements are freed as the objects they declare are
        # built, rather than all held until the end (a one-line pod's statement
        # is about a kilobyte).
        statements, good = self.statements, self.good
        for index, stmt in enumerate(statements):
            if good[index]:
                head = stmt.items[0]
                if head.value in kinds:  # type: ignore[union-attr]
                    yield index, stmt, head  # type: ignore[misc]
                    good[index] = 0
                    statements[index] = _READ


class _ByClass:
    """The statements of each pass parsed when the pass reads them (see chunks.py).

    A statement's index is its line: statements start on lines of their own.
    """

    def __init__(self, chunked: Chunked) -> None:
        self.chunked = chunked

    def unchecked(self) -> Iterator[tuple[int, Statement]]:
        # The scan put here every statement that does not start with a keyword.
        for stmt in self.chunked.statements(OTHER):
            yield 0, stmt

    def accept(self, index: int) -> None:
        raise Fallback  # the scan took a keyword for something else

    def heads(self, kinds: tuple[str, ...]) -> Iterator[tuple[int, Statement, Word]]:
        for stmt in self.chunked.statements(_CLASSES.of_word[kinds[0]]):
            head: Word = stmt.items[0]  # type: ignore[assignment] # checked by statements()
            yield head.line, stmt, head


_READ = Statement([], None)  # in place of a statement its pass has read


MAX_ERRORS = 50  # refusals reported from one file
MAX_REFUSED_STATEMENTS = 1000  # refused statements read before stopping, reported or not


def _within_horizon(src: Source, word: Word, ms: int) -> int:
    """A time on the simulated clock, refused beyond :data:`MAX_SIMULATED_TIME`."""
    if ms > MAX_SIMULATED_TIME:
        raise src.error(f"'{word.value}' is beyond the {MAX_SIMULATED_TIME // 86_400_000} days "
                        "a scenario may span (the kubelet is simulated every 10s)", word,
                        expected="a time of 7 days (168h) or less")
    return ms
_QUOTED = re.compile(r"'([^']+)'")


#: From this many characters a file is read a pass at a time (see chunks.py);
#: below, parsing it whole costs little memory and one call.
CHUNKED_FROM = 0


def _read_by_class(src: Source, text: str) -> Scenario | None:
    """The scenario read a pass at a time, or None where the file must be parsed whole."""
    found = scan(text, _CLASSES)
    if found is None:
        return None
    chunked = Chunked(text, _CLASSES, *found)
    try:
        try:
            scenario = _Builder(src).run(_ByClass(chunked))
        except ScenarioError:
            chunked.check_rest()  # a syntax error anywhere is reported alone, first
            raise
        chunked.check_rest()
    except Fallback:
        return None
    return scenario


def build_scenario(text: str, file: str = "<text>", *, folder: str | None = None,
                   base_line: int = 0) -> Scenario:
    """Parse and validate ``text`` into a Scenario (raises ScenarioError)."""
    src = Source(text, file, base_line, folder)
    # Reading builds many small objects and no cycles worth collecting; pausing
    # the cyclic collector roughly halves the time for large files.
    enabled = gc.isenabled()
    gc.disable()
    notices: list[str] = []
    token = NOTICES.set(notices)
    statements: list[Statement] = []
    try:
        scenario = _read_by_class(src, text) if len(text) >= CHUNKED_FROM else None
        if scenario is None:
            notices.clear()
            if len(text) >= CHUNKED_FROM:
                # The scan or a chunk found something amiss, most likely a
                # syntax error: found first without holding every statement.
                parse_statements_raw(text, src, keep=False)
            statements = parse_statements_raw(text, src)
            scenario = _Builder(src).run(_Listed(statements))
    except ScenarioError as err:
        # The traceback's frames hold every statement read (a large file:
        # hundreds of megabytes), kept alive while the caller looks for
        # further errors; the error itself needs none of them.
        del statements
        raise err.with_traceback(None)  # noqa: B904 - the same error, re-raised
    finally:
        NOTICES.reset(token)
        if enabled:
            gc.enable()
    return attrs.evolve(scenario, notices=tuple(notices)) if notices else scenario
