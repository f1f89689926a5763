"""docs/API.md stays true: its Python runs, its commands do what it says, in a fresh process.

Each snippet runs in a subprocess (a user rule registered here would stay in
the test process's rule sets), from a folder holding ``dump.yaml`` (the
sample dump) and the files the page shows: the ``yaml`` block is
``pod.yaml``, a ``python`` block whose first line is ``# NAME.py…`` is that
file, every other ``python`` block runs, in order, as one program.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "API.md"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)
FILE_HEAD = re.compile(r"^# (\w+\.py)\b")


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer(DOC.read_text("utf-8"))]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("KRULESET_RULES", None)
    env["NO_COLOR"] = "1"
    return env


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "examples" / "manifests" / "cluster.yaml", tmp_path / "dump.yaml")
    yaml = [body for kind, body in _blocks() if kind == "yaml"]
    (tmp_path / "pod.yaml").write_text(yaml[0], encoding="utf-8")
    for kind, body in _blocks():
        m = FILE_HEAD.match(body)
        if kind == "python" and m:
            (tmp_path / m.group(1)).write_text(body, encoding="utf-8")
    return tmp_path


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_python_of_the_guide_runs(folder: Path) -> None:
    program = "\n".join(body for kind, body in _blocks()
                        if kind == "python" and not FILE_HEAD.match(body))
    assert "kruleset.cluster(" in program and "schedule_pod(" in program
    done = _run([sys.executable, "-c", program], folder)
    assert done.returncode == 0, done.stderr
    # What the comments of the guide say is printed.
    assert "0/2 nodes are available: 2 Insufficient cpu." in done.stdout
    assert "resource cpu: 'half' is not a quantity" in done.stdout
    assert "scheduler.preemption.pick [shop/urgent] chose node-b: the only candidate" in \
        done.stdout


def test_the_commands_of_the_guide_load_the_user_rule(folder: Path) -> None:
    commands = [line for kind, body in _blocks() if kind == "sh"
                for line in body.splitlines() if line.startswith("kruleset ")]
    assert any("--rules" in c for c in commands)
    for command in commands:
        args = shlex.split(command)[1:]
        done = _run([sys.executable, "-m", "kruleset", *args], folder)
        assert done.returncode == 0, f"{command}:\n{done.stderr}"
        if args[0] == "rules":
            assert "myorg.filter.KeepNodeA" in done.stdout
            assert "source: myorg/rules_keep_a.py" in done.stdout


def test_the_refusal_the_guide_shows(folder: Path) -> None:
    shown = next(body for kind, body in _blocks()
                 if kind == "text" and "refused" in body).splitlines()
    (folder / "rules_bad.py").write_text(
        "import kruleset\n\n"
        "kruleset.register(kruleset.Rule('myorg.filter.X', doc='x', source='x', fn=print),\n"
        "                  'scheduler.filtr')\n", encoding="utf-8")
    done = _run([sys.executable, "-m", "kruleset", "run", "--rules", "rules_bad.py",
                 "dump.yaml"], folder)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert shown[0] in done.stderr and shown[1] in done.stderr
