"""Reading a file the user names: only regular files.

Every path kruleset reads (a ``.kr`` file, ``include``, ``config``,
``apply``/``delete``, ``--profile`` of ``run`` and ``sweep``) goes through
:func:`check_regular` first: a device (``/dev/zero``) would be read until
memory runs out, and opening a FIFO blocks until someone writes to it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["NotRegularFile", "check_regular", "read_regular_text"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


class NotRegularFile(OSError):
    """A path that names something else than a regular file (``strerror`` says what)."""


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise :class:`NotRegularFile` unless ``path`` is a regular file (symlinks followed).

    A missing file raises ``FileNotFoundError`` as ``open`` would.
    """
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return
    what = next((name for test, name in _KINDS if test(mode)), "not a file")
    raise NotRegularFile(errno.EINVAL, f"not a regular file ({what})", str(path))


def read_regular_text(path: str | os.PathLike[str], encoding: str = "utf-8") -> str:
    """The text of the regular file ``path`` (``OSError`` or ``UnicodeDecodeError`` else)."""
    check_regular(path)
    return Path(path).read_text(encoding=encoding)
