"""pytest plugin: kruleset's Gherkin steps, available to every test session.

Installed as the ``kruleset`` pytest11 entry point, so a user's project needs
only ``.feature`` files and ``scenarios("features")`` in a test module.
"""

from __future__ import annotations

from typing import Any

import pytest

from . import steps as _steps
from .steps import (
    STEP,
    kr_scenario,  # noqa: F401  (the fixture the steps use)
)

# pytest-bdd registers each step as a fixture in the module that defines it;
# expose them here, where pytest looks for this plugin's fixtures.
globals().update({k: v for k, v in vars(_steps).items() if k.startswith("pytestbdd_")})

# Tags the shipped features use, one per mechanism.
TAGS = ("scheduling", "preemption", "priority", "kubelet", "eviction", "disruption", "quota",
        "language", "slow")


def pytest_configure(config: pytest.Config) -> None:
    """Register the Gherkin tags as markers (so --strict-markers accepts them)."""
    for tag in TAGS:
        config.addinivalue_line("markers", f"{tag}: kruleset features about {tag}")


def pytest_bdd_before_step(request: pytest.FixtureRequest, feature: Any, scenario: Any,
                           step: Any, step_func: Any) -> None:
    """Remember the step being run, so the `.kr` lines it adds know their `.feature` line."""
    request.node.stash[STEP] = (feature.filename, step.line_number, step.docstring is not None)
