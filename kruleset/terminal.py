"""When to colour: ``--color``, ``NO_COLOR`` and ``FORCE_COLOR``, then the terminal.

Precedence (what no-color.org and force-color.org ask): ``--color always`` or
``never`` wins; otherwise a non-empty ``NO_COLOR`` turns colour off, then a
non-empty ``FORCE_COLOR`` turns it on (for CI logs, which are not terminals
but render ANSI colour); otherwise colour is used on a terminal whose
``TERM`` is not ``dumb``.
"""

from __future__ import annotations

import os
from typing import IO

__all__ = ["COLOR_CHOICES", "use_color"]

COLOR_CHOICES = ("auto", "always", "never")


def use_color(choice: str, stream: IO[str] | None) -> bool:
    """Whether to write ANSI colour to ``stream`` for ``--color CHOICE``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        tty = stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream is no terminal
        tty = False
    return tty and os.environ.get("TERM") != "dumb"
