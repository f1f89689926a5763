"""Bounds every way into a scenario checks alike: ``.kr``, YAML, ``--profile`` and ``sweep --set``.

Each check returns the refusal's message (``None`` when the value is
accepted); the reader that calls it adds the place (a ``.kr`` word, a YAML
field path, a ``--set`` option).
"""

from __future__ import annotations

import re

from .objects import MAX_REPLICAS

__all__ = ["INT32_MAX", "INT32_MIN", "INT64_MAX", "INT64_MIN", "MAX_REPLICAS", "MAX_SEEDS",
           "MAX_VARIANTS", "replicas_problem", "whole_number"]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: The most arrival orders ``sweep --seeds`` tries (each is a whole simulation).
MAX_SEEDS = 10_000
#: The most variants one sweep runs (the grid of all its axes).
MAX_VARIANTS = 100_000

# ASCII digits only: int() also reads '١' or '１', which no Kubernetes field does.
_WHOLE = re.compile(r"[+-]?[0-9]+\Z")


def whole_number(text: str) -> int | None:
    """``text`` as a base-10 integer written in ASCII digits, else None."""
    if not _WHOLE.match(text) or len(text) > 4000:
        return None
    return int(text)


def replicas_problem(value: int) -> str | None:
    """Why a workload may not ask for ``value`` pods (replicas, parallelism, completions)."""
    if value < 0:
        return f"must be 0 or more, found {value}"
    if value > MAX_REPLICAS:
        return (f"must be at most {MAX_REPLICAS}, found {value} (every pod is simulated "
                "one by one)")
    return None
