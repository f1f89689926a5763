"""Finding and running the oracle (the real kube-scheduler v1.35.4 on a JSON cluster)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["ORACLE_ENV", "find_binary", "find_oracle", "finish_oracle", "run_oracle",
           "start_oracle"]

ORACLE_ENV = "KRULESET_ORACLE"
REPO_ROOT = Path(__file__).resolve().parents[2]


def find_oracle() -> tuple[Path | None, str]:
    """The oracle binary, or None with the reason it is absent."""
    return find_binary(ORACLE_ENV, "oracle/bin/kr-oracle", "the oracle")


def find_binary(env_name: str, beside: str, what: str) -> tuple[Path | None, str]:
    """A binary named by ``$env_name``, else ``../shared/BESIDE`` next to the repository;
    or None with the reason it is absent (``what`` names it in that reason)."""
    env = os.environ.get(env_name)
    if env:
        path = Path(env)
        if path.is_file() and os.access(path, os.X_OK):
            return path, ""
        return None, f"${env_name} is set to {env}, which is not an executable file"
    path = REPO_ROOT.parent / "shared" / beside
    if path.is_file() and os.access(path, os.X_OK):
        return path, ""
    return None, (f"{what} is absent: neither ../shared/{beside} (beside the "
                  f"repository) nor ${env_name} names it")


def start_oracle(binary: Path, case: dict[str, Any]) -> subprocess.Popen[bytes]:
    """Start the oracle on ``case`` without waiting (several may run at once)."""
    proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(case).encode())
    proc.stdin.close()
    return proc


def finish_oracle(proc: subprocess.Popen[bytes]) -> list[dict[str, Any]]:
    """Wait for a started oracle; its decisions (one entry per incoming pod)."""
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()
    err = proc.stderr.read()
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"the oracle failed (exit {proc.returncode}): "
                           f"{err.decode(errors='replace')[-2000:]}")
    result: list[dict[str, Any]] = json.loads(out)
    return result


def run_oracle(binary: Path, case: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the oracle on one cluster and return its decisions."""
    return finish_oracle(start_oracle(binary, case))
