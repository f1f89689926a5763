"""Making a disagreeing cluster small while its disagreement class stays.

Greedy deletion over the JSON tree: first whole nodes (with the pods bound to
them), incoming pods and existing pods, then any list element or mapping
entry, keeping a deletion whenever the predicate still holds.  Fields whose
deletion can only make the input invalid (names, kinds, keys of selectors)
are not tried.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["shrink"]

Path = tuple[Any, ...]

_KEEP = frozenset({"apiVersion", "kind", "metadata", "name", "namespace", "nodeName",
                   "topologyKey", "operator", "key", "maxSkew", "whenUnsatisfiable",
                   "containers", "podAffinityTerm", "preference", "weight", "effect",
                   "value", "uid", "controller", "spec", "status", "allocatable", "startTime",
                   "schedulerName", "profiles", "args", "type", "values", "pod", "incoming",
                   "nodes"})


def _get(obj: Any, path: Path) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _delete(case: dict[str, Any], path: Path) -> dict[str, Any]:
    out = copy.deepcopy(case)
    parent = _get(out, path[:-1])
    del parent[path[-1]]
    return out


def _paths(obj: Any, path: Path = ()) -> Iterator[Path]:
    """Deletable places, outer ones first, list elements from the end."""
    if isinstance(obj, dict):
        items = list(obj.items())
        for k, _ in items:
            if k not in _KEEP and path:
                yield path + (k,)
        for k, v in items:
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i in range(len(obj) - 1, -1, -1):
            yield path + (i,)
        for i, v in enumerate(obj):
            yield from _paths(v, path + (i,))


def _protected(case: dict[str, Any], path: Path) -> bool:
    """Deletions that only make the input invalid or empty."""
    if path[0] == "nodes" and len(path) == 2:
        return True  # whole nodes go with their pods, above
    if len(path) >= 2 and path[-2] in ("allocatable", "capacity"):
        return True
    parent = _get(case, path[:-1])
    return isinstance(parent, list) and len(parent) == 1 and (
        path[-2] in ("containers", "incoming", "profiles", "nodeSelectorTerms"))


def _without_node(case: dict[str, Any], name: str) -> dict[str, Any]:
    out = copy.deepcopy(case)
    out["nodes"] = [n for n in out["nodes"] if n["metadata"]["name"] != name]
    out["pods"] = [p for p in out.get("pods") or () if p["spec"].get("nodeName") != name]
    return out


def shrink(case: dict[str, Any], holds: Callable[[dict[str, Any]], bool], *,
           budget: int = 300) -> dict[str, Any]:
    """The smallest ``case`` found for which ``holds`` is still true (``budget`` tries)."""
    tries = 0
    # Whole nodes first: each takes its pods with it.
    for name in [n["metadata"]["name"] for n in case["nodes"]][::-1]:
        if tries >= budget or len(case["nodes"]) <= 1:
            break
        cand = _without_node(case, name)
        tries += 1
        if holds(cand):
            case = cand
    progress = True
    while progress and tries < budget:
        progress = False
        seen: set[Path] = set()
        while tries < budget:
            todo = [p for p in _paths(case) if p not in seen]
            if not todo:
                break
            path = todo[0]
            seen.add(path)
            if _protected(case, path):
                continue
            cand = _delete(case, path)
            if cand.get("incoming") == []:
                continue
            tries += 1
            if holds(cand):
                case = cand
                progress = True
                # Paths after a deleted list element shift: look again from the top.
                seen = {p for p in seen if p[:len(path) - 1] != path[:-1]}
    return case
