"""The cookbook in examples/: every scenario runs with its expectations holding,
has expectations to hold, and has its line in the README (the cookbook)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kruleset.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.kr") if not p.name.startswith("."))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_cookbook_is_there() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"quickstart.kr", "drain-under-pdb.kr", "rollout-surge.kr", "memory-pressure.kr",
            "tenant-quota-reclaim.kr", "from-manifests.kr"} <= names
    # one example reads the sample manifests
    assert any('include "manifests/' in p.read_text(encoding="utf-8") for p in EXAMPLES)


#: What-ifs on the example dump run as ``kruleset run --cluster DUMP whatifs/*.kr``.
WHATIFS = ROOT / "examples" / "whatifs"
DUMP = ROOT / "examples" / "dump" / "cluster.json"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_passes(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = ["--cluster", str(DUMP)] if path.parent == WHATIFS else []
    code = main(["run", "--no-color", "-j", "1", *cluster, str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "passed: 0 expectations" not in out, f"{path.name} checks nothing"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_has_a_readme_line(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    assert f"({rel})" in README or f"`{rel}`" in README, f"README does not list {rel}"
