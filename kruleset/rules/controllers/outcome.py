"""Running one of the controllers' pipeline rule sets and reading its verdict."""

from __future__ import annotations

from typing import Any, TypeVar

from ..context import Profiled
from ..engine import RuleSet, Stop

__all__ = ["outcome"]

T = TypeVar("T")


def outcome(ctx: Profiled | None, ruleset: RuleSet, data: Any, subject: str, default: T) -> T:
    """The result of the rule that stopped ``ruleset`` on ``data`` (traced under ``subject``
    when ``ctx`` traces); ``default`` when no rule stopped or its result is not one."""
    from ..profile import Profile

    profile = getattr(ctx, "profile", None) or Profile.default()
    out = profile.active(ruleset.name).run(ctx, data, subject=subject)
    if isinstance(out, Stop) and isinstance(out.result, type(default)):
        return out.result  # type: ignore[no-any-return]
    return default
