"""Node selector terms as Kubernetes files write them (pods' node affinity, DRA slices)."""

from __future__ import annotations

from ..model.selectors import NodeSelectorTerm, Requirement
from ._fields import Doc, choice, mapping, seq, string, string_list

__all__ = ["node_term"]

_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _node_requirements(doc: Doc, raw: object, field: str,
                       fields: bool = False) -> tuple[Requirement, ...]:
    out = []
    for i, expr in enumerate(seq(doc, raw, field)):
        ef = f"{field}[{i}]"
        e = mapping(doc, expr, ef)
        key = string(doc, e.get("key"), f"{ef}.key")
        if not key:
            doc.fail(f"{ef}.key", "a requirement needs a key")
        if fields and key != "metadata.name":
            doc.fail(f"{ef}.key", f"'{key}' is not a supported field; matchFields supports "
                                  "only metadata.name")
        op = choice(doc, e.get("operator"), f"{ef}.operator", _NODE_OPERATORS, "")
        values = string_list(doc, e.get("values"), f"{ef}.values")
        if op in ("In", "NotIn") and not values:
            doc.fail(f"{ef}.values", f"operator {op} needs at least one value")
        if op in ("Exists", "DoesNotExist") and values:
            doc.fail(f"{ef}.values", f"operator {op} takes no values")
        if op in ("Gt", "Lt"):
            if len(values) != 1:
                doc.fail(f"{ef}.values", f"operator {op} takes exactly one value")
            try:
                int(values[0], 10)
            except ValueError:
                doc.fail(f"{ef}.values[0]", f"'{values[0]}' is not an integer")
        if fields and op not in ("In", "NotIn"):
            doc.fail(f"{ef}.operator", "matchFields supports only In and NotIn")
        out.append(Requirement(key, op, values))
    return tuple(out)


def node_term(doc: Doc, raw: object, field: str) -> NodeSelectorTerm:
    """A ``nodeSelectorTerms`` entry at ``field`` (pods' node affinity, DRA's node selectors)."""
    t = mapping(doc, raw, field)
    return NodeSelectorTerm(
        _node_requirements(doc, t.get("matchExpressions"), f"{field}.matchExpressions"),
        _node_requirements(doc, t.get("matchFields"), f"{field}.matchFields", fields=True),
    )
