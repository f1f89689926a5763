"""The scheduler's node order: its cache's node tree (``backend/cache/node_tree.go``).

kube-scheduler never visits nodes in creation order.  Its cache files each
node under a zone, keyed by the node's region and zone labels
(``topology.kubernetes.io/region``/``zone``, the ``failure-domain.beta``
labels as fallback; ``""`` for a node with neither), and lists them
round-robin across zones: the zones in the order their first node was
added, within a zone the order nodes were added.  Three zones a, b, c with
nodes added zone by zone are listed a-1, b-1, c-1, a-2, b-2, c-2, …; nodes
without zone labels are one zone of their own (so a cluster without zone
labels is listed in add order).  Every snapshot the scheduler takes lists
its nodes this way, and everything that walks "the nodes" follows it:
sampling by percentageOfNodesToScore, the rotating start index, the
preemption dry run, and kruleset's deterministic tie-breaks ("the first node
in the scheduler's node order", where upstream draws at random).

:class:`NodeTree` is kept incrementally: a node added goes to the end of its
zone (a new zone to the end of the zones), a node removed leaves its zone
(an empty zone is dropped), a node whose zone labels change moves to the end
of its new zone.  The flattened list is rebuilt only when read after a node
was added or removed, as upstream's snapshot rebuilds its list only then: a
relabelled node keeps its place in the list until the next node is added or
removed.  Reading the list also numbers the nodes (``NodeState.rank``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, Protocol, TypeVar

__all__ = ["NodeTree", "TreeNode", "zone_key"]


class TreeNode(Protocol):
    """What the tree reads and writes on a node (:class:`~kruleset.model.state.NodeState`).

    A protocol rather than an import: the cluster state holds the tree, so
    the tree names only what it needs of a node.
    """

    zone: str  # the zone key the node is filed under
    rank: int  # its place in the last listing

    @property
    def labels(self) -> Mapping[str, str]:
        """The node's labels (its zone key comes from them)."""


N = TypeVar("N", bound=TreeNode)

_REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
_ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


def zone_key(labels: Mapping[str, str]) -> str:
    """Upstream ``GetZoneKey``: region and zone, ``""`` for neither.

    Each label is read under its GA name if the node has it (even empty),
    else under the beta one.
    """
    region = next((labels[k] for k in _REGION_LABELS if k in labels), "")
    zone = next((labels[k] for k in _ZONE_LABELS if k in labels), "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTree(Generic[N]):
    """Nodes by zone, listed round-robin across zones (see the module docstring)."""

    __slots__ = ("_zones", "_listed", "_stale")

    def __init__(self) -> None:
        # zone key -> its nodes in add order; dict order is the zones' order.
        self._zones: dict[str, list[N]] = {}
        self._listed: list[N] = []
        self._stale = False

    def add(self, node: N) -> None:
        """File a new node at the end of its zone."""
        key = zone_key(node.labels)
        node.zone = key
        self._zones.setdefault(key, []).append(node)
        self._stale = True

    def remove(self, node: N) -> None:
        """Take a node out of its zone (an emptied zone loses its place)."""
        self._leave(node)
        self._stale = True

    def relabelled(self, node: N) -> None:
        """The node's labels changed: if its zone did, it moves to the end of the new one.

        The listed order changes only at the next add or remove (upstream's
        snapshot keeps its list until the set of nodes changes).
        """
        key = zone_key(node.labels)
        if key == node.zone:
            return
        self._leave(node)
        node.zone = key
        self._zones.setdefault(key, []).append(node)

    def _leave(self, node: N) -> None:
        members = self._zones.get(node.zone)
        if members is None:
            return
        for i, other in enumerate(members):
            if other is node:
                del members[i]
                break
        if not members:
            del self._zones[node.zone]

    def list(self) -> list[N]:
        """The nodes in the scheduler's order (the same list object until it changes).

        Callers must not modify it.
        """
        if self._stale:
            self._rebuild()
        return self._listed

    def _rebuild(self) -> None:
        zones = list(self._zones.values())
        if len(zones) == 1:
            out = list(zones[0])
        else:
            out = []
            depth = max((len(z) for z in zones), default=0)
            for i in range(depth):
                for members in zones:
                    if i < len(members):
                        out.append(members[i])
        for rank, node in enumerate(out):
            node.rank = rank
        self._listed = out
        self._stale = False
