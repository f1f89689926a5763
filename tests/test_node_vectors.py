"""Differential test: the node vectors decide and trace exactly as the batch search and scores.

``FastPaths(node_vectors=True)`` answers the filter search of common pods
with array operations over node-indexed arrays and scores the feasible nodes
as arrays (``fast/node_vectors.py``, ``vector_search.py``,
``vector_scores.py``).  Here seeded random clusters (node sizes, zones,
NoSchedule and PreferNoSchedule taints, cordoned nodes, nominated pods,
ephemeral storage, extended resources, pods requesting nothing, identical
nodes that tie) are searched and scored with the option on and off, and
whole simulations (cordons, taints, deletions, preemption, Deployments) run
both ways, traced and not: the feasible nodes, every failure (value and
order), the message, the chosen node, the scores, the decisions and the
trace must be the same.  Counters check that the vector path really ran.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import kruleset
from kruleset.model.objects import Container, Node, Pod
from kruleset.model.resources import Resources
from kruleset.model.selectors import Taint, Toleration
from kruleset.model.state import ClusterState, PodState
from kruleset.rules.engine import Trace
from kruleset.rules.profile import Profile
from kruleset.rules.scheduler import node_selection
from kruleset.rules.scheduler.cycle import FitError, ScheduleContext, schedule_one
from kruleset.rules.scheduler.fast import node_vectors, vector_scores, vector_search, vector_spread
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.rules.scheduler.scores import podtopologyspread
from kruleset.sim.core import Simulation

GI = 1 << 30
ON = FastPaths()
OFF = FastPaths(node_vectors=False)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the vector search and pick answered (not None)."""
    counts = {"search": 0, "pick": 0}
    find, pick = vector_search.vector_find, vector_scores.pick

    def counting_find(*args: Any, **kw: Any) -> Any:
        got = find(*args, **kw)
        counts["search"] += got is not None
        return got

    def counting_pick(*args: Any, **kw: Any) -> Any:
        got = pick(*args, **kw)
        counts["pick"] += got is not None
        return got

    from kruleset.rules.scheduler import paths
    from kruleset.rules.scheduler.fast import compose
    monkeypatch.setattr(compose, "vector_find", counting_find)
    monkeypatch.setattr(compose, "pick", counting_pick)
    monkeypatch.setattr(paths, "_BUILT", {})  # composed again, with the counting forms
    return counts


def _cluster(rng: random.Random, ties: bool = False) -> ClusterState:
    st = ClusterState()
    for i in range(rng.randint(1, 400)):
        cpu = 4000 if ties else rng.choice([1000, 2000, 4000, 4000])
        mem = 8 * GI if ties else rng.choice([2, 4, 8]) * GI
        pods = 110 if ties else rng.choice([3, 5, 110, 110])
        eph = rng.choice([0, 10 * GI]) if not ties else 0
        scalars = (("example.com/gpu", 2),) if not ties and rng.random() < 0.1 else ()
        taints: tuple[Taint, ...] = ()
        if not ties and rng.random() < 0.1:
            taints = (Taint("dedicated", rng.choice("ab"),
                            rng.choice(["NoSchedule", "PreferNoSchedule", "NoExecute"])),)
        st.add_node(Node(f"n{i}", Resources(cpu=cpu, memory=mem, ephemeral_storage=eph,
                                            pods=pods, scalars=scalars),
                         labels={"topology.kubernetes.io/zone": f"z{i % 3}"},
                         taints=taints,
                         unschedulable=not ties and rng.random() < 0.05))
    names = list(st.nodes)
    for j in range(0 if ties else rng.randint(0, 800)):
        p = Pod("default", f"p{j}", (Container("c", _requests(rng)),), priority=0)
        st.bind(st.add_pod(p), rng.choice(names))
    for j in range(0 if ties else rng.randint(0, 4)):
        ps = st.add_pod(Pod("default", f"nom{j}", (Container("c", _requests(rng)),),
                            priority=rng.choice([0, 100, 1000])))
        ps.nominated = rng.choice(names)
    return st


