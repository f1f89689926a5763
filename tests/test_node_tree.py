"""The scheduler's node order: the node tree, kept incrementally."""

from __future__ import annotations

from kruleset.model.node_tree import zone_key
from kruleset.model.objects import Node
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def _node(name: str, **labels: str) -> Node:
    return Node(name, Resources.of({"cpu": 1000, "memory": 1 << 30, "pods": 110}),
                labels=labels)


def _names(state: ClusterState) -> list[str]:
    return [n.name for n in state.node_order()]


def _zoned(state: ClusterState, name: str, zone: str | None) -> None:
    state.add_node(_node(name) if zone is None else Node(
        name, Resources.of({"cpu": 1000}), labels={ZONE: zone}))


def test_zones_round_robin_in_order_of_first_appearance() -> None:
    s = ClusterState()
    for name in ("a1", "a2", "a3", "b1", "b2", "c1"):
        _zoned(s, name, name[0])
    assert _names(s) == ["a1", "b1", "c1", "a2", "b2", "a3"]
    assert [s.nodes[n].rank for n in ("a1", "b1", "c1", "a2", "b2", "a3")] == list(range(6))


def test_without_zone_labels_the_order_is_declaration_order() -> None:
    s = ClusterState()
    for name in ("n3", "n1", "n2"):
        _zoned(s, name, None)
    assert _names(s) == ["n3", "n1", "n2"]


def test_zone_key_reads_ga_labels_first_even_empty_then_beta() -> None:
    assert zone_key({}) == ""
    assert zone_key({BETA_ZONE: "b"}) == ":\x00:b"
    assert zone_key({ZONE: "a", BETA_ZONE: "b"}) == ":\x00:a"
    assert zone_key({ZONE: "", BETA_ZONE: "b"}) == ""  # present but empty: no fallback
    assert zone_key({REGION: "r"}) == "r:\x00:"


def test_a_node_added_later_joins_its_zone_and_a_new_zone_goes_last() -> None:
    s = ClusterState()
    for name in ("a1", "b1", "a2"):
        _zoned(s, name, name[0])
    assert _names(s) == ["a1", "b1", "a2"]
    _zoned(s, "c1", "c")
    _zoned(s, "b2", "b")
    assert _names(s) == ["a1", "b1", "c1", "a2", "b2"]


def test_removing_the_last_node_of_a_zone_drops_the_zone() -> None:
    s = ClusterState()
    for name in ("a1", "b1", "a2", "c1"):
        _zoned(s, name, name[0])
    s.remove_node("b1")
    assert _names(s) == ["a1", "c1", "a2"]
    _zoned(s, "b1", "b")  # back, behind the zones that stayed
    assert _names(s) == ["a1", "c1", "b1", "a2"]


def test_a_zone_change_moves_the_node_when_the_next_node_is_added() -> None:
    s = ClusterState()
    for name in ("a1", "a2", "b1"):
        _zoned(s, name, name[0])
    assert _names(s) == ["a1", "b1", "a2"]
    s.relabel_node("a1", ZONE, "b")
    # Upstream's snapshot keeps its list until the set of nodes changes.
    assert _names(s) == ["a1", "b1", "a2"]
    _zoned(s, "c1", "c")
    assert _names(s) == ["a2", "b1", "c1", "a1"]


def test_the_list_is_reused_until_it_changes() -> None:
    s = ClusterState()
    for name in ("a1", "b1"):
        _zoned(s, name, name[0])
    first = s.node_order()
    assert s.node_order() is first
    s.relabel_node("a1", "other", "x")  # not a zone label
    assert s.node_order() is first
