"""The Gherkin steps used from a fresh project, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

FEATURE = """\
Feature: my cluster
  Scenario: a high-priority pod fits
    Given node n1 cpu=2 memory=4Gi
    And pod low priority=1 requests(cpu=1)
    When at 10s create pod high priority=100 requests(cpu=1)
    Then expect pod high running on n1
    And expect pod low running

  Scenario: the whole scenario as a docstring
    Given the scenario:
      \"\"\"
      node n1 cpu=1 memory=1Gi
      pod a requests(cpu=2)
      expect pod a pending reason="Insufficient cpu"
      \"\"\"
    Then the expectations hold
"""

TEST = """\
from pytest_bdd import scenarios
scenarios("features")
"""


ROOT = Path(__file__).resolve().parent.parent


def _args(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the source importable; load the plugin by hand only if its entry point is unseen."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    probe = subprocess.run(
        [sys.executable, "-c", "from importlib.metadata import entry_points as e; "
         "print(any(x.name == 'kruleset' for x in e(group='pytest11')))"],
        capture_output=True, text=True, cwd=pytester.path, check=True)
    return [] if probe.stdout.strip() == "True" else ["-p", "kruleset.bdd.plugin"]


def test_feature_files_run_with_the_shipped_steps(pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makefile(".feature", **{"features/cluster": FEATURE})
    pytester.makepyfile(test_cluster=TEST)
    args = _args(pytester, monkeypatch)
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=2)


def test_a_failing_expectation_fails_the_scenario(pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makefile(".feature", **{"features/bad": FEATURE.replace(
        "expect pod high running on n1", "expect pod high pending")})
    pytester.makepyfile(test_cluster=TEST)
    args = _args(pytester, monkeypatch)
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*expect pod high pending*"])
