"""Running many files, one process or ``-j`` worker processes, in input order.

Results stream: each file is handed on as soon as it and every file before
it have finished.  With ``-j`` the workers finish in any order; a finished
file waits in a buffer until the files before it are done, so the output is
the same bytes whatever ``-j`` (only its pace differs), while the progress
line counts files as they finish.

Workers ignore SIGINT: Ctrl-C reaches the parent, which terminates them and
reports the files finished so far.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Generator, Sequence
from typing import Any

from .fileresult import FileOptions, report_file
from .report.model import FileReport

__all__ = ["parallel", "reports_in_order"]


def parallel(files: Sequence[str], opts: FileOptions, jobs: int) -> bool:
    """Whether the files run in worker processes (a profile stays in one process)."""
    return jobs > 1 and len(files) > 1 and opts.profile is None


def _init_worker(progress_queue: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if progress_queue is not None:
        from .progress import post_activity

        post_activity(progress_queue)


def _work(item: tuple[int, str, FileOptions]) -> tuple[int, FileReport]:
    index, path, opts = item
    return index, report_file(path, opts)


def reports_in_order(files: Sequence[str], opts: FileOptions, jobs: int, *,
                     progress_queue: Any = None,
                     on_finish: Callable[[], None] | None = None
                     ) -> Generator[FileReport, None, None]:
    """Each file's report, in the order of ``files``, as soon as it can be given."""
    if not parallel(files, opts, jobs):
        for path in files:
            report = report_file(path, opts)
            if on_finish:
                on_finish()
            yield report
        return
    pool = multiprocessing.Pool(min(jobs, len(files)), initializer=_init_worker,
                                initargs=(progress_queue,))
    try:
        waiting: dict[int, FileReport] = {}
        next_index = 0
        work = [(i, path, opts) for i, path in enumerate(files)]
        for index, report in pool.imap_unordered(_work, work, chunksize=1):
            if on_finish:
                on_finish()
            waiting[index] = report
            while next_index in waiting:
                yield waiting.pop(next_index)
                next_index += 1
        pool.close()
    finally:
        # Interrupted, or the consumer stopped early: the workers are not needed.
        pool.terminate()
        pool.join()
