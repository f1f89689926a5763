"""Differential test: a ``pods`` range's copied pods are the pods ``make`` builds one by one.

The parser builds the first pod of a range and copies it for the others
(``PodSpec.renamer``).  Here ranges with varied attributes and blocks are
parsed both ways and every field of every pod is compared, derived facts
included, with the scenario's other results (decisions of a simulation).
"""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

import kruleset
from kruleset.lang.pods import PodSpec
from kruleset.model.objects import Pod
from kruleset.sim.core import Simulation

SEEDS = range(60)


def _attrs(rng: random.Random) -> str:
    parts = []
    block = []
    if rng.random() < 0.3:
        block.append("container app requests(cpu=200m) limits(cpu=1)")
        if rng.random() < 0.5:
            block.append("container side requests(memory=10Mi)")
    else:
        if rng.random() < 0.5:
            parts.append(f"requests(cpu={rng.choice([100, 500])}m, "
                         f"memory={rng.choice([64, 500])}Mi)")
        elif rng.random() < 0.5:
            parts.append(f"cpu={rng.choice(['100m', '1'])}")
        if rng.random() < 0.3:
            parts.append("limits(cpu=2, memory=1Gi)")
    if rng.random() < 0.3:
        parts.append(f"labels(app={rng.choice('abc')}, tier=x)")
    if rng.random() < 0.3:
        parts.append(f"priority={rng.choice([0, 10, 1000])}")
    elif rng.random() < 0.2:
        parts.append("priorityclass=high")
    if rng.random() < 0.3:
        parts.append("usage(memory=100Mi, pids=10)")
    if rng.random() < 0.2:
        parts.append("tolerations(dedicated=x:NoSchedule, key:NoExecute for 60s)")
    if rng.random() < 0.2:
        parts.append("node-selector(zone=a)")
    if rng.random() < 0.2:
        parts.append("grace-period=5s started=-3s")
    if rng.random() < 0.1:
        parts.append("not-ready")
    if rng.random() < 0.1:
        parts.append("besteffort" if not parts else "gates(example.com/g)")
    if rng.random() < 0.2:
        block.append("init-container init requests(cpu=1)")
    if rng.random() < 0.2:
        block.append("emptydir cache size-limit=1Gi usage=10Mi")
    if rng.random() < 0.2:
        block.append("affinity node required zone=a")
    if rng.random() < 0.2:
        block.append("anti-affinity pod required app=a topology=kubernetes.io/hostname")
    text = " ".join(parts)
    if block:
        text += " {\n  " + "\n  ".join(block) + "\n}"
    return text


def scenario(seed: int) -> str:
    """Ranges with varied pod attributes, on nodes or pending."""
    rng = random.Random(seed)
    lines = [f'scenario "ranges {seed}"', "priorityclass high value=1000",
             "nodes node-[1..3] cpu=8 memory=32Gi labels(zone=a)"]
    for i in range(rng.randint(1, 4)):
        on = f" on node-{rng.randint(1, 3)}" if rng.random() < 0.6 else ""
        ns = rng.choice(["", "default/", "team/"])
        if ns == "team/" and "namespace team" not in lines:
            lines.append("namespace team")
        lo = rng.choice([1, 7, 98])
        lines.append(f"pods {ns}r{i}-[{lo}..{lo + rng.randint(0, 5)}]{on} {_attrs(rng)}")
    return "\n".join(lines) + "\n"


def _fields(pod: Pod) -> list[Any]:
    # range_head says which pods are copies (checked on its own below); the
    # containers are compared as read (copies share one NamedAfterPod).
    return [(name, type(getattr(pod, name)), getattr(pod, name))
            for name in ("containers" if f.name == "container_spec" else f.name
                         for f in attrs.fields(Pod)) if name != "range_head"]


