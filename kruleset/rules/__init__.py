"""The rules engine and the built-in rule sets (one module per mechanism)."""

from __future__ import annotations

from .engine import (
    ORDERING,
    PIPELINE,
    PREDICATE,
    SCORE,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    ActiveRule,
    ActiveRuleSet,
    Failure,
    Rule,
    RuleSet,
    Stop,
    Trace,
    TraceEntry,
)
from .profile import Override, Profile, load_profile
from .registry import define_ruleset, get_ruleset, register, rule, rulesets

__all__ = [
    "ORDERING",
    "PIPELINE",
    "PREDICATE",
    "SCORE",
    "UNRESOLVABLE",
    "UNSCHEDULABLE",
    "ActiveRule",
    "ActiveRuleSet",
    "Failure",
    "Override",
    "Profile",
    "Rule",
    "RuleSet",
    "Stop",
    "Trace",
    "TraceEntry",
    "define_ruleset",
    "get_ruleset",
    "load_profile",
    "register",
    "rule",
    "rulesets",
]
