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


def test_the_editor_setups_start_kruleset_lsp():
    import re
    import tomllib
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "EDITORS.md").read_text()
    helix = tomllib.loads(re.search(r"```toml\n(.*?)```", text, re.S).group(1))
    server = helix["language-server"]["kruleset"]
    assert [server["command"], *server["args"]] == ["kruleset", "lsp"]
    assert helix["language"][0]["language-servers"] == ["kruleset"]
    neovim = re.search(r"```lua\n(.*?)```", text, re.S).group(1)
    assert len(neovim.strip().split("\n")) == 2 and 'cmd = { "kruleset", "lsp" }' in neovim
