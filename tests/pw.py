"""Pages at a width for the browser tests, on the session's ``browser`` (``conftest.py``).

The browser itself is launched once by ``browser.launch`` (Debian's
``chromium`` through ``executable_path``, no download; skipped, saying why,
when absent).  Import the fixture into a test module (``from pw import
page_at``) and open a page at a width with ``page_at(1280)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

__all__ = ["WIDTHS", "page_at"]

#: The widths every page is checked at (a laptop, a common desktop, full HD).
WIDTHS = (1280, 1440, 1920)


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
