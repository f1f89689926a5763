"""Renderings of a run: a registry of output formats (text for people; JSON,
JUnit, TAP and GitHub annotations for tools), one module per format."""

from __future__ import annotations

from .formats import Format, FormatOptions, get, names, register
from .model import ExpectationReport, FileReport, Problem, Summary
from .text import Style, render_explain, render_result

__all__ = ["ExpectationReport", "FileReport", "Format", "FormatOptions", "Problem", "Style",
           "Summary", "get", "names", "register", "render_explain", "render_result"]
