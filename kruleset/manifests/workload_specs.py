"""The controller fields of StatefulSets, DaemonSets and Jobs, checked as v1.35's API server does.

Each refusal names the field path and what is allowed, as upstream's
``ValidateStatefulSetSpec``, ``ValidateDaemonSetSpec`` /
``ValidateRollingUpdateDaemonSet`` and ``validateJobSpec`` /
``validatePodFailurePolicy`` (``pkg/apis/{apps,batch}/validation``) refuse
them.  ``spec.updateStrategy.rollingUpdate.partition`` greater than
``replicas`` is accepted, as v1.35 accepts it (nothing is then updated).
"""

from __future__ import annotations

from typing import Any

from ..model.objects import JobSpec, PodFailurePolicyRule
from ._fields import Doc, boolean, choice, int_or_percent, integer, mapping, seq, string

__all__ = ["job_fields", "rollout_fields"]

_STRATEGIES = ("RollingUpdate", "OnDelete")
_ACTIONS = ("FailJob", "FailIndex", "Ignore", "Count")
_CONDITION_STATUSES = ("True", "False", "Unknown")
_MAX_INDEXED = 100_000  # upstream's maxParallelismForIndexedJob and completions limit


def _percent_value(v: int | str | None) -> int:
    if v is None:
        return -1
    return int(v[:-1]) if isinstance(v, str) else v


