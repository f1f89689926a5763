"""Priority admission: resolving a pod's priority and preemption policy (seed 003 §11.1).

Encodes upstream ``plugin/pkg/admission/priority``: a pod naming a class gets
its value and preemptionPolicy; a pod naming none gets the globalDefault class
(the lowest value wins when several are default) or priority 0 with
PreemptLowerPriority.  An explicit priority must agree with the class.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..model.objects import PREEMPT_LOWER, Pod, PriorityClass
from .engine import REJECTED, Failure
from .registry import define_ruleset, rule

__all__ = ["ADMISSION", "admit_priority", "global_default"]

ADMISSION = define_ruleset(
    "priority.admission", "pipeline",
    "How the API server's Priority admission plugin sets spec.priority and preemptionPolicy.",
)


def global_default(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """The globalDefault class; with several, the one with the lowest value (then name)."""
    defaults = [pc for pc in classes.values() if pc.global_default]
    if not defaults:
        return None
    return min(defaults, key=lambda pc: (pc.value, pc.name))


@attrs.frozen(slots=True)
class _Admit:
    pod: Pod
    classes: Mapping[str, PriorityClass]


@rule(ADMISSION, "priority.admission.resolve-class",
      doc="A named class gives its value and policy; none named: the globalDefault (lowest wins), "
          "else priority 0 with PreemptLowerPriority.",
      source="seed 003 §11.1; plugin/pkg/admission/priority admitPod")
def _resolve(ctx: Any, args: Mapping[str, Any], data: _Admit) -> Any:
    pod, classes = data.pod, data.classes
    name = pod.priority_class
    if name:
        pc = classes.get(name)
        if pc is None:
            return Failure(f'no PriorityClass with name {name} was found', REJECTED)
    else:
        pc = global_default(classes)
    if pc is None:
        value, policy, cname = 0, PREEMPT_LOWER, ""
    else:
        value, policy, cname = pc.value, pc.preemption_policy, pc.name
    if pod.priority is not None and pod.priority != value and name:
        return Failure(
            "the integer value of priority "
            f"({pod.priority}) must not be provided in pod spec; priority admission controller "
            f"computed {value} from the given PriorityClass name", REJECTED)
    if pod.priority is not None and not name:
        # A bare `priority=N` in a scenario stands for a pod whose class has that value.
        value, cname = pod.priority, ""
    return attrs.evolve(
        pod, priority=value, priority_class=cname,
        preemption_policy=pod.preemption_policy or policy,
    )


def admit_priority(pod: Pod, classes: Mapping[str, PriorityClass]) -> Pod | Failure:
    """Resolve ``pod``'s priority against ``classes``: the admitted pod, or why it was refused."""
    from .profile import Profile

    out = Profile.default().active(ADMISSION.name).run(None, _Admit(pod, classes))
    if isinstance(out, Failure):
        return out
    if isinstance(out, _Admit):
        return out.pod
    return out
