"""OOM score adjust (seed 003 §12.8; upstream policy_test.go cases)."""

from __future__ import annotations

import pytest
from kubelet_helpers import Gi, pod, res

from kruleset.model.objects import SYSTEM_CRITICAL_PRIORITY, Container, Pod
from kruleset.rules.kubelet.eviction.oom import oom_score_adj

CAP = 4 * Gi


def test_qos_table() -> None:
    assert oom_score_adj(pod("g", req=res(100, Gi), lim=res(100, Gi)), None, CAP) == -997
    assert oom_score_adj(pod("be"), None, CAP) == 1000
    assert oom_score_adj(pod("bu", req=res(0, Gi)), None, CAP) == 750


def test_burstable_clamps_and_integer_division() -> None:
    assert oom_score_adj(pod("a", req=res(0, CAP)), None, CAP) == 3
    assert oom_score_adj(pod("b", req=res(100)), None, CAP) == 999
    assert oom_score_adj(pod("c", req=res(0, 3)), None, 1000) == 997


def test_node_critical_by_class_name_only() -> None:
    node_crit = pod("n", priority=SYSTEM_CRITICAL_PRIORITY + 1000,
                    priority_class="system-node-critical")
    other = pod("o", priority=SYSTEM_CRITICAL_PRIORITY + 1000, priority_class="mine")
    assert oom_score_adj(node_crit, None, CAP) == -997
    assert oom_score_adj(other, None, CAP) == 1000


def test_sidecar_capped_at_smallest_regular_container() -> None:
    p = Pod("default", "p", containers=(Container("big", res(0, 2 * Gi)),
                                        Container("small", res(0, Gi))),
            init_containers=(Container("side", res(0, 10), restart_always=True),))
    assert oom_score_adj(p, "side", CAP) == oom_score_adj(p, "small", CAP) == 750
    assert oom_score_adj(p, "big", CAP) == 500
    with pytest.raises(ValueError):
        oom_score_adj(p, None, CAP)
