"""Playwright for the browser tests: the system's Chromium, driven through its DevTools protocol.

The browser is Debian's ``chromium`` (or ``$KRULESET_CHROMIUM``), launched with
``executable_path``: Playwright's own browser download is never used.  Tests
that use the fixtures skip, saying why, when Playwright or Chromium is
absent.  Import both fixtures into a test module (``from pw import browser,
page_at``) and open a page at a width with ``page_at(1280)``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

__all__ = ["ARGS", "WIDTHS", "browser", "page_at"]

#: The widths every page is checked at (a laptop, a common desktop, full HD).
WIDTHS = (1280, 1440, 1920)
#: Quiet, offline and sandbox-free (CI containers have no user namespaces).
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str | None:
    return os.environ.get("KRULESET_CHROMIUM") or shutil.which("chromium")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    exe = _chromium()
    if exe is None:
        pytest.skip("chromium not found (apt-get install chromium, or set KRULESET_CHROMIUM)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def page_at(browser: Any) -> Iterator[Callable[..., Any]]:
    """``page_at(width)``: a fresh page ``width`` CSS pixels wide (900 high unless given),
    whose script errors and console errors are kept in ``page.script_errors``; closed
    after the test."""
    contexts: list[Any] = []

    def open_at(width: int, height: int = 900) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.script_errors = errors
        return page

    yield open_at
    for context in contexts:
        context.close()
