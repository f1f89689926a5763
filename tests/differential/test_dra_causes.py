"""The causes of disagreement of issue "DRA over its whole v1.35 surface", one case each.

kruleset's first attempt of every incoming pod must decide as kube-scheduler
v1.35.4 decided (node, message word for word, devices per claim); with the
oracle present (``../shared/oracle/bin/kr-oracle`` or ``$KRULESET_ORACLE``) the
whole run is compared with it too.
"""

from __future__ import annotations

import pytest

from .dra_causes import CASES
from .dra_verdict import dra_check
from .kr_side import run_kruleset
from .oracle import find_oracle


@pytest.mark.parametrize("name", sorted(CASES))
def test_kruleset_decides_as_v1_35(name: str) -> None:
    build, want = CASES[name]
    first: dict[str, tuple[str, str, dict[str, list[str]]]] = {}
    for a in run_kruleset(build()):
        first.setdefault(a.pod, (a.node, a.message, a.allocations))
    assert first == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_oracle_agrees(name: str) -> None:
    binary, why = find_oracle()
    if binary is None:
        pytest.skip(why)
    verdict = dra_check(binary, CASES[name][0](), reruns=0)
    assert verdict.outcome == "agree", verdict.details
