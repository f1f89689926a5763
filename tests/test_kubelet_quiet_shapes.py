"""The quiet first pass shares observations between nodes of one shape: never between others.

Nodes whose pods report no usage observe what their capacities, reserved
memory, reclaimable bytes, inodes, pid limit and filesystem layout give
(``signals.observation_key``); ``fast_pass.quiet_pass`` keeps what it found
per key.  Here seeded clusters of such nodes, many of them alike and others
differing in exactly one of those fields (some small enough to meet a
threshold at once), are simulated with the kubelet's fast paths on and off:
decisions, node conditions and the eviction managers' memory must agree.
"""

from __future__ import annotations

import random

import pytest

from tests.test_kubelet_idle_pass import _simulate

SEEDS = range(40)

FIELDS = {
    # capacity and reserved memory (allocatable under 100Mi with capacity above it)
    "memory": ["memory=64Mi", "memory=8Gi", "memory=8Gi reserved(memory=8100Mi)",
               "memory=8Gi reserved(memory=1Gi)", "memory=16Gi"],
    "ephemeral-storage": ["", "1Gi", "20Gi", "100Gi"],
    "imagefs": ["", "500Mi", "50Gi"],
    "containerfs": ["", "300Mi", "40Gi"],
    "inodes": ["", "inodes(nodefs=1k)", "inodes(nodefs=1M, imagefs=100)",
               "inodes(containerfs=10)"],
    "pid-max": ["", "pid-max=100", "pid-max=40000"],
    "images": ["", "images(unused=19Gi)", "images(unused=1Gi)"],
    "containers": ["", "containers(dead=18Gi)"],
}


def _node(name: str, shape: dict[str, str]) -> str:
    parts = [f"node {name} cpu=4 {shape['memory']} pods=110"]
    for field in ("ephemeral-storage", "imagefs", "containerfs"):
        if shape[field]:
            parts.append(f"{field}={shape[field]}")
    parts += [shape[f] for f in ("inodes", "pid-max", "images", "containers")
              if shape[f]]
    return " ".join(parts)


def scenario(seed: int) -> str:
    rng = random.Random(seed)
    lines = [f'scenario "shapes {seed}"', "kubelet * {"]
    hard = ["memory.available<100Mi"]
    for signal in ("nodefs.available<10%", "nodefs.inodesFree<5%", "imagefs.available<15%",
                   "imagefs.inodesFree<5%", "pid.available<200", "allocatableMemory.available<1Mi",
                   "containerfs.available<100Mi"):
        if rng.random() < 0.5:
            hard.append(signal)
    lines.append("  eviction-hard " + " ".join(hard))
    lines.append("  filesystems " + rng.choice(
        ["nodefs", "nodefs+imagefs", "nodefs+imagefs+containerfs"]))
    lines.append("}")
    base = {f: rng.choice(v) for f, v in FIELDS.items()}
    n = 0
    for _ in range(rng.randint(3, 8)):
        shape = dict(base)
        if rng.random() < 0.7:  # differ from the base in exactly one field
            field = rng.choice(sorted(FIELDS))
            shape[field] = rng.choice(FIELDS[field])
        for _ in range(rng.randint(1, 3)):  # a few nodes of each shape
            n += 1
            lines.append(_node(f"node-{n}", shape))
            if rng.random() < 0.5:
                lines.append(f"pod default/p{n} on node-{n} requests(cpu=100m, memory=10Mi)")
    lines.append("run until 30s")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_quiet_first_passes_decide_as_the_reference(seed: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario(seed)
    full = _simulate(text, False, False, monkeypatch)
    fast = _simulate(text, True, False, monkeypatch)
    assert fast == full


def test_the_shapes_both_meet_and_miss_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Some first passes report pressure, most none: both sides of the memo are exercised."""
    pressured = quiet = 0
    for seed in SEEDS:
        _, steps, *_ = _simulate(scenario(seed), True, False, monkeypatch)
        first = steps[0][2]
        pressured += sum(1 for _, conditions, _ in first if conditions)
        quiet += sum(1 for _, conditions, _ in first if not conditions)
    assert pressured >= 20 and quiet >= 100
