"""The data model: quantities, resources, Kubernetes objects, configs, the cluster state."""

from __future__ import annotations

from .config import EvictionThreshold, KubeletConfig, PluginSet, SchedulerConfig
from .objects import (
    Container,
    Deployment,
    ElasticQuota,
    EmptyDir,
    Namespace,
    Node,
    NodeAffinity,
    Pod,
    PodAffinityTerm,
    PodDisruptionBudget,
    PriorityClass,
    RuntimeClass,
    TopologySpreadConstraint,
    WeightedNodeTerm,
    WeightedPodAffinityTerm,
)
from .quantity import parse_duration, parse_quantity
from .resources import Resources
from .scenario import Event, Expectation, Scenario
from .selectors import LabelSelector, NodeSelectorTerm, Requirement, Taint, Toleration
from .state import ClusterState, NodeState, PodState

__all__ = [
    "ClusterState",
    "Container",
    "Deployment",
    "ElasticQuota",
    "EmptyDir",
    "Event",
    "EvictionThreshold",
    "Expectation",
    "KubeletConfig",
    "LabelSelector",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeSelectorTerm",
    "NodeState",
    "PluginSet",
    "Pod",
    "PodAffinityTerm",
    "PodDisruptionBudget",
    "PodState",
    "PriorityClass",
    "Requirement",
    "Resources",
    "RuntimeClass",
    "Scenario",
    "SchedulerConfig",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "WeightedNodeTerm",
    "WeightedPodAffinityTerm",
    "parse_duration",
    "parse_quantity",
]
