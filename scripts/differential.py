"""Differential testing at scale: kruleset against the real kube-scheduler v1.35.

    python scripts/differential.py --count 2000 --seed 1 [--group spread] [--jobs 2]
                                   [--out differential-out] [--no-scores] [--no-shrink]
    python scripts/differential.py --replay differential-out/3-spread-17/case.json
    python scripts/differential.py --timeline --count 2000 --seed 1 [--jobs 2] [--topology|--config]
    python scripts/differential.py --dra --count 2000 --seed 1 [--jobs 2] [--out dra-out]

Clusters ``seed``, ``seed + 1``, … are drawn over the feature groups in
turn (or from ``--group`` only), run through kruleset and through the oracle
(``../shared/oracle/bin/kr-oracle`` beside the repository, or
``$KRULESET_ORACLE``), and compared per incoming pod (see
``tests/differential/compare.py`` for what is compared and where the
comparison stops); each cluster also goes, as a timeline (one incoming
pod a second), through the timeline oracle, so that every incoming pod is
compared, also past the first one the one-cycle oracle leaves pending
(``tests/differential/cycle_timeline.py``); a cluster the timeline oracle
cannot run (ElasticQuotas), or where the two part (a kubelet refusal), has
each of kruleset's attempts compared with
the one-cycle oracle started from kruleset's state before it
(``tests/differential/resync.py``).  ``--no-over-time`` leaves both out.
Printed: agreement per feature group, word for word and with the five
known points of the fidelity issue forgiven, and every class of
disagreement with its count.  For each class the first cluster that
showed it is shrunk (nodes, pods and fields dropped while the class stays)
and written to ``--out``/``N-CLASS/``: ``case.json`` (the oracle's input),
kruleset's inputs (``cluster.json``, ``incoming-*.json``,
``scheduler.json``) and ``diff.txt``.  Exit status 0 when every compared pod
agreed, 1 otherwise, 2 when the oracle is absent.

``--timeline`` compares random timelines instead (the scheduling queue over
simulated time) with the timeline oracle
(``../shared/oracle-timeline/bin/kr-timeline-oracle`` or
``$KRULESET_TIMELINE_ORACLE``), every attempt of every pod and the final
placement (``tests/differential/timeline.py``); each disagreeing timeline's
case is written to ``--out``/``timeline-SEED.json``.
``--dra`` draws DRA clusters instead (``tests/differential/dra_generator.py``:
pools across nodes, network and all-nodes slices, All, firstAvailable,
constraints, the CEL libraries, runtime CEL errors, shared, pre-allocated and
admin-access claims, preemption meeting DRA) and compares each with
``tests/differential/dra_verdict.py``: agreement word for word (node or
message, victims, nomination, devices per claim), ties from upstream's
Go-map pool order recognised, comparisons parted by retry order counted
apart.  Each disagreeing cluster's ``case.json`` goes to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from differential.cycle_timeline import check_every_pod  # noqa: E402
from differential.dra_generator import generate_dra  # noqa: E402
from differential.dra_verdict import dra_check  # noqa: E402
from differential.generator import GROUPS, generate  # noqa: E402
from differential.kr_side import write_inputs  # noqa: E402
from differential.oracle import find_oracle  # noqa: E402
from differential.shrink import shrink  # noqa: E402
from differential.timeline import check_timeline, find_timeline_oracle  # noqa: E402
from differential.timeline_generator import generate_timeline  # noqa: E402
from differential.timeline_topology import generate_topology_timeline  # noqa: E402
from differential.verdict import Verdict, check  # noqa: E402

ALL_GROUPS = [*GROUPS, "mixed"]


def _one(job: tuple[str, str, int, bool, str]) -> dict[str, Any]:
    binary, group, seed, scores, timeline = job
    v = check(Path(binary), generate(seed, group), scores=scores)
    comp = v.comparison
    bad = {m.instant for m in comp.mismatches} if comp else set()
    out = {"group": group, "seed": seed, "classes": v.classes,
           "unexplained": v.unexplained,
           "instants": comp.instants if comp else 0,
           "agreeing": comp.agreeing if comp else 0,
           "forgiven": (comp.instants - (len(bad) if v.unexplained else 0)) if comp else 0,
           "parted": comp.parted if comp else None}
    if timeline:
        out["timeline"] = _over_time(Path(timeline), Path(binary), generate(seed, group))
    return out


def _over_time(timeline: Path, binary: Path, case: dict[str, Any]) -> dict[str, Any]:
    """Every incoming pod compared (``cycle_timeline.check_every_pod``)."""
    try:
        r = check_every_pod(timeline, binary, case)
    except RuntimeError as err:  # an oracle failure is a finding, not the run's end
        return {"incoming": len(case.get("incoming") or ()), "compared": 0, "agreeing": 0,
                "unsupported": "", "stopped": "", "ties": 0, "offsets": 0, "varied": False,
                "mismatches": [f"error: {str(err)[:300]}"], "resynced": 0, "warmed": 0,
                "restarted": 0}
    o = r.outcome
    return {"incoming": r.incoming, "compared": r.compared, "agreeing": r.agreeing,
            "unsupported": r.unsupported, "stopped": r.stopped,
            "ties": o.ties_followed if o else 0, "offsets": o.offsets_followed if o else 0,
            "varied": bool(o and o.varied),
            "mismatches": r.mismatches, "resynced": r.resynced, "warmed": r.warmed,
            "restarted": r.restarted}


def _report_over_time(results: list[dict[str, Any]], out: Path) -> bool:
    """Print the timeline comparison's figures; True when every compared pod agreed."""
    rows = [r["timeline"] for r in results if "timeline" in r]
    if not rows:
        return True
    incoming = sum(t["incoming"] for t in rows)
    compared = sum(t["compared"] for t in rows)
    agreeing = sum(t["agreeing"] for t in rows)
    unsupported = Counter(t["unsupported"] for t in rows if t["unsupported"])
    print(f"\nevery incoming pod: {incoming} incoming pods, {compared} compared, "
          f"{agreeing} agree on every attempt (and, over time, placement); "
          f"score ties followed: {sum(t['ties'] for t in rows)}; preemption dry runs started "
          f"elsewhere: {sum(t['offsets'] for t in rows)}; oracle race matched: "
          f"{sum(t['varied'] for t in rows)}")
    for why, n in unsupported.most_common():
        pods = sum(t["incoming"] for t in rows if t["unsupported"] == why)
        attempts = sum(t["resynced"] for t in rows if t["unsupported"] == why)
        print(f"  not run by the timeline oracle: {n} clusters ({pods} incoming pods): {why}; "
              f"their {attempts} attempts compared one by one from kruleset's state")
    stopped = Counter(re.sub(r"\S+/\S+ at \d+ ms", "a pod", t["stopped"])
                      for t in rows if t["stopped"])
    for why, n in stopped.most_common():
        print(f"  over time stopped in {n} clusters, then every attempt compared from "
              f"kruleset's state: {why}")
    warmed, restarted = sum(t["warmed"] for t in rows), sum(t["restarted"] for t in rows)
    if warmed or restarted:
        print(f"  of the attempts compared from kruleset's state, {warmed} began their node "
              f"search past node 0 and the oracle's was moved there first; {restarted} did "
              "with NodeAffinity disabled, and were compared taken again from node 0 "
              "(tests/differential/resync.py)")
    bad = [r for r in results if r.get("timeline", {}).get("mismatches")]
    if bad:
        out.mkdir(parents=True, exist_ok=True)
    for r in bad:
        print(f"\n--group {r['group']} seed {r['seed']} over time:\n  "
              + "\n  ".join(r["timeline"]["mismatches"][:5]))
        path = out / f"over-time-{r['group']}-{r['seed']}.json"
        path.write_text(json.dumps(generate(r["seed"], r["group"]), indent=1) + "\n")
    return not bad and compared == incoming


