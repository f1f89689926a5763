"""The VS Code extension (editors/vscode) packages into a .vsix carrying the grammar and the client.

Needs node and npx (skipped otherwise) and npm's registry for the client
library and vsce on a first run: a failure says which step failed and shows
npm's output.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EDITORS = ROOT / "editors"


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npx") is None,
                    reason="node and npx are not installed: the .vsix is not built")
def test_vsix_builds_with_the_grammar_and_the_client(tmp_path):
    # Built where it lives (node_modules and the grammar's copy are ignored by
    # git and kept: a second run installs nothing), into the test's folder.
    vsix = tmp_path / "kruleset-kr.vsix"
    try:
        done = subprocess.run(["sh", str(EDITORS / "vscode" / "package.sh"), str(vsix)],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"building the .vsix took over {e.timeout} s (npm install or vsce hung; "
                    "is npm's registry reachable?)")
    assert done.returncode == 0, (
        "editors/vscode/package.sh failed (npm install needs npm's registry on a first "
        f"run):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        grammar = z.read("extension/syntaxes/kr.tmLanguage.json")
        manifest = json.loads(z.read("extension/package.json"))
    assert grammar == (EDITORS / "kr.tmLanguage.json").read_bytes()
    assert "extension/extension.js" in names
    assert "extension/node_modules/vscode-languageclient/node.js" in names
    assert not any(n.startswith("extension/node_modules/@vscode/vsce") for n in names)
    assert manifest["contributes"]["grammars"][0]["path"] == "./syntaxes/kr.tmLanguage.json"
