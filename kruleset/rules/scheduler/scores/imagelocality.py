"""ImageLocality: nodes that already have a pod's images score higher (v1.35 weight 1).

Upstream ``pkg/scheduler/framework/plugins/imagelocality``: for every init
container and container whose image (normalised: ``:latest`` added when the
reference has no tag) the node has, the image's size scaled by its spread
(the share of all nodes that have it, so an image every node has counts in
full and a rare one little: the "node heating" guard) is summed, truncated to
whole bytes per image.  The sum is clamped to [23 MiB, 1000 MiB × the number
of containers] and mapped linearly onto 0-100 (integer division).  There is
no normalisation step.  A node's images are its ``status.images`` (``.kr``:
``images(nginx:1.27=150Mi)``); the image size the cluster keeps for a name is
the one first reported, as the scheduler cache keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kruleset.model.objects import Pod
from kruleset.model.state import NodeState
from kruleset.rules.registry import rule
from kruleset.rules.scheduler.framework import ScheduleContext

from ..defaults import SCORE_IMAGE_LOCALITY
from ..framework import SCORES

__all__ = ["MAX_CONTAINER_THRESHOLD", "MIN_THRESHOLD", "image_score", "normalized_image_name"]

_MB = 1024 * 1024
MIN_THRESHOLD = 23 * _MB
MAX_CONTAINER_THRESHOLD = 1000 * _MB
RULE = SCORE_IMAGE_LOCALITY


def normalized_image_name(name: str) -> str:
    """Upstream ``normalizedImageName``: ``:latest`` added unless the last ``:``
    follows the last ``/``."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def image_score(pod: Pod, node: NodeState, images: Mapping[str, list[Any]], total: int) -> int:
    """The node's ImageLocality score for ``pod`` (``total``: the number of nodes)."""
    containers = pod.init_containers + pod.containers
    have = node.image_names
    summed = 0
    if have:
        for c in containers:
            name = normalized_image_name(c.image)
            if name in have:
                size, holders = images[name]
                summed += int(float(size) * (len(holders) / total))
    top = MAX_CONTAINER_THRESHOLD * len(containers)
    if summed < MIN_THRESHOLD:
        summed = MIN_THRESHOLD
    elif summed > top:
        summed = top
    return 100 * (summed - MIN_THRESHOLD) // (top - MIN_THRESHOLD)


def _image_locality_batch(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                          nodes: Sequence[NodeState]) -> list[int]:
    state = ctx.state
    images = state.images
    if not images:
        return [0] * len(nodes)  # no node has an image: every score is the floor, 0
    total = len(state.nodes)
    return [image_score(pod, node, images, total) for node in nodes]


@rule(SCORES, RULE,
      doc="The sizes of the pod's images the node already has, each scaled by the share of "
          "nodes that have it, clamped to [23 MiB, 1000 MiB per container] and mapped onto "
          "0-100.",
      source="v1.35 pkg/scheduler/framework/plugins/imagelocality Score",
      batch=_image_locality_batch)
def _image_locality(ctx: ScheduleContext, args: Mapping[str, Any], pod: Pod,
                    node: NodeState) -> int:
    state = ctx.state
    return image_score(pod, node, state.images, len(state.nodes))
