"""pytest plugin: kruleset's Gherkin steps, available to every test session.

Installed as the ``kruleset`` pytest11 entry point, so a user's project needs
only ``.feature`` files and ``scenarios("features")`` in a test module.
"""

from __future__ import annotations

import pytest

from .steps import (  # noqa: F401  (pytest collects the step fixtures from this module)
    _given_scenario,
    _given_statement,
    _then_expect,
    _then_hold,
    _then_refused,
    _when_runs,
    _when_statement,
    kr_scenario,
)

# Tags the shipped features use, one per mechanism.
TAGS = ("scheduling", "preemption", "priority", "kubelet", "eviction", "disruption", "quota",
        "language", "slow")


def pytest_configure(config: pytest.Config) -> None:
    """Register the Gherkin tags as markers (so --strict-markers accepts them)."""
    for tag in TAGS:
        config.addinivalue_line("markers", f"{tag}: kruleset features about {tag}")
