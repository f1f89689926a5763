"""What ``kruleset check`` says about a text, as editor diagnostics.

The same path as the command: the text is read (:func:`kruleset.lang.parse_text`)
and validated (:func:`kruleset.api.validate`); a refusal is widened to every
error of the file by :func:`kruleset.diagnose.every_error`.  Nothing is
simulated.  Each error becomes a :class:`Diag` at its line and column,
covering the word it points at, with the lines ``check`` prints under it
(``expected: …``, ``hint: …``); an error in an included Kubernetes file is
also placed on that file, and the warnings (the scenario's notices naming a
file) become warnings.

Positions in a :class:`Diag` are 0-based (the protocol's); no input makes
:func:`check_text` raise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import attrs

from ..errors import NOTICES, KrulesetError, NotImplementedMechanism, ScenarioError, is_bug
from .cache import FileCache

__all__ = ["ERROR", "INFORMATION", "WARNING", "WORD", "Diag", "check_text", "diag_text",
           "word_end"]

ERROR, WARNING, INFORMATION = 1, 2, 3  # the protocol's DiagnosticSeverity

#: Characters of a ``.kr`` word (kruleset.lang.syntax), and a name range ``[1..3]``.
WORD = re.compile(r"(?:[A-Za-z0-9_.\/*+\-@~:%]|\[[0-9]+\.\.[0-9]+\])+")
_QUOTED = re.compile(r"'([^']+)'")
_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'\?")
_WARNING = re.compile(r"^(?P<file>[^\n]+?)(?::(?P<line>\d+))?(?:, [^:\n]*)?: warning: ")


@attrs.frozen(slots=True)
class Diag:
    """One diagnostic: the file it is on, a 0-based range, severity, text, a fix."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: int
    message: str
    replacement: str = ""   # the did-you-mean word: a code action writes it over the range


def diag_text(e: ScenarioError) -> str:
    """The message as ``check`` prints it, without the place and the quoted line."""
    parts = [e.message]
    if e.expected:
        parts.append(f"expected: {e.expected}")
    if e.suggestion:
        parts.append(f"hint: {e.suggestion}")
    return "\n".join(parts)


def word_end(text: str, start: int, wanted: str = "") -> int:
    """Where the word starting at ``start`` of a line ends (``wanted``: the word expected)."""
    if wanted and text.startswith(wanted, start):
        return start + len(wanted)
    m = WORD.match(text, start)
    if m and m.end() > start:
        return m.end()
    return min(len(text), start + 1) if start < len(text) else start


def _error_diag(e: ScenarioError, file: str, lines: list[str]) -> Diag:
    line = max(e.line - 1, 0)
    text = lines[line] if line < len(lines) else ""
    if e.line <= 0:  # no place: the whole first line
        return Diag(file, 0, 0, 0, len(lines[0]) if lines else 0, ERROR, diag_text(e))
    col = min(max(e.column - 1, 0), len(text))
    quoted = _QUOTED.search(e.message)
    word = quoted.group(1) if quoted else ""
    end = word_end(text, col, word)
    found = _DID_YOU_MEAN.search(f"{e.message} {e.suggestion}")
    # A fix only where the range is the word refused (not an include's keyword).
    fix = found.group(1) if found and word and text[col:end] == word else ""
    return Diag(file, line, col, line, end, ERROR, diag_text(e), fix)


def _manifest_diag(e: ScenarioError, folder: Path) -> Diag | None:
    """An error of an included Kubernetes file, placed on that file too."""
    other = getattr(e, "manifest_file", None)
    if not other:
        return None
    path = Path(other)
    if not path.is_absolute():
        path = folder / path
    line = max((getattr(e, "file_line", None) or 1) - 1, 0)
    # On the field's own name where the line holds it, with the did-you-mean as a fix.
    name = re.sub(r"\[[^\]]*\]", "", str(getattr(e, "field", "") or "")).rsplit(".", 1)[-1]
    text = _line_of(path, line) if name else ""
    col = text.find(name) if text else -1
    if col < 0:
        return Diag(str(path), line, 0, line, 1 << 16, ERROR, diag_text(e))
    found = _DID_YOU_MEAN.search(e.suggestion)
    return Diag(str(path), line, col, line, col + len(name), ERROR, diag_text(e),
                found.group(1) if found else "")


#: A Kubernetes file longer than this is not read again to place an error on a word.
_PLACE_LIMIT = 16 * 2**20


def _line_of(path: Path, line: int) -> str:
    try:
        if path.stat().st_size > _PLACE_LIMIT:
            return ""
        with path.open(encoding="utf-8", errors="replace") as f:
            for n, text in enumerate(f):
                if n == line:
                    return text
    except OSError:
        pass
    return ""


