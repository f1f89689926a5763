"""Builders for the scheduler-preemption tests: clusters as Python objects, no `.kr`.

Sizes follow upstream's preemption tests (default_preemption_test.go):
small/medium/large/veryLarge requests of 100m/200m/300m/500m cpu with as many
bytes of memory, nodes of veryLarge capacity, priorities neg -100, low 0,
mid 100, high 1000, veryHigh 10000.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kruleset.model.objects import Container, Node, Pod, PodDisruptionBudget
from kruleset.model.resources import Resources
from kruleset.model.selectors import LabelSelector, Requirement
from kruleset.model.state import ClusterState, PodState
from kruleset.rules.profile import Profile
from kruleset.rules.scheduler.cycle import FitError, ScheduleContext, schedule_one

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL, MEDIUM, LARGE, VERY_LARGE = 100, 200, 300, 500


def res(cpu: int) -> Resources:
    """``cpu`` millicores and as many bytes of memory (upstream's test sizes)."""
    return Resources(cpu=cpu, memory=cpu)


def make_pod(name: str, priority: int | None, cpu: int = 0, *,
             labels: Mapping[str, str] | None = None,
             namespace: str = "default", started: int | None = None,
             policy: str | None = None, **kw: object) -> Pod:
    """A one-container pod requesting ``cpu`` (and as many bytes of memory)."""
    containers = (Container("c", res(cpu)),) if cpu else (Container("c"),)
    return Pod(namespace, name, containers, labels=labels or {}, priority=priority,
               started=started, preemption_policy=policy, **kw)  # type: ignore[arg-type]


def cluster(nodes: Sequence[str], capacity: int = VERY_LARGE, pods: int = 32,
            labels: Mapping[str, Mapping[str, str]] | None = None) -> ClusterState:
    """A cluster of identical nodes, declared in the given order."""
    st = ClusterState()
    for n in nodes:
        st.add_node(Node(n, Resources(cpu=capacity, memory=capacity, pods=pods),
                         labels=(labels or {}).get(n, {})))
    return st


def run(st: ClusterState, pod: Pod, node: str, now: int = 0) -> PodState:
    """Add ``pod`` and bind it to ``node``."""
    ps = st.add_pod(pod, now)
    st.bind(ps, node, now)
    return ps


def pending(st: ClusterState, pod: Pod) -> PodState:
    """Add ``pod`` as a pending pod."""
    return st.add_pod(pod)


def pdb(name: str, match: Mapping[str, str] | None, *, namespace: str = "default",
        min_available: int | str | None = None, max_unavailable: int | str | None = None
        ) -> PodDisruptionBudget:
    """A PDB selecting ``match`` (``{}``: an empty selector)."""
    reqs = tuple(Requirement(k, "In", (v,)) for k, v in (match or {}).items())
    return PodDisruptionBudget(namespace, name, LabelSelector(reqs), min_available,
                               max_unavailable)


def failed_cycle(st: ClusterState, ps: PodState, profile: Profile | None = None
                 ) -> tuple[ScheduleContext, FitError]:
    """Run a scheduling cycle that must fail; the context and its FitError."""
    ctx = ScheduleContext(st, profile or Profile.default(), None, st.now)
    result = schedule_one(ctx, ps, advance=False)
    assert result.node is None, f"{ps.key} unexpectedly fits {result.node}"
    assert result.fit_error is not None
    return ctx, result.fit_error


def keys(pods: Sequence[PodState]) -> list[str]:
    """Pod keys in order."""
    return [p.key for p in pods]
