"""Imports every built-in rules module so their rules register themselves.

One module per mechanism; add a new module here.
"""

from __future__ import annotations

import importlib

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
