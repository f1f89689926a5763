"""The Deployment controller: fenceposts, NewRSNewReplicas, proportions, rollouts over time.

Tables transcribed from upstream's unit tests: ``TestResolveFenceposts`` and
``TestNewRSNewReplicas`` (util/deployment_util_test.go), ``TestGetProportion``-style
cases of ``getReplicaSetFraction``, and rolling.go's reconcile tables
(``TestDeploymentController_reconcileNewReplicaSet``,
``TestDeploymentController_reconcileOldReplicaSets``).
"""

from __future__ import annotations

import doctest
from typing import Any

import pytest

import kruleset
import kruleset.model.deployment_spec
import kruleset.rules.controllers.deployment as dep_rules
import kruleset.rules.controllers.replicaset as rs_rules
from kruleset.errors import KrulesetError
from kruleset.model.objects import RECREATE, Deployment, Pod
from kruleset.rules.controllers.deployment import (
    DeploymentContext,
    ReplicaSet,
    max_unavailable,
    new_rs_new_replicas,
    resolve_fenceposts,
    sync_deployment,
)
from kruleset.sim.core import Simulation
from kruleset.sim.workloads import status_of


def _dep(replicas: int, surge: int | str = "25%", unavailable: int | str = "25%",
         strategy: str = "RollingUpdate") -> Deployment:
    return Deployment("default", "d", replicas, Pod("default", "d"), strategy=strategy,
                      max_surge=surge, max_unavailable=unavailable)


def _rs(name: str, replicas: int, available: int | None = None, created: int = 0,
        template: Pod | None = None) -> ReplicaSet:
    rs = ReplicaSet(name, name, template, replicas, 1, created, created)
    rs.status_replicas = replicas
    rs.available = replicas if available is None else available
    return rs


@pytest.mark.parametrize("surge, unavailable, desired, want", [
    # TestResolveFenceposts
    (0, 0, 1, (0, 1)),
    ("39%", "39%", 10, (4, 3)),
    ("oops", "39%", 10, None),
    ("55%", "urg", 10, None),
    (0, "39%", 10, (0, 3)),
    ("0%", "0%", 10, (0, 1)),
    ("25%", "25%", 10, (3, 2)),
    (1, 0, 3, (1, 0)),
])
def test_resolve_fenceposts(surge: Any, unavailable: Any, desired: int,
                            want: tuple[int, int] | None) -> None:
    d = _dep(desired, surge, unavailable)
    if want is None:
        with pytest.raises(ValueError):
            resolve_fenceposts(None, {}, d)
        return
    assert resolve_fenceposts(None, {}, d) == want


def test_max_unavailable_is_capped_and_zero_for_recreate() -> None:
    assert max_unavailable(_dep(2, 0, 5)) == 2
    assert max_unavailable(_dep(0, 0, 5)) == 0
    assert max_unavailable(_dep(10, strategy=RECREATE)) == 0


@pytest.mark.parametrize("strategy, replicas, surge, old, new, want", [
    # TestNewRSNewReplicas
    ("Recreate", 10, 0, 0, 0, 10),
    ("RollingUpdate", 10, 1, 10, 0, 1),   # can scale up by maxSurge
    ("RollingUpdate", 10, 1, 0, 0, 10),   # nothing else: straight to replicas
    ("RollingUpdate", 10, 5, 5, 5, 10),   # within replicas + maxSurge, capped at replicas
    ("RollingUpdate", 10, 5, 15, 0, 0),   # already at replicas + maxSurge
])
def test_new_rs_new_replicas(strategy: str, replicas: int, surge: int, old: int, new: int,
                             want: int) -> None:
    d = _dep(replicas, surge, 0 if surge else 1, strategy)
    new_rs = _rs("new", new)
    assert new_rs_new_replicas(None, {}, (d, [_rs("old", old), new_rs], new_rs)) == want


def _sync(d: Deployment, rss: list[ReplicaSet]) -> list[str]:
    ctx = DeploymentContext(0)
    sync_deployment(ctx, d, rss, lambda n: pytest.fail("no new ReplicaSet expected"))
    return [m for _, _, m, _ in ctx.events]


