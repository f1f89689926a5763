"""Differential test: pod attributes read once per distinct text give what reading each line gives.

A large cluster repeats a few attribute texts on thousands of ``pods … on
NODE`` lines; the parser reads a text once and builds the next line's first
pod from the pod it made then (``declarations._pods``, ``Pod.declared_as``).
Here files drawing their lines' attributes from a small pool (priority
classes, runtime classes, critical, static, blocks, timeline creations and
deletions of the classes they name) are read with that on and off: the
scenario's pods (every field), the simulation's decisions, and a refused
file's message must be the same.
"""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

import kruleset
from kruleset.lang import declarations
from kruleset.model.objects import Pod

POOL = (
    "requests(cpu=100m, memory=500Mi) labels(app=a)",
    "requests(cpu=100m, memory=500Mi) labels(app=b)",
    "cpu=250m",
    "",
    "priorityclass=high requests(cpu=1)",
    "priority=1000 priorityclass=high",
    "critical requests(cpu=10m)",
    "priorityclass=system-node-critical",
    "runtimeclass=kata cpu=100m",
    "static cpu=50m",
    "limits(cpu=2, memory=1Gi) usage(memory=100Mi)",
    "tolerations(k:NoExecute for 60s) grace-period=5s",
    "labels(app=c) {\n  container c requests(cpu=1)\n}",
    "priority=5 critical",  # the last three are refused
    "priorityclass=missing",
    "labels(app=a) requests(cpu=1, memory=1Gi) limits(cpu=500m)",
)


def scenario(seed: int) -> str:
    rng = random.Random(seed)
    lines = [f'scenario "repeated {seed}"', "runtimeclass kata overhead(cpu=10m)",
             "nodes node-[1..4] cpu=8 memory=32Gi"]
    if rng.random() < 0.85:
        lines.append("priorityclass high value=1000")
    n = 0
    for _ in range(rng.randint(2, 8)):
        n += 1
        on = f" on node-{rng.randint(1, 4)}" if rng.random() < 0.8 else ""
        kind, ref = rng.choice([("pods", f"p{n}-[1..{rng.randint(1, 4)}]"), ("pod", f"q{n}")])
        attributes = rng.choice(POOL[:-3] if rng.random() < 0.9 else POOL)
        if not on and attributes.startswith("static"):
            attributes = attributes.replace("static ", "")
        lines.append(f"{kind} {ref}{on} {attributes}".rstrip())
    if rng.random() < 0.5:
        lines.append("at 1s delete priorityclass high" if "priorityclass high value=1000" in lines
                     else "at 1s create priorityclass high value=7")
        for _ in range(rng.randint(1, 3)):
            n += 1
            lines.append(f"at 2s create pods t{n}-[1..2] on node-1 {rng.choice(POOL[:6])}"
                         .rstrip())
    return "\n".join(lines) + "\n"


def _fields(pod: Pod) -> list[Any]:
    # The containers as read (pods of one attribute text share a NamedAfterPod).
    names = ("containers" if f.name == "container_spec" else f.name for f in attrs.fields(Pod))
    return [(name, getattr(pod, name)) for name in names
            if name not in ("span", "range_head")] + [("line", pod.span.line)]


def _read(text: str, reuse: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    if not reuse:
        monkeypatch.setattr(declarations, "_reusable", lambda spec: False)
    try:
        sc = kruleset.load(text)
    except kruleset.ScenarioError as err:
        return "refused", str(err)
    finally:
        monkeypatch.undo()
    created = [e.action.obj for e in sc.events if isinstance(getattr(e.action, "obj", None), Pod)]
    pods = [_fields(o) for o in (*sc.objects, *created) if isinstance(o, Pod)]
    try:
        result = kruleset.run(sc)
    except kruleset.ScenarioError as err:  # a refusal found when simulating
        return pods, str(err)
    return pods, [d.to_json() for d in result.decisions]


@pytest.mark.parametrize("seed", range(80))
def test_reading_an_attribute_text_once_changes_nothing(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


def test_a_repeated_text_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = declarations.read_pod

    def counting(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(declarations, "read_pod", counting)
    lines = ["nodes n-[1..50] cpu=8"] + [
        f"pods p{i}-[1..3] on n-{i} requests(cpu=100m) labels(app=a{i % 2})" for i in range(1, 51)]
    sc = kruleset.load("\n".join(lines) + "\n")
    assert len(calls) == 2  # one per distinct text
    firsts = [o for o in sc.objects if isinstance(o, Pod) and o.range_head is None]
    assert [p.node_name for p in firsts] == [f"n-{i}" for i in range(1, 51)]
    assert [p.containers[0].name for p in firsts] == [f"p{i}-1" for i in range(1, 51)]
    assert all(p.span.line == i + 1 for i, p in enumerate(firsts, start=1))


def test_a_class_named_in_the_text_is_looked_up_on_each_line() -> None:
    text = ("node n cpu=1\npods a-[1..2] on n priorityclass=high\n"
            "priorityclass high value=5\npods b-[1..2] on n priorityclass=high\n")
    sc = kruleset.load(text)  # classes are declared before pods, wherever written
    assert {o.priority_class for o in sc.objects if isinstance(o, Pod)} == {"high"}
    with pytest.raises(kruleset.ScenarioError, match="unknown priority class 'high'"):
        kruleset.load("node n cpu=1\nat 1s create pods a-[1..2] on n priorityclass=high\n")