def _timeline_case(seed: int, kind: str) -> dict[str, Any]:
    if kind == "topology":
        return generate_topology_timeline(seed)
    return generate_timeline(seed, config=kind == "config")


def _one_timeline(job: tuple[str, int, str]) -> dict[str, Any]:
    binary, seed, kind = job
    out = check_timeline(Path(binary), _timeline_case(seed, kind))
    return {"seed": seed, "pods": out.pods, "agreeing": out.agreeing, "attempts": out.attempts,
            "tie": out.tie, "varied": out.varied, "mismatches": out.mismatches,
            "ties": out.ties_followed, "offsets": out.offsets_followed}


def timelines(args: argparse.Namespace) -> int:
    """``--timeline``: random timelines against the timeline oracle."""
    binary, why = find_timeline_oracle()
    if binary is None:
        print(f"skipped: {why}", file=sys.stderr)
        return 2
    kind = "topology" if args.topology else "config" if args.config else "plain"
    jobs = [(str(binary), args.seed + i, kind) for i in range(args.count)]
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(_one_timeline, jobs, chunksize=4))
    took = time.perf_counter() - began
    agree = sum(1 for r in results if not r["mismatches"])
    pods = sum(r["pods"] for r in results)
    pods_ok = sum(r["agreeing"] for r in results)
    print(f"{len(results)} timelines in {took:.0f} s: {agree} agree entirely "
          f"({100 * agree / max(1, len(results)):.1f}%); pods {pods_ok}/{pods} agree on "
          f"every attempt and placement; {sum(r['attempts'] for r in results)} oracle "
          f"attempts compared; score ties followed: {sum(r['ties'] for r in results)}; "
          f"preemption dry runs started elsewhere: {sum(r['offsets'] for r in results)}; "
          f"stopped at a score tie: {sum(r['tie'] for r in results)}; "
          f"oracle outcome varied between runs: {sum(r['varied'] for r in results)}")
    bad = [r for r in results if r["mismatches"]]
    if bad:
        args.out.mkdir(parents=True, exist_ok=True)
        for r in bad:
            print(f"\nseed {r['seed']}:\n  " + "\n  ".join(r["mismatches"][:5]))
            path = args.out / f"timeline-{r['seed']}.json"
            path.write_text(json.dumps(_timeline_case(r["seed"], kind), indent=1)
                            + "\n")
    return 0 if not bad else 1
