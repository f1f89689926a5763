"""One cluster through both schedulers: agreement, and the class of each disagreement.

Five disagreements were known when the differential suite was written
(issue "Fidelity"): 1 the TaintToleration wording, 2 the DynamicResources
PostFilter part of messages, 3 the node order (node tree), 4 NodeAffinity's
PreFilter narrowing by ``matchFields``, 5 ImageLocality scoring.  A
disagreement is attributed to one of them only when it goes away once that
point is taken out (the wording normalised, the nodes declared in node-tree
order, node images removed); everything else keeps the class
:func:`compare.classify` gives it, which the shrinker keeps constant.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import attrs

from .compare import Comparison, Mismatch, compare
from .kr_side import run_kruleset
from .oracle import run_oracle

__all__ = ["KNOWN", "Verdict", "check", "node_tree_order", "forgive_wording"]

KNOWN = {
    "1": "known 1: TaintToleration wording",
    "2": "known 2: DynamicResources PostFilter message",
    "3": "known 3: node order (node tree)",
    "4": "known 4: NodeAffinity PreFilter (matchFields)",
    "5": "known 5: ImageLocality score",
}

ZONE_LABELS = (("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"),
               ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"))


@attrs.define
class Verdict:
    """What one cluster gave: the comparison and the classes of its disagreements."""

    comparison: Comparison | None
    classes: list[str] = attrs.field(factory=list)
    error: str = ""

    @property
    def agrees(self) -> bool:
        """Every compared attempt agreed."""
        return self.comparison is not None and self.comparison.agrees and not self.error

    @property
    def unexplained(self) -> list[str]:
        """Classes not attributed to one of the five known points."""
        return [c for c in self.classes if not c.startswith("known ")]


def node_tree_order(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``nodes`` as the scheduler's node tree lists them (zones round-robin)."""
    zones: dict[str, list[dict[str, Any]]] = {}
    for n in nodes:
        labels = n["metadata"].get("labels") or {}
        parts = [next((labels[k] for k in keys if labels.get(k)), "") for keys in ZONE_LABELS]
        key = ":\x00:".join(parts) if any(parts) else ""
        zones.setdefault(key, []).append(n)
    out: list[dict[str, Any]] = []
    lists = list(zones.values())
    for i in range(max((len(z) for z in lists), default=0)):
        out.extend(z[i] for z in lists if i < len(z))
    return out


_TAINT = re.compile(r"\d+ node\(s\) had untolerated taint(?:\(s\)| \{[^}]*\})")
_DRA = re.compile(r"no new claims to deallocate(?:, |$)")


def forgive_wording(message: str) -> str:
    """``message`` without the parts known points 1 and 2 word differently."""
    text = _DRA.sub("", _TAINT.sub("", message))
    text = re.sub(r"(: |, )(, )+", r"\1", text)
    text = re.sub(r"(: |, )\.", ".", text)
    return text.replace(": , ", ": ").strip()


def _wording_class(m: Mismatch) -> list[str] | None:
    if m.field != "message" or forgive_wording(m.oracle) != forgive_wording(m.kruleset):
        return None
    out = []
    if _TAINT.search(m.oracle) or _TAINT.search(m.kruleset):
        out.append(KNOWN["1"])
    if _DRA.search(m.oracle):
        out.append(KNOWN["2"])
    return out or None


def _unexplained(c: Comparison) -> list[Mismatch]:
    out = []
    for m in c.mismatches:
        if _wording_class(m) is None and "didn't satisfy plugin(s) [NodeAffinity]" not in str(
                m.oracle):
            out.append(m)
    return out


def _run(binary: Path, case: dict[str, Any], scores: bool) -> Comparison:
    return compare(case, run_oracle(binary, case), run_kruleset(case), scores=scores)


def _has_match_fields(case: dict[str, Any]) -> bool:
    return "matchFields" in repr(case.get("incoming"))


def check(binary: Path, case: dict[str, Any], *, scores: bool = False,
          explain: bool = True) -> Verdict:
    """Run both on ``case``; with ``explain``, attribute disagreements to known points."""
    try:
        comp = _run(binary, case, scores)
    except Exception as err:  # a crash is a finding too, with its own class
        return Verdict(None, [f"error: {type(err).__name__}: {str(err)[:160]}"], str(err))
    if comp.agrees:
        return Verdict(comp)
    classes: list[str] = []
    for m in comp.mismatches:
        for c in _wording_class(m) or ():
            if c not in classes:
                classes.append(c)
        if "didn't satisfy plugin(s) [NodeAffinity]" in str(m.oracle) and KNOWN["4"] not in classes:
            classes.append(KNOWN["4"])
    rest = _unexplained(comp)
    if rest and explain:
        rest, extra = _counterfactuals(binary, case, scores, rest)
        classes.extend(c for c in extra if c not in classes)
    for m in rest:
        if m.cls not in classes:
            classes.append(m.cls)
    return Verdict(comp, classes)


def _counterfactuals(binary: Path, case: dict[str, Any], scores: bool,
                     rest: list[Mismatch]) -> tuple[list[Mismatch], list[str]]:
    """Take the known points out one at a time; those whose removal explains all is the class."""
    tries: list[tuple[list[str], dict[str, Any]]] = []
    ordered = node_tree_order(case["nodes"])
    if ordered != case["nodes"]:
        alt = dict(case, nodes=ordered)
        tries.append(([KNOWN["3"]], alt))
    if any(n.get("status", {}).get("images") for n in case["nodes"]):
        alt = copy.deepcopy(case)
        for n in alt["nodes"]:
            n["status"].pop("images", None)
        tries.append(([KNOWN["5"]], alt))
        if ordered != case["nodes"]:
            both = dict(alt, nodes=node_tree_order(alt["nodes"]))
            tries.append(([KNOWN["3"], KNOWN["5"]], both))
    if _has_match_fields(case):
        tries.append(([KNOWN["4"]], _match_fields_as_labels(case)))
    for names, alt in tries:
        try:
            comp = _run(binary, alt, scores)
        except Exception:
            continue
        if not _unexplained(comp):
            return [], names
    return rest, []


def _match_fields_as_labels(case: dict[str, Any]) -> dict[str, Any]:
    """``case`` with matchFields on metadata.name written as the hostname label.

    The same nodes pass, but NodeAffinity's PreFilter no longer narrows the
    node set (it does only for ``metadata.name``): what is left is point 4.
    """
    alt = copy.deepcopy(case)
    for pod in alt["incoming"]:
        na = ((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {})
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
        for term in req.get("nodeSelectorTerms") or ():
            fields = term.pop("matchFields", None)
            if fields:
                term.setdefault("matchExpressions", []).extend(
                    dict(f, key="kubernetes.io/hostname") for f in fields)
    return alt