@pytest.mark.parametrize("replicas, surge, unavail, old, old_avail, new, new_avail, want_old", [
    # TestDeploymentController_reconcileOldReplicaSets (rolling_test.go), condensed:
    # (deploymentReplicas, maxSurge, maxUnavailable, old, old available, new, new available,
    #  old replicas after the sync)
    (10, 0, 2, 10, 10, 0, 0, 8),     # scale down by maxUnavailable
    (10, 0, 2, 10, 10, 2, 2, 6),     # 12 available, at least 8 must stay: old down by 4
    (10, 2, 0, 10, 10, 2, 2, 8),     # surge pods available: old down by 2
    (10, 2, 0, 10, 10, 2, 0, 10),    # surge pods not available: no scale-down
    (10, 2, 2, 10, 8, 2, 0, 8),      # 2 unhealthy old replicas cleaned up first
])
def test_reconcile_old(replicas: int, surge: int, unavail: int, old: int, old_avail: int,
                       new: int, new_avail: int, want_old: int) -> None:
    tpl = Pod("default", "d")
    d = Deployment("default", "d", replicas, tpl, max_surge=surge, max_unavailable=unavail)
    old_rs = _rs("old", old, old_avail, created=0)
    new_rs = _rs("new", new, new_avail, created=1, template=tpl)
    old_rs.desired = new_rs.desired = replicas
    _sync(d, [old_rs, new_rs])
    assert old_rs.replicas == want_old


def test_proportional_scaling_mid_rollout() -> None:
    # deployment_controller_test / sync_test TestScale: 10 → 20 replicas while two
    # ReplicaSets hold 5 + 5 (max-replicas annotation 10+3=13... here maxSurge 0):
    tpl = Pod("default", "d")
    d = Deployment("default", "d", 20, tpl, max_surge=0, max_unavailable=1)
    old_rs, new_rs = _rs("old", 5, created=0), _rs("new", 5, created=1, template=tpl)
    for rs in (old_rs, new_rs):
        rs.desired, rs.max_replicas = 10, 10
    events = _sync(d, [old_rs, new_rs])
    assert (old_rs.replicas, new_rs.replicas) == (10, 10)
    assert events == ["Scaled up replica set new from 5 to 10",
                      "Scaled up replica set old from 5 to 10"]


def test_proportional_leftover_goes_to_the_largest() -> None:
    # 3 ReplicaSets of 4 + 3 + 3 (10, annotated for 10) scaled to 11: 4*11/10 rounds to 4,
    # 3*11/10 to 3; the leftover 1 goes to the largest.
    tpl = Pod("default", "d")
    d = Deployment("default", "d", 11, tpl, max_surge=0, max_unavailable=1)
    a, b, c = _rs("a", 4, created=0), _rs("b", 3, created=1), _rs("c", 3, created=2)
    for rs in (a, b, c):
        rs.desired, rs.max_replicas = 10, 10
    _sync(d, [a, b, c])
    assert (a.replicas, b.replicas, c.replicas) == (5, 3, 3)


ROLLING = """
scenario "rolling update"
nodes node-[1..4] cpu=8 memory=32Gi
deployment web replicas=10 labels(app=web) requests(cpu=500m, memory=512Mi) \
max-surge=3 max-unavailable=2 readiness-delay=5s min-ready-seconds=10
at 1m apply deployment web replicas=10 labels(app=web) requests(cpu=600m, memory=512Mi) \
max-surge=3 max-unavailable=2 readiness-delay=5s min-ready-seconds=10
run until 10m
expect deployment web replicas=10 updated=10 ready=10 available=10 unavailable=0
"""


def _watch_availability(text: str, replicas: int, min_available: int) -> tuple[list[int], Any]:
    """Run ``text``, checking the deployment's available pods after every controller step."""
    scenario = kruleset.load(text.replace("\\\n", ""))
    sim = Simulation(scenario)
    seen: list[int] = []
    for c in sim.controllers:
        step = c.step

        def checked(s: Simulation, step: Any = step) -> bool:
            out = step(s)
            st = status_of(s, "default/web")
            if st is not None and s.now >= 60_000:
                seen.append(st.available)
            return bool(out)

        c.step = checked  # type: ignore[method-assign]
    result = sim.run()
    return seen, result


def test_rolling_update_keeps_availability_and_finishes() -> None:
    seen, result = _watch_availability(ROLLING, 10, 8)
    assert seen and min(seen) >= 10 - 2
    assert all(r.passed for r in result.expectations)
    scaled = [d for d in result.decisions if d.kind == "scaled"]
    assert any("Scaled up replica set" in d.message for d in scaled)
    assert any("Scaled down replica set" in d.message and "to 0" in d.message for d in scaled)


def test_recreate_waits_for_old_pods() -> None:
    text = """
nodes n[1..2] cpu=8 memory=16Gi
deployment web replicas=3 labels(app=web) cpu=1 strategy=Recreate grace-period=20s
at 1m apply deployment web replicas=3 labels(app=web) cpu=2 strategy=Recreate grace-period=20s
at 1m expect pods web-* terminating count=3
at 1m10s expect deployment web replicas=0 updated=0
at 1m20s expect deployment web replicas=3 updated=3
run until 3m
"""
    result = kruleset.run(kruleset.load(text))
    assert [r.passed for r in result.expectations] == [True, True, True]
    created = [d.time for d in result.decisions if d.kind == "created"]
    assert created[-3:] == [80_000] * 3


