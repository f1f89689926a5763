"""Traced vector cycles keep arrays and shared name lists, made into tuples only when read."""

from __future__ import annotations

import gc

import numpy as np

import kruleset
from kruleset.report.json import attempt_json
from kruleset.rules.scheduler.fast.lazy import Lazy, names_at, names_from, narrow, values_of
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.sim.core import Simulation


def test_lazy_sequences_make_the_tuples_they_stand_for() -> None:
    every = ["a", "b", "c", "d"]
    assert Lazy(names_from, every, 1, 2) == ("b", "c")
    assert Lazy(names_from, every, 3, 3) == ("d", "a", "b")
    assert Lazy(names_at, every, np.array([3, 0])) == ("d", "a")
    assert Lazy(values_of, np.array([1, 5000]), 2, 7) == (8, 5007)
    assert Lazy(values_of, 4, 3, 1) == (5, 5, 5)
    assert Lazy(values_of, np.array([-3, 2]), 2) == (-3, 2)
    # A narrowed array plus a constant beyond its type: the sum is exact.
    assert Lazy(values_of, narrow(np.array([0, 100] * 40)), 80, 300)[:2] == (300, 400)
    assert narrow(np.array([0, 100] * 40)).dtype == np.uint8
    assert narrow(np.array([-1, 40_000] * 40)).dtype == np.int32
    assert narrow(np.array([0, 1 << 40] * 40)).dtype == np.int64
    lazy = Lazy(names_from, every, 0, 2)
    assert repr(lazy) == "('a', 'b')" and hash(lazy) == hash(("a", "b"))
    assert lazy._make is None and lazy._args == ()  # what it was made from is let go


SCENARIO = """\
nodes node-[1..300] cpu=4 memory=32Gi pods=110
pods default/init-[1..40] requests(cpu=100m, memory=500Mi)
at 1s create pods default/p-[1..30] requests(cpu=100m, memory=500Mi)
"""


def test_traced_vector_cycles_keep_no_tuple_of_scores_until_read() -> None:
    sim = Simulation(kruleset.load(SCENARIO), trace=True)
    sim.run()
    scored = [a for a in sim.trace.attempts if a[4] is not None]
    assert scored
    for _, _, _node, ordered, (names, totals, _rules) in scored:
        assert isinstance(ordered, Lazy) and isinstance(names, Lazy)
        assert isinstance(totals, Lazy) and totals._items is None
        kept = totals._args[0]
        assert not gc.is_tracked(kept)  # an array
        # Narrowed for the trace: totals of a few hundred take two bytes each.
        assert isinstance(kept, np.ndarray) and kept.dtype.itemsize < 8
    # Read, they are what the node-by-node cycle records.
    reference = Simulation(kruleset.load(SCENARIO), trace=True,
                           fast=FastPaths(node_vectors=False))
    reference.run()
    assert ([attempt_json(a) for a in sim.trace.attempts]
            == [attempt_json(a) for a in reference.trace.attempts])
    assert ([(e.rule, e.subject, e.result, e.why) for e in sim.trace.entries]
            == [(e.rule, e.subject, e.result, e.why) for e in reference.trace.entries])
