"""What a document declares and where: names for completion, definitions and the outline.

Read from the text line by line (not from a parse), so a file the parser
refuses still has its outline, its completions and its definitions while
the user is typing.  Positions are 0-based document positions.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from .regions import Region

__all__ = ["Declared", "FileRef", "Index", "in_files", "index"]

#: Declaring statements and the kind of object they name.
KINDS = {
    "node": "node", "nodes": "node", "pod": "pod", "pods": "pod", "deployment": "deployment",
    "priorityclass": "priorityclass", "runtimeclass": "runtimeclass", "namespace": "namespace",
    "pdb": "pdb", "quota": "quota", "claim": "claim", "claimtemplate": "claimtemplate",
    "deviceclass": "deviceclass", "devices": "devices",
}
_DECL = re.compile(r"^(\s*(?:at\s+\S+\s+create\s+)?)([a-z][a-z\-]*)\s+"
                   r"((?:[A-Za-z0-9_.\/*+\-@~:]|\[[0-9]+\.\.[0-9]+\])+)")
_AT = re.compile(r"^\s*at\s+(\S+)")
_SCENARIO = re.compile(r'^\s*scenario\s+"([^"]*)"')
_FILE = re.compile(r'^\s*(?:at\s+\S+\s+)?(include|config\s+\w+|apply|delete)\s+"([^"]+)"')
_REPLICAS = re.compile(r"\breplicas=([0-9]+)")
_PODLIKE = ("pod", "deployment", "pdb", "claim", "claimtemplate")


@attrs.frozen(slots=True)
class Declared:
    """A declared object: its kind, name (pods: NAMESPACE/NAME), place and statement line."""

    kind: str
    name: str
    line: int
    column: int
    end: int
    statement: str


@attrs.frozen(slots=True)
class FileRef:
    """A file a statement reads (``include``, ``config``, ``apply``, ``delete``)."""

    path: str
    line: int
    column: int
    end: int


@attrs.define
class Index:
    declared: list[Declared] = attrs.Factory(list)
    files: list[FileRef] = attrs.Factory(list)
    instants: list[tuple[str, int, int]] = attrs.Factory(list)  # (time, line, line length)
    title: tuple[str, int] | None = None
    # Names the last reading of the document found (included files' objects too).
    read: dict[str, list[str]] = attrs.Factory(dict)

    def names(self, kind: str) -> list[str]:
        """The declared names of ``kind``, without a ``default/`` namespace, once each."""
        return list(dict.fromkeys([*(d.name.removeprefix("default/") for d in self.declared
                                     if d.kind == kind), *self.read.get(kind, ())]))

    def find(self, word: str) -> Declared | None:
        """The declaration of ``word`` (a pod's ``default/`` may be left out)."""
        for d in self.declared:
            if word in (d.name, d.name.removeprefix("default/")):
                return d
        return None


def _expanded(name: str) -> list[str]:
    if "[" not in name:
        return [name]
    from ..lang import RangeError, expand_range

    try:
        return list(expand_range(name))
    except (RangeError, ValueError):
        return [name]


def index(regions: list[Region]) -> Index:
    """The declarations, files, instants and title of a document's regions."""
    out = Index()
    for region in regions:
        for n, text in enumerate(region.lines):
            line, col0 = region.place(n, 0)
            _line(out, text, line, col0)
    return out


def _line(out: Index, text: str, line: int, col0: int) -> None:
    if text.lstrip().startswith("#"):
        return
    m = _SCENARIO.match(text)
    if m and out.title is None:
        out.title = (m.group(1), line)
    m = _FILE.match(text)
    if m:
        out.files.append(FileRef(m.group(2), line, col0 + m.start(2), col0 + m.end(2)))
    m = _AT.match(text)
    if m:
        out.instants.append((m.group(1), line, col0 + len(text)))
    m = _DECL.match(text)
    if m is None or m.group(2) not in KINDS:
        return
    if m.group(1).strip() == "" and _AT.match(text):
        return  # `at T node …` is a timeline statement about a node, not a declaration
    kind = KINDS[m.group(2)]
    raw = m.group(3)
    for name in _expanded(raw):
        full = name if kind not in _PODLIKE or "/" in name else f"default/{name}"
        out.declared.append(Declared(kind, full, line, col0 + m.start(3), col0 + m.end(3),
                                     text.strip()))
    replicas = _REPLICAS.search(text)
    if kind == "deployment" and replicas:
        # The controller names its pods NAME-1, NAME-2, … (what expectations refer to).
        for i in range(1, min(int(replicas.group(1)), 100) + 1):
            out.declared.append(Declared("pod", f"{full}-{i}", line, col0 + m.start(3),
                                         col0 + m.end(3), text.strip()))


#: An included file longer than this is not searched for a name's definition.
SEARCH_LIMIT = 16 * 2**20


def in_files(name: str, files: list[Path]) -> tuple[Path, int, int] | None:
    """Where a Kubernetes file among ``files`` gives an object ``metadata.name: NAME``.

    ``name`` may carry a namespace (``shop/checkout``): a line naming it too
    is preferred (a flow mapping ``{name: checkout, namespace: shop}``).  The
    result is (file, 0-based line, column of the name).
    """
    namespace, _, bare = name.rpartition("/")
    pattern = re.compile(r"""(?:^\s*(?:-\s+)?|[{,]\s*|")name"?:\s*["']?("""
                         + re.escape(bare) + r""")["']?\s*(?:[,}]|$)""")
    in_namespace = re.compile(rf"""namespace"?:\s*["']?{re.escape(namespace)}\b""")
    first: tuple[Path, int, int] | None = None
    for path in files:
        try:
            if path.stat().st_size > SEARCH_LIMIT:
                continue
            with path.open(encoding="utf-8", errors="replace") as f:
                for n, text in enumerate(f):
                    m = pattern.search(text)
                    if m is None:
                        continue
                    if not namespace or in_namespace.search(text):
                        return path, n, m.start(1)
                    first = first or (path, n, m.start(1))
        except OSError:
            continue
    return first
