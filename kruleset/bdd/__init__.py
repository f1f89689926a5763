"""Gherkin support: the step library shipped as a pytest plugin."""

from __future__ import annotations

from .steps import KrScenario

__all__ = ["KrScenario"]
