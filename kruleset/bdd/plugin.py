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


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--kruleset-rules`` and the ini option ``kruleset_rules``: user rules, as ``--rules``."""
    help_text = ("load your own kruleset rules: a .py file or an importable module that "
                 "registers them with kruleset.register")
    parser.getgroup("kruleset").addoption(
        "--kruleset-rules", action="append", default=[], metavar="MODULE_OR_FILE",
        dest="kruleset_rules", help=help_text + " (repeatable)")
    parser.addini("kruleset_rules", help_text + " (one per line; files relative to the "
                  "ini file's folder)", type="linelist", default=[])


def _rules_specs(config: pytest.Config) -> list[str]:
    specs = []
    folder = config.inipath.parent if config.inipath is not None else config.rootpath
    for spec in config.getini("kruleset_rules"):
        path = folder / spec
        specs.append(str(path) if spec.endswith(".py") and path.is_file() else spec)
    return specs + list(config.getoption("kruleset_rules") or [])


def pytest_configure(config: pytest.Config) -> None:
    """Register the Gherkin tags as markers; load the rules plugins asked for."""
    for tag in TAGS:
        config.addinivalue_line("markers", f"{tag}: kruleset features about {tag}")
    from ..rules.plugins import PluginError, load_all

    try:
        load_all(_rules_specs(config))
    except PluginError as e:
        pytest.exit(e.render(), returncode=2)


def pytest_bdd_before_step(request: pytest.FixtureRequest, feature: Any, scenario: Any,
                           step: Any, step_func: Any) -> None:
    """Remember the step being run, so the `.kr` lines it adds know their `.feature` line."""
    request.node.stash[STEP] = (feature.filename, step.line_number, step.docstring is not None)
