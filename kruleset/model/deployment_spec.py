"""A Deployment's strategy and minReadySeconds as the API server validates them.

Upstream: ``pkg/apis/apps/validation/validation.go`` (``ValidateDeploymentSpec``,
``ValidateDeploymentStrategy``, ``ValidateRollingUpdateDeployment``,
``ValidatePositiveIntOrPercent``, ``IsNotMoreThan100Percent``).  Both the YAML
reader and the ``.kr`` language ask :func:`strategy_errors` and report each
error at its field with upstream's words.

    >>> for path, message in strategy_errors("RollingUpdate", "0%", 0, True, 0):
    ...     print(path, message)
    spec.strategy.rollingUpdate.maxUnavailable Invalid value: 0: may not be 0 when `maxSurge` is 0
"""

from __future__ import annotations

import re

__all__ = ["STRATEGIES", "int_or_percent", "strategy_errors"]

STRATEGIES = ("Recreate", "RollingUpdate")
_PERCENT = re.compile(r"^[0-9]+%$")


def int_or_percent(text: str) -> int | str:
    """``"25%"`` stays a string, ``"3"`` becomes 3 (anything else stays as written)."""
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    return text


def _value(v: int | str) -> int:
    """getIntOrPercentValue: the number, whether a count or a percentage."""
    if isinstance(v, int):
        return v
    return int(v[:-1]) if _PERCENT.match(v) else -1


def _show(v: int | str) -> str:
    return str(v) if isinstance(v, int) else f'"{v}"'


def _int_or_percent_errors(v: int | str, path: str) -> list[tuple[str, str]]:
    if isinstance(v, int):
        if v < 0:
            return [(path, f"Invalid value: {v}: must be greater than or equal to 0")]
        return []
    if not _PERCENT.match(v):
        return [(path, f"Invalid value: {_show(v)}: must be an integer or percentage (e.g '5%')")]
    return []


def strategy_errors(strategy: str, max_surge: int | str, max_unavailable: int | str,
                    rolling_given: bool, min_ready_seconds: int) -> list[tuple[str, str]]:
    """Each ``(field path, message)`` the API server refuses the spec with; [] when valid."""
    errs: list[tuple[str, str]] = []
    if min_ready_seconds < 0:
        errs.append(("spec.minReadySeconds", f"Invalid value: {min_ready_seconds}: must be "
                                             "greater than or equal to 0"))
    if strategy == "Recreate":
        if rolling_given:
            errs.append(("spec.strategy.rollingUpdate", "Forbidden: may not be specified when "
                                                        "strategy `type` is 'Recreate'"))
        return errs
    if strategy != "RollingUpdate":
        errs.append(("spec.strategy.type", f'Unsupported value: "{strategy}": supported values: '
                                           '"Recreate", "RollingUpdate"'))
        return errs
    base = "spec.strategy.rollingUpdate."
    errs += _int_or_percent_errors(max_unavailable, base + "maxUnavailable")
    errs += _int_or_percent_errors(max_surge, base + "maxSurge")
    if _value(max_unavailable) == 0 and _value(max_surge) == 0:
        errs.append((base + "maxUnavailable", f"Invalid value: {_show(max_unavailable)}: may "
                                              "not be 0 when `maxSurge` is 0"))
    if isinstance(max_unavailable, str) and _value(max_unavailable) > 100:
        errs.append((base + "maxUnavailable", f"Invalid value: {_show(max_unavailable)}: must "
                                              "not be greater than 100%"))
    return errs
