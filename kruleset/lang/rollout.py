"""What the ``.kr`` language says about rollouts (LANGUAGE.md §3, §4, §6, §7).

* pod attributes the controllers read: ``readiness-delay=D`` (the readiness
  probe's initialDelaySeconds), and, for pods of the time-0 cluster,
  ``restarts=N``, ``deletion-cost=N``, ``created=D``, ``ready-since=D``;
* deployment attributes: ``strategy=RollingUpdate|Recreate``,
  ``max-surge=N|N%``, ``max-unavailable=N|N%``, ``min-ready-seconds=N``,
  ``revision-history-limit=N``, ``paused``; checked as the API server's
  validation checks ``spec.strategy`` and ``spec.minReadySeconds``;
* ``rollout pause|resume|undo deployment REF [to-revision=N]`` in the timeline;
* ``expect deployment REF replicas=N updated=N ready=N available=N unavailable=N``.
"""

from __future__ import annotations

from typing import Any

from ..errors import Span
from ..model.deployment_spec import int_or_percent, strategy_errors
from ..model.scenario import RolloutDeployment
from .cursor import Attr, Cursor
from .errors import Source
from .expect_words import Check
from .values import duration, integer, pod_ref

__all__ = [
    "DEPLOYMENT_STATUS_FIELDS",
    "STATUS_ATTRIBUTES",
    "STRATEGY_ATTRIBUTES",
    "TEMPLATE_STATUS",
    "parse_expect_deployment",
    "read_status_attr",
    "rollout_statement",
    "strategy_fields",
]

# Pod attributes: on a pod, a replica (`pods … deployment=NAME`) or, the first
# two only (TEMPLATE_STATUS), a deployment's template.
STATUS_ATTRIBUTES = ("readiness-delay", "deletion-cost", "restarts", "created", "ready-since")
TEMPLATE_STATUS = ("readiness-delay", "deletion-cost")
STRATEGY_ATTRIBUTES = ("strategy", "max-surge", "max-unavailable", "min-ready-seconds",
                       "revision-history-limit", "paused")
FORMS = {name: "=" for name in (*STATUS_ATTRIBUTES, *STRATEGY_ATTRIBUTES)} | {"paused": "flag"}
DEPLOYMENT_STATUS_FIELDS = ("replicas", "updated", "ready", "available", "unavailable")
_INT32 = 2**31 - 1


def read_status_attr(src: Source, kw: dict[str, Any], attr: Attr) -> None:
    """One of :data:`STATUS_ATTRIBUTES` into the Pod keyword arguments ``kw``."""
    name, value = attr.name, attr.value
    assert value is not None
    if name == "readiness-delay":
        ms = duration(src, value, "readiness-delay")
        if ms % 1000:
            raise src.error("readiness-delay is the probe's initialDelaySeconds: whole seconds",
                            value, expected="readiness-delay=10s")
        kw["readiness_delay"] = ms
    elif name == "deletion-cost":
        kw["deletion_cost"] = integer(src, value, "deletion-cost", minimum=-_INT32 - 1,
                                      maximum=_INT32)
    elif name == "restarts":
        kw["restarts"] = integer(src, value, "restarts", minimum=0, maximum=_INT32)
    elif name == "created":
        kw["created_at"] = duration(src, value, "created", allow_negative=True)
    else:
        kw["ready_at"] = duration(src, value, "ready-since", allow_negative=True)


