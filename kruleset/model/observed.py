"""Usage read from Summary API and metrics.k8s.io documents, as one action at 0s.

``include`` of such documents (:mod:`kruleset.manifests.usage_docs`) becomes
one :class:`ObservedUsage` applied at 0s after the declarations, pods first
(their usage moves the node's signals), then each node's signals read as
the documents give them.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..errors import Span

__all__ = ["ContainerUsage", "ObservedNode", "ObservedPod", "ObservedUsage"]


@attrs.frozen(slots=True)
class ObservedPod:
    """A pod's usage (keys of ``usage pod``), its emptyDirs' bytes, its containers' bytes."""

    key: str
    usage: Mapping[str, int]
    volumes: Mapping[str, int] = attrs.field(factory=dict)
    containers: Mapping[str, Mapping[str, int]] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class ObservedNode:
    """A node's signals as observed; ``memory_used`` (metrics) sets memory.available."""

    node: str
    signals: Mapping[str, int]
    memory_used: int | None = None


@attrs.frozen(slots=True)
class ObservedUsage:
    """Every pod's and node's observed usage of one included file."""

    pods: tuple[ObservedPod, ...]
    nodes: tuple[ObservedNode, ...]
    span: Span = attrs.field(factory=lambda: Span("<text>", 0, 0, ""), eq=False)


@attrs.frozen(slots=True)
class ContainerUsage:
    """``usage pod REF container=NAME KEY=Q …``: one container's share of its pod's usage.

    ``ephemeral-storage`` is the container's logs, ``writable-layer`` its
    writable layer (what its ephemeral-storage limit is checked against),
    ``memory`` its working set; the pod's usage moves by the difference.
    """

    ref: str
    container: str
    usage: Mapping[str, int]
    span: Span = attrs.field(factory=lambda: Span("<text>", 0, 0, ""), eq=False)
