"""NodeAffinity's PreFilter narrows the nodes (v1.35 findNodesThatFitPod).

Expected outcomes are kube-scheduler v1.35.4's (checked with the oracle).
"""

from __future__ import annotations

import kruleset
from kruleset.model.objects import NodeAffinity, Pod
from kruleset.model.selectors import NodeSelectorTerm, Requirement
from kruleset.rules.scheduler.filters.nodeaffinity import named_nodes


def _scheduled(text: str, trace: bool = False) -> list[str | None]:
    result = kruleset.run(kruleset.load(text), trace=trace)
    return [d.node for d in result.decisions if d.kind == "scheduled"]


def _names_term(*names: str) -> NodeSelectorTerm:
    return NodeSelectorTerm(fields=tuple(Requirement("metadata.name", "In", (n,))
                                         for n in names))


def test_named_nodes_intersects_within_a_term_and_unions_terms() -> None:
    pod = Pod("default", "p", node_affinity=NodeAffinity(
        (_names_term("a"), _names_term("b"))))
    assert named_nodes(pod) == {"a", "b"}
    assert named_nodes(Pod("default", "p", node_affinity=NodeAffinity(
        (_names_term("a", "b"),)))) == frozenset()
    # A term without a name allows every node: no narrowing.
    anywhere = NodeSelectorTerm((Requirement("zone", "In", ("x",)),))
    assert named_nodes(Pod("default", "p", node_affinity=NodeAffinity(
        (_names_term("a"), anywhere)))) is None


def test_nodes_left_out_are_never_filtered() -> None:
    text = """
node n1 cpu=4 memory=8Gi
node n2 cpu=4 memory=8Gi
pod p requests(cpu=1) {
  affinity node required metadata.name in (n2)
}
"""
    result = kruleset.run(kruleset.load(text), trace=True)
    subjects = {e.subject for e in result.trace.entries if e.rule.startswith("scheduler.filter.")}
    assert subjects == {"default/p on n2"}


def _rotation_cluster() -> str:
    # 150 nodes: n31..n40 tainted, n111..n130 twice as big; pods 2 and 4 name
    # n31..n150 (120 nodes), so 100 of them are sampled from the start index
    # taken modulo 120, and the index then moves modulo 150.
    lines = []
    for i in range(1, 151):
        cpu = 16 if 111 <= i <= 130 else 8
        taint = " taints(x:NoSchedule)" if 31 <= i <= 40 else ""
        lines.append(f"node n{i} cpu={cpu} memory=8Gi{taint}")
    named = " | ".join(f"metadata.name in (n{i})" for i in range(31, 151))
    for k in range(1, 6):
        if k % 2:
            lines.append(f"pod p{k} requests(cpu=1)")
        else:
            lines.append(f"pod p{k} requests(cpu=1) {{\n  affinity node required {named}\n}}")
    return "\n".join(lines) + "\n"


def test_the_start_index_rotates_over_the_narrowed_nodes() -> None:
    # Also shows that the search records the nodes failing after the last one
    # needed, up to the next node that fits: pod 4's search ends on the last named
    # node, so n31..n40 are checked (and counted) before n41 ends it; pod 5 then
    # starts at n131 and never sees the big nodes.
    assert _scheduled(_rotation_cluster()) == ["n1", "n111", "n112", "n113", "n2"]
    assert _scheduled(_rotation_cluster(), trace=True) == ["n1", "n111", "n112", "n113", "n2"]
