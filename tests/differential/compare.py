"""Lining kruleset's scheduling attempts up with the oracle's, and naming disagreements.

The oracle has no scheduling queue (its README's limits): an incoming pod is
tried once when it arrives, and pending pods are retried only after a
preemption, in queue order, until nothing changes.  kruleset retries pending
pods whenever the cluster changes (a pod is created, a victim goes, another
pod binds for affinity and spread failures).  So the attempts are compared
instant by instant (an instant is one incoming pod's arrival):

* the incoming pod's first attempt is always compared;
* each oracle retry is compared with kruleset's next attempt of that pod in
  the same instant;
* an attempt only one side makes is skipped when it changes nothing (the pod
  stays pending, unnominated, with no victims);  when it changes the cluster
  (a bind, a nomination, victims), the two states have parted and nothing
  after it is compared (``Comparison.parted`` says where and why);  on a
  cluster of more than 100 nodes every attempt changes the scheduler's state:
  it moves the start index (``nextStartNodeIndex``), which decides the nodes
  later pods sample under percentageOfNodesToScore, so there an attempt only
  one side makes parts the states too;
* after a pod the kubelet refused (kruleset admits what is bound; a profile
  may disable a filter the kubelet checks), the oracle has no kubelet: later
  instants are not compared;
* after an instant whose attempts disagreed on where a pod went (result,
  node, nomination, victims), the clusters differ: later instants are not
  compared;
* after a preemption that deleted a pod a PDB covers, the oracle keeps the
  PDB's status as given (it runs no disruption controller) while kruleset
  recomputes it: later instants are not compared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from .kr_side import Attempt

# kube-scheduler's minFeasibleNodesToFind: below it every node is searched.
MIN_FEASIBLE_NODES = 100

__all__ = ["Comparison", "Mismatch", "compare", "FIELDS"]

_STATE_FIELDS = ("result", "node", "nominated", "victims", "allocations")
FIELDS = ("result", "node", "feasible", "scores", "message", "nominated", "victims",
          "allocations")


@attrs.define
class Mismatch:
    """One field on which one attempt disagrees."""

    instant: int
    pod: str
    field: str
    oracle: Any
    kruleset: Any
    cls: str

    def describe(self) -> str:
        """A line for a report."""
        return (f"[{self.cls}] instant {self.instant} {self.pod} {self.field}:\n"
                f"    oracle:   {self.oracle!r}\n    kruleset: {self.kruleset!r}")


@attrs.define
class Comparison:
    """The outcome for one cluster."""

    instants: int                           # incoming pods compared (up to ``parted``)
    agreeing: int                           # of which agreed on every attempt
    mismatches: list[Mismatch] = attrs.field(factory=list)
    parted: tuple[int, str] | None = None   # (instant, why) where comparison stopped

    @property
    def agrees(self) -> bool:
        """No compared attempt disagreed."""
        return not self.mismatches

    def classes(self) -> set[str]:
        """The disagreement classes found."""
        return {m.cls for m in self.mismatches}


def _oracle_attempt(entry: dict[str, Any], instant: int) -> dict[str, Any]:
    return {
        "instant": instant, "pod": entry["pod"], "result": entry["result"],
        "node": entry.get("node") or "", "feasible": sorted(entry.get("feasible") or ()),
        "scores": dict(entry.get("scores") or {}), "message": entry.get("message") or "",
        "nominated": entry.get("nominated") or "", "victims": sorted(entry.get("victims") or ()),
        "allocations": {a["claim"]: sorted(a["devices"]) for a in entry.get("allocations") or ()},
    }


def _changes(o: dict[str, Any]) -> bool:
    return o["result"] == "scheduled" or bool(o["nominated"]) or bool(o["victims"])


def compare(case: dict[str, Any], oracle: list[dict[str, Any]], kr: list[Attempt], *,
            scores: bool = False) -> Comparison:
    """Compare per incoming pod; ``scores`` compares per-node total scores too."""
    incoming = case.get("incoming") or []
    pdb_pods = _pdb_covered(case)
    by_instant: dict[int, list[Attempt]] = {}
    for a in kr:
        by_instant.setdefault(a.instant, []).append(a)
    fields = FIELDS if scores else tuple(f for f in FIELDS if f != "scores")
    out = Comparison(0, 0)
    # Past 100 nodes a search may stop before the last node, so the start index
    # an attempt leaves behind decides what later pods see (see the module doc).
    sampling = len(case.get("nodes") or ()) > MIN_FEASIBLE_NODES

    def changes(a: Attempt) -> bool:
        return a.changed or sampling

    for i, entry in enumerate(oracle):
        key = _key(incoming[i])
        wanted = [_oracle_attempt(entry, i)] + [_oracle_attempt(r, i)
                                                for r in entry.get("retries") or ()]
        ks = list(by_instant.get(i, ()))
        before = len(out.mismatches)
        parted = None
        # The incoming pod's own first attempt; attempts of other pods before it.
        first = next((j for j, a in enumerate(ks) if a.pod == key), None)
        if first is None:
            parted = "kruleset did not try the incoming pod"
        else:
            extra = [a for a in ks[:first] if changes(a)]
            if extra:
                parted = f"kruleset retried {extra[0].pod} first and it changed the cluster"
            ks = ks[first:]
        if parted is None:
            for w in wanted:
                j = next((j for j, a in enumerate(ks) if a.pod == w["pod"]), None)
                if j is None:
                    if _changes(w) or sampling:
                        parted = f"only the oracle retried {w['pod']}, which changed the cluster"
                        break
                    continue
                skipped = [a for a in ks[:j] if changes(a)]
                if skipped:
                    parted = f"only kruleset retried {skipped[0].pod}, which changed the cluster"
                    break
                got = ks[j]
                ks = ks[j + 1:]
                for f in fields:
                    theirs, ours = w[f], _field(got, f)
                    if theirs != ours:
                        out.mismatches.append(Mismatch(i, w["pod"], f, theirs, ours,
                                                       classify(f, theirs, ours)))
            else:
                rest = [a for a in ks if changes(a)]
                if rest:
                    parted = f"only kruleset retried {rest[0].pod}, which changed the cluster"
        out.instants += 1
        if len(out.mismatches) == before and parted is None:
            out.agreeing += 1
        if parted is not None:
            out.parted = (i, parted)
            if len(out.mismatches) == before:
                out.instants -= 1
            break
        refused = next((a.pod for a in by_instant.get(i, ()) if a.rejected), None)
        if refused is not None:
            if i + 1 < len(oracle):
                out.parted = (i + 1, f"the kubelet refused {refused} (the profile disabled a "
                                     "filter its admission checks); the oracle runs no kubelet")
            break
        if any(m.field in _STATE_FIELDS for m in out.mismatches[before:]):
            if i + 1 < len(oracle):
                out.parted = (i + 1, "the two disagreed on where a pod went, so their "
                                     "clusters differ from here")
            break
        gone = [v for w in wanted for v in w["victims"] if v in pdb_pods]
        if gone and i + 1 < len(oracle):
            out.parted = (i + 1, f"victim {gone[0]} was covered by a PDB whose status the "
                                 "oracle does not update")
            break
    return out


def _field(a: Attempt, f: str) -> Any:
    v = getattr(a, f)
    if f in ("feasible", "victims"):
        return sorted(v)
    if f == "result" and v == "gated":
        return "unschedulable"
    return v


def _key(pod: dict[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def _pdb_covered(case: dict[str, Any]) -> set[str]:
    """Existing pods some PDB selects (matchLabels only: what the generator writes)."""
    covered = set()
    for pdb in case.get("pdbs") or ():
        ns = pdb["metadata"].get("namespace") or "default"
        sel = (pdb.get("spec") or {}).get("selector") or {}
        labels = sel.get("matchLabels") or {}
        for pod in list(case.get("pods") or ()) + list(case.get("incoming") or ()):
            meta = pod["metadata"]
            if (meta.get("namespace") or "default") == ns and sel and all(
                    (meta.get("labels") or {}).get(k) == v for k, v in labels.items()):
                covered.add(_key(pod))
    return covered


_NUM = re.compile(r"\b\d+\b")
_NAMES = re.compile(r"\b(node|pod|on node|preemptor pod|Pod) [\w./-]+")


def _phrases(message: str) -> set[str]:
    """A message's reasons, numbers and names taken out."""
    text = _NAMES.sub(r"\1 X", _NUM.sub("N", message))
    return {p.strip(" .") for p in re.split(r"[,.](?: |$)|: ", text) if p.strip(" .")}


def classify(field: str, oracle: Any, kruleset: Any) -> str:
    """A short name for the kind of disagreement (used to group reproducers)."""
    if field == "message" and isinstance(oracle, str) and isinstance(kruleset, str):
        ours, theirs = _phrases(kruleset), _phrases(oracle)
        only_o = sorted(theirs - ours)
        only_k = sorted(ours - theirs)
        if not only_o and not only_k:
            return "message: same reasons, different counts or order"
        return "message: oracle+" + "|".join(only_o)[:120] + " kruleset+" + "|".join(only_k)[:120]
    if field in ("feasible", "victims") and isinstance(oracle, list):
        return f"{field}: " + _sizes(oracle, kruleset)
    if field == "scores":
        return "scores: " + ("different nodes" if set(oracle) != set(kruleset)
                             else "different totals")
    if field == "result":
        return f"result: oracle {oracle}, kruleset {kruleset}"
    return f"{field}: differs" + ("" if oracle and kruleset else
                                  " (oracle empty)" if not oracle else " (kruleset empty)")


def _sizes(a: Iterable[Any], b: Iterable[Any]) -> str:
    a, b = set(a), set(b)
    if a < b:
        return "kruleset has more"
    if b < a:
        return "oracle has more"
    return "different"
