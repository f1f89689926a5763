"""Imports every built-in rules module so their rules register themselves.

One module per mechanism or scheduler plugin; add a new module here.  The order of this list
does not decide the order of any scheduler rule set: that is
:mod:`kruleset.rules.scheduler.defaults`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from .scheduler.defaults import arrange

_MODULES = (
    "priority",
    # The default plugins' modules, in the default profile's order (which
    # defaults.arrange imposes whatever the order here).
    "scheduler.preenqueue.schedulinggates",
    "scheduler.queue.prioritysort",
    "scheduler.filters.nodeunschedulable",
    "scheduler.filters.nodename",
    "scheduler.filters.tainttoleration",
    "scheduler.filters.nodeaffinity",
    "scheduler.filters.nodeports",
    "scheduler.filters.noderesourcesfit",
    "scheduler.filters.podtopologyspread",
    "scheduler.filters.interpodaffinity",
    "scheduler.scores.noderesourcesfit",
    "scheduler.scores.noderesourcesbalancedallocation",
    "scheduler.scores.tainttoleration",
    "scheduler.scores.nodeaffinity",
    "scheduler.scores.podtopologyspread",
    "scheduler.scores.interpodaffinity",
    "scheduler.scores.imagelocality",
    "scheduler.preemption.postfilter",
    "scheduler.dynamicresources",
    "scheduler.preemption.defaultpreemption",
    "quota.capacity_scheduling",
    "kubelet.critical_preemption",
    "kubelet.admission",
    "kubelet.readiness",
    "controllers.replicaset",
    "controllers.deployment",
    "kubelet.eviction.rank",
    "kubelet.eviction.manager",
    "disruption.taint_manager",
    "disruption.finders",
    "disruption.pdb",
    "disruption.eviction_api",
    "dra.dynamicresources",
    "controllers.statefulset",
    "controllers.daemonset",
    "controllers.job",
    "controllers.podgc",
    # The fast paths, chosen once per FastPaths by their composition root
    # (rules/scheduler/fast/compose.py) and carried on the cycle's context.
    "scheduler.fast.batch_search",
    "scheduler.fast.vector_search",
    "scheduler.fast.vector_scores",
    "scheduler.fast.vector_spread",
    "scheduler.fast.plan",
    "scheduler.fast.dry_run",
    "quota.fast_reclaim",
    "disruption.fast_selection",
)



def load(registered: Callable[[], Iterable[Any]]) -> None:
    """Import every built-in rules module, then order the scheduler's rule sets.

    ``registered()`` lists the rule sets defined once the modules are in (the
    registry passes its own).  The scheduler's rule sets then take their
    order, weights and args from the default profile's data, whatever order
    the modules above registered in.
    """
    for name in _MODULES:
        importlib.import_module(f"{__package__}.{name}")
    arrange(registered())
