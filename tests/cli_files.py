"""Files and helpers the command-line tests share: the shipped examples plus a
failing and a refused scenario written for the test, and a way to run the
command as a user does (a separate process, from the repository's root)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.kr"))

FAILING = """\
scenario "too big"
node n1 cpu=1 memory=1Gi
pod a requests(cpu=2)
expect pod a running
expect pod a pending
"""

REFUSED = """\
priorityclass high value=1000
pod a priorityclass=hgh
pod b requests(cpuu=1)
"""

# Slow enough that a progress line is drawn while it simulates (about a second).
SLOW = """\
nodes n[1..300] cpu=4 memory=8Gi
deployment d replicas=1500 requests(cpu=500m)
expect pods default/d-* running count=1500
"""


def write(folder: Path, name: str, text: str) -> str:
    """Write a scenario; its path relative to the repository root when inside it."""
    path = folder / name
    path.write_text(text)
    return str(path)


def env(**extra: str) -> dict[str, str]:
    """The environment for a child ``kruleset``: the source importable, colour variables
    unset unless given."""
    out = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    out["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [out.get("PYTHONPATH")])])
    out.update(extra)
    return out


def python_with_plugins(args: list[str], cwd: Path, env: dict[str, str] | None = None,
                        timeout: int = 600) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGS`` in ``cwd`` as a plugin author does: the source and ``cwd``
    importable, no plugin module named by ``KRULESET_RULES`` unless ``env`` names one."""
    full = dict(os.environ)
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(cwd)])
    full.pop("KRULESET_RULES", None)
    full.update(env or {})
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=timeout, check=False)


def kruleset(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    """Run ``kruleset ARGS`` in a child process with pipes for its streams."""
    return subprocess.run([sys.executable, "-m", "kruleset", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env(**extra_env), check=False)
