"""The ``.kr`` scenario language: parsing and validation into a Scenario.

Public entry points:

* :func:`load` — a ``.kr`` file (path) or ``.kr`` text.
* :func:`parse_text` — ``.kr`` text, with the file name used in messages and
  optionally a line offset (``base_line``) for text cut from a larger file.
* :func:`expand_range` — ``n[01..10]`` into its names.
* :func:`make_kubelet_config` — the kubelet's threshold rules, shared with
  the KubeletConfiguration loader.

Every refusal is a :class:`kruleset.errors.ScenarioError`; no input makes
these functions raise anything else (an unexpected failure is reported as a
ScenarioError that says it is an internal error).

The Gherkin steps can join single statements (``node n1 cpu=4``) into one text,
one per line, and call :func:`parse_text`; line numbers in errors are then the
line within that text plus ``base_line``.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from ..errors import KrulesetError, ScenarioError, Span, internal, is_bug
from ..model.scenario import Scenario
from ..readfile import read_regular_text
from .kubelet import KubeletConfigError, make_kubelet_config
from .loader import build_scenario
from .values import RangeError, expand_range

__all__ = [
    "KubeletConfigError",
    "RangeError",
    "expand_range",
    "load",
    "make_kubelet_config",
    "parse_text",
]


# From this many declared objects the scenario read is frozen (gc.freeze): below
# it (every test and example) collections are cheap and nothing is kept back.
FREEZE_AT_OBJECTS = 50_000


def parse_text(text: str, file: str = "<text>", *, base_line: int = 0,
               folder: str | os.PathLike[str] | None = None) -> Scenario:
    """Parse and validate ``.kr`` text.

    ``file`` names the text in messages; ``folder`` is where ``include`` and
    ``config`` paths are looked up (default: the current directory);
    ``base_line`` is added to every line number (for fragments of a larger file).
    Raises :class:`ScenarioError` and nothing else.
    """
    # A large file builds hundreds of thousands of objects and frees few; the
    # cyclic collector would rescan the growing heap again and again, so it
    # is paused while the scenario is built (150,000 pods: about 0.5 s less).
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        scenario = build_scenario(text, file, folder=None if folder is None else str(folder),
                                  base_line=base_line)
        if paused and len(scenario.objects) >= FREEZE_AT_OBJECTS:
            # Everything read is kept as long as the scenario: left in the
            # collector's generations, it would all be walked by the first
            # collections once the collector runs again (a million pods: about
            # two seconds).  Refcounting still frees it.
            gc.freeze()
        return scenario
    except KrulesetError:
        raise
    except RecursionError:
        raise ScenarioError("the scenario is nested too deeply to read",
                            Span(file, 0, 0, "")) from None
    except BaseException as exc:  # the public entry never leaks a traceback
        if not is_bug(exc):
            raise
        raise internal(ScenarioError(
            f"internal error while reading the scenario ({type(exc).__name__}: {exc}); "
            "this is a bug in kruleset, please report it with the file",
            Span(file, 0, 0, ""))) from exc
    finally:
        if paused:
            gc.enable()


def load(source: str | os.PathLike[str], *, file: str | None = None,
         folder: str | os.PathLike[str] | None = None) -> Scenario:
    """Load a scenario from a ``.kr`` file or from ``.kr`` text.

    ``source`` is read as a path when it is a ``PathLike``, or a string with no
    newline that names an existing file; a string without a newline that ends
    in ``.kr`` but names no file is refused as a missing file.  Any other string
    is the text itself.  ``file`` overrides the name used in messages.
    Paths in ``include`` and ``config`` are relative to the file's folder (the
    current directory for text, unless ``folder`` names another).
    """
    if not isinstance(source, (str, os.PathLike)):
        raise ScenarioError(f"expected a path or .kr text, got {type(source).__name__}",
                            Span(file or "<text>", 0, 0, ""))
    if isinstance(source, str) and ("\n" in source or not _is_file(source)):
        if "\n" not in source and source.strip().endswith(".kr"):
            raise ScenarioError(f"file not found: {source}", Span(file or source, 0, 0, ""))
        return parse_text(source, file or "<text>", folder=folder)
    path = Path(source)
    name = file or str(source)
    try:
        text = read_regular_text(path)
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})",
                            Span(name, 0, 0, "")) from None
    except OSError as exc:
        raise ScenarioError(f"cannot read the file: {exc.strerror or exc}",
                            Span(name, 0, 0, "")) from None
    return parse_text(text, name, folder=path.resolve().parent)


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False
