"""Generate a large hand-style .kr file and time parsing it (a helper, not a test).

Usage: python tests/lang_cases/gen_big.py [LINES]
"""

from __future__ import annotations

import sys
import time


def big_text(lines: int = 10_000) -> str:
    """A scenario of about ``lines`` lines in the style people write by hand."""
    out = ['scenario "big"', "priorityclass high value=1000", "priorityclass low value=10",
           "runtimeclass kata overhead(cpu=250m, memory=120Mi)"]
    nodes = max(lines // 10, 1)
    for i in range(nodes):
        out.append(f"node n{i} cpu=16 memory=64Gi pods=110 labels(zone=z{i % 3}, "
                   f"kubernetes.io/os=linux) taints(dedicated=gpu:NoSchedule)")
    t = 0
    i = 0
    while len(out) < lines - 4:
        k = i % 4
        if k == 0:
            out.append(f"pod ns-{i % 7}/p{i} on n{i % nodes} priorityclass=low "
                       f"requests(cpu=500m, memory=1Gi) limits(cpu=1, memory=2Gi) labels(app=web)")
        elif k == 1:
            out.append(f"pod ns-{i % 7}/q{i} priority=5 cpu=100m memory=128Mi "
                       f"tolerations(dedicated=gpu:NoSchedule, *) # comment")
        elif k == 2:
            t += 1
            out.append(f"at {t}s create pod ns-{i % 7}/c{i} priorityclass=high cpu=1 memory=1Gi")
        else:
            out.append(f"expect pod ns-{(i - 3) % 7}/p{i - 3} running on n{(i - 3) % nodes}")
        i += 1
    out.append("")
    return "\n".join(out)


def main() -> None:
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from kruleset.lang import parse_text

    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    text = big_text(lines)
    parse_text("scenario \"warm\"\n")
    walls, cpus = [], []
    for _ in range(5):
        start, cpu = time.perf_counter(), time.process_time()
        scenario = parse_text(text, file="big.kr")
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    print(f"{text.count(chr(10))} lines, {len(scenario.objects)} objects, "
          f"{len(scenario.events)} events: best of 5 {min(walls):.3f}s wall, "
          f"{min(cpus):.3f}s CPU")


if __name__ == "__main__":
    main()
