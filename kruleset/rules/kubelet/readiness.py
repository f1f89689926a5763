"""The kubelet's readiness probe, as far as rollouts need it: when a pod becomes Ready."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..context import Unread
from ..registry import define_ruleset, rule

__all__ = ["READINESS", "ready_at"]

READINESS = define_ruleset(
    "kubelet.readiness", "pipeline",
    "When a running pod becomes Ready (its Ready condition's lastTransitionTime).",
)


@rule(READINESS, "kubelet.readiness.initial-delay",
      doc="A pod with a readiness probe becomes Ready initialDelaySeconds after it started "
          "(the first probe is taken to succeed); without a probe, as soon as it runs.",
      source="pkg/kubelet/prober/worker.go (doProbe: no result before initialDelaySeconds); "
             "pkg/kubelet/status/status_manager.go (Ready condition)")
def ready_at(ctx: Unread, args: Mapping[str, Any], subject: tuple[int, int | None]) -> int:
    """The time a pod that started at ``subject[0]`` with probe delay ``subject[1]`` is Ready."""
    start, delay = subject
    return start if delay is None else start + delay
