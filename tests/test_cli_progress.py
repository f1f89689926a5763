"""Progress in a terminal, silence in a pipe, results streaming file by file, and
Ctrl-C: run in a pseudo-terminal or with pipes, as a user or a CI job would."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from cli_files import EXAMPLES, ROOT, SLOW, env, kruleset, write

from kruleset.cli import ExitCode

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")

TIMEOUT = 120.0
BIG = SLOW.replace("300", "400").replace("1500", "3000")  # seconds, not a fraction of one


def _ctrl_c_as_on_a_terminal() -> None:
    """Let the child take SIGINT as a program started at a terminal does.

    A test run started in the background by a non-interactive shell (``cmd &``)
    inherits SIGINT ignored, and Python then installs no KeyboardInterrupt
    handler in the child: the Ctrl-C test would wait for nothing.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _in_pty(args: list[str], *, interrupt_when: str | None = None) -> tuple[int, str]:
    """Run ``kruleset ARGS`` with stdout and stderr on a pseudo-terminal; what it wrote.

    With ``interrupt_when``, send SIGINT (what Ctrl-C sends) once that text appears.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "kruleset", *args], stdin=slave,
                            stdout=slave, stderr=slave, cwd=ROOT, env=env(TERM="xterm"),
                            close_fds=True, preexec_fn=_ctrl_c_as_on_a_terminal)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT
    sent = False
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            if interrupt_when and not sent and interrupt_when.encode() in b"".join(chunks):
                proc.send_signal(signal.SIGINT)
                sent = True
            if proc.poll() is not None and not ready:
                break
        code = proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return code, b"".join(chunks).decode("utf-8", "replace")


def test_progress_in_a_terminal(tmp_path: Path) -> None:
    slow = write(tmp_path, "slow.kr", SLOW)
    code, seen = _in_pty(["run", "-j", "1", *EXAMPLES, slow])
    assert code == 0, seen
    files = len(EXAMPLES) + 1
    assert f"\r0/{files} files · " in seen       # drawn from the start...
    assert f"{slow}: " in seen and " simulated, " in seen and " decisions" in seen
    assert " elapsed" in seen and " left" in seen  # ...with the time spent and left
    assert "\r\x1b[K" in seen                     # and cleared before other output
    assert f"{files} files: {files} passed" in seen
    # the report itself is intact: each line whole, the line cleared around it
    assert "passed: 4 expectations" in seen


def test_progress_with_worker_processes(tmp_path: Path) -> None:
    # a worker's progress reaches the line at its redraws: the file must outlast a few
    slow = write(tmp_path, "slow.kr", BIG)
    code, seen = _in_pty(["run", "-j", "2", slow, *EXAMPLES])
    assert code == 0, seen
    assert " simulated, " in seen and " decisions" in seen


def test_silent_in_a_pipe(tmp_path: Path) -> None:
    slow = write(tmp_path, "slow.kr", SLOW)
    done = kruleset("run", "-j", "1", *EXAMPLES, slow)
    assert done.returncode == 0
    assert "\r" not in done.stderr and "\x1b" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"{len(EXAMPLES) + 1} files")


def test_quiet_shows_no_progress(tmp_path: Path) -> None:
    code, seen = _in_pty(["run", "-q", *EXAMPLES])
    assert code == 0
    assert " files · " not in seen and "\r\x1b[K" not in seen
    assert seen == f"\x1b[32m{len(EXAMPLES)} files: {len(EXAMPLES)} passed, 0 failed, " \
        f"0 refused — {seen.split(' — ')[1]}"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_results_stream_file_by_file(tmp_path: Path, jobs: str) -> None:
    slow = write(tmp_path, "slow.kr", SLOW)
    proc = subprocess.Popen([sys.executable, "-m", "kruleset", "run", "-j", jobs,
                             "examples/quickstart.kr", slow, slow], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env())
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("passed: "):
                break
        # the first file's report arrived while the second still runs
        assert proc.poll() is None
        assert lines[0].startswith("examples/quickstart.kr")
    finally:
        proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_with_the_partial_summary(tmp_path: Path, jobs: str) -> None:
    big = write(tmp_path, "big.kr", BIG)
    out = tmp_path / "report.json"
    code, seen = _in_pty(["run", "-j", jobs, "--format", "json", "--output", str(out),
                          "examples/quickstart.kr", big, big], interrupt_when="\r1/3 files · ")
    assert code == ExitCode.INTERRUPTED, seen
    assert "Traceback" not in seen and "KeyboardInterrupt" not in seen
    assert "3 files: 1 passed, 0 failed, 0 refused, 2 not run (interrupted) — " in seen
    import json

    data = json.loads(out.read_text())  # the report is complete for what finished
    assert [f["path"] for f in data["files"]] == ["examples/quickstart.kr"]
    assert data["summary"]["interrupted"] is True and data["summary"]["not_run"] == 2