def _requests(rng: random.Random) -> Resources:
    scalars = (("example.com/gpu", 1),) if rng.random() < 0.05 else ()
    return Resources(cpu=rng.choice([0, 100, 500, 900, 3000, 5000]),
                     memory=rng.choice([0, 256 << 20, GI, 3 * GI, 16 * GI]),
                     ephemeral_storage=rng.choice([0, 0, 0, GI]), scalars=scalars)


def _pod(rng: random.Random, k: int) -> Pod:
    tols = ()
    if rng.random() < 0.3:
        tols = (Toleration("dedicated", "Equal", rng.choice("ab"), ""),)
    return Pod("default", f"q{k}", (Container("c", _requests(rng)),), priority=100,
               tolerations=tols)


def _cycle(st: ClusterState, pod: Pod, fast: FastPaths, trace: bool) -> tuple[Any, ...]:
    tr = Trace() if trace else None
    ctx = ScheduleContext(st, Profile.default(), tr, 0)
    ctx.fast = fast
    ps = PodState(pod, 1 << 62, 0)
    ctx.pod, ctx.ps = pod, ps
    feasible, failures = node_selection.find_feasible(ctx, pod, ps, advance=False)
    searched = ([n.name for n in feasible], list(failures.items()),
                FitError(pod.key, len(st.nodes), failures).message if not feasible else "")
    ctx.extra.clear()
    result = schedule_one(ctx, ps, advance=False)
    decided = (result.node, result.message, tuple(result.feasible), dict(result.scores),
               {r: dict(v) for r, v in result.per_rule.items()})
    entries = [(e.rule, e.subject, e.result, e.why) for e in tr.entries] if tr else []
    return searched, decided, entries, getattr(tr, "attempts", None)


