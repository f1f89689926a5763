"""A profile's priority.admission rules are the ones that run (not always the defaults)."""

from __future__ import annotations

import kruleset
from kruleset.model.objects import Pod, PriorityClass
from kruleset.rules.priority import admit_priority
from kruleset.rules.profile import Override, Profile

OFF = Profile({"priority.admission": Override(disable=("priority.admission.resolve-class",))})

TEXT = """
priorityclass high value=1000
priorityclass low value=1 default
node n1 cpu=2 memory=4Gi
pod low-1 on n1 requests(cpu=2)
at 5s create pod web priorityclass=high requests(cpu=2)
"""


def test_switched_off_admission_leaves_the_pod_as_written() -> None:
    classes = {"high": PriorityClass("high", 1000)}
    pod = Pod("default", "web", priority_class="high")
    assert admit_priority(pod, classes).priority == 1000
    kept = admit_priority(pod, classes, OFF)
    assert kept.priority is None and kept.priority_class == "high"


def test_a_simulation_uses_its_profile_for_admission() -> None:
    scenario = kruleset.load(TEXT)
    on = kruleset.run(scenario)
    assert any(d.kind == "nominated" and d.pod == "default/web" for d in on.decisions)
    off = kruleset.run(kruleset.load(TEXT), profile=OFF)
    # Unresolved, the pod has no priority above the running pod's: it cannot preempt,
    # and the running pod was not given the default class's value either.
    assert not any(d.kind in ("nominated", "preempted") for d in off.decisions)
    assert any(d.kind == "pending" and d.pod == "default/web" for d in off.decisions)

