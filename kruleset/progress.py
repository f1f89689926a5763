"""A progress line on stderr while files run, when stderr is a terminal.

It reads, about four times a second, what each process is simulating (the
file, its simulated time, how many decisions it has made so far) from
:data:`ACTIVITY`, which the per-file work keeps up to date; ``-j`` workers
post theirs to the parent through a queue.  Nothing is added to the
simulation's hot path: the line reads ``sim.now`` and the length of the
decision list from another thread.  A plain ``\\r``-rewritten line is all it
takes, so no progress library is needed (and none is imported in a pipe).

Remaining time is estimated from simulated progress: the files finished,
plus the running file's fraction done (:func:`fraction_done`), the larger of
its simulated time against its end (``run until``, or its last timeline
event) and its decisions against the pods it holds.  The second keeps the
estimate honest while a large cluster is scheduled at one instant (the
simulated clock stands still at 0 s while thousands of pods are placed); the
wall time alone would make the estimate grow while a file runs.
"""

from __future__ import annotations

import contextlib
import os
import queue as queue_mod
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

from .model.quantity import format_duration
from .report.model import format_seconds

__all__ = ["ACTIVITY", "Activity", "ProgressLine", "fraction_done", "post_activity"]

#: Seconds between two refreshes of the line (and two posts from a worker).
REFRESH = 0.25


class Activity:
    """What this process is working on now."""

    __slots__ = ("path", "sim")

    def __init__(self) -> None:
        self.path: str | None = None
        self.sim: Any = None

    def begin(self, path: str) -> None:
        """A file starts (loading)."""
        self.sim = None
        self.path = path

    def simulating(self, sim: Any) -> None:
        """The file's simulation starts."""
        self.sim = sim

    def end(self) -> None:
        """The file is done."""
        self.path = None
        self.sim = None

    def snapshot(self) -> tuple[str, int | None, int, float] | None:
        """(file, simulated ms or None while loading, decisions so far, fraction done)."""
        path, sim = self.path, self.sim
        if path is None:
            return None
        if sim is None:
            return (path, None, 0, 0.0)
        decisions = len(sim.decisions)
        return (path, sim.now, decisions,
                fraction_done(sim.now, getattr(sim, "horizon", None) or sim.until,
                              decisions, len(sim.state.pods)))


def fraction_done(now: int, end: int | None, decisions: int, pods: int) -> float:
    """How much of a running file is simulated, from 0 to 0.99 (never done while it runs).

    Simulated time against the end, or decisions against pods (every pod is
    decided at least once: scheduled, running or pending), whichever is further.
    """
    by_time = now / end if end else 0.0
    by_work = decisions / pods if pods else 0.0
    return min(max(by_time, by_work), 0.99)


ACTIVITY = Activity()


def post_activity(q: Any) -> None:
    """In a ``-j`` worker: post this process's activity to the parent, forever."""

    def loop() -> None:
        pid = os.getpid()
        last: Any = None
        while True:
            snap = ACTIVITY.snapshot()
            if snap != last:
                with contextlib.suppress(Exception):  # the parent may be gone: stop quietly
                    q.put((pid, snap))
                last = snap
            time.sleep(REFRESH)

    threading.Thread(target=loop, name="kruleset-progress", daemon=True).start()


class ProgressLine:
    """The line itself; :meth:`hidden` keeps it out of the way of other output."""

    def __init__(self, stream: IO[str], total: int, remote: Any = None) -> None:
        self.stream = stream
        self.total = total
        self.remote = remote          # the queue -j workers post to, or None
        self.running: dict[int, Any] = {}
        self.done = 0
        self.started = time.monotonic()
        self.seen_at: dict[str, float] = {}   # running file → when first seen running
        self.durations: list[float] = []      # seconds of the files seen to their end
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._shown = False
        self._thread = threading.Thread(target=self._loop, name="kruleset-progress",
                                        daemon=True)

    def start(self) -> ProgressLine:
        """Draw now and keep drawing."""
        with self.lock:
            self._draw()
        self._thread.start()
        return self

    def file_done(self) -> None:
        """One more file finished."""
        self.done += 1

    @contextlib.contextmanager
    def hidden(self) -> Iterator[None]:
        """Clear the line while something else is written, then draw it again."""
        with self.lock:
            self._clear()
            yield
            if not self._stop.is_set():
                self._draw()

    def stop(self) -> None:
        """Clear the line for good."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2 * REFRESH)
        with self.lock:
            self._clear()

    def _loop(self) -> None:
        while not self._stop.wait(REFRESH):
            with self.lock:
                if not self._stop.is_set():
                    self._draw()

    def _states(self) -> list[Any]:
        if self.remote is None:
            snap = ACTIVITY.snapshot()
            return [snap] if snap else []
        while True:
            try:
                pid, snap = self.remote.get_nowait()
            except (queue_mod.Empty, OSError, ValueError, EOFError):
                break
            self.running[pid] = snap
        return [s for _, s in sorted(self.running.items()) if s]

    def text(self) -> str:
        """What the line says now."""
        now = time.monotonic()
        elapsed = now - self.started
        parts = [f"{self.done}/{self.total} files"]
        states = self._states() if self.done < self.total else []
        self._clock(states, now)
        if states:
            path, sim_now, decisions, _ = states[0]
            more = f" (+{len(states) - 1} running)" if len(states) > 1 else ""
            if sim_now is None:
                parts.append(f"{path}: loading{more}")
            else:
                parts.append(f"{path}: {format_duration(sim_now)} simulated, "
                             f"{decisions:,} decisions{more}")
        parts.append(f"{format_seconds(elapsed)} elapsed")
        left = self._left(states, now, elapsed)
        if left is not None and self.done < self.total:
            parts.append(f"about {format_seconds(left)} left")
        return " · ".join(parts)

    def _clock(self, states: list[Any], now: float) -> None:
        """When each running file was first seen; how long each seen to its end took."""
        running = {s[0] for s in states}
        for path in [p for p in self.seen_at if p not in running]:
            self.durations.append(now - self.seen_at.pop(path))
        for path in running:
            self.seen_at.setdefault(path, now)

    def _left(self, states: list[Any], now: float, elapsed: float) -> float | None:
        """The time left: the running files' own rates, then the mean file for the rest.

        A running file at fraction f after e seconds needs e·(1−f)/f more; the
        files not started take the mean time of those finished (or, before
        any finished, of the running files' projected times), shared among
        the files running side by side.
        """
        projected = []
        running_left = 0.0
        for path, _sim_now, _decisions, fraction in states:
            spent = now - self.seen_at.get(path, now)
            if fraction > 0 and spent > 0:
                projected.append(spent / fraction)
                running_left = max(running_left, spent * (1 - fraction) / fraction)
        if self.durations:
            mean = sum(self.durations) / len(self.durations)
        elif projected:
            mean = sum(projected) / len(projected)
        elif self.done:
            mean = elapsed / self.done
        else:
            return None
        waiting = max(self.total - self.done - len(states), 0)
        return running_left + waiting * mean / max(len(states), 1)

    def _width(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            columns = 0
        return columns if columns > 0 else 80  # a terminal that does not say: assume 80

    def _draw(self) -> None:
        line = self.text()[: max(self._width() - 1, 10)]
        self.stream.write(f"\r{line}\x1b[K")
        self.stream.flush()
        self._shown = True

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
