"""A small, strict TAP version 14 parser for the tests (testanything.org/tap-version-14).

Strict where TAP 14 is lenient: every line must be the version, the plan, a
test point, a YAML diagnostic block right after a point, a comment, a blank
line or ``Bail out!``; anything else is an error, so stray output in the
stream fails the test.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import yaml

_POINT = re.compile(r"^(?P<ok>not ok|ok)(?: (?P<num>\d+))?(?: -)?(?: (?P<rest>.*))?$")
_PLAN = re.compile(r"^1\.\.(?P<n>\d+)(?: # .*)?$")


@attrs.define
class Point:
    ok: bool
    number: int
    description: str
    directive: str = ""
    diagnostic: dict[str, Any] | None = None


@attrs.define
class Tap:
    points: list[Point]
    plan: int | None
    bailed: str | None


class TapError(ValueError):
    pass


def _split(rest: str) -> tuple[str, str]:
    """The description (unescaped) and the directive after an unescaped ``#``."""
    out, i = [], 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\" and i + 1 < len(rest) and rest[i + 1] in "\\#":
            out.append(rest[i + 1])
            i += 2
            continue
        if ch == "#":
            return "".join(out).rstrip(), rest[i + 1:].strip()
        out.append(ch)
        i += 1
    return "".join(out), ""


def parse(text: str) -> Tap:
    """Parse a TAP 14 document; raise TapError on anything it does not allow."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "TAP version 14":
        raise TapError(f"first line must be 'TAP version 14', got {lines[:1]!r}")
    points: list[Point] = []
    plan: int | None = None
    plan_at: int | None = None
    bailed: str | None = None
    i = 1
    while i < len(lines):
        line = lines[i]
        if bailed is not None:
            raise TapError(f"line {i + 1}: output after Bail out!")
        if m := _PLAN.match(line):
            if plan is not None:
                raise TapError(f"line {i + 1}: a second plan")
            plan, plan_at = int(m["n"]), len(points)
        elif m := _POINT.match(line):
            if plan is not None and plan_at:
                raise TapError(f"line {i + 1}: a test point after a trailing plan")
            number = int(m["num"]) if m["num"] else len(points) + 1
            if number != len(points) + 1:
                raise TapError(f"line {i + 1}: test {number} out of sequence")
            desc, directive = _split(m["rest"] or "")
            point = Point(m["ok"] == "ok", number, desc, directive)
            if i + 1 < len(lines) and lines[i + 1] == "  ---":
                end = next((j for j in range(i + 2, len(lines)) if lines[j] == "  ..."), None)
                if end is None:
                    raise TapError(f"line {i + 2}: YAML block never closed with '  ...'")
                body = "\n".join(line[2:] if line.startswith("  ") else "\0"
                                 for line in lines[i + 2:end])
                if "\0" in body:
                    raise TapError(f"line {i + 2}: YAML block lines must be indented by 2")
                data = yaml.safe_load(body)
                if not isinstance(data, dict):
                    raise TapError(f"line {i + 2}: a YAML block must be a mapping")
                point.diagnostic = data
                i = end
            points.append(point)
        elif line.startswith("Bail out!"):
            bailed = line[len("Bail out!"):].strip()
        elif line.startswith("#") or not line.strip():
            pass
        else:
            raise TapError(f"line {i + 1}: not TAP: {line!r}")
        i += 1
    if bailed is None:
        if plan is None:
            raise TapError("no plan")
        if plan != len(points):
            raise TapError(f"plan 1..{plan} but {len(points)} test points")
    return Tap(points, plan, bailed)
