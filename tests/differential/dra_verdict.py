"""One DRA cluster through both schedulers, with Go-map pool-order ties recognised.

kruleset visits a node's pools in the order their first slice was declared;
upstream in Go map order, which changes from run to run.  Where that order
decides which device a claim gets (or which selector is evaluated first, and
so whether a CEL runtime error is met), the oracle's answers differ between
runs.  A cluster on which kruleset disagrees with the oracle is therefore run
through the oracle again (``reruns`` times): kruleset agrees if it matches
one of the oracle's answers.  Otherwise the cluster is a *tie* (recognised,
not counted as agreement or disagreement) when kruleset visiting the pools in
the reverse of declaration order gives one of the oracle's answers, or when
the oracle's answers vary; else it is a disagreement.

The oracle stops at a scheduling error of a cycle (an allocator error in
Filter): its whole answer is then that error, and kruleset agrees when one of
its attempts ended with the same message.  When the error was met in a retry
after a preemption and kruleset's queue retried the pods in another order
(see :mod:`.compare` on retries), the cluster is *parted*: the instants
before it agree, the rest is not compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from kruleset.rules.dra.state import DraState

from .compare import Comparison, compare
from .kr_side import Attempt, run_kruleset
from .oracle import run_oracle

__all__ = ["DraVerdict", "dra_check"]

_ERROR = "the oracle failed (exit 1): kr-oracle: "


@attrs.define
class DraVerdict:
    """What one DRA cluster gave."""

    outcome: str                    # agree | tie | parted | disagree | crash
    classes: list[str] = attrs.field(factory=list)
    details: list[str] = attrs.field(factory=list)
    pods: int = 0                   # incoming pods compared
    agreeing: int = 0               # of which agreed
    oracle_runs: int = 1


def _oracle(binary: Path, case: dict[str, Any]) -> list[dict[str, Any]] | str:
    try:
        return run_oracle(binary, case)
    except RuntimeError as exc:
        text = str(exc)
        if text.startswith(_ERROR):
            return text[len(_ERROR):].strip()
        raise


def _judge(case: dict[str, Any], oracle: list[dict[str, Any]] | str,
           kr: list[Attempt]) -> tuple[bool, Comparison | None, list[str]]:
    if isinstance(oracle, str):
        ok = any(a.message == oracle for a in kr)
        return ok, None, [] if ok else [f"oracle error not met: {oracle}"]
    comp = compare(case, oracle, kr)
    return comp.agrees, comp, [m.describe() for m in comp.mismatches]


def _error_parted(binary: Path, case: dict[str, Any], error: str,
                  kr: list[Attempt]) -> str | None:
    """Where an oracle error kruleset did not meet comes from, when that is a retry.

    The oracle's run stops at the error, so the instants before it are run
    again without it (they must agree).  An error met in a retry after a
    preemption (the oracle retries pending pods in priority order; kruleset's
    queue may try them in another order and not reach the same state) parts
    the comparison there, as :func:`compare` parts it.  None: a disagreement.
    """
    incoming = case.get("incoming") or []
    for k in range(len(incoming)):
        upto = dict(case, incoming=incoming[:k + 1])
        got = _oracle(binary, upto)
        if not isinstance(got, str):
            continue
        before = _oracle(binary, dict(case, incoming=incoming[:k])) if k else []
        if isinstance(before, str):
            return None
        comp = compare(dict(case, incoming=incoming[:k]), before,
                       [a for a in kr if a.instant < k])
        if not comp.agrees:
            return None
        if comp.parted is not None:
            return f"instant {comp.parted[0]}: {comp.parted[1]}"
        first = next((a for a in kr if a.instant == k and a.pod.endswith(
            "/" + incoming[k]["metadata"]["name"])), None)
        if first is not None and first.message == got:
            return None  # met at once: not a retry (and then _judge agreed)
        alone = _oracle(binary, dict(upto, noRetry=True))
        return None if isinstance(alone, str) else f"instant {k}: {got} (in a retry)"
    return None


def _other_pool_order_agrees(case: dict[str, Any],
                             answers: list[list[dict[str, Any]] | str]) -> bool:
    """Whether kruleset visiting pools in the reverse order gives one of the oracle's answers."""
    DraState.reverse_pools = True
    try:
        kr = run_kruleset(case)
    except Exception:  # noqa: BLE001 - a crash is found by the main run
        return False
    finally:
        DraState.reverse_pools = False
    return any(_judge(case, a, kr)[0] for a in answers)


