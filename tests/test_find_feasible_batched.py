"""Differential test: the batched node search fails nodes exactly as node by node.

``find_feasible`` filters nodes a chunk at a time through each filter's batch
form; NodeResourcesFit's batch form shares one Failure object between nodes
in the same state, and ``fit_message`` counts reasons per distinct object.
Here seeded random clusters (mixed node sizes, pod counts, taints, cordoned
nodes, pods with and without requests) are searched with and without the
batch forms, and by the reference node-by-node search
(``FastPaths(batch_search=False)``); the feasible nodes, every node's
failure (by value) and the message must be the same.
"""

from __future__ import annotations

import random

import pytest

from kruleset.model.objects import Container, Node, Pod
from kruleset.model.resources import Resources
from kruleset.model.state import ClusterState, PodState
from kruleset.rules.profile import Profile
from kruleset.rules.scheduler import node_selection
from kruleset.rules.scheduler.cycle import FitError, ScheduleContext, fit_message
from kruleset.rules.scheduler.fast import batch_search
from kruleset.rules.scheduler.framework import ALL_FAST, FastPaths

GI = 1 << 30


def _cluster(rng: random.Random) -> ClusterState:
    st = ClusterState()
    for i in range(rng.randint(1, 300)):
        cpu = rng.choice([1000, 2000, 4000])
        mem = rng.choice([2, 4, 8]) * GI
        pods = rng.choice([3, 5, 110])
        st.add_node(Node(f"n{i}", Resources(cpu=cpu, memory=mem, pods=pods),
                         unschedulable=rng.random() < 0.05))
    names = list(st.nodes)
    for j in range(rng.randint(0, 600)):
        cpu = rng.choice([0, 100, 500, 900])
        mem = rng.choice([0, 256 << 20, GI])
        p = Pod("default", f"p{j}", (Container("c", Resources(cpu=cpu, memory=mem)),),
                priority=0)
        st.bind(st.add_pod(p), rng.choice(names))
    return st


def _search(st: ClusterState, pod: Pod, fast: FastPaths = ALL_FAST
            ) -> tuple[list[str], dict[str, object], str]:
    ctx = ScheduleContext(st, Profile.default(), None, 0)
    ctx.fast = fast
    ps = PodState(pod, 1 << 62, 0)
    ctx.pod, ctx.ps = pod, ps
    feasible, failures = node_selection.find_feasible(ctx, pod, ps, advance=False)
    return ([n.name for n in feasible], dict(failures),
            FitError(pod.key, len(st.nodes), failures).message)


@pytest.mark.parametrize("seed", range(40))
def test_batched_search_fails_nodes_as_node_by_node(seed: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    st = _cluster(rng)
    for k in range(4):
        req = Resources(cpu=rng.choice([0, 500, 1000, 3000, 5000]),
                        memory=rng.choice([0, GI, 3 * GI, 16 * GI]))
        pod = Pod("default", f"q{k}", (Container("c", req),), priority=0)
        batched = _search(st, pod)
        with monkeypatch.context() as m:
            # No filter's batch form (Rule.batch): every rule node by node.
            m.setattr(batch_search, "batch_forms", lambda ctx: {})
            plain = _search(st, pod)
        assert batched == plain
        assert batched == _search(st, pod, FastPaths(batch_search=False))
        assert batched[2] == fit_message(len(st.nodes), plain[1])  # type: ignore[arg-type]
