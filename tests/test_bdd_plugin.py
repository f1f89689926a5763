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


MISTAKES = """\
Feature: mistakes

  Scenario: a typo in a step
    Given node n1 cpu=2 memory=4Gi
    And pod low priorityclass=hgh requests(cpu=1)
    Then expect pod low running

  Scenario: a typo in a docstring
    Given the scenario:
      \"\"\"
      node n1 cpu=1 memory=1Gi
      pod a requests(cpuu=2)
      expect pod a pending
      \"\"\"
    Then the expectations hold

  Scenario: a failing expectation in a docstring
    Given the scenario:
      \"\"\"
      node n1 cpu=1 memory=1Gi
      pod a requests(cpu=2)
      expect pod a running
      \"\"\"
    Then the expectations hold

  Scenario: a failing expectation step
    Given node n1 cpu=1 memory=1Gi
    And pod a requests(cpu=2)
    Then expect pod a running

  Scenario: a refusal that does not say what was expected
    Given node n1 cpu=1 memory=1Gi
    Then the scenario is refused with "anything"
"""


def test_errors_point_at_the_feature_file_and_line(pytester: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makefile(".feature", **{"features/mistakes": MISTAKES})
    pytester.makepyfile(test_mistakes=TEST)
    report = pytester.path / "features.xml"
    result = pytester.runpytest_subprocess(*_args(pytester, monkeypatch), "-p", "no:randomly",
                                           f"--junitxml={report}")
    result.assert_outcomes(failed=5)
    out = result.stdout.str()
    feature = "features/mistakes.feature"
    # the column is the statement's column in the .feature line, the caret under it
    result.stdout.fnmatch_lines([
        f"{feature}:5:31: unknown priority class 'hgh'",
        "        And pod low priorityclass=hgh requests(cpu=1)",
        "                                  ^",
    ])
    result.stdout.fnmatch_lines([f"{feature}:12:22: unknown resource 'cpuu', did you mean 'cpu'?",
                                 "          pod a requests(cpuu=2)"])
    result.stdout.fnmatch_lines([f"{feature}:22: expect pod a running: default/a is pending*"])
    result.stdout.fnmatch_lines([f"{feature}:29: expect pod a running: default/a is pending*"])
    result.stdout.fnmatch_lines([f"{feature}:33: the scenario was accepted*"])
    # and nothing of pytest's or pytest-bdd's internals
    assert "Traceback" not in out and "pytest_bdd" not in out and "steps.py" not in out
    assert ".kr:2:" not in out  # the generated text's positions are not shown
    # JUnit from pytest, as docs/GHERKIN.md says: valid, each failure led by its .feature line
    from lxml import etree

    doc = etree.parse(str(report))
    etree.XMLSchema(etree.parse(str(ROOT / "schemas" / "junit.xsd"))).assertValid(doc)
    messages = [f.get("message") for f in doc.iter("failure")]
    assert [m.split(": ")[1] for m in messages] == [
        f"{feature}:5:31", f"{feature}:12:22", f"{feature}:22",
        f"{feature}:29", f"{feature}:33"]


INCLUDES = """\
Feature: files beside the feature

  Scenario: an included manifest is read from the feature's folder
    Given node n1 cpu=2 memory=4Gi
    Given the scenario:
      \"\"\"
      include "pods.yaml"
      expect pod web running on n1
      \"\"\"
    Then the expectations hold

  Scenario: a missing file is reported at its feature line
    Given the scenario:
      \"\"\"
      node n1 cpu=2 memory=4Gi

      include "absent.yaml"
      \"\"\"
    Then the expectations hold
"""

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: "1"}}
"""


def test_includes_resolve_from_the_feature_folder_whatever_the_working_directory(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = pytester.path / "suite"
    (suite / "features").mkdir(parents=True)
    (suite / "features" / "files.feature").write_text(INCLUDES)
    (suite / "features" / "pods.yaml").write_text(POD)
    (suite / "test_files.py").write_text(TEST)
    elsewhere = pytester.path / "elsewhere"
    elsewhere.mkdir()
    args = _args(pytester, monkeypatch)
    # CI starts pytest from the repository's root, not from the suite's folder.
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly",
                           "-p", "no:cacheprovider", "--rootdir", str(suite), *args,
                           str(suite / "test_files.py")],
                          capture_output=True, text=True, cwd=elsewhere, check=False)
    out = done.stdout
    assert "1 failed, 1 passed" in out, out
    # the missing file's line counts the docstring's lines in the .feature file (line 17)
    assert "files.feature:17:15: file not found: absent.yaml" in out, out
    assert 'include "absent.yaml"' in out
    assert "Traceback" not in out
