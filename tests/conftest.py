"""Test configuration: make sure the Gherkin steps are loaded.

When kruleset is installed its pytest11 entry point loads the step plugin;
from a bare source tree it is loaded here instead (never twice).
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    pm = config.pluginmanager
    if not pm.has_plugin("kruleset") and not pm.has_plugin("kruleset.bdd.plugin"):
        pm.import_plugin("kruleset.bdd.plugin")


@pytest.fixture(autouse=True)
def _pending_matches_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test checks ``ClusterState.pending`` (kept pods) against a walk over every pod.

    The kept set relies on a pod never becoming pending again once it was
    not; every simulation the suite runs (examples, features, generated
    clusters) checks that at each call.
    """
    from kruleset.model.state import ClusterState

    kept = ClusterState.pending

    def checked(self: ClusterState) -> Any:
        got = list(kept(self))
        want = list(self.scan_pending())
        assert [id(p) for p in got] == [id(p) for p in want], "pending pods differ from a scan"
        return iter(got)

    monkeypatch.setattr(ClusterState, "pending", checked)


@pytest.fixture(scope="session")
def browser() -> Any:
    """One headless Chromium (Playwright on the system's chromium) for the whole session."""
    from browser import launch

    with launch() as b:
        yield b
