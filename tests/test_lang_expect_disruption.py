"""The expect forms of disruption (LANGUAGE.md §7): PDB status, eviction messages, drain
verdicts, and always/never windows — what they read into, and what they refuse."""

from __future__ import annotations

import pytest

from kruleset.errors import ScenarioError
from kruleset.lang import parse_text

HEAD = ("node n1 cpu=4 memory=8Gi\ndeployment web replicas=2 labels(app=web)\n"
        "pdb p selector(app=web) min-available=1\n")


def forms(text: str) -> list[tuple[str, str, str, dict[str, object]]]:
    s = parse_text(HEAD + text, "t.kr")
    return [(e.form, e.ref, e.state, dict(e.args)) for e in s.expectations]


def refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_text(HEAD + text, "t.kr")
    return info.value


def test_forms() -> None:
    got = forms(
        "expect pdb p disruptions-allowed=1 current-healthy=2 desired-healthy=1 expected-pods=2 "
        "disrupted-pods=0 condition=SufficientPods\n"
        'expect pdb p condition=SyncFailed message="found no controllers"\n'
        "at 1s evict pod web-1\n"
        'expect eviction web-1 status 429 message="needs 1 healthy pods"\n'
        "at 2s drain node n1\n"
        "expect drain n1 complete\n"
        "expect drain n1 blocked by web-2\n"
        "expect drain n1 failed\n"
        "expect always pods web-* ready count>=1 from 0s to 10m\n"
        "expect never pods shop/app=web running count<1 from 1m30s to 2m\n"
        "expect pods app=web ready count!=0\n"
        "expect pods app.kubernetes.io/name=web ready count=0\n"
        "expect pods shop/app.kubernetes.io/name=web ready count=0\n")
    assert got == [
        ("pdb-status", "default/p", "", {
            "fields": {"disruptions-allowed": 1, "current-healthy": 2, "desired-healthy": 1,
                       "expected-pods": 2, "disrupted-pods": 0},
            "condition": "SufficientPods", "value": 1}),
        ("pdb-status", "default/p", "", {"fields": {}, "condition": "SyncFailed",
                                         "message": "found no controllers"}),
        ("eviction-status", "default/web-1", "", {"status": 429,
                                                  "message": "needs 1 healthy pods"}),
        ("drain", "n1", "", {"verdict": "complete"}),
        ("drain", "n1", "", {"verdict": "blocked", "by": "default/web-2"}),
        ("drain", "n1", "", {"verdict": "failed"}),
        ("pods-count", "default/web-*", "ready",
         {"window": ("always", 0, 600_000), "op": ">=", "count": 1}),
        ("pods-count", "shop/*", "running",
         {"window": ("never", 90_000, 120_000), "labels": {"app": "web"}, "op": "<",
          "count": 1}),
        ("pods-count", "*/*", "ready", {"labels": {"app": "web"}, "op": "!=", "count": 0}),
        ("pods-count", "*/*", "ready", {"labels": {"app.kubernetes.io/name": "web"}, "count": 0}),
        ("pods-count", "shop/*", "ready", {"labels": {"app.kubernetes.io/name": "web"},
                                           "count": 0}),
    ]


def test_window_text_is_the_whole_statement() -> None:
    s = parse_text(HEAD + "expect always pods web-* ready count>=1 from 0s to 10m\n", "t.kr")
    assert s.expectations[0].text == "expect always pods web-* ready count>=1 from 0s to 10m"
    assert s.expectations[0].time is None


@pytest.mark.parametrize(("text", "message", "line", "column"), [
    ("expect pdb p\n", "expect pdb needs at least one status field", 4, 13),
    ("expect pdb p healthy=1\n", "unknown pdb status field 'healthy'", 4, 14),
    ("expect pdb p current-healthy=-1\n", "current-healthy", 4, 30),
    ("expect pdb p condition=Fine\n", "unknown DisruptionAllowed condition reason 'Fine'", 4, 24),
    ("expect pdb p message=found\n", 'message is a string here: message="TEXT"', 4, 22),
    ("expect pdb p expected-pods=1 expected-pods=2\n", "'expected-pods' is given twice", 4, 30),
    ("at 1s evict pod web-1\nexpect eviction web-1 status 429 msg=x\n", "expected message=…",
     5, 34),
    ("expect drain n1 complete\n", "no 'drain node n1' statement comes before", 4, 14),
    ("at 1s drain node n1\nexpect drain n1 finished\n", "unknown drain verdict 'finished'",
     5, 17),
    ("at 1s drain node n1\nexpect drain n9 complete\n", "unknown node 'n9'", 5, 14),
    ("expect always pods web-* ready count>=1\n", "'expect always' ends with 'from T1 to T2'",
     4, 40),
    ("expect never pods web-* ready count=1 from 2m to 1m\n", "the window ends (1m) before it "
     "starts (2m)", 4, 50),
    ("at 1m expect always pods web-* ready count=1 from 0s to 1m\n",
     "'expect always' has its own times", 4, 14),
    ("expect always victims of web-1 = [] from 0s to 1m\n", "is not a state that holds", 4, 15),
    ("expect pods web-* ready count=>1\n", "count must be a whole number, found '>1'", 4, 31),
    ("expect pods web-* ready cnt=1\n", "expected count=… (or count>=…, count<=…)", 4, 25),
    ("expect pods web-* ready count>=\n", "missing number after 'count>='", 4, 25),
    ("expect pods app=Web! ready count=1\n", "'Web!' is not a valid label value", 4, 13),
])
def test_refusals(text: str, message: str, line: int, column: int) -> None:
    err = refused(text)
    assert message in err.message, err.render()
    assert (err.line, err.column) == (line, column), err.render()