def strategy_fields(src: Source, extras: dict[str, Attr], ref_w: Any) -> dict[str, Any]:
    """The Deployment keyword arguments the strategy attributes give, validated."""
    out: dict[str, Any] = {}
    where: dict[str, Any] = {}
    strategy = "RollingUpdate"
    if (a := extras.get("strategy")) is not None:
        assert a.value is not None
        strategy = a.value.value
        where["spec.strategy.type"] = a.value
    out["strategy"] = strategy
    rolling = False
    for name, field in (("max-surge", "max_surge"), ("max-unavailable", "max_unavailable")):
        a = extras.get(name)
        if a is not None:
            assert a.value is not None
            out[field] = int_or_percent(a.value.value)
            where["spec.strategy.rollingUpdate." + ("maxSurge" if field == "max_surge"
                                                    else "maxUnavailable")] = a.value
            where["spec.strategy.rollingUpdate"] = a.key
            rolling = True
    if (a := extras.get("min-ready-seconds")) is not None:
        assert a.value is not None
        out["min_ready_seconds"] = integer(src, a.value, "min-ready-seconds", maximum=_INT32)
        where["spec.minReadySeconds"] = a.value
    if (a := extras.get("revision-history-limit")) is not None:
        assert a.value is not None
        out["revision_history_limit"] = integer(src, a.value, "revision-history-limit",
                                                minimum=0, maximum=_INT32)
    if "paused" in extras:
        out["paused"] = True
    errs = strategy_errors(strategy, out.get("max_surge", "25%"),
                           out.get("max_unavailable", "25%"), rolling,
                           out.get("min_ready_seconds", 0))
    if errs:
        path, message = errs[0]
        raise src.error(f"{path}: {message}", where.get(path, ref_w),
                        expected=_ALLOWED.get(path.rsplit(".", 1)[-1], ""))
    return out


_ALLOWED = {
    "type": "strategy=RollingUpdate | strategy=Recreate",
    "rollingUpdate": "no max-surge= or max-unavailable= with strategy=Recreate",
    "maxSurge": "max-surge=N or N% (N ≥ 0); not 0 together with max-unavailable",
    "maxUnavailable": "max-unavailable=N or N% (N ≥ 0, at most 100%); not 0 together "
                      "with max-surge",
    "minReadySeconds": "min-ready-seconds=N (N ≥ 0)",
}


def rollout_statement(src: Source, cur: Cursor, span: Span, deployments: Any
                      ) -> list[RolloutDeployment]:
    """``rollout pause|resume|undo deployment REF [to-revision=N]``."""
    verb = cur.keyword("pause", "resume", "undo").value
    cur.keyword("deployment")
    w = cur.word("a deployment reference")
    ns, name = pod_ref(src, w, what="deployment")
    key = f"{ns}/{name}"
    if key not in deployments:
        raise src.unknown("deployment", key, w, deployments)
    revision = 0
    if verb == "undo" and not cur.at_end():
        rw = cur.word("to-revision=N")
        k, eq, v = rw.value.partition("=")
        if k != "to-revision" or not eq:
            raise src.error(f"expected to-revision=N, found '{rw.value}'", rw,
                            expected="to-revision=N")
        revision = integer(src, rw.at(12, v), "to-revision", minimum=1)
    return [RolloutDeployment(key, verb, revision, span=span)]


def parse_expect_deployment(src: Source, cur: Cursor, args: dict[str, Any],
                            checks: list[Check]) -> str:
    """``expect deployment REF FIELD=N …``: the reference; the fields into ``args``."""
    w = cur.word("a deployment reference")
    ns, name = pod_ref(src, w, what="deployment")
    ref = f"{ns}/{name}"
    checks.append(("deployment", ref, w))
    while not cur.at_end():
        fw = cur.word("FIELD=N")
        k, eq, v = fw.value.partition("=")
        if k not in DEPLOYMENT_STATUS_FIELDS or not eq:
            raise src.unknown("deployment status field", k, fw, DEPLOYMENT_STATUS_FIELDS,
                              expected=" ".join(f"{f}=N" for f in DEPLOYMENT_STATUS_FIELDS))
        if k in args:
            raise src.error(f"'{k}' is given twice", fw)
        args[k] = integer(src, fw.at(len(k) + 1, v), k, minimum=0)
    if not args:
        raise src.error("expect deployment names no status field", w,
                        expected="expect deployment REF available=N (or replicas=, updated=, "
                                 "ready=, unavailable=)")
    return ref
