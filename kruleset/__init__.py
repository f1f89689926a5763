"""kruleset: Kubernetes scheduling, preemption and eviction as explainable rule sets.

Load a scenario written in the `.kr` language, simulate it, and read the
decisions and expectation results::

    import kruleset
    result = kruleset.run(kruleset.load("examples/quickstart.kr"))
    for d in result.decisions:
        print(d.time, d.kind, d.pod, d.node, d.reason)

Direct entry points embed one decision without a timeline:
:func:`schedule_pod` (where would this pod go?) and the mechanism modules under
:mod:`kruleset.rules`.
"""

from __future__ import annotations

from ._version import __version__ as __version__
from .api import load, run
from .errors import KrulesetError, ManifestError, NotImplementedMechanism, ScenarioError, Span
from .model.scenario import Scenario
from .model.state import ClusterState
from .rules.profile import Profile, load_profile
from .rules.registry import register
from .rules.scheduler.cycle import ScheduleResult, schedule_pod
from .sim.core import Decision
from .sim.result import ExpectationResult, Result

__all__ = [
    "ClusterState",
    "Decision",
    "ExpectationResult",
    "KrulesetError",
    "ManifestError",
    "NotImplementedMechanism",
    "Profile",
    "Result",
    "Scenario",
    "ScenarioError",
    "ScheduleResult",
    "Span",
    "load",
    "load_profile",
    "register",
    "run",
    "schedule_pod",
]
