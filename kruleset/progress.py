"""A progress line on stderr while files run, when stderr is a terminal.

It reads, about four times a second, what each process is simulating (the
file, its simulated time, how many decisions it has made so far) from
:data:`ACTIVITY`, which the per-file work keeps up to date; ``-j`` workers
post theirs to the parent through a queue.  Nothing is added to the
simulation's hot path: the line reads ``sim.now`` and the length of the
decision list from another thread.  A plain ``\\r``-rewritten line is all it
takes, so no progress library is needed (and none is imported in a pipe).

Remaining time is estimated from the files finished (their mean time), and,
while the first file runs, from its simulated time against its ``run until``
when it has one; otherwise it is not shown.
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

__all__ = ["ACTIVITY", "Activity", "ProgressLine", "post_activity"]

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

    def snapshot(self) -> tuple[str, int | None, int, int | None] | None:
        """(file, simulated ms or None while loading, decisions so far, run-until ms)."""
        path, sim = self.path, self.sim
        if path is None:
            return None
        if sim is None:
            return (path, None, 0, None)
        return (path, sim.now, len(sim.decisions), sim.until)


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
        elapsed = time.monotonic() - self.started
        parts = [f"{self.done}/{self.total} files"]
        states = self._states() if self.done < self.total else []
        fraction = 0.0
        if states:
            path, now, decisions, until = states[0]
            more = f" (+{len(states) - 1} running)" if len(states) > 1 else ""
            if now is None:
                parts.append(f"{path}: loading{more}")
            else:
                parts.append(f"{path}: {format_duration(now)} simulated, "
                             f"{decisions:,} decisions{more}")
                if until:
                    fraction = min(now / until, 0.99)
        parts.append(f"{format_seconds(elapsed)} elapsed")
        progressed = self.done + fraction
        if progressed > 0 and self.done < self.total:
            left = elapsed / progressed * (self.total - progressed)
            parts.append(f"about {format_seconds(left)} left")
        return " · ".join(parts)

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
