"""The words the language accepts where, for completion: asked of the parser itself.

Each list is the ``expected`` of the error the parser gives for a word it
does not know in that place (``pod x ZZ=1`` -> the pod attributes), so
completion offers what ``check`` would accept, and a statement or attribute
added to the language is offered without touching this module.
"""

from __future__ import annotations

import functools
import re

from ..model.config import SIGNALS  # eviction signals: eviction-hard(memory.available<100Mi)

__all__ = ["SIGNALS", "UNITS", "accepted", "attributes", "rule_names"]

_PROBE = "zzqqx"
_ITEM = re.compile(r"[a-z][a-z0-9.\-]*")

#: Quantity and duration suffixes.
UNITS = ("m", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "Pi", "ms", "s", "h", "%")

# The text that makes the parser list what is accepted at a place.
_PROBES = {
    "statement": _PROBE,
    "timeline": f"at 1s {_PROBE}",
    "create": f"at 1s create {_PROBE} x",
    "expect": f"node n\nexpect {_PROBE}",
    "pod": f"pod x {_PROBE}=1",
    "deployment": f"deployment x replicas=1 {_PROBE}=1",
    "priorityclass": f"priorityclass x value=1 {_PROBE}=1",
    "pdb": f"pdb x {_PROBE}=1",
    "quota": f"quota x {_PROBE}=1",
    "namespace": f"namespace x {_PROBE}=1",
    "runtimeclass": f"runtimeclass x {_PROBE}=1",
    "node": f"node x {_PROBE}=1",
    "kubelet": f"kubelet * {{\n  {_PROBE}=1\n}}",
    "block": f"pod x {{\n  {_PROBE}\n}}",
    "claim": f"claim x {_PROBE}=1",
}

# What the parser's list of node resources leaves out: the node's other attributes.
_NODE_EXTRA = ("imagefs", "containerfs", "inodes", "pid-max", "labels", "taints",
               "unschedulable", "reserved", "images", "containers")


@functools.cache
def accepted(place: str) -> tuple[str, ...]:
    """The words accepted at ``place`` (a key of the probes), in the parser's order."""
    from ..errors import ScenarioError
    from ..lang import parse_text

    probe = _PROBES.get(place)
    if probe is None:
        return ()
    try:
        parse_text(probe + "\n")
    except ScenarioError as e:
        listed = re.sub(r"\([^)]*\)", "", e.expected)
        words = [m.group(0) for part in re.split(r"[,\s|]+", listed)
                 if (m := _ITEM.match(part.strip("'"))) and m.group(0) != "or"
                 and not m.group(0).endswith("-")]
        if place == "node":
            words += _NODE_EXTRA
        return tuple(dict.fromkeys(words))
    return ()


def attributes(kind: str) -> tuple[str, ...]:
    """The attributes of a statement ``kind`` (pod, pods, node, nodes, deployment, …)."""
    kind = {"pods": "pod", "nodes": "node"}.get(kind, kind)
    return accepted(kind) if kind not in ("statement", "timeline", "create", "expect") else ()


@functools.cache
def rule_names() -> dict[str, tuple[str, str]]:
    """Every rule set's and rule's name: (doc, upstream source)."""
    from ..rules.registry import rulesets
    from ..rules.sources import user_source

    out: dict[str, tuple[str, str]] = {}
    for rs in rulesets():
        out.setdefault(rs.name, (getattr(rs, "doc", "") or "", ""))
        for r in rs.rules:
            out[r.name] = (r.doc, user_source(r.source))
    return out
