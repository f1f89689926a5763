"""Dynamic Resource Allocation objects (``resource.k8s.io``), as frozen attrs classes.

One model serves every API version: the manifest loader maps v1, v1beta2,
v1beta1 and v1alpha3 shapes onto it, and the ``.kr`` statements of
LANGUAGE-DRA.md build it directly.  Attribute values are ``int``, ``bool``,
``str`` or :class:`Version`; capacities are exact :class:`~fractions.Fraction`
quantities.  Attribute and capacity maps are keyed by domain, then id (a bare
name belongs to the driver's domain, as upstream files it).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import attrs

from ..errors import NO_SPAN, Span
from .selectors import NodeSelectorTerm

__all__ = [
    "ALLOCATION_RESULTS_MAX",
    "CelSelector",
    "ClaimSpec",
    "Device",
    "DeviceClass",
    "DeviceConstraint",
    "DeviceRef",
    "DeviceRequest",
    "FeatureGates",
    "PodClaim",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "ResourceSlice",
    "Version",
    "qualified",
]

# resourceapi.AllocationResultsMaxSize: devices one claim may get.
ALLOCATION_RESULTS_MAX = 32
EXACT_COUNT, ALL = "ExactCount", "All"


def qualified(driver: str, name: str) -> tuple[str, str]:
    """(domain, id) of an attribute or capacity name: a bare name is the driver's."""
    domain, slash, ident = name.rpartition("/")
    return (domain, ident) if slash else (driver, name)


def _span() -> Any:
    return attrs.field(default=NO_SPAN, eq=False, repr=False)


@attrs.frozen(slots=True)
class Version:
    """A semantic version attribute value (``version: "1.2.3"``)."""

    text: str


@attrs.frozen(slots=True)
class Device:
    """One device of a slice: its name, typed attributes and capacities."""

    name: str
    attributes: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict, eq=False)
    capacity: Mapping[str, Mapping[str, Fraction]] = attrs.field(factory=dict, eq=False)
    basic: bool = True  # False: a device type this version does not know (never selectable)


@attrs.frozen(slots=True)
class ResourceSlice:
    """A ResourceSlice: devices of one pool, for one node, some nodes, or all nodes."""

    name: str
    driver: str
    pool: str
    devices: tuple[Device, ...] = ()
    generation: int = 1
    slice_count: int = 1
    node_name: str = ""
    all_nodes: bool = False
    node_selector: tuple[NodeSelectorTerm, ...] | None = None
    span: Span = _span()


@attrs.frozen(slots=True)
class CelSelector:
    """One CEL selector; ``span`` is where its first character is written."""

    expression: str
    span: Span = _span()


@attrs.frozen(slots=True)
class DeviceClass:
    """A DeviceClass: selectors every device must pass, and opaque configuration."""

    name: str
    selectors: tuple[CelSelector, ...] = ()
    config: tuple[tuple[str, str], ...] = ()  # (driver, JSON text)
    span: Span = _span()


@attrs.frozen(slots=True)
class DeviceRequest:
    """One request (or one ``firstAvailable`` subrequest) of a claim.

    ``first_available`` holds the subrequests of a prioritized list; such a
    request has no class of its own.
    """

    name: str
    class_name: str = ""
    selectors: tuple[CelSelector, ...] = ()
    mode: str = EXACT_COUNT
    count: int = 1
    admin_access: bool = False
    first_available: tuple[DeviceRequest, ...] = ()


@attrs.frozen(slots=True)
class DeviceConstraint:
    """``matchAttribute`` over the listed requests (all requests when empty)."""

    match_attribute: str
    requests: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class ClaimSpec:
    """``spec.devices`` of a claim or template."""

    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[tuple[str, str, tuple[str, ...]], ...] = ()  # (driver, JSON, requests)
    controller: str = ""  # v1alpha3 spec.controller (control-plane controller mode)


@attrs.frozen(slots=True)
class DeviceRef:
    """One allocated device: the request it serves and its full id."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False

    @property
    def id(self) -> str:
        """``DRIVER/POOL/DEVICE``, as upstream prints a device."""
        return f"{self.driver}/{self.pool}/{self.device}"


@attrs.frozen(slots=True)
class ResourceClaim:
    """A ResourceClaim as declared (its status at time 0 included)."""

    namespace: str
    name: str
    spec: ClaimSpec
    allocated: tuple[DeviceRef, ...] | None = None  # None: not allocated
    reserved_for: tuple[str, ...] = ()              # pod keys
    owner: str = ""                                 # pod key of a generated claim
    span: Span = _span()

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class ResourceClaimTemplate:
    """A ResourceClaimTemplate: the spec each pod's generated claim gets."""

    namespace: str
    name: str
    spec: ClaimSpec
    span: Span = _span()

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class PodClaim:
    """One entry of ``pod.spec.resourceClaims``."""

    name: str
    claim_name: str = ""
    template_name: str = ""


@attrs.frozen(slots=True)
class FeatureGates:
    """``feature-gates(…)``: the DRA gates a scenario set (name -> value)."""

    gates: tuple[tuple[str, bool], ...] = ()
    span: Span = _span()


# DRA feature gates kruleset reads, at their v1.35 defaults.
GATES: dict[str, bool] = {
    "DRAAdminAccess": True,
    "DRAPrioritizedList": True,
    "DRADeviceTaints": False,
    "DRAPartitionableDevices": False,
}
# GA gates locked to true: setting them false is refused, as the components refuse to start.
LOCKED_GATES = ("DynamicResourceAllocation",)
