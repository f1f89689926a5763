"""Priority admission and PriorityClass validation (seed 002 §1, seed 003 §11.1, §11.3).

Encodes upstream ``plugin/pkg/admission/priority`` (``admitPod``,
``getDefaultPriority``) and ``pkg/apis/scheduling/validation``
(``ValidatePriorityClass``):

* a pod naming a class gets the class's value and preemptionPolicy; a class
  that does not exist refuses the pod (403 Forbidden, ``no PriorityClass with
  name X was found``);
* a pod naming none gets the globalDefault class (with several, the one with
  the LOWEST value wins, and the pod's priorityClassName becomes its name), or
  with no default class priority 0 and PreemptLowerPriority with an empty
  class name;
* the built-in classes ``system-node-critical`` (2000001000) and
  ``system-cluster-critical`` (2000000000) exist in every cluster and may be
  used in any namespace (current releases do not restrict them to
  kube-system);
* an explicit ``spec.priority`` is accepted only if it equals the class's
  value.

Two kruleset conveniences, documented in docs/LANGUAGE-SUMMARY.md:

* ``priority=N`` without ``priorityclass=`` stands for a pod whose class has
  value N (upstream would need such a class);
* ``preemption=Never|PreemptLowerPriority`` on a pod overrides its class's
  policy.  Upstream's admission refuses a pod whose explicit preemptionPolicy
  differs from its class's (``the string value of PreemptionPolicy (…) must
  not be provided in pod spec``); kruleset's override models a pod whose class
  carries that policy, so scenarios need not declare one class per policy.

PriorityClass objects are checked with :func:`validate_priority_class` (the
API server's validation: user values at most 1,000,000,000, ``system-`` names
reserved) and :func:`validate_new_default` (the admission plugin's "only one
default"); the ``.kr`` parser and the YAML importer call them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..model.objects import (
    BUILTIN_PRIORITY_CLASSES,
    HIGHEST_USER_PRIORITY,
    NEVER,
    PREEMPT_LOWER,
    Pod,
    PriorityClass,
)
from .context import Unread
from .engine import REJECTED, Failure
from .registry import define_ruleset, rule

__all__ = [
    "ADMISSION",
    "DEFAULT_PRIORITY",
    "INT32_MIN",
    "POLICIES",
    "admission_rules",
    "admit_priority",
    "global_default",
    "priority_changes",
    "resolve_priority",
    "validate_new_default",
    "validate_priority_class",
    "validate_priority_class_update",
]

ADMISSION = define_ruleset(
    "priority.admission", "pipeline",
    "How the API server's Priority admission plugin sets spec.priority and preemptionPolicy.",
)

# pkg/apis/scheduling: DefaultPriorityWhenNoDefaultClassExists.
DEFAULT_PRIORITY = 0
INT32_MIN = -(2 ** 31)
POLICIES = (PREEMPT_LOWER, NEVER)
_SYSTEM_PREFIX = "system-"
_BUILTIN = {pc.name: pc for pc in BUILTIN_PRIORITY_CLASSES}
# A DNS subdomain (RFC 1123): lower-case alphanumerics, '-' and '.', at most 253.
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$")


def global_default(classes: Mapping[str, PriorityClass] | Iterable[PriorityClass]
                   ) -> PriorityClass | None:
    """The globalDefault class; with several, the one with the lowest value (then name).

    Upstream ``getDefaultPriority`` tolerates several defaults (two API
    servers may race) and takes the lowest value; the name tie-break is
    kruleset's, for determinism.
    """
    values = _class_values(classes)
    defaults = [pc for pc in values if pc.global_default]
    if not defaults:
        return None
    return min(defaults, key=lambda pc: (pc.value, pc.name))


# --- PriorityClass validation ------------------------------------------------------

def validate_priority_class(pc: PriorityClass) -> str | None:
    """The API server's refusal of ``pc``, or ``None`` if it is valid.

    Upstream ``ValidatePriorityClass``: the name is a DNS subdomain; a name
    starting with ``system-`` must be one of the built-in classes with its exact
    value; any other class's value must be at most 1,000,000,000 (there is no
    lower bound beyond int32).  Messages are upstream's.

    >>> validate_priority_class(PriorityClass("high", 1_000_000))
    >>> validate_priority_class(PriorityClass("too-high", 1_000_000_001))
    'maximum allowed value of a user defined priority is 1000000000'
    >>> validate_priority_class(PriorityClass("system-mine", 10)).split(". ")[1]
    'error: system-mine is not a known system priority class'
    """
    name = pc.name
    if not name or len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        return (f"invalid PriorityClass name '{name}': a lowercase RFC 1123 subdomain must "
                "consist of lower case alphanumeric characters, '-' or '.', and must start "
                "and end with an alphanumeric character")
    if not INT32_MIN <= pc.value < 2 ** 31:
        return f"value {pc.value} is not a 32-bit integer"
    if pc.preemption_policy not in POLICIES:
        return (f'preemptionPolicy: Unsupported value: "{pc.preemption_policy}": supported '
                'values: "Never", "PreemptLowerPriority"')
    if name.startswith(_SYSTEM_PREFIX):
        builtin = _BUILTIN.get(name)
        if builtin is None:
            error = f"{name} is not a known system priority class"
        elif builtin.value != pc.value:
            error = f"value of {name} PriorityClass must be {builtin.value}"
        elif pc.global_default != builtin.global_default:
            error = f"globalDefault of {name} PriorityClass must be {builtin.global_default}"
        else:
            return None
        return (f"priority class names with '{_SYSTEM_PREFIX}' prefix are reserved for "
                f"system use only. error: {error}")
        return None
    if pc.value > HIGHEST_USER_PRIORITY:
        return f"maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"
    return None


def validate_new_default(classes: Mapping[str, PriorityClass] | Iterable[PriorityClass],
                         pc: PriorityClass) -> str | None:
    """The admission plugin's refusal of a second default class, or ``None``.

    Upstream ``priorityClassPermittedByDefault``: creating (or updating) a
    class with globalDefault=true while another class already has it is 403
    ``PriorityClass X is already marked as default. Only one default can exist``.
    """
    if not pc.global_default:
        return None
    values = _class_values(classes)
    for other in values:
        if other.global_default and other.name != pc.name:
            return (f"PriorityClass {other.name} is already marked as default. "
                    "Only one default can exist")
    return None


def _class_values(classes: Mapping[str, PriorityClass] | Iterable[PriorityClass]
                  ) -> Iterable[PriorityClass]:
    # A dict is the usual case (every created pod comes here): no ABC check for it.
    if classes.__class__ is dict or isinstance(classes, Mapping):
        return classes.values()  # type: ignore[union-attr]
    return classes


def admission_rules(profile: Any = None) -> Any:
    """The admission rules in force under ``profile`` (default: upstream's): the same
    object until rules are registered or the profile changes."""
    return _admission_for(profile)[0]


def priority_changes(pod: Pod, classes: Mapping[str, PriorityClass], profile: Any = None
                     ) -> dict[str, Any] | Failure | None:
    """What :func:`admit_priority` does to ``pod``, as the fields it sets (``{}``: none).

    None when the admission rules in force under ``profile`` are not the
    default single rule (then only running them tells).  Reads the priority
    fields only.
    """
    if not _admission_for(profile)[1]:
        return None
    if _already_admitted(pod):
        return {}
    resolved = resolve_priority(pod, classes)
    if isinstance(resolved, Failure):
        return resolved
    return _fields(pod, resolved)


def validate_priority_class_update(old: PriorityClass, new: PriorityClass) -> str | None:
    """Upstream ``ValidatePriorityClassUpdate``: value and preemptionPolicy are immutable.

    globalDefault and description may change.
    """
    if old.value != new.value:
        return "value: Forbidden: may not be changed in an update."
    if old.preemption_policy != new.preemption_policy:
        return "preemptionPolicy: Invalid value: field is immutable"
    return validate_priority_class(new)


# --- pod admission --------------------------------------------------------------------

@attrs.frozen(slots=True)
class _Admit:
    pod: Pod
    classes: Mapping[str, PriorityClass]


def resolve_priority(pod: Pod, classes: Mapping[str, PriorityClass]
                     ) -> tuple[int, str, str] | Failure:
    """``(priority, preemptionPolicy, priorityClassName)`` upstream computes for ``pod``.

    Without a class name: the global default (lowest value wins) or
    ``(0, PreemptLowerPriority, "")``.  A missing class is a refusal.  The
    built-in system classes resolve even if ``classes`` lacks them.
    """
    name = pod.priority_class
    if name:
        pc = classes.get(name) or _BUILTIN.get(name)
        if pc is None:
            return Failure(f"no PriorityClass with name {name} was found", REJECTED)
    else:
        pc = global_default(classes)
    if pc is None:
        return DEFAULT_PRIORITY, PREEMPT_LOWER, ""
    return pc.value, pc.preemption_policy, pc.name


@rule(ADMISSION, "priority.admission.resolve-class",
      doc="A named class gives its value and policy; none named: the globalDefault (lowest wins), "
          "else priority 0 with PreemptLowerPriority; an unknown class refuses the pod.",
      source="seed 003 §11.1, §11.3; plugin/pkg/admission/priority admitPod, getDefaultPriority")
def _resolve(ctx: Unread, args: Mapping[str, Any], data: _Admit) -> Any:
    pod = data.pod
    if _already_admitted(pod):
        return pod
    resolved = resolve_priority(pod, data.classes)
    if isinstance(resolved, Failure):
        return resolved
    fields = _fields(pod, resolved)
    if isinstance(fields, Failure):
        return fields
    # Pod.replace: attrs.evolve's result, without its generic cost (every pod
    # created goes through here).
    return pod.replace(**fields)


def _fields(pod: Pod, resolved: tuple[int, str, str]) -> dict[str, Any] | Failure:
    """The fields :func:`_resolve` sets on ``pod`` given its resolved class, or a refusal."""
    value, policy, cname = resolved
    named = bool(pod.priority_class)
    if pod.priority is not None and pod.priority != value and named:
        return Failure(
            "the integer value of priority "
            f"({pod.priority}) must not be provided in pod spec; priority admission controller "
            f"computed {value} from the given PriorityClass name", REJECTED)
    if pod.priority is not None and not named:
        # kruleset: a bare `priority=N` stands for a pod whose class has that value.
        value, cname = pod.priority, ""
    # kruleset: `preemption=` on the pod overrides the class's policy (see module doc).
    return {"priority": value, "priority_class": cname,
            "preemption_policy": pod.preemption_policy or policy}


def _already_admitted(pod: Pod) -> bool:
    """Whether admission would leave ``pod`` as it is, without looking at any class.

    A pod with a priority, no class name and a preemption policy keeps all
    three (see :func:`_resolve`: no class name cannot be refused, and the
    given priority and policy win over any default).  Pods read from a
    cluster dump are like this (the API server wrote those fields); not
    rebuilding each of them is a third of setting up a large cluster.
    """
    return pod.priority is not None and not pod.priority_class and bool(pod.preemption_policy)


# The rule set's rules when resolved, the ActiveRuleSet, and whether that
# runs :func:`_resolve` alone.
_ACTIVE: list[Any] = [None, None, False]


def _default_admission() -> Any:
    """The default profile's admission rules, resolved again only when rules are registered.

    Every created pod is admitted; building a fresh default profile for each
    was a tenth of setting up a large cluster.
    """
    rules = tuple(ADMISSION.rules)
    if _ACTIVE[0] != rules:
        from .profile import Profile

        active = Profile.default().active(ADMISSION.name)
        _ACTIVE[0], _ACTIVE[1] = rules, active
        _ACTIVE[2] = tuple(a.rule.fn for a in active.rules) == (_resolve,)
    return _ACTIVE[1]


def _admission_for(profile: Any) -> tuple[Any, bool]:
    """The admission rules a profile runs, and whether they are ``_resolve`` alone.

    A profile without an override of ``priority.admission`` runs the defaults
    (kept resolved once); one with an override runs its own (each profile
    caches its rule sets).
    """
    default = _default_admission()
    if profile is None or ADMISSION.name not in profile.overrides:
        return default, _ACTIVE[2]
    active = profile.active(ADMISSION.name)
    return active, tuple(a.rule.fn for a in active.rules) == (_resolve,)


def admit_priority(pod: Pod, classes: Mapping[str, PriorityClass], profile: Any = None
                   ) -> Pod | Failure:
    """Resolve ``pod``'s priority against ``classes``: the admitted pod, or why it was refused.

    ``profile`` decides which ``priority.admission`` rules run (upstream's
    defaults when None or when it does not override them); with every rule
    switched off, the pod is left as written.

    >>> from kruleset.model.objects import PriorityClass, Pod
    >>> classes = {"low": PriorityClass("low", 10, global_default=True),
    ...            "lower": PriorityClass("lower", 5, global_default=True)}
    >>> p = admit_priority(Pod("default", "web"), classes)
    >>> (p.priority, p.priority_class, p.preemption_policy)
    (5, 'lower', 'PreemptLowerPriority')
    >>> admit_priority(Pod("default", "x", priority_class="nope"), classes).reason
    'no PriorityClass with name nope was found'
    """
    active, alone = _admission_for(profile)
    if alone and _already_admitted(pod):
        # What running the rule set would give (nothing is traced here).
        return pod
    out = active.run(None, _Admit(pod, classes))
    if isinstance(out, Failure):
        return out
    if isinstance(out, _Admit):
        return out.pod
    return out
