"""The fast paths are typed implementations chosen once, at the composition root.

Each option of ``FastPaths`` chooses at least one implementation of
``rules/scheduler/paths.py``'s ``Paths`` (the kubelet's ``quiet_kubelet`` too:
the simulation's kubelets read it from ``paths_for``), every option off is the
reference alone, the context carries what its ``fast`` chose, and no
string-named hook is left.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from kruleset.model.state import ClusterState
from kruleset.rules.profile import Profile
from kruleset.rules.scheduler.framework import ALL_FAST, FastPaths, ScheduleContext
from kruleset.rules.scheduler.paths import REFERENCE, Paths, paths_for

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = [f.name for f in attrs.fields(FastPaths)]


@pytest.mark.parametrize("option", OPTIONS)
def test_each_option_chooses_its_implementations(option: str) -> None:
    on, off = paths_for(ALL_FAST), paths_for(attrs.evolve(ALL_FAST, **{option: False}))
    changed = [f.name for f in attrs.fields(Paths)
               if getattr(on, f.name) is not None and getattr(off, f.name) is None]
    assert changed, f"FastPaths.{option} chooses nothing"
    assert all(getattr(off, f.name) == getattr(on, f.name) or f.name in changed
               for f in attrs.fields(Paths))


def test_every_option_off_is_the_reference() -> None:
    off = FastPaths(**{f.name: False for f in attrs.fields(FastPaths)})
    assert paths_for(off) == REFERENCE
    assert paths_for(None) is REFERENCE
    assert all(getattr(paths_for(ALL_FAST), f.name) is not None for f in attrs.fields(Paths))


def test_the_context_carries_what_its_option_chose() -> None:
    ctx = ScheduleContext(ClusterState(), Profile.default())
    assert ctx.paths is paths_for(ALL_FAST)
    ctx.fast = attrs.evolve(ALL_FAST, victims=False)
    assert ctx.paths.victim_judge is None and ctx.paths.search is not None


def test_no_string_named_fast_path_hook_is_left() -> None:
    assert not (ROOT / "kruleset/rules/scheduler/dispatch.py").exists()
    for path in sorted((ROOT / "kruleset").rglob("*.py")):
        text = path.read_text()
        for word in (r"\bchosen\(ctx", r"\bchosen_by\(", r"@fast_path\b", r"\bfast_path\("):
            assert not re.search(word, text), f"{path.relative_to(ROOT)}: {word}"
