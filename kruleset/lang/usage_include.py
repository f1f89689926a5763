"""What ``include`` of Summary API and metrics documents gives the scenario.

Each included file's usage (:class:`kruleset.manifests.usage_docs.UsageReader`)
is merged, a Summary winning over metrics for the same node or pod, and
checked once every object is declared: a node or pod the scenario does not
have is a warning naming it (a Summary of a node left out of the dump, a pod
gone since), and the rest becomes one action at 0s
(:class:`~kruleset.model.observed.ObservedUsage`).
"""

from __future__ import annotations

from typing import Any

from ..errors import Span, notice
from ..model.observed import ObservedUsage
from .context import Context

__all__ = ["ObservedUsageBuilder"]


class ObservedUsageBuilder:
    """Collects the usage of every included file; :meth:`action` checks and builds."""

    def __init__(self) -> None:
        self.reader: Any = None
        self.span: Span | None = None

    def add(self, usage: Any, span: Span) -> None:
        """The usage read from one included file."""
        if self.reader is None:
            self.reader, self.span = usage, span
        else:
            self.reader.merged(usage)

    def action(self, ctx: Context) -> ObservedUsage | None:
        """The action at 0s, unknown nodes and pods left out with a warning each."""
        r = self.reader
        if r is None:
            return None
        kept: dict[str, list[Any]] = {"node": [], "pod": []}
        for what, found, known in (("node", r.nodes, ctx.nodes), ("pod", r.pods, ctx.pods)):
            for name, o in found.items():
                if name in known:
                    kept[what].append(o.entry)
                else:
                    notice(f"{o.where}: warning: usage of {what} '{name}', which the scenario "
                           "does not have, is ignored")
        assert self.span is not None
        return ObservedUsage(tuple(kept["pod"]), tuple(kept["node"]), self.span)
