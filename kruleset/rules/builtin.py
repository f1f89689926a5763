"""Imports every built-in rules module so their rules register themselves.

One module per mechanism; add a new module here.  The order of this list
does not decide the order of any scheduler rule set: that is
:mod:`kruleset.rules.scheduler.defaults`.
"""

from __future__ import annotations

import importlib

from .registry import rulesets_registered
from .scheduler.defaults import arrange

_MODULES = (
    "priority",
    "scheduler.cycle",
    "scheduler.filters.basic",
    "scheduler.filters.podtopologyspread",
    "scheduler.filters.interpodaffinity",
    "scheduler.scores.noderesources",
    "scheduler.scores.node",
    "scheduler.scores.podtopologyspread",
    "scheduler.scores.interpodaffinity",
    "scheduler.preemption.postfilter",
    "scheduler.dynamicresources",
    "scheduler.preemption.defaultpreemption",
    "quota.reclaim",
    "kubelet.critical_preemption",
    "kubelet.admission",
    "kubelet.eviction.rank",
    "kubelet.eviction.manager",
    "disruption.taint_manager",
    "disruption.eviction_api",
)

for _name in _MODULES:
    importlib.import_module(f"{__package__}.{_name}")

# The scheduler's rule sets take their order, weights and args from the
# default profile's data, whatever order the modules above registered in.
arrange(rulesets_registered())