def _load(text: str, copy: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    if not copy:
        def renamer(self: PodSpec, first: Pod) -> Any:
            return lambda namespace, name: self.make(namespace, name, node_name=first.node_name,
                                                     span=first.span)

        monkeypatch.setattr(PodSpec, "renamer", renamer)
    try:
        sc = kruleset.load(text)
    finally:
        monkeypatch.undo()
    pods = [_fields(o) for o in sc.objects if isinstance(o, Pod)]
    heads = [o.range_head.key if o.range_head is not None else None
             for o in sc.objects if isinstance(o, Pod)]
    if not copy:
        assert heads == [None] * len(heads)  # every pod built alone: created one at a time
    else:  # each copy names its range's first pod, which the simulation builds on
        firsts = {o.span.line: o.key for o in sc.objects
                  if isinstance(o, Pod) and o.range_head is None}
        assert heads == [None if h is None else firsts[o.span.line]
                         for h, o in zip(heads, (o for o in sc.objects if isinstance(o, Pod)),
                                         strict=True)]
    sim = Simulation(sc, trace=True)
    result = sim.run()
    trace = [repr(e) for e in result.trace.entries]
    st = sim.state
    states = [(k, ps.seq, ps.node, ps.phase, ps.start_time, ps.usage, ps.ready,
               _fields(ps.pod)) for k, ps in st.pods.items()]
    nodes = [(n, ns.requested.freeze(), ns.nonzero.freeze(), list(ns.pods))
             for n, ns in st.nodes.items()]
    totals = {ns: t.freeze() for ns, t in st.ns_bound.items()}
    return (pods, [d.to_json() for d in sim.decisions], trace, states, nodes, totals,
            sim.version)


@pytest.mark.parametrize("seed", SEEDS)
def test_range_copies_are_the_pods_make_builds(seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    made = _load(text, False, monkeypatch)
    copied = _load(text, True, monkeypatch)
    assert copied == made


@pytest.mark.parametrize(("text", "message"), [
    ("pods a-[1..3]\npods a-[3..5]\n", "pod 'default/a-3' is already declared (line 1)"),
    ("pod a-2\npods a-[1..3]\n", "pod 'default/a-2' is already declared (line 1)"),
    ("deployment d replicas=1\npods d-[1..2]\n",
     "pod 'default/d-1' has the name deployment 'default/d' gives its pods"),
])
def test_range_registration_refuses_as_single_pods_do(text: str, message: str) -> None:
    with pytest.raises(kruleset.ScenarioError) as err:
        kruleset.load(text)
    assert message in str(err.value)


def test_a_range_may_recreate_deleted_pods() -> None:
    sc = kruleset.load("pods a-[1..2]\nat 1s {\n  delete pod a-1 grace-period=0s\n}\n"
                       "at 2s {\n  create pods a-[1..1]\n}\n")
    assert sum(1 for e in sc.events if type(e.action).__name__ == "Create") >= 1


@pytest.mark.parametrize("ref", [
    "p-[1..12]", "team/p-[8..12]", "[1..3]x", "x.[7..11]", "Bad-[1..3]", "p-[1..3]-",
    "ns-[1..3]/p", "Ns-[1..3]/p", "a" * 250 + "-[1..12]", "a" * 252 + "[8..12]",
    "n" * 60 + "-[1..20]/p", "n" * 61 + "-[8..10]/p", "p-[001..120]",
    "*-[1..3]", "a/b/[1..3]", "ns/[1..3].",
])
def test_range_names_are_checked_as_one_by_one(ref: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking only a range's first and last names refuses and accepts what checking all does."""
    from kruleset.lang import declarations
    from kruleset.lang.values import pod_ref

    def load() -> Any:
        try:
            sc = kruleset.load(f"namespace team\npods {ref}\n")
        except kruleset.ScenarioError as e:
            return str(e)
        return [o.key for o in sc.objects if isinstance(o, Pod)]

    fast = load()
    monkeypatch.setattr(declarations, "_pod_refs",
                        lambda ctx, w, keys: [pod_ref(ctx.src, w, k) for k in keys])
    assert fast == load()
