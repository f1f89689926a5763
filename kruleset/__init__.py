"""kruleset: Kubernetes scheduling, preemption and eviction as explainable rule sets.

Load a scenario written in the `.kr` language, simulate it, and read the
decisions and expectation results::

    import kruleset
    result = kruleset.run(kruleset.load("examples/quickstart.kr"))
    for d in result.decisions:
        print(d.at, d.kind, d.pod, d.node, d.reason)

For tool authors (``docs/API.md``): :func:`cluster` reads a dump or a ``.kr``
file into a :class:`ClusterState` without running its timeline;
:func:`schedule_pod` says where a pod would go (preempting as the scheduler
does); :func:`evict`, :func:`drain`, :func:`eviction_pass`, :func:`capacity`
and :func:`advance` act on the state.  Your own rules: a :class:`Rule` whose
function returns a :class:`Failure` (or ``None``), added with :func:`register`,
or loaded from the command line with ``--rules``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__ as __version__
from .api import Duration, duration_ms, load, run

# Before ``capacity`` the function: importing the module later would replace the
# package's attribute with the module.
from .capacity import CapacityAnswer  # isort: skip
from .embed import (
    DrainAnswer,
    EvictionAnswer,
    Placement,
    advance,
    capacity,
    cluster,
    drain,
    evict,
    eviction_pass,
    pod,
    schedule_pod,
)
from .errors import KrulesetError, ManifestError, NotImplementedMechanism, ScenarioError, Span
from .model.resources import Resources
from .model.scenario import Expectation, Scenario
from .model.state import ClusterState
from .rules.engine import Failure, Rule, Trace
from .rules.profile import Profile, load_profile
from .rules.registry import register
from .rules.scheduler.cycle import ScheduleResult
from .sim.core import Decision
from .sim.result import ExpectationResult, Result

if TYPE_CHECKING:
    from .rules.kubelet.eviction.manager import PassResult

# Answer types imported when first asked for, so that `import kruleset` does not
# load the kubelet's modules.
_LAZY = {"PassResult": "kruleset.rules.kubelet.eviction.manager"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kruleset' has no attribute {name!r}")


__all__ = [
    "CapacityAnswer",
    "ClusterState",
    "Decision",
    "DrainAnswer",
    "Duration",
    "EvictionAnswer",
    "Expectation",
    "ExpectationResult",
    "Failure",
    "KrulesetError",
    "ManifestError",
    "NotImplementedMechanism",
    "PassResult",
    "Placement",
    "Profile",
    "Resources",
    "Result",
    "Rule",
    "Scenario",
    "ScenarioError",
    "ScheduleResult",
    "Span",
    "Trace",
    "advance",
    "capacity",
    "cluster",
    "drain",
    "duration_ms",
    "evict",
    "eviction_pass",
    "load",
    "load_profile",
    "pod",
    "register",
    "run",
    "schedule_pod",
]
