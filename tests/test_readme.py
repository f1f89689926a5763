"""The README's and docs/' examples stay true: their Python snippets run, their Gherkin
passes, and every relative link points at a file (and a heading) that exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks(lang: str) -> list[tuple[str, str]]:
    """``(page, code)`` of every ``lang`` block of the README and docs/."""
    return [(page.relative_to(ROOT).as_posix(), code) for page in PAGES
            for code in re.findall(rf"```{lang}\n(.*?)```", page.read_text(encoding="utf-8"),
                                   flags=re.S)]


#: Pages whose Python runs in a test of their own, from a folder it prepares.
OWN_TEST = {"docs/API.md": "tests/test_api_docs.py"}


def test_python_snippets_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for page, code in _blocks("python"):
        if page in OWN_TEST:
            assert (ROOT / OWN_TEST[page]).is_file(), f"{page}: {OWN_TEST[page]} runs it"
        else:
            exec(compile(code, page, "exec"), {})


def test_gherkin_example_passes(pytester: pytest.Pytester,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    ((_, feature),) = _blocks("gherkin")
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


def _anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for target in re.findall(r"\]\((?!https?:|mailto:)([^)\s]+)\)", prose):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name}: link to {target}: no such file"
        if anchor and file.suffix == ".md":
            body = re.sub(r"^```.*?^```", "", file.read_text(encoding="utf-8"), flags=re.S | re.M)
            anchors = {_anchor(h) for h in re.findall(r"^#+ (.*)$", body, flags=re.M)}
            assert anchor in anchors, f"{page.name}: link to {target}: no such heading"


def test_the_readme_is_the_users_path() -> None:
    # The README is a user's path (pitch, two commands, a tour, links); the rest
    # lives under docs/, each page linked from it.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in readme, f"the README does not link docs/{page.name}"
