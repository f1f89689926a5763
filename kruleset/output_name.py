"""``-o json`` (the kubectl and conftest reflex) is refused, not written to a file ``json``.

kubectl's ``-o`` picks a format; kruleset's names a file.  A bare format name
given to ``-o`` without ``--format`` is almost always the former, and writing
the text report to a file called ``json`` would leave the user wondering where
the JSON went, so it is refused with the command they meant.  ``./json`` (or
any name with a folder or a suffix) is a file as usual, and so is a bare name
when ``--format`` was given.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

__all__ = ["SUFFIX", "bare_format_refusal"]

#: The file suffix suggested per format.
SUFFIX = {"json": "json", "junit": "xml", "tap": "tap", "github": "txt", "html": "html",
          "text": "txt"}


def bare_format_refusal(prog: str, output: str | None, format_given: bool,
                        formats: Sequence[str], rest: Sequence[str]) -> str | None:
    """The message refusing ``-o NAME`` when NAME is a format name and ``--format`` is absent.

    ``prog`` is the command (``kruleset run``), ``rest`` its other arguments as
    the hint should repeat them.  None when the output is a file name.
    """
    if output is None or format_given or output not in formats:
        return None
    args = " ".join(shlex.quote(a) for a in rest)
    fixed = f"{prog} {args} --format {output} -o report.{SUFFIX.get(output, output)}"
    return (f"{prog.split()[0]}: -o names the file to write, not a format: did you mean "
            f"--format {output}?\n"
            f"  {fixed.replace('  ', ' ')}\n"
            f"(to write a file named {output}, give -o ./{output})")
