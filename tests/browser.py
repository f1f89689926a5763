"""Headless Chromium for the browser tests of the HTML pages, and a small DOM reader.

The browser is Debian's ``chromium`` (``.ci/run`` installs it) or
``$KRULESET_CHROMIUM``; tests that need it are marked ``needs_browser`` and
skip, saying so, where it is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CHROMIUM", "Dom", "all_of", "chromium", "console", "needs_browser", "one_of",
           "parse", "text_of"]

CHROMIUM = os.environ.get("KRULESET_CHROMIUM") or shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not found (apt-get install chromium, "
                             "or set KRULESET_CHROMIUM); .ci/run installs it")


class Dom(HTMLParser):
    """Just enough of a DOM: elements with attributes, children and text."""

    VOID = {"meta", "link", "br", "hr", "img", "input", "path", "rect", "circle", "line"}

    def __init__(self) -> None:
        super().__init__()
        self.root: dict[str, Any] = {"tag": "#root", "attrs": {}, "children": [], "text": ""}
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = {"tag": tag, "attrs": {k: v or "" for k, v in attrs}, "children": [], "text": ""}
        self.stack[-1]["children"].append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1]["children"].append(
            {"tag": tag, "attrs": {k: v or "" for k, v in attrs}, "children": [], "text": ""})

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        self.stack[-1]["children"].append(data)


def all_of(node: dict[str, Any], **want: str) -> list[dict[str, Any]]:
    out = []
    for child in node["children"]:
        if isinstance(child, dict):
            attrs = child["attrs"]
            if all((attrs.get(k.replace("_", "-")) == v if k != "tag" else child["tag"] == v)
                   if k != "cls" else v in attrs.get("class", "").split() for k, v in want.items()):
                out.append(child)
            out.extend(all_of(child, **want))
    return out


def one_of(node: dict[str, Any], **want: str) -> dict[str, Any]:
    found = all_of(node, **want)
    assert len(found) == 1, f"{want}: {len(found)} elements"
    return found[0]


def text_of(node: dict[str, Any]) -> str:
    return "".join(c if isinstance(c, str) else text_of(c) for c in node["children"])


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
         "--enable-logging=stderr", "--v=0", *args],
        capture_output=True, text=True, timeout=120, check=False)


def console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def parse(page: str) -> dict[str, Any]:
    """The DOM of ``page`` (as Chromium's ``--dump-dom`` prints it)."""
    parser = Dom()
    parser.feed(page)
    return parser.root
