"""The README's examples stay true: its Python snippets run, its Gherkin passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_python_snippets_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    snippets = _blocks("python")
    assert snippets
    for code in snippets:
        exec(compile(code, "README.md", "exec"), {})


def test_gherkin_example_passes(pytester: pytest.Pytester,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    (feature,) = _blocks("gherkin")
    pytester.makefile(".feature", **{"features/readme": feature})
    pytester.makepyfile(test_readme_feature='from pytest_bdd import scenarios\n'
                                           'scenarios("features")\n')
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    probe = subprocess.run(
        [sys.executable, "-c", "from importlib.metadata import entry_points as e; "
         "print(any(x.name == 'kruleset' for x in e(group='pytest11')))"],
        capture_output=True, text=True, cwd=pytester.path, check=True)
    args = [] if probe.stdout.strip() == "True" else ["-p", "kruleset.bdd.plugin"]
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)