def _errors(e: ScenarioError, path: str, text: str, folder: Path, quick: bool,
            stop: Callable[[], bool] | None) -> list[ScenarioError]:
    from ..diagnose import every_error

    if e.internal:
        return [e]
    if quick:  # what one reading found, before re-reading for the errors after them
        return list(getattr(e, "errors", None) or [e])
    # A language server answers quickly: a broken file gets its first errors
    # within a second, not the command's ten.
    return every_error(e, path, text=text, folder=folder, seconds=1.0, stop=stop)


def check_text(text: str, path: str, folder: str | Path | None = None,
               cache: FileCache | None = None, *, quick: bool = False,
               stop: Callable[[], bool] | None = None,
               names: dict[str, list[str]] | None = None,
               clusters: tuple[str, ...] = ()) -> list[Diag]:
    """The diagnostics of ``.kr`` text named ``path`` (positions relative to ``text``).

    ``quick``: only the errors of one reading of the text (a refused file may
    have more, which ``check`` finds by reading it again without them);
    ``stop`` ends that search early (the text it was asked about is outdated).
    ``names`` receives, when the text is read, the declared objects' names by
    kind, those of included files too (for completion).  ``clusters`` are
    Kubernetes files declared under the text, as ``kruleset check --cluster``.
    """
    from .. import api
    from ..lang import parse_text
    from ..lang.files import LOADER_CACHE
    from ..lang.loader import CLUSTER_FILES

    folder = Path(folder) if folder is not None else Path(path).resolve().parent
    lines = text.split("\n")
    heard: list[str] = []
    notices = NOTICES.set(heard)
    loader = LOADER_CACHE.set(cache)
    cluster = CLUSTER_FILES.set(tuple((f, f) for f in clusters))
    try:
        scenario = api.validate(parse_text(text, path, folder=folder))
        if names is not None:
            _names(scenario.objects, names)
        heard.extend(n for n in scenario.notices if n not in heard)
        return _warnings(heard, path, lines, folder)
    except ScenarioError as e:
        out: list[Diag] = []
        for err in _errors(e, path, text, folder, quick, stop):
            out.append(_error_diag(err, path, lines))
            other = _manifest_diag(err, folder)
            if other is not None:
                out.append(other)
        return out
    except NotImplementedMechanism as e:
        line = max(e.span.line - 1, 0)
        return [Diag(path, line, max(e.span.column - 1, 0), line, 1 << 16, ERROR, str(e))]
    except KrulesetError as e:
        return [Diag(path, 0, 0, 0, 1 << 16, ERROR, str(e))]
    except BaseException as e:  # the server never dies on a file: say what happened
        if not is_bug(e):
            raise
        return [Diag(path, 0, 0, 0, 1 << 16, ERROR,
                     f"internal error (a bug in kruleset, please report it): "
                     f"{type(e).__name__}: {e}")]
    finally:
        CLUSTER_FILES.reset(cluster)
        LOADER_CACHE.reset(loader)
        NOTICES.reset(notices)


#: The model's classes as the language calls them.
_KINDS = {"Node": "node", "Pod": "pod", "Deployment": "deployment",
          "PriorityClass": "priorityclass", "RuntimeClass": "runtimeclass",
          "PodDisruptionBudget": "pdb", "ElasticQuota": "quota", "Namespace": "namespace"}


def _names(objects: tuple[object, ...], out: dict[str, list[str]]) -> None:
    for o in objects:
        kind = _KINDS.get(type(o).__name__)
        name = getattr(o, "name", None)
        if kind is None or not isinstance(name, str):
            continue
        ns = getattr(o, "namespace", None)
        full = f"{ns}/{name}" if isinstance(ns, str) and ns != "default" else name
        out.setdefault(kind, []).append(full)


def _warnings(notices: list[str], path: str, lines: list[str], folder: Path) -> list[Diag]:
    """The notices that are warnings: on the statement naming their file, and on the file."""
    out: list[Diag] = []
    for text in notices:
        m = _WARNING.match(text)
        if m is None:
            continue  # a summary of what was read: no warning
        other = Path(m.group("file"))
        if str(other) == path and m.group("line"):  # about a line of the scenario itself
            line = min(int(m.group("line")) - 1, max(len(lines) - 1, 0))
        else:
            line = _naming_line(lines, other.name)
        out.append(Diag(path, line, 0, line, len(lines[line]) if lines else 0, WARNING, text))
        if str(other) != path and other.suffix in (".yaml", ".yml", ".json"):
            where = other if other.is_absolute() else folder / other
            at = max(int(m.group("line") or 1) - 1, 0)
            out.append(Diag(str(where), at, 0, at, 1 << 16, WARNING, text))
    return out


def _naming_line(lines: list[str], name: str) -> int:
    """The first line that names file ``name`` in quotes (an include), else 0."""
    for n, line in enumerate(lines):
        if f'{name}"' in line and not line.lstrip().startswith("#"):
            return n
    return 0
