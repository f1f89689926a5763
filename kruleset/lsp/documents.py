"""A document's diagnostics: ``.kr`` files whole, ``.feature`` files scenario by scenario."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from .cache import FileCache
from .check import ERROR, INFORMATION, Diag, check_text
from .profile import check_profile, is_profile, is_yaml
from .regions import regions

__all__ = ["diagnose", "is_feature"]


def is_feature(path: str) -> bool:
    return path.endswith(".feature")


def diagnose(path: str, text: str, cache: FileCache | None = None, *,
             quick: bool = False, stop: Callable[[], bool] | None = None,
             names: dict[str, list[str]] | None = None,
             clusters: tuple[str, ...] = ()) -> dict[str, list[Diag]]:
    """Every diagnostic of the document at ``path``, by file (the document and included files).

    ``quick``: only the errors one reading finds, ``names`` the declared names,
    ``clusters`` the ``--cluster`` files (see :func:`.check.check_text`).
    """
    out: dict[str, list[Diag]] = {path: []}
    if is_yaml(path):  # a profile is checked; any other YAML file is left alone
        out[path] = check_profile(text, path) if is_profile(text) else []
        return out
    folder = Path(path).resolve().parent
    if not is_feature(path):
        for d in check_text(text, path, folder, cache, quick=quick, stop=stop,
                            names=names, clusters=clusters):
            out.setdefault(d.file, []).append(d)
        return out
    seen: set[tuple[str, int, int, str]] = set()
    for region in regions(text, feature=True):
        if region.outline or not region.lines:
            continue
        for d in check_text(region.text, path, folder, cache, quick=quick, stop=stop,
                            names=names, clusters=clusters):
            if d.file == path:
                line, col = region.place(d.line, d.column)
                _, end = region.place(d.end_line, d.end_column)
                d = attrs.evolve(d, line=line, column=col, end_line=line,
                                 end_column=max(end, col))
            if region.refused and d.severity == ERROR:
                # Refused on purpose: the error is what the scenario checks for.
                d = attrs.evolve(d, severity=INFORMATION, replacement="")
            key = (d.file, d.line, d.column, d.message)
            if key not in seen:
                seen.add(key)
                out.setdefault(d.file, []).append(d)
    return out
