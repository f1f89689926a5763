"""Renderings of a run: text for people, JSON for tools."""

from __future__ import annotations

from .json import file_entry, report
from .text import Style, render_explain, render_result

__all__ = ["Style", "file_entry", "render_explain", "render_result", "report"]