def _dra_one(job: tuple[str, int]) -> dict[str, Any]:
    binary, seed = job
    v = dra_check(Path(binary), generate_dra(seed))
    return {"seed": seed, "outcome": v.outcome, "classes": v.classes, "pods": v.pods,
            "agreeing": v.agreeing, "details": v.details}


def dra_main(args: argparse.Namespace, binary: Path) -> int:
    """``--dra``: random DRA clusters against the oracle; 0 when none disagreed or crashed."""
    began = time.perf_counter()
    jobs = [(str(binary), args.seed + i) for i in range(args.count)]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(_dra_one, jobs, chunksize=4))
    took = time.perf_counter() - began
    outcomes = Counter(r["outcome"] for r in results)
    pods = sum(r["pods"] for r in results)
    agreeing = sum(r["pods"] for r in results if r["outcome"] == "agree")
    print(f"{len(results)} DRA clusters (seeds {args.seed}..{args.seed + args.count - 1}) "
          f"in {took:.0f} s")
    for name in ("agree", "tie", "parted", "disagree", "crash"):
        print(f"  {name:<9} {outcomes[name]:>6}")
    print(f"pods in agreeing clusters: {agreeing} of {pods}")
    classes: Counter[str] = Counter()
    first: dict[str, int] = {}
    for r in results:
        for c in r["classes"]:
            classes[c] += 1
            first.setdefault(c, r["seed"])
    if classes:
        print("\nclasses (clusters showing each):")
        for c, n in classes.most_common():
            print(f"  {n:>5}  {c[:150]}   (first: seed {first[c]})")
    bad = [r for r in results if r["outcome"] in ("disagree", "crash")]
    for r in bad:
        folder = args.out / f"dra-{r['seed']}"
        write_reproducer(folder, generate_dra(r["seed"]), "\n".join(r["details"]) + "\n")
    if bad:
        print(f"\nreproducers: {args.out}/dra-SEED/")
    return 1 if bad else 0


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:60]


def _describe(binary: Path, case: dict[str, Any], scores: bool) -> str:
    v = check(binary, case, scores=scores)
    lines = [f"classes: {v.classes}"]
    if v.error:
        lines.append(f"error: {v.error}")
    if v.comparison is not None:
        lines += [m.describe() for m in v.comparison.mismatches]
        if v.comparison.parted:
            lines.append(f"compared up to instant {v.comparison.parted[0]}: "
                         f"{v.comparison.parted[1]}")
    return "\n".join(lines) + "\n"


