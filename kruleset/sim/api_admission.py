"""LimitRanger and ResourceQuota: the API server's admission of pods created during the run.

Pods of the cluster at time 0 (declared, or read from a dump) were admitted
before the dump was taken and are left as they are; every pod created later
(the timeline, workload controllers) goes through both, as in the API server:

* **LimitRanger** sets, per container, the limits a LimitRange's ``default``
  names and the container does not set, and the requests its
  ``defaultRequest`` names (``mergeContainerResources``); a container above
  ``max`` or below ``min`` is refused.
* **ResourceQuota** refuses a pod that would take its namespace's use of a
  quota's ``spec.hard`` (``pods``, ``count/pods``, ``requests.*`` or bare
  resource names, ``limits.*``) above the limit, with upstream's message; a
  quota on ``requests.X``/``limits.X`` refuses a pod that does not state X.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..model.objects import Container, Pod
from ..model.quantity import format_quantity
from ..model.resources import Resources
from ..rules.engine import REJECTED, Failure
from .core import Simulation, register_pod_admission

__all__ = ["DECLARING"]

DECLARING = "api-admission.declaring"  # sim.extra: True while the time-0 cluster is built
_LIMIT_RULE = "api.admission.LimitRanger"
_QUOTA_RULE = "api.admission.ResourceQuota"


def _applies(sim: Simulation, pod: Pod) -> bool:
    st = sim.state
    if not (st.limit_ranges or st.resource_quotas) or sim.extra.get(DECLARING):
        return False
    ns = pod.namespace
    return any(v.namespace == ns for v in st.limit_ranges.values()) or \
        any(v.namespace == ns for v in st.resource_quotas.values())


def _changes(sim: Simulation, pod: Pod) -> Any:
    return None if _applies(sim, pod) else {}


def _admit(sim: Simulation, pod: Pod) -> Any:
    if not _applies(sim, pod):
        return pod
    defaulted = _limit_ranger(sim, pod)
    if isinstance(defaulted, Failure):
        return defaulted
    refusal = _quota(sim, defaulted)
    return refusal if refusal is not None else defaulted


def _limit_ranger(sim: Simulation, pod: Pod) -> Pod | Failure:
    ranges = [r for r in sim.state.limit_ranges.values() if r.namespace == pod.namespace]
    if not ranges:
        return pod
    containers = []
    for c in (*pod.init_containers, *pod.containers):
        req, lim = c.requests.as_dict(), c.limits.as_dict()
        for lr in ranges:
            for name, value in lr.default.items():
                lim.setdefault(name, value)
            for name, value in lr.default_request.items():
                req.setdefault(name, value)
            for name, value in lr.max.items():
                if name not in lim or lim[name] > value:
                    what = ".  No limit is specified" if name not in lim else \
                        f", but limit is {format_quantity(name, lim[name])}"
                    return Failure(f'pods "{pod.name}" is forbidden: maximum {name} usage per '
                                   f"Container is {format_quantity(name, value)}{what}",
                                   REJECTED, rule=_LIMIT_RULE)
            for name, value in lr.min.items():
                if name not in req or req[name] < value:
                    what = ".  No request is specified" if name not in req else \
                        f", but request is {format_quantity(name, req[name])}"
                    return Failure(f'pods "{pod.name}" is forbidden: minimum {name} usage per '
                                   f"Container is {format_quantity(name, value)}{what}",
                                   REJECTED, rule=_LIMIT_RULE)
        containers.append(attrs.evolve(c, requests=Resources.of(req), limits=Resources.of(lim)))
    n = len(pod.init_containers)
    return pod.replace(init_containers=tuple(containers[:n]), containers=tuple(containers[n:]))


def _usage(pod: Pod, key: str) -> int | None:
    """What ``pod`` counts for quota key ``key``; None when it does not state it."""
    if key in ("pods", "count/pods"):
        return 1
    if key.startswith("limits."):
        name = key[7:]
        return pod.limits.get(name) if _stated(pod, name, limits=True) else None
    name = key[9:] if key.startswith("requests.") else key
    return pod.requests.get(name) if _stated(pod, name, limits=False) else None


def _stated(pod: Pod, name: str, *, limits: bool) -> bool:
    containers: tuple[Container, ...] = pod.containers
    return all(name in (c.limits if limits else c.requests).as_dict() for c in containers)


def _quota(sim: Simulation, pod: Pod) -> Failure | None:
    quotas = [q for q in sim.state.resource_quotas.values() if q.namespace == pod.namespace]
    if not quotas:
        return None
    live = [ps.pod for ps in sim.state.by_namespace.get(pod.namespace, {}).values()
            if not ps.gone and ps.phase in ("Pending", "Running")]
    for q in quotas:
        over, missing = [], []
        for key, hard in sorted(q.hard.items()):
            if not (key in ("pods", "count/pods") or key.startswith(("requests.", "limits."))
                    or key in ("cpu", "memory", "ephemeral-storage")):
                continue  # object counts and other kinds: pods do not use them
            want = _usage(pod, key)
            if want is None:
                missing.append(key)
                continue
            used = sum(_usage(p, key) or 0 for p in live)
            if used + want > hard:
                over.append((key, want, used, hard))
        if missing:
            return Failure(f'pods "{pod.name}" is forbidden: failed quota: {q.name}: must '
                           f"specify {','.join(missing)}", REJECTED, rule=_QUOTA_RULE)
        if over:
            def show(pairs: list[tuple[str, int]]) -> str:
                return ",".join(f"{k}={format_quantity(_resource(k), v)}" for k, v in pairs)
            return Failure(
                f'pods "{pod.name}" is forbidden: exceeded quota: {q.name}, requested: '
                f"{show([(k, w) for k, w, _, _ in over])}, used: "
                f"{show([(k, u) for k, _, u, _ in over])}, limited: "
                f"{show([(k, h) for k, _, _, h in over])}", REJECTED, rule=_QUOTA_RULE)
    return None


def _resource(key: str) -> str:
    if key in ("pods", "count/pods"):
        return "pods"
    return key.rpartition(".")[2] if key.startswith(("requests.", "limits.")) else key


register_pod_admission(_admit, changes=_changes)
