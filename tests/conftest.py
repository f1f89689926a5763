"""Test configuration: make sure the Gherkin steps are loaded.

When kruleset is installed its pytest11 entry point loads the step plugin;
from a bare source tree it is loaded here instead (never twice).
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    pm = config.pluginmanager
    if not pm.has_plugin("kruleset") and not pm.has_plugin("kruleset.bdd.plugin"):
        pm.import_plugin("kruleset.bdd.plugin")