def write_reproducer(folder: Path, case: dict[str, Any], text: str) -> None:
    """The oracle's input, kruleset's inputs and the differences, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    write_inputs(case, folder)
    (folder / "diff.txt").write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", choices=ALL_GROUPS, action="append")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("differential-out"))
    ap.add_argument("--no-scores", dest="scores", action="store_false",
                    help="leave per-node total scores out of the comparison")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--shrink-budget", type=int, default=250)
    ap.add_argument("--replay", type=Path, help="compare one case.json and print the differences")
    ap.add_argument("--timeline", action="store_true",
                    help="random timelines against the timeline oracle (the scheduling queue)")
    ap.add_argument("--dra", action="store_true", help="random DRA clusters (see above)")
    ap.add_argument("--no-over-time", dest="over_time", action="store_false",
                    help="compare only against the one-cycle oracle (not also every "
                         "incoming pod against the timeline oracle)")
    ap.add_argument("--topology", action="store_true",
                    help="with --timeline: pods with spread constraints and pod (anti-)affinity")
    ap.add_argument("--config", action="store_true",
                    help="with --timeline: each timeline with a random scheduler configuration "
                         "(backoff seconds, DefaultPreemption's candidate counts)")
    args = ap.parse_args(argv)
    if args.timeline:
        return timelines(args)
    binary, why = find_oracle()
    if binary is None:
        print(f"skipped: {why}", file=sys.stderr)
        return 2
    if args.replay:
        print(_describe(binary, json.loads(args.replay.read_text()), args.scores), end="")
        return 0
    if args.dra:
        return dra_main(args, binary)
    groups = args.group or ALL_GROUPS
    timeline = ""
    if args.over_time:
        found, why = find_timeline_oracle()
        if found is None:
            print(f"over time: skipped: {why}", file=sys.stderr)
        timeline = str(found or "")
    jobs = [(str(binary), groups[i % len(groups)], args.seed + i, args.scores, timeline)
            for i in range(args.count)]
    began = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(_one, jobs, chunksize=4):
            results.append(r)
    took = time.perf_counter() - began
    per: dict[str, Counter[str]] = defaultdict(Counter)
    classes: Counter[str] = Counter()
    first: dict[str, tuple[str, int]] = {}
    for r in results:
        c = per[r["group"]]
        c["clusters"] += 1
        c["pods"] += r["instants"]
        c["agree"] += r["agreeing"]
        c["forgiven"] += r["forgiven"]
        c["parted"] += r["parted"] is not None
        for cls in r["classes"]:
            classes[cls] += 1
            first.setdefault(cls, (r["group"], r["seed"]))
    print(f"{len(results)} clusters in {took:.0f} s\n")
    print(f"{'group':<14} {'clusters':>8} {'pods':>6} {'agree':>7} {'%':>6} "
          f"{'known-forgiven %':>16} {'parted':>6}")
    total: Counter[str] = Counter()
    for g in [*groups, "all"]:
        c = total if g == "all" else per[g]
        if g != "all":
            total.update(c)
        pods = c["pods"] or 1
        print(f"{g:<14} {c['clusters']:>8} {c['pods']:>6} {c['agree']:>7} "
              f"{100 * c['agree'] / pods:>6.1f} {100 * c['forgiven'] / pods:>16.1f} "
              f"{c['parted']:>6}")
    if classes:
        print("\nclasses of disagreement (clusters showing each):")
        for cls, n in classes.most_common():
            g, s = first[cls]
            print(f"  {n:>5}  {cls}   (first: --group {g} seed {s})")
    if classes and not args.no_shrink:
        args.out.mkdir(parents=True, exist_ok=True)
        for i, (cls, _) in enumerate(classes.most_common(), 1):
            g, s = first[cls]
            case = generate(s, g)
            # The shrunk case must show this class and no class the original
            # did not show: other disagreements a deletion may create are
            # not this one.
            allowed = set(check(binary, case, scores=args.scores).classes)

            def holds(c: dict[str, Any], cls: str = cls, allowed: set[str] = allowed) -> bool:
                v: Verdict = check(binary, c, scores=args.scores)
                return cls in v.classes and set(v.classes) <= allowed

            small = shrink(case, holds, budget=args.shrink_budget)
            folder = args.out / f"{i}-{_slug(cls)}"
            write_reproducer(folder, small, f"group {g}, seed {s}\n"
                             + _describe(binary, small, args.scores))
            print(f"reproducer: {folder}")
    over_time_ok = _report_over_time(results, args.out)
    return 0 if not classes and over_time_ok else 1


if __name__ == "__main__":
    sys.exit(main())