def rollout_fields(doc: Doc, kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A StatefulSet's or DaemonSet's update strategy, ordinals and minReadySeconds."""
    out: dict[str, Any] = {"min_ready_seconds": integer(
        doc, spec.get("minReadySeconds"), "spec.minReadySeconds", 0, 0) or 0}
    us = mapping(doc, spec.get("updateStrategy"), "spec.updateStrategy")
    out["strategy"] = strategy = choice(doc, us.get("type"), "spec.updateStrategy.type",
                                        _STRATEGIES, "RollingUpdate")
    ru = us.get("rollingUpdate")
    if ru is not None and strategy != "RollingUpdate":
        doc.fail("spec.updateStrategy.rollingUpdate",
                 f"only allowed for updateStrategy 'RollingUpdate' (type is '{strategy}')",
                 "remove rollingUpdate or set type: RollingUpdate")
    ru = mapping(doc, ru, "spec.updateStrategy.rollingUpdate")
    where = "spec.updateStrategy.rollingUpdate."
    mu = int_or_percent(doc, ru.get("maxUnavailable"), where + "maxUnavailable")
    if kind == "StatefulSet":
        out["partition"] = integer(doc, ru.get("partition"), where + "partition", 0, 0) or 0
        if mu is not None and _percent_value(mu) == 0:
            doc.fail(where + "maxUnavailable", "must be greater than 0",
                     "maxUnavailable is an integer of at least 1 or a percentage above 0%")
        out["max_unavailable"] = mu
        ordinals = mapping(doc, spec.get("ordinals"), "spec.ordinals")
        out["ordinals_start"] = integer(doc, ordinals.get("start"), "spec.ordinals.start",
                                        0, 0) or 0
        return out
    ms = int_or_percent(doc, ru.get("maxSurge"), where + "maxSurge")
    # Defaults (SetDefaults_DaemonSet): maxUnavailable 1, maxSurge 0.
    mu = 1 if mu is None else mu
    ms = 0 if ms is None else ms
    if _percent_value(mu) == 0 and _percent_value(ms) == 0:
        doc.fail(where + "maxUnavailable", "may not be 0 when maxSurge is 0",
                 "set maxUnavailable or maxSurge to at least 1 (or 1%)")
    out["max_unavailable"], out["max_surge"] = mu, ms
    return out


def job_fields(doc: Doc, spec: dict[str, Any], completions: int | None,
               restart_policy: object) -> JobSpec:
    """A Job's backoff, deadline, completion mode and pod failure policy."""
    backoff = integer(doc, spec.get("backoffLimit"), "spec.backoffLimit", None, 0)
    deadline = integer(doc, spec.get("activeDeadlineSeconds"), "spec.activeDeadlineSeconds",
                       None, 0)
    mode = choice(doc, spec.get("completionMode"), "spec.completionMode",
                  ("NonIndexed", "Indexed"), "NonIndexed")
    indexed = mode == "Indexed"
    if indexed:
        if completions is None:
            doc.fail("spec.completions", "required when completion mode is Indexed",
                     "give spec.completions, the number of indexes")
        if completions > _MAX_INDEXED:
            doc.fail("spec.completions", f"must be less than or equal to {_MAX_INDEXED} "
                                         "when completion mode is Indexed")
    per_index = integer(doc, spec.get("backoffLimitPerIndex"), "spec.backoffLimitPerIndex",
                        None, 0)
    max_failed = integer(doc, spec.get("maxFailedIndexes"), "spec.maxFailedIndexes", None, 0)
    if per_index is not None and not indexed:
        doc.fail("spec.backoffLimitPerIndex", "requires indexed completion mode",
                 "set completionMode: Indexed")
    if max_failed is not None:
        if per_index is None:
            doc.fail("spec.maxFailedIndexes", "requires backoffLimitPerIndex")
        if completions is not None and max_failed > completions:
            doc.fail("spec.maxFailedIndexes", "must be less than or equal to completions")
    policy = _pod_failure_policy(doc, spec.get("podFailurePolicy"), per_index is not None)
    if policy is not None and restart_policy not in (None, "Never"):
        doc.fail("spec.template.spec.restartPolicy",
                 'only "Never" is supported when podFailurePolicy is specified')
    replacement = choice(doc, spec.get("podReplacementPolicy"), "spec.podReplacementPolicy",
                         ("TerminatingOrFailed", "Failed"),
                         "Failed" if policy is not None else "TerminatingOrFailed")
    if policy is not None and replacement != "Failed":
        doc.fail("spec.podReplacementPolicy",
                 f"'{replacement}' is not supported when podFailurePolicy is specified: "
                 "the supported value is Failed")
    if backoff is None:
        # SetDefaults_Job: 6, or the max int32 when only backoffLimitPerIndex bounds failures.
        backoff = 2_147_483_647 if per_index is not None else 6
    return JobSpec(backoff_limit=backoff,
                   active_deadline=None if deadline is None else deadline * 1000,
                   indexed=indexed, backoff_limit_per_index=per_index,
                   max_failed_indexes=max_failed, pod_failure_policy=policy,
                   pod_replacement_policy=replacement,
                   suspended=boolean(doc, spec.get("suspend"), "spec.suspend"))


def _pod_failure_policy(doc: Doc, value: object, per_index: bool
                        ) -> tuple[PodFailurePolicyRule, ...] | None:
    if value is None:
        return None
    pfp = mapping(doc, value, "spec.podFailurePolicy")
    rules = seq(doc, pfp.get("rules"), "spec.podFailurePolicy.rules")
    if len(rules) > 20:
        doc.fail("spec.podFailurePolicy.rules", f"must have at most 20 items, has {len(rules)}")
    out = []
    for i, raw in enumerate(rules):
        where = f"spec.podFailurePolicy.rules[{i}]"
        r = mapping(doc, raw, where)
        action = choice(doc, r.get("action"), where + ".action", _ACTIONS, "")
        if action == "FailIndex" and not per_index:
            doc.fail(where + ".action", "requires the backoffLimitPerIndex to be set")
        codes, conds = r.get("onExitCodes"), r.get("onPodConditions")
        if codes is not None and conds is not None:
            doc.fail(where, "specifying both OnExitCodes and OnPodConditions is not supported")
        if codes is None and conds is None:
            doc.fail(where, "specifying one of OnExitCodes and OnPodConditions is required")
        if codes is not None:
            out.append(PodFailurePolicyRule(action, on_exit_codes=_exit_codes(
                doc, codes, where + ".onExitCodes")))
        else:
            pats = []
            for j, p in enumerate(seq(doc, conds, where + ".onPodConditions")):
                pw = f"{where}.onPodConditions[{j}]"
                pm = mapping(doc, p, pw)
                ctype = string(doc, pm.get("type"), pw + ".type")
                if not ctype:
                    doc.fail(pw + ".type", "required")
                pats.append((ctype, choice(doc, pm.get("status"), pw + ".status",
                                           _CONDITION_STATUSES, "True")))
            if not pats:
                doc.fail(where + ".onPodConditions", "at least one pattern is required")
            out.append(PodFailurePolicyRule(action, on_conditions=tuple(pats)))
    return tuple(out)


def _exit_codes(doc: Doc, value: object, where: str) -> tuple[str | None, str, tuple[int, ...]]:
    req = mapping(doc, value, where)
    container = req.get("containerName")
    if container is not None:
        container = string(doc, container, where + ".containerName")
    op = choice(doc, req.get("operator"), where + ".operator", ("In", "NotIn"), "")
    values = seq(doc, req.get("values"), where + ".values")
    if not values:
        doc.fail(where + ".values", "at least one value is required")
    if len(values) > 255:
        doc.fail(where + ".values", f"must have at most 255 items, has {len(values)}")
    codes: list[int] = []
    for k, v in enumerate(values):
        code = integer(doc, v, f"{where}.values[{k}]", None, -(2 ** 31), 2 ** 31 - 1)
        if code is None:  # a null list item: the API server refuses it too
            doc.fail(f"{where}.values[{k}]", "expected an integer, found null")
            continue
        if op == "In" and code == 0:
            doc.fail(f"{where}.values[{k}]", "must not be 0 for the In operator",
                     "exit code 0 means success; a failed pod never has it")
        if codes and code == codes[-1]:
            doc.fail(f"{where}.values[{k}]", f"duplicate value {code}")
        if codes and code < codes[-1]:
            doc.fail(f"{where}.values[{k}]", "must be ordered", "list the exit codes in "
                     "increasing order")
        codes.append(code)
    return container, op, tuple(codes)

