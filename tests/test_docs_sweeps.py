"""docs/SWEEPS.md stays true: every command in its ``sh`` blocks runs (exit 0 or 1: some
variants are meant to fail), and where a ``text`` block follows, prints exactly that.

The commands run from a folder where ``examples/`` is the project's, as a user
following the page from the project's root would run them, so files they write
(``-o``, ``--reports``) land in the test's folder.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from kruleset.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "SWEEPS.md"
BLOCKS = re.compile(r"^```sh\n(.*?)^```\n(?:\n```text\n(.*?)^```)?", re.S | re.M)


def _commands() -> list[tuple[str, str | None]]:
    out = []
    for m in BLOCKS.finditer(DOC.read_text(encoding="utf-8")):
        lines = [x for x in m.group(1).splitlines() if x.strip()]
        for i, line in enumerate(lines):
            out.append((line, m.group(2) if i == len(lines) - 1 else None))
    return out


COMMANDS = _commands()


def test_the_page_shows_sweeps_and_their_replays() -> None:
    words = " ".join(c for c, _ in COMMANDS)
    for needed in ("--variant", "run examples/sweep-n1.kr --fail", "--reports", "--set"):
        assert needed in words
    assert sum(1 for _, shown in COMMANDS if shown) >= 2


@pytest.mark.parametrize(("command", "shown"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_command_runs_and_prints_what_the_page_shows(
        command: str, shown: str | None, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    words = shlex.split(command)
    assert words[0] == "kruleset"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*words[1:], "--no-color"])
    assert code in (0, 1), f"{command}: exit {code}\n{err.getvalue()}"
    if shown is not None:
        assert out.getvalue() == shown
    for option in ("-o", "--reports"):
        if option in words:
            assert (tmp_path / words[words.index(option) + 1]).exists()