@pytest.mark.parametrize("seed", range(60))
def test_vector_search_and_scores_match_the_batch_path(seed: int, counted: dict[str, int],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    st = _cluster(rng, ties=seed % 10 == 9)
    if seed % 2:
        # Small chunks: searches that need several, and windows wrapping around the order.
        monkeypatch.setattr(vector_search, "MIN_CHUNK", rng.choice([1, 7, 32]))
    for k in range(5):
        pod = _pod(rng, k)
        trace = k == 0
        node_selection._cursor(st).next_start = rng.randrange(len(st.nodes))
        assert _cycle(st, pod, ON, trace) == _cycle(st, pod, OFF, trace)


def test_the_random_clusters_take_the_vector_path(counted: dict[str, int]) -> None:
    for seed in range(20):
        rng = random.Random(seed)
        st = _cluster(rng)
        for k in range(5):
            _cycle(st, _pod(rng, k), ON, False)
    assert counted["search"] > 50 and counted["pick"] > 30
    # Every default score rule has an array form (DRA's is declared on first use).
    forms = node_vectors.VECTOR_SCORES
    assert all(a.rule.fn in forms for a in Profile.default().active("scheduler.score").rules)
    assert forms[podtopologyspread._spread_score] is vector_spread.spread_scores


def test_ties_go_to_the_lowest_rank(counted: dict[str, int]) -> None:
    st = _cluster(random.Random(1), ties=True)
    pod = Pod("default", "q", (Container("c", Resources(cpu=100, memory=GI)),))
    first = st.node_order()[0].name
    assert _cycle(st, pod, ON, False)[1][0] == first
    assert counted["pick"] == 1


def test_a_replaced_node_and_a_new_taint_are_seen(counted: dict[str, int]) -> None:
    st = ClusterState()
    for i in range(150):
        st.add_node(Node(f"n{i}", Resources(cpu=4000, memory=8 * GI, pods=110)))
    pod = Pod("default", "q", (Container("c", Resources(cpu=3000)),))
    before = _cycle(st, pod, ON, False)
    assert before == _cycle(st, pod, OFF, False)
    # A node object replaced (smaller) and a taint added in place, then the epoch moves.
    st.add_node(Node("n0", Resources(cpu=1000, memory=8 * GI, pods=110)))
    st.nodes["n1"].taints.append(Taint("k", "v", "NoSchedule"))
    st.new_epoch()
    after = _cycle(st, pod, ON, False)
    assert after == _cycle(st, pod, OFF, False)
    assert after != before and counted["search"] >= 2


def _scenario(seed: int) -> str:
    rng = random.Random(seed)
    lines = [f'scenario "vectors {seed}"', "priorityclass high value=1000"]
    n = rng.randint(100, 260)
    for i in range(1, n + 1):
        labels = []
        if rng.random() < 0.9:  # some nodes lack the zone: "" is a domain under the defaults
            labels.append(f"topology.kubernetes.io/zone=z{i % 3}")
        if rng.random() < 0.7:
            labels.append(f"rack=r{rng.randint(1, 6)}")
        attrs = [f"cpu={rng.choice([2, 4, 4])}", f"memory={rng.choice([4, 8])}Gi",
                 f"pods={rng.choice([6, 110])}"]
        if labels:
            attrs.append(f"labels({', '.join(labels)})")
        if rng.random() < 0.1:
            attrs.append("example.com/gpu=2")
        if rng.random() < 0.1:
            attrs.append(f"taints(dedicated=x:{rng.choice(['NoSchedule', 'PreferNoSchedule'])})")
        lines.append(f"node n{i} " + " ".join(attrs))
    for j in range(rng.randint(0, 3 * n)):
        # Some running pods count for the spreading pods, tainted nodes included.
        app = f" labels(app=web-{rng.randint(1, 3)})" if rng.random() < 0.5 else ""
        lines.append(f"pod run-{j} on n{rng.randint(1, n)} priority=0 "
                     f"requests(cpu={rng.choice([100, 500, 900])}m, memory=256Mi){app}")
    for t in (1, 2, 3):
        block = []
        for k in range(rng.randint(5, 40)):
            req = [f"cpu={rng.choice([0, 100, 500, 1500])}m",
                   f"memory={rng.choice([0, 256, 1024])}Mi"]
            if rng.random() < 0.05:
                req.append("example.com/gpu=1")
            extra = ""
            if rng.random() < 0.1:
                extra = " tolerations(dedicated=x:NoSchedule)"
            if rng.random() < 0.1:
                extra += " priorityclass=high"
            if rng.random() < 0.15:
                key = rng.choice(["rack", "topology.kubernetes.io/zone"])
                honor = " node-taints-policy=Honor" if rng.random() < 0.5 else ""
                extra += (f" labels(app=web-{t}) {{\n    spread max-skew={rng.randint(1, 3)} "
                          f"topology={key} selector(app=web-{t}) "
                          f"when-unsatisfiable=ScheduleAnyway{honor}\n  }}")
            block.append(f"  create pod new-{t}-{k} requests({', '.join(req)}){extra}")
        for d in range(rng.randint(0, 3)):
            block.append(f"  create deployment web-{t}-{d} replicas={rng.randint(2, 30)} "
                         f"requests(cpu=100m, memory=128Mi) labels(app=web-{t})")
        block.append(f"  cordon node n{rng.randint(1, n)}")
        block.append(f"  taint node n{rng.randint(1, n)} maint=yes:NoSchedule")
        if j := rng.randint(0, 3):
            block.append(f"  delete pod run-{rng.randint(0, j)} grace-period=0s")
        lines.append(f"at {t}s {{")
        lines.extend(block)
        lines.append("}")
    lines.append("at 5s create pods big-[1..5] priorityclass=high requests(cpu=2, memory=1Gi)")
    return "\n".join(lines) + "\n"


def _simulate(text: str, fast: FastPaths, trace: bool) -> list[object]:
    sim = Simulation(kruleset.load(text), fast=fast, trace=trace)
    sim.run()
    out: list[object] = [d.to_json() for d in sim.decisions]
    if sim.trace is not None:
        out.extend((e.rule, e.subject, e.result, e.why, e.time) for e in sim.trace.entries)
        out.extend(sim.trace.attempts)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_simulations_decide_and_trace_the_same(seed: int, counted: dict[str, int]) -> None:
    text = _scenario(seed)
    trace = seed % 3 == 0
    assert _simulate(text, ON, trace) == _simulate(text, OFF, trace)
    assert counted["search"] and counted["pick"]


def test_lazy_results_read_as_tuples() -> None:
    lazy = vector_scores.Lazy(lambda: ["a", "b"])
    assert lazy == ("a", "b") and len(lazy) == 2 and list(lazy) == ["a", "b"]
    assert hash(lazy) == hash(("a", "b")) and lazy[1] == "b"
