"""A small client of kruleset's public API, checked with ``mypy --strict`` by
tests/test_public_api.py (not collected by pytest: it is not a test module)."""

from __future__ import annotations

from datetime import timedelta

import kruleset
from kruleset.model import Container, Pod


def where(state: kruleset.ClusterState, cpu: str) -> tuple[str | None, tuple[str, ...]]:
    pod = Pod("default", "probe",
              containers=(Container("c", kruleset.Resources.of({"cpu": cpu})),))
    answer: kruleset.Placement = kruleset.schedule_pod(state, pod, preempt=True)
    return answer.node or answer.nominated, answer.victims


def keep(ctx: object, args: object, pod: Pod, node: object) -> kruleset.Failure | None:
    return None if pod.namespace else kruleset.Failure("no namespace")


def main() -> None:
    state = kruleset.cluster("node n1 cpu=4 memory=8Gi\n")
    print(where(state, "500m"))
    kruleset.register(kruleset.Rule("client.filter.Keep", doc="keep", source="client",
                                    fn=keep), "scheduler.filter")
    result: kruleset.Result = kruleset.run("node n1 cpu=1\n", until=timedelta(seconds=5))
    ends: timedelta = result.end
    times: list[timedelta] = [d.at for d in result.decisions]
    answer: kruleset.EvictionAnswer = kruleset.evict(state, "default/x", dry_run=True)
    drained: kruleset.DrainAnswer = kruleset.drain(state, "n1", timeout="1m")
    now: timedelta = kruleset.advance(state, "30s")
    room: kruleset.CapacityAnswer = kruleset.capacity(state, Pod("default", "p"), limit=3)
    kubelet: kruleset.PassResult = kruleset.eviction_pass(state, "n1")
    print(ends, times, answer.status, drained.took, now, room.count, kubelet.conditions)


if __name__ == "__main__":
    main()
