"""The simulation: clock, controllers, expectations and results."""

from __future__ import annotations

from .core import Decision, Simulation, register_action, register_controller
from .result import ExpectationResult, Result

__all__ = [
    "Decision",
    "ExpectationResult",
    "Result",
    "Simulation",
    "register_action",
    "register_controller",
]
