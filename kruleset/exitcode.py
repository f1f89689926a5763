"""What the ``kruleset`` command exits with, as a documented enum."""

from __future__ import annotations

import enum
from collections.abc import Iterable

__all__ = ["ExitCode", "worst"]


class ExitCode(enum.IntEnum):
    """Exit status of ``kruleset run`` and ``kruleset check``.

    With several files the status is the worst of them (the highest of 0-3);
    an interrupted run exits 130 whatever the files finished so far said,
    as a shell does for a command stopped by Ctrl-C (128 + SIGINT).
    """

    OK = 0           #: every file passed: each expectation holds (check: each file is valid)
    FAILED = 1       #: some expectation does not hold
    REFUSED = 2      #: a file or the command line is refused (position and hint on stderr)
    ERROR = 3        #: internal error, or a mechanism this version does not simulate yet
    INTERRUPTED = 130  #: stopped by Ctrl-C (SIGINT); the partial summary is printed

    PASSED = 0       # alias of OK, the word the summary uses


def worst(codes: Iterable[int]) -> ExitCode:
    """The status of a run of several files (OK for none)."""
    return ExitCode(max(codes, default=ExitCode.OK))
