"""What ``run`` and ``check`` accept as files: ``.kr``, Kubernetes dumps, ``-`` for stdin.

A kubectl user's first try is ``kruleset run cluster.yaml`` or
``kubectl get -A -o json | kruleset run -``.  A file whose name ends in
``.yaml``, ``.yml`` or ``.json`` is a dump run as a scenario of its own: its
objects are declared (as ``include`` would), the cluster settles (the
controllers create what the workloads miss, the scheduler places what is
pending) and the report says where every pod ended and why the pending ones
are pending.  ``-`` reads stdin once; what it holds is told apart by content
(JSON starts with ``{`` or ``[``, YAML has a ``key:`` line or ``---``,
anything else is ``.kr`` text).  ``--cluster FILE`` (``-`` for stdin) is
declared under every ``.kr`` file of the run, before its first statement.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from .errors import ScenarioError, Span

__all__ = ["STDIN", "STDIN_LABEL", "Inputs", "is_dump", "load_clusters", "load_input",
           "prepare_inputs", "runs_as_dump", "sniff"]

STDIN = "-"
#: How reports and messages name what was read from stdin.
STDIN_LABEL = "<stdin>"
DUMP_SUFFIXES = (".yaml", ".yml", ".json")
_YAML_KEY = re.compile(r"^(---|[A-Za-z_][\w.-]*:(\s|$))", re.MULTILINE)


def sniff(text: str) -> str:
    """``json``, ``yaml`` or ``kr``: what stdin holds, by its content."""
    body = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith("#"))
    head = body.lstrip()
    if head.startswith(("{", "[")):
        return "json"
    if _YAML_KEY.search(body):
        return "yaml"
    return "kr"


def is_dump(path: str) -> bool:
    """Whether ``path`` names a Kubernetes file (run as a scenario of its own)."""
    return path.lower().endswith(DUMP_SUFFIXES)


@attrs.frozen(slots=True)
class Inputs:
    """Where stdin went (a temporary file) and the ``--cluster`` files, for every file.

    Picklable: it reaches ``-j`` worker processes inside the file options.
    """

    stdin_path: str | None = None       # the temporary copy of stdin
    clusters: tuple[tuple[str, str], ...] = ()  # (path, name shown)

    @property
    def labels(self) -> dict[str, str]:
        """Messages name stdin's copy as stdin."""
        return {self.stdin_path: STDIN_LABEL} if self.stdin_path else {}


@contextmanager
def prepare_inputs(files: Sequence[str], clusters: Sequence[str],
                   stdin: Any = None) -> Iterator[tuple[list[str], Inputs]]:
    """The files to run (stdin named :data:`STDIN_LABEL`) and their :class:`Inputs`.

    Stdin (``-`` once, among the files or the ``--cluster`` files) is copied
    to a temporary file that lives as long as the context, named for what it
    holds (``.json``, ``.yaml`` or ``.kr``).  Raises ScenarioError when ``-``
    is given twice or a ``--cluster`` file is missing.
    """
    uses = sum(1 for f in (*files, *clusters) if f == STDIN)
    if uses > 1:
        raise ScenarioError("'-' (stdin) is given more than once; stdin can be read once",
                            Span(STDIN, 0, 0, ""),
                            suggestion="save one of the inputs to a file")
    for c in clusters:
        if c != STDIN and not Path(c).is_file():
            raise ScenarioError(f"--cluster {c}: no such file", Span(c, 0, 0, ""),
                                suggestion="give a kubectl get -o yaml|json dump, or - "
                                           "for stdin")
    with tempfile.TemporaryDirectory(prefix="kruleset-") as folder:
        stdin_path = None
        if uses:
            text = (stdin or sys.stdin).read()
            kind = sniff(text)
            if STDIN in clusters and kind == "kr":
                raise ScenarioError("--cluster -: stdin holds no Kubernetes objects "
                                    "(neither YAML nor JSON)", Span(STDIN_LABEL, 0, 0, ""),
                                    suggestion="pipe kubectl get -A -o json")
            stdin_path = os.path.join(folder, f"stdin.{kind}")
            with open(stdin_path, "w", encoding="utf-8") as out:
                out.write(text)
        shown = [STDIN_LABEL if f == STDIN else f for f in files]
        cluster_files = tuple(
            (stdin_path, STDIN_LABEL) if c == STDIN and stdin_path else (c, c)
            for c in clusters)
        yield shown, Inputs(stdin_path, cluster_files)


def exists(path: str, inputs: Inputs | None) -> bool:
    """Whether ``path`` (as a report names it) can be read."""
    if path == STDIN_LABEL:
        return inputs is not None and inputs.stdin_path is not None
    return Path(path).is_file()


def load_clusters(inputs: Inputs, *, allow_unknown_fields: bool = False) -> Any:
    """A scenario of the ``--cluster`` files alone (``kruleset capacity --cluster``)."""
    from . import api
    from .lang.loader import CLUSTER_FILES
    from .manifests.documents import FILE_LABELS

    labels = FILE_LABELS.set(inputs.labels)
    files = CLUSTER_FILES.set(inputs.clusters)
    try:
        scenario = api.load("", file=", ".join(name for _, name in inputs.clusters),
                            allow_unknown_fields=allow_unknown_fields)
    finally:
        CLUSTER_FILES.reset(files)
        FILE_LABELS.reset(labels)
    return scenario


def runs_as_dump(path: str, inputs: Inputs | None) -> bool:
    """Whether ``path`` (as a report names it) was run as a dump."""
    if path == STDIN_LABEL and inputs is not None and inputs.stdin_path is not None:
        return is_dump(inputs.stdin_path)
    return is_dump(path)


def load_input(path: str, inputs: Inputs | None, *, allow_unknown_fields: bool = False) -> Any:
    """The Scenario of ``path``: a ``.kr`` file, a dump, or stdin (named :data:`STDIN_LABEL`)."""
    from . import api
    from .lang.loader import CLUSTER_FILES
    from .manifests.documents import FILE_LABELS

    inputs = inputs or Inputs()
    real = path
    if path == STDIN_LABEL and inputs.stdin_path is not None:
        real = inputs.stdin_path
    dump = is_dump(real)
    clusters = inputs.clusters
    if dump:
        # A dump is a scenario of its own; the --cluster files are for .kr files.
        clusters = ((real, path),)
    labels = FILE_LABELS.set(inputs.labels)
    files = CLUSTER_FILES.set(clusters)
    try:
        if dump:
            scenario = api.load("", file=path, allow_unknown_fields=allow_unknown_fields)
            return attrs.evolve(scenario, title=f"{Path(path).name} as it settles")
        if real != path:  # .kr text from stdin: paths in it are relative to here
            text = Path(real).read_text(encoding="utf-8")
            return api.load(text + ("" if "\n" in text else "\n"), file=path,
                            allow_unknown_fields=allow_unknown_fields)
        return api.load(path, allow_unknown_fields=allow_unknown_fields)
    finally:
        CLUSTER_FILES.reset(files)
        FILE_LABELS.reset(labels)
