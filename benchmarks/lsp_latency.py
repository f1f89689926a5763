"""How long after a change the language server publishes a 2,000-line file's diagnostics.

    python -m benchmarks.lsp_latency [--lines 2000] [--rounds 10] [--dump-pods 36000]

``kruleset lsp`` runs as a subprocess, spoken to as an editor does (the test
suite's client).  A generated file of LINES lines (nodes, pods on them, an
expectation per pod at its own instant) is opened, then changed ROUNDS times,
alternately clean and with one typo; each row is the median time from the
``didChange`` notification to its first ``publishDiagnostics`` (a refused
file's errors of one reading; every error follows a re-reading later, as
``kruleset check`` finds them), which includes the server's pause after
typing (``kruleset.lsp.server.DEBOUNCE``).  The target is
200 ms.  The check's own CPU time (in this process) is shown beside it, which
a machine busy with other work inflates less than the wall time.

With ``--dump-pods N`` it also opens a scenario that includes a generated
cluster dump of N pods (``benchmarks/gen_cluster_json.py``; 36,000 pods make
about 100 MB): the rows are the slowest hover answered while the dump is read
(the editor is not blocked), the time to the first diagnostics, and the time
to the diagnostics after a change of the scenario (the dump is not read
again: it is kept until its modification time or size changes).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_MS = 200


def scenario(lines: int) -> str:
    """A valid scenario of about ``lines`` lines."""
    nodes = lines // 5
    pods = lines // 2
    out = ['scenario "editor benchmark"', "priorityclass high value=1000"]
    out += [f"node n{i} cpu=4 memory=16Gi labels(zone=z{i % 3})" for i in range(nodes)]
    out += [f"pod p{i} on n{i % nodes} requests(cpu=100m, memory=128Mi) priorityclass=high"
            for i in range(pods)]
    out += [f"at {i + 1}s expect pod p{i} running" for i in range(lines - len(out))]
    return "\n".join(out) + "\n"


def _cpu_ms(path: str, text: str, quick: bool) -> float:
    from kruleset.lsp.documents import diagnose

    diagnose(path, text, quick=quick)
    start = time.process_time()
    diagnose(path, text, quick=quick)
    return (time.process_time() - start) * 1000


def _large_include(client: object, folder: Path, pods: int) -> None:
    import subprocess
    import sys

    dump = folder / "dump.json"
    subprocess.run([sys.executable, str(Path(__file__).with_name("gen_cluster_json.py")),
                    "--nodes", str(max(pods // 30, 1)), "--pods", str(pods), "--out", str(dump)],
                   check=True, stdout=subprocess.DEVNULL)
    path = folder / "dump.kr"
    text = 'include "dump.json"\nnode extra cpu=4\n'
    path.write_text(text)
    c: Any = client
    start = time.monotonic()
    u = c.open(path)
    slowest = 0.0
    while u not in c.diagnostics:
        asked = time.monotonic()
        c.request("textDocument/hover", c.at(u, 1, 1))
        slowest = max(slowest, time.monotonic() - asked)
    first = time.monotonic() - start
    c.drain()
    start = time.monotonic()
    c.change(u, text + "node extra2 cpu=4\n", version=2)
    c.wait_diagnostics(u, timeout=600)
    again = time.monotonic() - start
    size = dump.stat().st_size / 2**20
    print(f"include of a {size:.0f} MB dump ({pods} pods): slowest hover while reading "
          f"{slowest * 1000:.0f} ms; first diagnostics {first:.1f} s; after a change "
          f"{again * 1000:.0f} ms")


def main() -> None:
    from tests.lsp.client import Client

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--dump-pods", type=int, default=0)
    args = ap.parse_args()
    clean = scenario(args.lines)
    typo = clean.replace("priorityclass=high", "priorityclas=high", 1)
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.kr"
        path.write_text(clean)
        client = Client(root)
        try:
            client.initialize(root)
            u = client.open(path)
            client.wait_diagnostics(u, timeout=120)
            rows: dict[str, list[float]] = {"clean": [], "typo": []}
            for n in range(args.rounds):
                which = "typo" if n % 2 == 0 else "clean"
                client.drain()
                start = time.monotonic()
                client.change(u, typo if which == "typo" else clean, version=n + 2)
                client.wait_diagnostics(u, timeout=120)
                rows[which].append((client.published[-1][0] - start) * 1000)
                client.drain()
                time.sleep(2.0)  # a pause in typing: the re-reading for every error ends
            if args.dump_pods:
                _large_include(client, Path(tmp), args.dump_pods)
        finally:
            client.close()
        for which, text in (("clean", clean), ("typo", typo)):
            wall = statistics.median(rows[which])
            print(f"{args.lines} lines, {which}: {wall:.0f} ms after the change "
                  f"(check alone: {_cpu_ms(str(path), text, True):.0f} ms CPU, every error "
                  f"{_cpu_ms(str(path), text, False):.0f} ms; target {TARGET_MS} ms)")


if __name__ == "__main__":
    main()
