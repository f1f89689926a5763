"""The last line of defence of the ``kruleset`` command: no traceback, exit status 3.

Whatever escapes a command's own handling is a bug in kruleset: a library's
panic (a ``BaseException``, not an ``Exception``: the CEL library's, for
one) included.  Ctrl-C and ``sys.exit`` are not caught.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable

from .errors import is_bug
from .exitcode import ExitCode

__all__ = ["guarded"]


def guarded(command: Callable[[], int]) -> int:
    """``command()``; an internal error is reported on stderr and exits 3."""
    try:
        return command()
    except BaseException as exc:
        if not is_bug(exc):
            raise
        print(f"kruleset: internal error (a bug in kruleset, please report it): "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("KRULESET_DEBUG"):
            traceback.print_exc()
        return ExitCode.ERROR
