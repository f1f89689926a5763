"""What users read as a rule's source names upstream code and documentation pages,
never the numbering of the documents the project was built from."""

from __future__ import annotations

import json
import re

import pytest

from kruleset.cli import main
from kruleset.rules.registry import rulesets
from kruleset.rules.sources import DOCS, user_source


@pytest.mark.parametrize(("source", "shown"), [
    ("seed 003 §13; eviction.go canIgnorePDB",
     "eviction.go canIgnorePDB; kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/"),
    ("seed 003 §6.3, §6.5; taint_eviction.go getMinTolerationTime",
     "taint_eviction.go getMinTolerationTime; "
     "kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"),
    ("seed 003 §3, §10; fit.go",
     "fit.go; kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/; "
     "kubernetes.io/docs/concepts/scheduling-eviction/resource-bin-packing/"),
    # a walk-through document is dropped when upstream code is named...
    ("seed 002 §6; preemption.go pickOneNodeForPreemption (criterion 4)",
     "preemption.go pickOneNodeForPreemption (criterion 4)"),
    # ...and said as the code it follows when nothing else is
    ("seed 001 reclaimNodeLevelResources; seed 003 §12.5",
     "pkg/kubelet/eviction eviction_manager.go reclaimNodeLevelResources; "
     "kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/"),
    ("seed 004", "kubernetes-sigs/scheduler-plugins pkg/capacityscheduling"),
    ("pkg/scheduler/util MoreImportantPod", "pkg/scheduler/util MoreImportantPod"),
])
def test_user_source(source: str, shown: str) -> None:
    assert user_source(source) == shown


def test_every_chapter_has_a_page() -> None:
    assert all(url.startswith("kubernetes.io/docs/concepts/scheduling-eviction/")
               and url.endswith("/") for url in DOCS.values())


NUMBERING = re.compile(r"\bseed\b|§", re.IGNORECASE)


def test_no_rule_shows_the_documents_numbering(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    text = capsys.readouterr().out
    assert "source: " in text and not NUMBERING.search(text)
    assert main(["rules", "--format", "json"]) == 0
    shown = [r["source"] for rs in json.loads(capsys.readouterr().out) for r in rs["rules"]]
    assert len(shown) == sum(len(rs.rules) for rs in rulesets())
    assert all(s and not NUMBERING.search(s) for s in shown)
    # every rule kruleset ships still names upstream code or a documentation page (other
    # tests may register rules of their own in this process)
    shipped = [user_source(r.source) for rs in rulesets() for r in rs.rules
               if getattr(r.fn, "__module__", "").startswith("kruleset.")]
    assert len(shipped) > 50
    assert all(re.search(r"\.go\b|pkg/|kubernetes\.io/|upstream", s) for s in shipped), [
        s for s in shipped if not re.search(r"\.go\b|pkg/|kubernetes\.io/|upstream", s)]