_DEALLOCATED = "deallocation of ResourceClaim completed"


def _oracle_model_ends(case: dict[str, Any], oracle: list[dict[str, Any]] | str,
                       kr: list[Attempt]) -> str | None:
    """Where the oracle's model of the cluster stops, if everything before agrees.

    Two points: the oracle runs no resource-claim controller, so a preempted
    pod's claims stay allocated and reserved (its README's limits) while
    kruleset's controller frees them; and a claim the DynamicResources
    PostFilter deallocated reaches the oracle's later cycles whenever its
    informer delivers the update (its answers vary from run to run), while
    kruleset's next cycle sees it.  From the instant either happens the two
    clusters may differ, so the comparison parts there (the instant's first
    attempt still compared).
    """
    if isinstance(oracle, str):
        return None
    incoming = case.get("incoming") or []
    holders = {f"default/{p['metadata']['name']}" for p in incoming
               if p["spec"].get("resourceClaims")}
    for k, entry in enumerate(oracle):
        attempts = [entry, *(entry.get("retries") or ())]
        why = ""
        if any(holders & set(a.get("victims") or ()) for a in attempts):
            why = "the oracle keeps a victim's claims"
        elif any(_DEALLOCATED in (a.get("message") or "") for a in attempts):
            why = "a claim was deallocated (the oracle sees it when its informer does)"
        if not why:
            continue
        first = {key: value for key, value in entry.items() if key != "retries"}
        mine = [a for a in kr if a.instant < k]
        own = next((a for a in kr if a.instant == k and a.pod == entry["pod"]), None)
        if own is not None:
            mine.append(own)
        comp = compare(dict(case, incoming=incoming[:k + 1]), [*oracle[:k], first], mine)
        return f"instant {k}: {why}" if comp.agrees else None
    return None


def dra_check(binary: Path, case: dict[str, Any], reruns: int = 5) -> DraVerdict:
    """Compare kruleset with the oracle on ``case`` (see the module doc)."""
    try:
        kr = run_kruleset(case)
    except Exception as err:  # a crash is a finding, with its own class
        return DraVerdict("crash", [f"crash: {type(err).__name__}: {str(err)[:160]}"])
    pods = len(case.get("incoming") or ())
    first = _oracle(binary, case)
    ok, comp, details = _judge(case, first, kr)
    if ok:
        return DraVerdict("agree", pods=pods, agreeing=pods)
    answers = {json.dumps(first, sort_keys=True)}
    for i in range(reruns):
        again = _oracle(binary, case)
        answers.add(json.dumps(again, sort_keys=True))
        if _judge(case, again, kr)[0]:
            return DraVerdict("agree", pods=pods, agreeing=pods, oracle_runs=i + 2)
    if _other_pool_order_agrees(case, [json.loads(a) for a in answers]):
        return DraVerdict("tie", ["tie: Go map pool order (kruleset in the other order "
                                  "agrees)"], details, pods=pods, oracle_runs=reruns + 1)
    if len(answers) > 1:
        return DraVerdict("tie", ["tie: the oracle's answers vary (Go map pool order, "
                                  "informer timing)"], details, pods=pods,
                          oracle_runs=reruns + 1)
    kept = _oracle_model_ends(case, first, kr)
    if kept is not None:
        return DraVerdict("parted", [f"parted: {kept}"], [kept], pods=pods,
                          oracle_runs=reruns + 1)
    if isinstance(first, str):
        where = _error_parted(binary, case, first, kr)
        if where is not None:
            return DraVerdict("parted", [f"parted: retry order ({where[:80]})"], [where],
                              pods=pods, oracle_runs=reruns + 1)
    if comp is None:
        return DraVerdict("disagree", [details[0][:200]], details, pods=pods,
                          oracle_runs=reruns + 1)
    classes = sorted({m.cls for m in comp.mismatches})
    return DraVerdict("disagree", classes, details, pods=pods, agreeing=comp.agreeing,
                      oracle_runs=reruns + 1)
