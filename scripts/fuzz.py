"""Fuzz kruleset's input: any number of generated and mutated inputs, each loaded and run.

    python scripts/fuzz.py --count 100000 [--seed 1] [--jobs 2] [--timeout 20]

Inputs are, in turn: the project's own inputs mutated (``.kr``, YAML, JSON;
tests/fuzzing.py), random valid scenarios (whose runs must keep the
invariants: no preemption of an equal or higher priority, allocatable never
exceeded, quota max respected), hostile inputs (tests/fuzzing_hostile.py:
null list items and wrong types in every kind kruleset reads, through
``include``, ``config`` and ``apply``/``delete``; duplicate objects and keys;
alias bombs; ``--profile`` files; ``sweep --set``/``--seeds`` values; over-long
tokens; unwritable ``-o`` files) and texts derived from the Lark grammar.  An
input fails when it raises anything but a clear refusal, takes longer than
``--timeout`` seconds of CPU time or more than ``--memory`` MiB.  CPU time,
not wall-clock time: on a shared machine (and under ``nice``) a normal input
can wait longer than the limit without doing any work.  Failing inputs are
written to ``--out`` (default ``fuzz-failures/``); the exit status is 1 when
any failed.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import signal
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzzing import check_input, corpus, grammar_strategy, mutate, random_scenario  # noqa: E402
from fuzzing_hostile import check_case, hostile_case  # noqa: E402


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def _grammar_inputs(seed: int, count: int) -> list[str]:
    """``count`` texts from the grammar strategy (hypothesis, driven by ``seed``)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    out: list[str] = []

    @hseed(seed)
    @settings(max_examples=count, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(grammar_strategy())
    def collect(text: str) -> None:
        out.append(text)

    collect()
    return out[:count]


def _chunk(args: tuple[int, int, int, float, int, str]) -> tuple[int, dict[str, int]]:
    """Run ``count`` inputs from ``seed`` in this process; returns (failures, outcome counts)."""
    seed, start, count, timeout, memory, out = args
    resource.setrlimit(resource.RLIMIT_AS, (memory << 20, memory << 20))
    signal.signal(signal.SIGPROF, _alarm)
    rng = random.Random(seed * 1_000_003 + start)
    inputs = corpus()
    folder = Path(tempfile.mkdtemp(prefix="kruleset-fuzz-"))
    grammar = iter(_grammar_inputs(seed * 7919 + start, max(1, count // 10)))
    failures = 0
    counts: dict[str, int] = {}
    for i in range(count):
        pick = i % 10
        invariants = False
        case = None
        if pick < 5:
            kind, text = rng.choice(inputs)
            text = mutate(rng, text)
        elif pick < 7:
            kind, text, invariants = "kr", random_scenario(rng), True
        elif pick < 9:
            case = hostile_case(rng, inputs)
            kind, text = f"hostile-{case.how}", json.dumps(attrs.asdict(case))
        else:
            kind, text = "kr", next(grammar, "")
        began = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, timeout)
        try:
            if case is not None:
                outcome = check_case(case, folder)
            else:
                outcome = check_input(kind, text, folder, invariants=invariants)
            if time.process_time() - began >= timeout:
                # The alarm went off where Python could not raise it (a weakref
                # callback, a __del__): it is printed as ignored, the input ran on.
                raise _Timeout
        except (AssertionError, _Timeout, MemoryError, RecursionError) as err:
            outcome = "FAILED"
            failures += 1
            what = "timeout" if isinstance(err, _Timeout) else type(err).__name__
            path = Path(out) / f"{seed}-{start + i}.{kind}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            print(f"FAILED {path}: {what}: {str(err)[:300]}", flush=True)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        counts[outcome] = counts.get(outcome, 0) + 1
    return failures, counts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=1000, help="inputs to try")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--timeout", type=float, default=20.0, help="CPU seconds per input")
    p.add_argument("--memory", type=int, default=2048, help="MiB per worker")
    p.add_argument("--out", default="fuzz-failures", help="folder for failing inputs")
    args = p.parse_args()
    began = time.monotonic()
    size = 500
    chunks = [(args.seed, s, min(size, args.count - s), args.timeout, args.memory, args.out)
              for s in range(0, args.count, size)]
    failures = 0
    totals: dict[str, int] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for done, (bad, counts) in enumerate(pool.map(_chunk, chunks), 1):
            failures += bad
            for k, v in counts.items():
                totals[k] = totals.get(k, 0) + v
            print(f"{min(done * size, args.count):,} inputs, {failures} failed "
                  f"({time.monotonic() - began:.0f}s)", flush=True)
    print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(totals.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
