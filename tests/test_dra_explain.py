"""Traced runs explain why each device was passed over, per pod, with that pod's claim names.

The explanations are kept per claim specs and node while the devices in use
stay the same (pods of one template share them): each pod's lines must still
name its own claims, and a device taken in between must show in the next
pod's lines.
"""

from __future__ import annotations

from typing import Any

from kruleset import api
from kruleset.rules.engine import Trace
from kruleset.rules.scheduler.defaults import FILTER_DYNAMIC_RESOURCES as FILTER_RULE

SCENARIO = """\
node n1 cpu=8 memory=8Gi
node n2 cpu=8 memory=8Gi
devices gpu-[0..1] on n1 driver=gpu.example.com attributes(model=a100)
devices gpu-[0..0] on n2 driver=gpu.example.com attributes(model=h100)
deviceclass gpu.example.com driver=gpu.example.com
claimtemplate a100 class=gpu.example.com \
  selector("device.attributes['gpu.example.com'].model == 'a100'")
pods job-[1..3] requests(cpu=1) claims(gpu=template/a100)
"""


def _explained(trace: Trace) -> dict[str, list[str]]:
    # The first attempts only (at 0s): job-3 is retried by the queue's 5-minute
    # leftover flush over the hour simulated after, with the same lines.
    out: dict[str, list[str]] = {}
    for e in trace.entries:
        if e.rule == FILTER_RULE and e.result == "device passed over" and e.time == 0:
            out.setdefault(e.subject, []).append(e.why)
    return out


def test_each_pod_is_explained_with_its_own_claim_and_the_devices_in_use() -> None:
    result = api.run(api.load(SCENARIO), trace=True)
    assert result.trace is not None
    lines = _explained(result.trace)
    # n2's h100 is passed over by every pod; its line names the pod's own claim.
    for pod in ("default/job-1", "default/job-2", "default/job-3"):
        mine = lines[f"{pod} on n2"]
        assert all("\x00" not in line for line in mine)
        (name,) = {line.split(",")[0].removeprefix("claim ") for line in mine
                   if line.startswith("claim ")}
        assert name.startswith(f"default/{pod.split('/')[1]}-gpu-")
        assert f"claim {name}, request req-0: gpu.example.com/n2/gpu-0: selector false" in mine
    # job-3 finds both a100s on n1 taken by job-1's and job-2's claims.
    third = lines["default/job-3 on n1"]
    taken = [line for line in third if "device in use by claim default/job-" in line]
    assert len(taken) == 2, third
    assert "default/job-1-gpu-" in taken[0] and "default/job-2-gpu-" in taken[1]


class _OneGroupPerNode(Trace):
    """A trace without ``defer_groups``: DRA records one group per node, as before."""

    @property
    def defer_groups(self) -> Any:  # type: ignore[override]
        raise AttributeError("defer_groups")


def test_explanations_grouped_per_pod_read_as_one_group_per_node() -> None:
    from kruleset.sim.core import Simulation

    text = SCENARIO + "pods late-[1..4] requests(cpu=1) claims(gpu=template/a100)\n"
    runs = []
    grouped = Trace()
    for trace in (grouped, _OneGroupPerNode()):
        sim = Simulation(api.load(text), trace=True)
        sim.trace = trace
        sim.run()
        asked: list[int] = []
        walked = list(trace.walk(lambda count, asked=asked: asked.append(count) or True))
        runs.append(([d.to_json() for d in sim.decisions], walked, asked,
                     [(e.rule, e.subject, e.result, e.why, e.time) for e in trace.entries]))
    assert runs[0] == runs[1]
    assert any(e[2] == "device passed over" for e in runs[0][3])
    # The grouped run did keep several nodes' explanations in one item.
    assert any(isinstance(item, tuple) and len(item) > 1 and all(type(c) is int for c in item)
               for item in grouped._items)
