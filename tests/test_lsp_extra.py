"""`kruleset lsp` without the lsp extra says what to install (no traceback), exit status 2."""

from __future__ import annotations

import subprocess
import sys


def test_lsp_without_pygls_says_what_to_install():
    code = ("import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None\n"
            "from kruleset.cli import main; sys.exit(main(['lsp']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2
    assert "pip install 'kruleset[lsp]'" in done.stderr
    assert "Traceback" not in done.stderr
