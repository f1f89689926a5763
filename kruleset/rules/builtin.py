"""Imports every built-in rules module so their rules register themselves.

One module per mechanism or scheduler plugin; add a new mechanism's module here.  A scheduler
plugin's filter and score modules need no line: every module of ``scheduler/filters/`` and
``scheduler/scores/`` is imported (:data:`_PLUGIN_PACKAGES`).  The order of imports does not
decide the order of any scheduler rule set: that is :mod:`kruleset.rules.scheduler.defaults`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .scheduler.defaults import arrange

_FIRST = (
    "priority",
    "scheduler.preenqueue.schedulinggates",
    "scheduler.queue.prioritysort",
)
# Every module in these is imported after _FIRST, by name: a plugin's filter or score
# module (or a helper they share); defaults.arrange orders their rules.
_PLUGIN_PACKAGES = ("scheduler.filters", "scheduler.scores")
_MODULES = (
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


def _plugin_modules() -> Iterator[str]:
    """The modules of :data:`_PLUGIN_PACKAGES`, by name within each package."""
    for package in _PLUGIN_PACKAGES:
        found = importlib.import_module(f"{__package__}.{package}").__path__
        for info in sorted(pkgutil.iter_modules(found), key=lambda m: m.name):
            yield f"{package}.{info.name}"


def load(registered: Callable[[], Iterable[Any]]) -> None:
    """Import every built-in rules module, then order the scheduler's rule sets.

    ``registered()`` lists the rule sets defined once the modules are in (the
    registry passes its own).  The scheduler's rule sets then take their
    order, weights and args from the default profile's data, whatever order
    the modules above registered in.
    """
    for name in (*_FIRST, *_plugin_modules(), *_MODULES):
        importlib.import_module(f"{__package__}.{name}")
    arrange(registered())
