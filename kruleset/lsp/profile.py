"""Profiles (``kruleset run --profile FILE.yaml``) in the editor: their errors and rule names.

A YAML document is a profile when a line starts ``rulesets:`` or
``settings:``; any other YAML file gets nothing from the server.  A profile
is checked by :func:`kruleset.rules.profile.load_profile`, as ``run
--profile`` reads it, from a copy of the editor's text; its errors name no
line, so each is placed on the first line quoting the name it refuses.
"""

from __future__ import annotations

import os
import re
import tempfile

from ..errors import ScenarioError
from .check import ERROR, Diag, diag_text
from .complete import REFERENCE, Item
from .words import rule_names

__all__ = ["check_profile", "is_profile", "is_yaml", "profile_completions"]

_TOP = re.compile(r"^(?:rulesets|settings):", re.M)
_QUOTED = re.compile(r"'([^']+)'")
_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'\?")


def is_yaml(path: str) -> bool:
    return path.endswith((".yaml", ".yml"))


def is_profile(text: str) -> bool:
    return _TOP.search(text) is not None


def check_profile(text: str, path: str) -> list[Diag]:
    """The errors ``kruleset run --profile`` gives for profile ``text`` named ``path``."""
    from ..rules.profile import load_profile

    fd, copy = tempfile.mkstemp(suffix=".yaml", prefix="kruleset-profile-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        load_profile(copy)
        return []
    except ScenarioError as e:
        e.message = e.message.replace(copy, path)
        return [_placed(e, text, path)]
    finally:
        os.unlink(copy)


def _placed(e: ScenarioError, text: str, path: str) -> Diag:
    lines = text.split("\n")
    quoted = [m.group(1) for m in _QUOTED.finditer(e.message)]
    for word in reversed(quoted):  # the last quoted name is the one refused
        for n, line in enumerate(lines):
            col = line.find(word)
            if col >= 0 and not line.lstrip().startswith("#"):
                found = _DID_YOU_MEAN.search(e.suggestion)
                return Diag(path, n, col, n, col + len(word), ERROR, diag_text(e),
                            found.group(1) if found else "")
    return Diag(path, 0, 0, 0, len(lines[0]), ERROR, diag_text(e))


def profile_completions() -> list[Item]:
    """Every rule set's and rule's name, with its doc."""
    return [Item(name, REFERENCE, doc) for name, (doc, _) in rule_names().items()]
