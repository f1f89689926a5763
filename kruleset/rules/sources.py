"""A rule's ``source`` as users read it: upstream functions and documentation pages.

Rules cite where their behaviour comes from: upstream functions (``eviction.go
checkAndDecrement``) and, for the maintainers, the numbered sections of the
documents the project was built from (``seed 003 §13``).  Those numbers mean
nothing to a user, so what ``kruleset rules`` shows replaces them: a section
of the Kubernetes documentation by the page it is on, any other document by
nothing when the rule names an upstream function already, or else by the
upstream code it walks through.  The rules keep their citations as written
(``Rule.source``), so a new rule needs no change here.
"""

from __future__ import annotations

import re

__all__ = ["DOCS", "user_source"]

_DOCS_ROOT = "kubernetes.io/docs/concepts/scheduling-eviction/"

#: The Kubernetes documentation page of each chapter of "Scheduling, Preemption and Eviction".
DOCS = {
    "0": _DOCS_ROOT,
    "1": _DOCS_ROOT + "kube-scheduler/",
    "2": _DOCS_ROOT + "assign-pod-node/",
    "3": _DOCS_ROOT + "pod-overhead/",
    "4": _DOCS_ROOT + "pod-scheduling-readiness/",
    "5": _DOCS_ROOT + "topology-spread-constraints/",
    "6": _DOCS_ROOT + "taint-and-toleration/",
    "7": _DOCS_ROOT + "scheduling-framework/",
    "8": _DOCS_ROOT + "dynamic-resource-allocation/",
    "9": _DOCS_ROOT + "scheduler-perf-tuning/",
    "10": _DOCS_ROOT + "resource-bin-packing/",
    "11": _DOCS_ROOT + "pod-priority-preemption/",
    "12": _DOCS_ROOT + "node-pressure-eviction/",
    "13": _DOCS_ROOT + "api-eviction/",
}

# The upstream code each source walk-through document follows (said when a rule cites
# nothing else).
_CODE = {
    "000": "pkg/kubelet/preemption CriticalPodAdmissionHandler",
    "001": "pkg/kubelet/eviction eviction_manager.go",
    "002": "pkg/scheduler/framework/plugins/defaultpreemption, pkg/scheduler/framework/preemption",
    "004": "kubernetes-sigs/scheduler-plugins pkg/capacityscheduling",
}

_SEED = re.compile(r"^seed (?P<doc>\d{3})\b(?P<rest>.*)$")
_SECTION = re.compile(r"§\s*(\d+)")
_DOCUMENTATION = "003"


def user_source(source: str) -> str:
    """``source`` with the documents' numbering replaced (see the module's doc)."""
    parts = [p.strip() for p in source.split(";") if p.strip()]
    kept: list[str] = []
    pages: list[str] = []
    walkthroughs: list[str] = []
    for part in parts:
        m = _SEED.match(part)
        if m is None:
            kept.append(part)
            continue
        rest = m["rest"]
        if m["doc"] == _DOCUMENTATION:
            pages.extend(DOCS.get(s, _DOCS_ROOT) for s in _SECTION.findall(rest) or ["0"])
            continue
        # A walk-through's own words (a function name, "Admit") are kept with its code.
        words = _SECTION.sub("", rest).replace(",", " ").split()
        code = _CODE.get(m["doc"], "")
        walkthroughs.append(" ".join(filter(None, [code, *words])))
    if not kept:
        kept = [w for w in walkthroughs if w]
    unique_pages = list(dict.fromkeys(pages))
    return "; ".join(kept + unique_pages) or source
