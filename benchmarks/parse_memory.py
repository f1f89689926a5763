"""Peak memory of reading a large ``.kr`` file: O(N) in its size, whatever it holds.

    python -m benchmarks.parse_memory [--mb 100]

Each input is generated in a temporary folder (nothing large is committed)
and checked by ``kruleset check`` in a fresh process; the row is the
process's peak resident memory (``ru_maxrss``) and its CPU time.  Inputs:
one word of N bytes (refused: longer than the longest token), one string of
N bytes (refused likewise), a comment line of N bytes, N bytes of blank
lines, N bytes of one-word statements (``x``: a statement per 2 bytes, each
refused as unknown, the worst case for reading: the most statements a byte,
all parsed, and ``check``'s search for further errors reads the file
again), and N bytes of one-line pod declarations (a pod per 40 bytes, each
kept by the scenario).  Every row is held to the target: 1.5 GB for 100 MB,
scaled for other sizes above the interpreter's start-up (``STARTUP_MB``, not
scaled: a 10 MB input may use 64 + 147 MiB).  The exit status is 1 when a
row misses it.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TARGET_MB = 1536
#: What the interpreter and kruleset's imports take before reading a byte.
STARTUP_MB = 64

_HEAD = "node n1 cpu=4 memory=8Gi pods=110\n"


def _word(n: int) -> str:
    return _HEAD + "pod p " + "a" * n + "\n"


def _string(n: int) -> str:
    return _HEAD + 'pod p description="' + "a" * n + '"\n'


def _comment(n: int) -> str:
    return _HEAD + "# " + "a" * n + "\n"


def _blank(n: int) -> str:
    return _HEAD + "\n" * n


def _statements(n: int) -> str:
    return _HEAD + "x\n" * (n // 2)


def _pods(n: int) -> str:
    line = "pod p{i} requests(cpu=1m, memory=1Mi)\n"
    count = n // len(line.format(i=1000000)) + 1
    return _HEAD + "".join(line.format(i=i) for i in range(count))


INPUTS: dict[str, Callable[[int], str]] = {
    "one word": _word, "one string": _string, "one comment line": _comment,
    "blank lines": _blank, "one-word statements": _statements, "one-line pods": _pods,
}


def measure(path: Path) -> tuple[float, float, int]:
    """(peak MiB, CPU seconds, exit status) of ``kruleset check path`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "kruleset", "check", "-q", "-j", "1",
                           str(path)], capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    del began
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return after.ru_maxrss / 1024, cpu, done.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=int, default=100, help="size of each input in MB")
    p.add_argument("--only", nargs="*", default=None, help="inputs to measure")
    args = p.parse_args()
    size = args.mb * 1_000_000
    worst = 0.0
    print(f"| input ({args.mb} MB) | peak memory | CPU | exit |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="kruleset-parse-") as tmp:
        for name, make in INPUTS.items():
            if args.only and name not in args.only:
                continue
            path = Path(tmp) / "big.kr"
            path.write_text(make(size), encoding="utf-8")
            # ru_maxrss of children is the largest child so far: one child per process.
            peak, cpu, code = _isolated(path)
            worst = max(worst, peak)
            print(f"| {name} | {peak:,.0f} MiB | {cpu:.1f} s | {code} |", flush=True)
            path.unlink()
    limit = target_mb(args.mb)
    print(f"worst {worst:,.0f} MiB; target {limit:,.0f} MiB "
          f"({worst / limit:.2f} of it): {'met' if worst <= limit else 'MISSED'}")
    return 0 if worst <= limit else 1


def target_mb(mb: float) -> float:
    """The peak allowed for inputs of ``mb`` MB: the 1.5 GB for 100 MB, scaled
    linearly above the start-up's own memory."""
    return STARTUP_MB + (TARGET_MB - STARTUP_MB) * mb / 100


def _isolated(path: Path) -> tuple[float, float, int]:
    """:func:`measure` in a process of its own, so each peak is its input's alone."""
    out = subprocess.run([sys.executable, "-c",
                          "import sys; from benchmarks.parse_memory import measure; "
                          "from pathlib import Path; "
                          "print(*measure(Path(sys.argv[1])))", str(path)],
                         capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    peak, cpu, code = out.stdout.split()
    return float(peak), float(cpu), int(code)


if __name__ == "__main__":
    sys.exit(main())
