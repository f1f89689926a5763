"""Kubernetes files into kruleset's model.

* :func:`load_objects` / :func:`load_manifests`: Nodes, Pods, Namespaces,
  PriorityClasses, RuntimeClasses, PodDisruptionBudgets, ElasticQuotas,
  Deployments, ReplicaSets, ReplicationControllers, StatefulSets, DaemonSets,
  Jobs, CronJobs (read, not simulated), LimitRanges and ResourceQuotas from
  YAML (multi-document or ``kind: List``) or JSON, as ``kubectl get -o
  yaml|json`` writes them; kinds that play no part in the decisions are
  counted in one summary line.  Unknown fields are errors (:mod:`.schema`,
  :mod:`.known_fields`) unless :data:`kruleset.errors.STRICT` is off.
* :func:`load_scheduler_config`: a KubeSchedulerConfiguration profile.
* :func:`load_kubelet_config`: a KubeletConfiguration's eviction and
  reservation settings.

Every refusal is a :class:`~kruleset.errors.ManifestError` naming the file,
its line, the 1-based document and the field; a file's refusals are reported
together.
"""

from __future__ import annotations

from .kubelet_config import KubeletConfigFile, load_kubelet_config
from .loader import SUPPORTED_KINDS, LoadedManifests, load_manifests, load_objects
from .scheduler_config import EXTENSION_POINTS, load_scheduler_config

__all__ = [
    "EXTENSION_POINTS",
    "SUPPORTED_KINDS",
    "KubeletConfigFile",
    "LoadedManifests",
    "load_kubelet_config",
    "load_manifests",
    "load_objects",
    "load_scheduler_config",
]
