"""The JSON report (DESIGN.md): stable; fields may be added, never renamed."""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError
from ..sim.result import Result

__all__ = ["file_entry", "report"]

VERSION = 1


def file_entry(path: str, status: str, *, result: Result | None = None,
               error: ScenarioError | None = None, message: str = "") -> dict[str, Any]:
    """One entry of ``files``."""
    err: dict[str, Any] | None = None
    if error is not None:
        err = error.to_json()
    elif message:
        err = {"line": 0, "column": 0, "message": message}
    return {
        "path": path,
        "status": status,
        "error": err,
        "expectations": [r.to_json() for r in result.expectations] if result else [],
        "decisions": [d.to_json() for d in result.decisions] if result else [],
        "claims": _claims(result),
    }


def _claims(result: Result | None) -> list[dict[str, Any]]:
    """DRA: each ResourceClaim's allocation and reservations at the end of the run."""
    if result is None or getattr(result.state, "dra", None) is None:
        return []
    from ..rules.dra.checks import claims_json

    return claims_json(result.state)


def report(files: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole report."""
    return {"version": VERSION, "files": files}
