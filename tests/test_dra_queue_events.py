"""The queue events DRA writes send, as upstream's informers would deliver them.

Each case runs a timeline and reads why each attempt happened (the event and
the plugin whose registration queued it) or the DynamicResources hints'
verdicts in the trace: a ResourceSlice or DeviceClass applied again is an
update, PreBind's claim write is a ResourceClaim update the waiting pods'
hints see, a claim deleted while allocated is deallocated first.
"""

from __future__ import annotations

from pathlib import Path

from kruleset import api
from kruleset.rules.dra.queue_hints import CLAIM_HINT_RULE

BASE = """\
nodes worker-[1..2] cpu=16 memory=64Gi
devices gpu-0 on worker-1 driver=gpu.example.com attributes(model=a100)
deviceclass gpu.example.com driver=gpu.example.com
claimtemplate one-gpu class=gpu.example.com
pod first cpu=1 claims(gpu=template/one-gpu)
at 1s create pod second cpu=1 claims(gpu=template/one-gpu)
"""


def _whys(text: str, pod: str = "default/second") -> list[tuple[int, str, str]]:
    result = api.run(api.load(text))
    return [(a.time, a.result, a.why) for a in result.attempts if a.pod == pod]


def _slice(path: Path, count: int) -> None:
    path.write_text(f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: extra
spec:
  driver: gpu.example.com
  nodeName: worker-2
  pool: {{name: extra, generation: 1, resourceSliceCount: {count}}}
  devices:
  - name: gpu-9
""")


def test_a_slice_applied_again_is_an_update(tmp_path: Path) -> None:
    # The first apply leaves its pool incomplete (1 of 2 slices): second is retried
    # (ResourceSliceAdd) and still fails; the same slice applied complete is an update.
    _slice(tmp_path / "incomplete.yaml", 2)
    _slice(tmp_path / "complete.yaml", 1)
    text = BASE + (f'at 10s apply "{tmp_path / "incomplete.yaml"}"\n'
                   f'at 20s apply "{tmp_path / "complete.yaml"}"\n')
    assert _whys(text) == [
        (1000, "unschedulable", "it was created"),
        (10000, "unschedulable", "ResourceSlice extra was created (DynamicResources: Queue)"),
        (20000, "scheduled", "ResourceSlice extra was updated (DynamicResources: Queue)"),
    ]


def test_a_device_class_created_again_is_an_update() -> None:
    text = BASE + ('at 10s create deviceclass gpu.example.com driver=gpu.example.com '
                   'selector("device.attributes[\'gpu.example.com\'].model == \'a100\'")\n')
    assert _whys(text)[1] == (
        10000, "unschedulable", "DeviceClass gpu.example.com was updated (DynamicResources: Queue)")


def test_prebind_writes_a_claim_the_waiting_pods_hints_see() -> None:
    # third waits for worker-1's GPU; user's claim shared (a NIC) is allocated and
    # reserved when user binds at 10s: an update of a claim that is not third's, so its
    # hint skips it.
    text = """\
nodes worker-[1..2] cpu=16 memory=64Gi
devices gpu-0 on worker-1 driver=gpu.example.com
devices nic-0 on worker-2 driver=nic.example.com
deviceclass gpu.example.com driver=gpu.example.com
deviceclass nic.example.com driver=nic.example.com
claimtemplate one-gpu class=gpu.example.com
claim shared class=nic.example.com
pod first cpu=1 claims(gpu=template/one-gpu)
at 1s create pod third cpu=1 claims(gpu=template/one-gpu)
at 10s create pod user cpu=1 claims(nic=shared)
"""
    result = api.run(api.load(text), trace=True)
    assert result.trace is not None
    seen = [(e.time, e.result, e.why) for e in result.trace.entries
            if e.rule == CLAIM_HINT_RULE and e.subject == "default/third"]
    assert (10000, "QueueSkip", "claim default/shared is not one of the pod's claims") in seen


def test_a_claim_deleted_while_allocated_is_deallocated_first() -> None:
    # lone is allocated at time 0 and used by nobody: its deletion is preceded by the
    # controller's deallocation, an update that queues second.
    text = BASE.replace("pod first", "claim lone class=gpu.example.com allocated(worker-1/gpu-0)\n"
                        "pod first") + "at 10s delete claim lone\n"
    whys = _whys(text)
    assert whys[1] == (10000, "unschedulable",
                       "ResourceClaim default/lone was deallocated to be deleted "
                       "(DynamicResources: Queue)")


def test_an_unrelated_pod_or_taint_sends_nothing_dynamicresources_hears() -> None:
    text = BASE + ("at 10s create pod other cpu=1\nat 12s taint node worker-2 a=b:NoSchedule\n"
                   "run until 60s\n")
    assert [t for t, _r, _w in _whys(text)] == [1000]
