"""Score normalisation shared by score plugins: upstream's ``helper.DefaultNormalizeScore``.

Each raw score becomes ``100 * raw // max``; reversed (TaintToleration),
``100 - that``.  When no raw score is above 0, the scores stay as they are,
or (reversed) every node gets 100.  :func:`normalized` and
:func:`reversed_normalized` are the two forms as a rule's ``normalize``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState

from ..framework import ScheduleContext

__all__ = ["MAX_NODE_SCORE", "default_normalize", "normalized", "reversed_normalized"]

MAX_NODE_SCORE = 100


def default_normalize(raw: Sequence[int], reverse: bool) -> list[int]:
    """Upstream ``DefaultNormalizeScore(MaxNodeScore, reverse, scores)``."""
    top = max(raw, default=0)
    if top <= 0:
        # Nothing above zero (the usual case for a plugin with nothing to say):
        # upstream leaves the scores as they are, or sets all to MaxNodeScore.
        return [MAX_NODE_SCORE] * len(raw) if reverse else list(raw)
    out = []
    for s in raw:
        v = MAX_NODE_SCORE * s // top
        out.append(MAX_NODE_SCORE - v if reverse else v)
    return out


def normalized(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod, nodes: Sequence[NodeState],
               raw: list[int]) -> list[int]:
    """A score rule's ``normalize``: :func:`default_normalize`, higher raw scores higher."""
    return default_normalize(raw, False)


def reversed_normalized(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                        nodes: Sequence[NodeState], raw: list[int]) -> list[int]:
    """A score rule's ``normalize``: :func:`default_normalize` reversed, lower raw scores higher."""
    return default_normalize(raw, True)
