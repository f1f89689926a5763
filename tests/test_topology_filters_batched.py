"""Differential test: the topology filters' fast forms decide as the general ones.

PodTopologySpread and InterPodAffinity have batch forms (one call per chunk
of nodes, one answer per topology domain) and PreFilter shortcuts (nodes all
included when no policy can exclude one; an existing pod's anti-affinity term
matched once per distinct term).  Seeded random clusters (zones, nodes
without the zone label, node selectors, tainted nodes, spread with
minDomains and Honor taints, required affinity and anti-affinity by hostname
and zone, terminating pods) are simulated, then every pending pod is searched
with the fast forms and with the general ones: feasible nodes, every node's
failure (by value) and the message must be the same.
"""

from __future__ import annotations

import functools
import importlib
import random
from typing import Any

import pytest

import kruleset
from kruleset.model.state import PodState
from kruleset.rules.scheduler import node_selection
from kruleset.rules.scheduler.cycle import FitError, ScheduleContext
from kruleset.rules.scheduler.fast import batch_search
from kruleset.rules.scheduler.filters.topology_index import pod_index, resolve_term
from kruleset.sim.core import Simulation


def _scenario(rng: random.Random) -> str:
    lines = ['scenario "topology"']
    for i in range(rng.randint(3, 40)):
        labels = []
        if rng.random() < 0.9:
            labels.append(f"topology.kubernetes.io/zone=z{rng.randint(1, 4)}")
        if rng.random() < 0.5:
            labels.append(f"disk={rng.choice(['ssd', 'hdd'])}")
        extra = f" labels({', '.join(labels)})" if labels else ""
        if rng.random() < 0.1:
            extra += " taints(dedicated=x:NoSchedule)"
        lines.append(f"node n{i} cpu=4 memory=32Gi pods=110{extra}")
    deletes = []
    pods = []
    for j in range(rng.randint(5, 60)):
        app = rng.choice("abc")
        attrs = [f"labels(app={app})", "requests(cpu=100m, memory=100Mi)"]
        if rng.random() < 0.2:
            attrs.append("node-selector(disk=ssd)")
        block = []
        if rng.random() < 0.4:
            topo = rng.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"])
            block.append(f"anti-affinity pod required app={rng.choice('abc')} topology={topo}")
        if rng.random() < 0.2:
            block.append(f"affinity pod required app={rng.choice('abc')} "
                         "topology=topology.kubernetes.io/zone")
        for _ in range(rng.choice([0, 1, 1, 2])):
            opts = ""
            if rng.random() < 0.3:
                opts += f" min-domains={rng.randint(2, 6)}"
            if rng.random() < 0.2:
                opts += " node-taints-policy=Honor"
            if rng.random() < 0.2:
                opts += " node-affinity-policy=Ignore"
            topo = rng.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"])
            block.append(f"spread max-skew={rng.randint(1, 2)} topology={topo}{opts} "
                         f"selector(app={rng.choice('abc')})")
        at = rng.randint(0, 3)
        text = f"at {at}s create pod default/p{j} " + " ".join(attrs)
        if block:
            text += " {\n  " + "\n  ".join(block) + "\n}"
        pods.append((at, j, text))
        if rng.random() < 0.1:
            deletes.append(f"at 4s delete pod default/p{j}")
    lines.extend(text for _, _, text in sorted(pods))
    lines.extend(deletes)
    return "\n".join(lines) + "\n"


def _search(sim: Simulation, ps: PodState) -> tuple[list[str], dict[str, Any], str]:
    ctx = ScheduleContext(sim.state, sim.profile, None, sim.now)
    feasible, failures = node_selection.find_feasible(ctx, ps.pod, ps, advance=False)
    return ([n.name for n in feasible], dict(failures),
            FitError(ps.key, len(sim.state.nodes), failures).message)


def _naive_existing_anti(sim: Simulation, ps: PodState) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for node in sim.state.nodes.values():
        labels = node.labels
        for other in node.pods.values():
            for raw in other.pod.pod_anti_affinity:
                rt = resolve_term(other.pod, raw)
                if rt.key in labels and rt.matches(ps.pod, sim.state):
                    pair = (rt.key, labels[rt.key])
                    out[pair] = out.get(pair, 0) + 1
    return out


def _without(forms: Any, fns: tuple[Any, ...], ctx: Any) -> dict[Any, Any]:
    return {fn: b for fn, b in forms(ctx).items() if fn not in fns}


@pytest.mark.parametrize("seed", range(60))
def test_fast_topology_filters_decide_as_general(seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    try:
        scenario = kruleset.load(_scenario(rng))
    except Exception as e:  # pragma: no cover - a generator bug, not a decision
        pytest.fail(f"scenario did not load: {e}")
    sim = Simulation(scenario)
    sim.run()
    # Imported only now, as the simulation does: importing a rule module
    # registers its rules, and the default profile keeps registration order.
    filters_spread = importlib.import_module("kruleset.rules.scheduler.filters.podtopologyspread")
    filters_interpod = importlib.import_module("kruleset.rules.scheduler.filters.interpodaffinity")
    checked = 0
    for ps in list(sim.state.pods.values()):
        if ps.gone:
            continue
        fast = _search(sim, ps)
        with monkeypatch.context() as m:
            # The two topology filters without their batch forms (Rule.batch).
            m.setattr(batch_search, "batch_forms", functools.partial(
                _without, batch_search.batch_forms,
                (filters_spread._spread_filter, filters_interpod._interpod_filter)))
            m.setattr(filters_spread, "includes_every_node", lambda c, pod: False)
            general = _search(sim, ps)
        assert fast == general
        counts = filters_interpod._compute(sim.state, ps.pod).existing_anti
        assert counts == _naive_existing_anti(sim, ps)
        idx = pod_index(sim.state)
        for c in ps.pod.spread:
            sel = c.selector
            assert idx.matching(ps.pod.namespace, sel) == [
                o for o in idx.by_ns.get(ps.pod.namespace, {}).values()
                if sel.matches(o.pod.labels)]
        for raw in ps.pod.pod_anti_affinity:
            rt = resolve_term(ps.pod, raw)
            assert list(rt.matching_pods(idx, sim.state)) == [
                o for ns in rt.namespaces_in(sim.state) for o in idx.by_ns.get(ns, {}).values()
                if rt.selector.matches(o.pod.labels)]
        checked += 1
    assert checked
