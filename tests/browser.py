"""Headless Chromium driven by Playwright for the browser tests of the HTML pages.

The browser is Debian's ``chromium`` (``.ci/run`` installs it) or
``$KRULESET_CHROMIUM``, launched by Playwright through ``executable_path``:
Playwright's own browser download is never used.  Tests that need it take the
``browser`` fixture (one browser per test session, see ``conftest.py``) and
skip, saying why, where Chromium or Playwright is absent.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ARGS", "CHROMIUM", "Watched", "launch", "needs_browser", "open_page"]

CHROMIUM = os.environ.get("KRULESET_CHROMIUM") or shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

try:
    import playwright.sync_api  # noqa: F401
    _PLAYWRIGHT = True
except ImportError:
    _PLAYWRIGHT = False

#: As root in a container Chromium needs --no-sandbox; the rest keeps it off the network.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]

SKIP_REASON = ("headless Chromium not found (apt-get install chromium, or set "
               "KRULESET_CHROMIUM); .ci/run installs it" if CHROMIUM is None else
               "Playwright for Python is not installed (pip install -e '.[test]')")
needs_browser = pytest.mark.skipif(CHROMIUM is None or not _PLAYWRIGHT, reason=SKIP_REASON)


@contextmanager
def launch() -> Iterator[Any]:
    """A Playwright Chromium browser on the system's chromium (skips when there is none)."""
    if CHROMIUM is None or not _PLAYWRIGHT:
        pytest.skip(SKIP_REASON)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


class Watched:
    """A page and what its console and script errors said."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"error: {e}"))
        # a self-contained page asks for nothing: any request but its own file is a failure
        page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "about:"))
                else self.console.append(f"request: {r.url}"))


def open_page(browser: Any, url: str, width: int = 1280, height: int = 900) -> Watched:
    """``url`` opened in a fresh page ``width`` × ``height`` CSS pixels, once its script ran."""
    page = browser.new_page(viewport={"width": width, "height": height})
    watched = Watched(page)
    page.goto(url)
    page.wait_for_function("document.body.getAttribute('data-ready') !== null")
    return watched