@pytest.mark.parametrize("attrs_text, where", [
    ("max-surge=-1", "maxSurge: Invalid value: -1"),
    ("max-surge=0% max-unavailable=0", "may not be 0 when `maxSurge` is 0"),
    ("max-unavailable=101%", "must not be greater than 100%"),
    ("strategy=Recreate max-surge=1", "may not be specified when strategy `type` is 'Recreate'"),
    ("min-ready-seconds=-1", "spec.minReadySeconds: Invalid value: -1"),
    ("strategy=Blue", 'supported values: "Recreate", "RollingUpdate"'),
    ("max-surge=5x", "must be an integer or percentage"),
])
def test_bad_strategy_is_refused(attrs_text: str, where: str) -> None:
    with pytest.raises(KrulesetError) as err:
        kruleset.load(f"node n1 cpu=1\ndeployment web replicas=2 cpu=1 {attrs_text}\n")
    assert where in str(err.value)


def test_pause_resume_undo() -> None:
    text = """
nodes n[1..2] cpu=8 memory=16Gi
deployment web replicas=2 labels(app=web) cpu=1
at 10s rollout pause deployment web
at 20s apply deployment web replicas=2 labels(app=web) cpu=2
at 30s expect deployment web updated=0 replicas=2
at 40s rollout resume deployment web
at 50s expect deployment web updated=2 replicas=2 available=2
at 1m rollout undo deployment web
at 2m expect deployment web updated=2 available=2
at 2m expect pods web-* running count=2
run until 3m
"""
    result = kruleset.run(kruleset.load(text))
    assert all(r.passed for r in result.expectations), [r.message for r in result.expectations]
    rollouts = [d.message for d in result.decisions if d.kind == "rollout"]
    assert rollouts == ["deployment.apps/web paused", "deployment.apps/web resumed",
                        "deployment.apps/web rolled back"]


def test_doctests() -> None:
    for module in (dep_rules, rs_rules, kruleset.model.deployment_spec):
        assert doctest.testmod(module).failed == 0


def test_explain_a_deployment_shows_its_scalings_and_rules() -> None:
    from kruleset.report.text import Style, render_explain

    text = ("nodes n[1..2] cpu=8 memory=16Gi\n"
            "deployment web replicas=2 labels(app=web) cpu=1 max-surge=1 max-unavailable=0\n"
            "at 10s apply deployment web replicas=2 labels(app=web) cpu=2 max-surge=1 "
            "max-unavailable=0\n")
    result = kruleset.run(kruleset.load(text), trace=True)
    shown = render_explain("deployment/web", result, Style(color=False))
    assert "Scaled up replica set" in shown and "Scaled down replica set" in shown
    assert "controllers.deployment.scale-down-old [deployment/default/web]" in shown
    assert "no deployment called default/nope" in render_explain("deployment/nope", result,
                                                                   Style(color=False))


def test_unready_and_ready_statements_move_availability() -> None:
    text = """
node n1 cpu=8 memory=16Gi
deployment web replicas=2 labels(app=web) cpu=1 min-ready-seconds=10
at 20s expect deployment web available=2
at 30s unready pod web-1
at 30s expect deployment web ready=1 available=1
at 40s ready pod web-1
at 45s expect deployment web ready=2 available=1
at 50s expect deployment web available=2
"""
    result = kruleset.run(kruleset.load(text))
    assert [r.passed for r in result.expectations] == [True] * 4


def test_revision_history_limit_and_undo_to_a_revision() -> None:
    text = """
node n1 cpu=16 memory=32Gi
deployment web replicas=1 labels(app=web) cpu=1 revision-history-limit=1 grace-period=0s
at 10s apply deployment web replicas=1 labels(app=web) cpu=2 revision-history-limit=1 \
grace-period=0s
at 20s apply deployment web replicas=1 labels(app=web) cpu=3 revision-history-limit=1 \
grace-period=0s
at 30s rollout undo deployment web to-revision=1
at 40s rollout undo deployment web to-revision=2
at 40s expect pods web-* running count=1
"""
    result = kruleset.run(kruleset.load(text.replace("\\\n", "")))
    msgs = [(d.time, d.message) for d in result.decisions if d.kind in ("rollout", "ignored")]
    # Revision 1 went with the history limit (one old ReplicaSet kept: revision 2).
    assert msgs == [(30_000, "unable to find specified revision 1 in history"),
                    (40_000, "deployment.apps/web rolled back")]
    assert all(r.passed for r in result.expectations)
    pod = next(ps for ps in result.state.pods.values() if not ps.gone and not ps.terminating)
    assert pod.pod.requests.cpu == 2000
