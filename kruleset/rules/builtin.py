"""Imports every built-in rules module so their rules register themselves.

One module per mechanism; add a new module here.
"""

from __future__ import annotations

import importlib

_MODULES = (
    "priority",
    "scheduling",
    "filters_basic",
    "filters_spread",
    "filters_interpod",
    "scores_resources",
    "scores_node",
    "scores_spread",
    "scores_interpod",
    "scores_image",
    "postfilter",
    "dra_postfilter",
    "preemption",
    "quota_reclaim",
    "kubelet_preemption",
    "kubelet_admission",
    "eviction_rank",
    "eviction_manager",
    "taint_eviction",
    "api_eviction",
    "dra.plugin",
)

for _name in _MODULES:
    importlib.import_module(f"{__package__}.{_name}")
