"""What the editor tells the server when it starts (``initializationOptions``).

``{"cluster": {"GLOB": ["FILE", …], …}}``: the Kubernetes files declared
under each ``.kr`` file whose path (relative to the workspace) matches GLOB,
as ``kruleset run --cluster FILE`` declares them, for scenarios written
against a cluster dump (``examples/whatifs/*.kr``).  ``{"cluster": ["FILE"]}``
declares them under every file.  Paths are relative to the workspace root.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import attrs

__all__ = ["Settings"]


@attrs.frozen(slots=True)
class Settings:
    root: Path | None = None
    clusters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    problems: tuple[str, ...] = ()   # what was not understood, told to the user

    @classmethod
    def read(cls, root: str | None, options: Any) -> Settings:
        base = Path(root) if root else None
        cluster = options.get("cluster") if isinstance(options, dict) else None
        if cluster is None:
            return cls(base)
        if isinstance(cluster, list):
            cluster = {"**": cluster}
        if not isinstance(cluster, dict) or not all(
                isinstance(k, str) and isinstance(v, list) and all(isinstance(f, str) for f in v)
                for k, v in cluster.items()):
            return cls(base, problems=(
                'kruleset: initializationOptions.cluster: expected {"GLOB": ["FILE", …]} or '
                '["FILE", …]; ignored',))
        return cls(base, tuple((glob, tuple(files)) for glob, files in cluster.items()))

    def clusters_for(self, path: str) -> tuple[str, ...]:
        """The cluster files declared under the ``.kr`` file at ``path``."""
        if not self.clusters:
            return ()
        base = self.root or Path.cwd()
        where = Path(path)
        try:
            shown = where.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            shown = where.as_posix()
        out: list[str] = []
        for glob, files in self.clusters:
            if glob == "**" or fnmatch.fnmatchcase(shown, glob):
                out.extend(str((base / f).resolve()) for f in files)
        return tuple(dict.fromkeys(out))
