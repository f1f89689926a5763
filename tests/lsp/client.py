"""A minimal Language Server Protocol client: `kruleset lsp` as a subprocess, JSON-RPC on stdio."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


def uri(path: str | Path) -> str:
    return Path(path).resolve().as_uri()


class Client:
    """Speaks to ``kruleset lsp`` as an editor does; notifications are kept as they come."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kruleset", "lsp"], cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self._next = 0
        self._inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.responses: dict[int, dict[str, Any]] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self.published: list[tuple[float, str]] = []   # (time, uri) of each publication
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                header = out.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self._inbox.put(json.loads(out.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def _pump(self, timeout: float) -> bool:
        try:
            msg = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return False
        if "id" in msg and "method" not in msg:
            self.responses[msg["id"]] = msg
        elif msg.get("method") == "textDocument/publishDiagnostics":
            p = msg["params"]
            self.diagnostics[p["uri"]] = p["diagnostics"]
            self.published.append((time.monotonic(), p["uri"]))
        elif "id" in msg:  # a request of the server (e.g. registerCapability): accept it
            self.send({"id": msg["id"], "result": None})
        return True

    def drain(self) -> None:
        """Take in every message the server has sent so far."""
        while self._pump(0.05):
            pass

    def request(self, method: str, params: Any, timeout: float = 30.0) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        self.send({"id": ident, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while ident not in self.responses:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"no answer to {method}: {self.stderr()}")
            self._pump(0.1)
        return self.responses.pop(ident)

    def initialize(self, root: Path, options: Any = None) -> dict[str, Any]:
        answer = self.request("initialize", {"processId": None, "rootUri": uri(root),
                                             "capabilities": {},
                                             "initializationOptions": options})
        self.notify("initialized", {})
        return answer

    def open(self, path: str | Path, text: str | None = None, language: str = "kr") -> str:
        u = uri(path)
        self.diagnostics.pop(u, None)
        body = Path(path).read_text(encoding="utf-8") if text is None else text
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": u, "languageId": language, "version": 1, "text": body}})
        return u

    def change(self, u: str, text: str, version: int = 2) -> None:
        self.diagnostics.pop(u, None)
        self.notify("textDocument/didChange", {"textDocument": {"uri": u, "version": version},
                                               "contentChanges": [{"text": text}]})

    def wait_diagnostics(self, u: str, timeout: float = 30.0,
                         until: Any = None) -> list[dict[str, Any]]:
        """The diagnostics published for ``u`` (the first, or the first that satisfy ``until``:
        a refused file gets the errors of one reading at once, then every error)."""
        deadline = time.monotonic() + timeout
        while u not in self.diagnostics or (until is not None and not until(self.diagnostics[u])):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"no diagnostics for {u}: {self.stderr()}")
            self._pump(0.1)
        return self.diagnostics[u]

    def at(self, u: str, line: int, character: int) -> dict[str, Any]:
        return {"textDocument": {"uri": u}, "position": {"line": line, "character": character}}

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(server still running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
                return self.proc.wait(timeout=10)
            except (AssertionError, subprocess.TimeoutExpired, BrokenPipeError):
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode
