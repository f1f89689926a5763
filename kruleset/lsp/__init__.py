"""``kruleset lsp``: a language server for ``.kr`` files and the ``.kr`` text of ``.feature`` files.

It speaks the Language Server Protocol on stdin/stdout and needs the ``lsp``
extra (``pip install 'kruleset[lsp]'``: pygls and lsprotocol).  What it
offers, and the editor set-ups, are in docs/EDITORS.md.  The pieces:
:mod:`.check` (what ``kruleset check`` says, as diagnostics), :mod:`.regions`
(the ``.kr`` text of a ``.feature``), :mod:`.names` (declarations, read from
the text), :mod:`.complete`, :mod:`.hover`, :mod:`.reference` (the language
reference's lines), :mod:`.cache` (included files read once),
:mod:`.server`, :mod:`.features` and :mod:`.stdio` (the protocol).
"""

from __future__ import annotations

import sys

__all__ = ["main"]

MISSING = ("kruleset lsp needs the language server libraries: "
           "pip install 'kruleset[lsp]' (pygls and lsprotocol)")


def main() -> int:
    """Serve on stdin/stdout until the client says exit; 2 when pygls is missing."""
    try:
        from .stdio import run_stdio
    except ImportError as e:
        print(f"{MISSING} ({e})", file=sys.stderr)
        return 2
    run_stdio()
    return 0
