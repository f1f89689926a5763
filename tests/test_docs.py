"""The language reference, the README and docs/ stay true: every ``kr`` snippet passes
``kruleset check``, every ``kr-refused`` snippet is refused, and no ``.kr``
text hides in an unmarked code block.

Info strings: ``kr`` is a whole scenario (checked, then run with its expectations
holding, from a folder where ``include "manifests/…"`` finds the sample
manifests of ``examples/``);
``kr-refused`` a scenario that must be refused (exit 2); ``kr-fragment``
syntax notation (capitals are placeholders), not a file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kruleset.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)
KNOWN = {"kr", "kr-refused", "kr-fragment", "sh", "python", "gherkin", "json", "yaml", "text",
         "html", "lua", "toml"}  # lua, toml: editor set-ups (docs/EDITORS.md)


def _snippets() -> list[tuple[str, int, str, str]]:
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((doc.relative_to(ROOT).as_posix(), line, m.group(1).strip(), m.group(2)))
    return out


SNIPPETS = _snippets()


def _ids(kind: str) -> list[tuple[str, int, str]]:
    return [(d, n, body) for d, n, k, body in SNIPPETS if k == kind]


def test_docs_have_snippets() -> None:
    assert (ROOT / "docs" / "LANGUAGE.md").is_file()
    assert len(_ids("kr")) >= 8 and _ids("kr-refused") and _ids("kr-fragment")


@pytest.mark.parametrize("doc,line,info", [(d, n, k) for d, n, k, _ in SNIPPETS])
def test_every_code_block_says_what_it_is(doc: str, line: int, info: str) -> None:
    assert info in KNOWN, f"{doc}:{line}: code block with info string {info!r}; " \
                          f"mark .kr text as kr, kr-refused or kr-fragment"


def _check(body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
           command: str = "check") -> tuple[int, str]:
    # The sample manifests are linked beside the snippet, so relative
    # include/config paths resolve as for a user's file in examples/.
    link = tmp_path / "manifests"
    if not link.exists():
        link.symlink_to(ROOT / "examples" / "manifests", target_is_directory=True)
    path = tmp_path / "snippet.kr"
    path.write_text(body, encoding="utf-8")
    code = main([command, "--no-color", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("doc,line,body", _ids("kr"), ids=lambda v: str(v)[:30])
def test_kr_snippet_checks(doc: str, line: int, body: str, tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _check(body, tmp_path, capsys)
    assert code == 0, f"{doc}:{line}: snippet refused:\n{out}"
    # The reference's examples also say what happens: their expectations hold.
    code, out = _check(body, tmp_path, capsys, "run")
    assert code == 0, f"{doc}:{line}: snippet's expectations fail:\n{out}"


@pytest.mark.parametrize("doc,line,body", _ids("kr-refused"), ids=lambda v: str(v)[:30])
def test_refused_snippet_is_refused(doc: str, line: int, body: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _check(body, tmp_path, capsys)
    assert code == 2, f"{doc}:{line}: snippet should be refused, got exit {code}:\n{out}"
    # The message shown after the snippet in the doc is what check prints.
    text = (ROOT / doc).read_text(encoding="utf-8")
    after = text.split(body, 1)[1].split("```", 1)[1]
    shown = FENCE.search(after)
    assert shown is not None and shown.group(1) == "text"
    first = shown.group(2).splitlines()[0].split(": ", 1)[1]
    assert first in out, f"{doc}:{line}: the doc shows {first!r}, check printed:\n{out}"
