"""Issue "DRA over its whole v1.35 surface": one reproducer per cause, in the oracle's shape.

Each case is what the issue's cause looked like when found; ``CASES`` maps a
name to (cluster, what kruleset must decide per pod: node or message, and the
devices of a bound pod).  The expectations were checked against kube-scheduler
v1.35.4 (``test_dra_causes.py`` compares again when the oracle is present).
"""

from __future__ import annotations

from typing import Any

from .dra_shapes import (
    GPU,
    NIC,
    claim,
    cluster,
    device,
    device_class,
    exactly,
    first_available,
    node,
    pod,
    selectors,
    slice_,
    sub,
)

__all__ = ["CASES"]

_NOSUCH = f'device.attributes["{GPU}"].nosuch == 1'
_START = "2023-11-14T22:13:20Z"


def _pool_across_nodes() -> dict[str, Any]:
    # Cause 1: a pool of two slices on two nodes is complete on each of them.
    return cluster([node("n1"), node("n2")],
                   [slice_("a", "spread", [device("g0")], node="n1", count=2),
                    slice_("b", "spread", [device("g1")], node="n2", count=2)],
                   [claim("c", exactly("r0"))], [pod("p", "c")])


def _pool_obsolete() -> dict[str, Any]:
    # Cause 1: a newer generation elsewhere makes the node's own slice obsolete.
    return cluster([node("n1"), node("n2")],
                   [slice_("a", "spread", [device("g0")], node="n1", count=2),
                    slice_("b", "spread", [device("g1")], node="n2", count=2, generation=2)],
                   [claim("c", exactly("r0"))], [pod("p", "c")])


def _dry_run_error() -> dict[str, Any]:
    # Cause 2: the allocator fails only in the preemption dry run (cpu fails first).
    return cluster([node("n1")], [slice_("s", "n1", [device("g0")], node="n1")],
                   [claim("c", exactly("r0", selectors=selectors(_NOSUCH)))],
                   [pod("p", "c", cpu="1", priority="high")],
                   running=[pod("low", cpu="2", node="n1", start=_START)])


def _dry_run_errors() -> dict[str, Any]:
    # Cause 2: two nodes, two different errors: upstream's aggregate "[a, b]".
    return cluster([node("n1"), node("n2")],
                   [slice_("s1", "n1", [device("g0")], node="n1"),
                    slice_("s2", "n2", [device("g0", nosuch={"int": 1})], node="n2", count=2)],
                   [claim("c", exactly("r0", mode="All", selectors=selectors(_NOSUCH)))],
                   [pod("p", "c", cpu="1", priority="high")],
                   running=[pod("low1", cpu="2", node="n1", start=_START),
                            pod("low2", cpu="2", node="n2", start=_START)])


def _validation_order() -> dict[str, Any]:
    # Cause 3: r1's All over an incomplete pool is an error although r0 has no device.
    return cluster([node("n1")], [slice_("s", "n1", [device("g0")], node="n1", count=2)],
                   [claim("c", exactly("r0", "nic"), exactly("r1", mode="All"))],
                   [pod("p", "c")])


def _subrequest_name() -> dict[str, Any]:
    # Cause 4: upstream names the subrequest alone ("request b").
    return cluster([node("n1")], [slice_("s", "n1", [device("g0")], node="n1", count=2)],
                   [claim("c", first_available("r0", sub("a", "nic"), sub("b", mode="All")))],
                   [pod("p", "c")])


_LIBRARIES = (
    f'device.attributes["{GPU}"].model.lowerAscii().startsWith("a")',
    f'cel.bind(m, device.attributes["{GPU}"].model, m.split("1").size() == 2)',
    '[1, 2].sum() == 3 && [1, 2].isSorted() && [3, 4].exists(i, i > 3)',
    f'device.attributes["{GPU}"].model.find("[0-9]+") == "100"',
    'isURL("https://example.com/x") && isIP("10.0.0.1")',
    '"%d-%s".format([1, "x"]) == "1-x"',
)


def _cel_libraries() -> dict[str, Any]:
    # Cause 5: v1.35's DRA CEL environment (and a constraint naming a subrequest).
    claims = [claim("c", exactly("r0", selectors=selectors(*_LIBRARIES))),
              claim("d", first_available("r0", sub("a", count=2)),
                    constraints=[{"matchAttribute": f"{GPU}/model", "requests": ["r0/a"]}])]
    devices = [device(f"g{i}", model={"string": m}) for i, m in enumerate(["a100", "t4", "t4"])]
    return cluster([node("n1")], [slice_("s", "n1", devices, node="n1")], claims,
                   [pod("p", "c"), pod("q", "d")])


def _cel_no_overload() -> dict[str, Any]:
    # Cause 5: cel-go's runtime wording.
    return cluster([node("n1")], [slice_("s", "n1", [device("g0", model={"string": "a"})],
                                         node="n1")],
                   [claim("c", exactly("r0", selectors=selectors(
                       f'device.attributes["{GPU}"].model > 1')))], [pod("p", "c")])


def _duplicate_device() -> dict[str, Any]:
    # Cause 6: a device name twice in one pool: the pool is skipped (another pool serves).
    return cluster([node("n1"), node("n2")],
                   [slice_("a", "dup", [device("g0")], node="n1", count=2),
                    slice_("b", "dup", [device("g0")], node="n1", count=2),
                    slice_("c", "other", [device("g0")], node="n2")],
                   [claim("c", exactly("r0"))], [pod("p", "c"), pod("q", "c")])


def _score_mixed_claims() -> dict[str, Any]:
    # Cause 7: one allocated claim usable anywhere, one unallocated, two nodes.
    allocated = {"allocation": {"devices": {"results": [
        {"request": "r0", "driver": GPU, "pool": "shared", "device": "g0"}]}}}
    return cluster([node("n1"), node("n2")],
                   [slice_("s", "shared", [device("g0"), device("g1")], allNodes=True)],
                   [claim("a", exactly("r0"), status=allocated), claim("b", exactly("r0"))],
                   [pod("p", "a", "b")])


def _device_limit() -> dict[str, Any]:
    # Cause 8: All devices count towards the 32-device limit.
    devices = [device(f"g{i}") for i in range(20)]
    return cluster([node("n1")], [slice_("s", "n1", devices, node="n1")],
                   [claim("c", exactly("r0", mode="All"), exactly("r1", count=13))],
                   [pod("p", "c")])


def _deallocated_in_dry_run() -> dict[str, Any]:
    # Cause 9: the claim PostFilter deallocates stays allocated for the dry run.
    allocated = {"allocation": {
        "devices": {"results": [{"request": "r0", "driver": GPU, "pool": "n2",
                                 "device": "g0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}
    return cluster([node("n1"), node("n2"), node("n3")],
                   [slice_(f"s{n}", n, [device("g0")], node=n) for n in ("n1", "n2", "n3")],
                   [claim("c", exactly("r0"), status=allocated)],
                   [pod("p", "c", cpu="1", priority="high")],
                   running=[pod("low", cpu="2", node="n1", start=_START),
                            pod("keeper", cpu="2", node="n2", priority="high", start=_START)])


def _admin_access() -> dict[str, Any]:
    # Cause 10: a device an admin-access claim gets is not given to the pod's other claim.
    return cluster([node("n1")], [slice_("s", "n1", [device("g0")], node="n1")],
                   [claim("admin", exactly("r0", adminAccess=True)), claim("c", exactly("r0"))],
                   [pod("p", "admin", "c")],
                   namespaces=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {
                       "name": "default",
                       "labels": {"resource.kubernetes.io/admin-access": "true"}}}])


def _all_subrequest() -> dict[str, Any]:
    # Cause 11: v1.35.4 gives an All subrequest after the first only its first device.
    devices = [device(f"g{i}") for i in range(3)]
    return cluster([node("n1")], [slice_("s", "n1", devices, node="n1")],
                   [claim("c", first_available("r0", sub("a", "nic"), sub("b", mode="All")))],
                   [pod("p", "c")])


def _subrequest_cache() -> dict[str, Any]:
    # Cause 11 (validation): subrequests 0 and 1 share v1.35.4's selector cache, so the
    # "any" subrequest inherits "gpu"'s verdict on the NIC and finds no device.
    return cluster([node("n1")], [slice_("s", "n1", [device("nic-0")], node="n1", driver=NIC)],
                   [claim("c", first_available("r0", sub("a", mode="All"),
                                               sub("b", "any", mode="All")))],
                   [pod("p", "c")], classes=[device_class("any")])


def _slice_selector_terms() -> dict[str, Any]:
    # Found with the DRA work: an allocation from a slice whose node selector has
    # two terms fails as upstream's createNodeSelector fails.
    def on(name: str) -> dict[str, Any]:
        return {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                      "values": [name]}]}
    return cluster([node("n1"), node("n2")],
                   [slice_("s", "net", [device("g0")],
                           nodeSelector={"nodeSelectorTerms": [on("n1"), on("n2")]})],
                   [claim("c", exactly("r0"))], [pod("p", "c")])


def _cannot(n: int, *, also: str = "still not schedulable",
            preemption: str = "Preemption is not helpful for scheduling") -> str:
    return (f"0/{n} nodes are available: {n} cannot allocate all claims. {also}, preemption: "
            f"0/{n} nodes are available: {n} {preemption}.")


_FILTER = 'running "DynamicResources" filter plugin: '
# name -> (cluster, {pod: (node or "", message or "", {claim: devices})})
CASES: dict[str, tuple[Any, dict[str, tuple[str, str, dict[str, list[str]]]]]] = {
    "pool-across-nodes": (_pool_across_nodes, {
        "default/p": ("n1", "", {"default/c": [f"{GPU}/spread/g0"]})}),
    "pool-obsolete": (_pool_obsolete, {
        # n1's slice is obsolete, n2's generation is missing a slice.
        "default/p": ("", _cannot(2), {})}),
    "dry-run-error": (_dry_run_error, {
        "default/p": ("", "0/1 nodes are available: 1 Insufficient cpu. preemption: " + _FILTER
                      + "claim default/c: selector #0: CEL runtime error: no such key: nosuch",
                      {})}),
    "dry-run-errors": (_dry_run_errors, {
        "default/p": ("", "0/2 nodes are available: 2 Insufficient cpu. preemption: [" + _FILTER
                      + "claim default/c: selector #0: CEL runtime error: no such key: nosuch, "
                      + _FILTER + "claim default/c, request r0: asks for all devices, but "
                      f"resource pool {GPU}/n2 is currently being updated]", {})}),
    "validation-order": (_validation_order, {
        "default/p": ("", _FILTER + "claim default/c, request r1: asks for all devices, but "
                      f"resource pool {GPU}/n1 is currently being updated", {})}),
    "subrequest-name": (_subrequest_name, {
        "default/p": ("", _FILTER + "claim default/c, request b: asks for all devices, but "
                      f"resource pool {GPU}/n1 is currently being updated", {})}),
    "cel-libraries": (_cel_libraries, {
        "default/p": ("n1", "", {"default/c": [f"{GPU}/n1/g0"]}),
        "default/q": ("n1", "", {"default/d": [f"{GPU}/n1/g1", f"{GPU}/n1/g2"]})}),
    "cel-no-overload": (_cel_no_overload, {
        "default/p": ("", _FILTER + "claim default/c: selector #0: CEL runtime error: "
                      "no such overload", {})}),
    "duplicate-device": (_duplicate_device, {
        "default/p": ("n2", "", {"default/c": [f"{GPU}/other/g0"]}),
        "default/q": ("n2", "", {"default/c": [f"{GPU}/other/g0"]})}),
    "score-mixed-claims": (_score_mixed_claims, {
        "default/p": ("", 'running Score plugins: plugin "DynamicResources" failed with: '
                      "number of allocations 1 is smaller than number of claims", {})}),
    "device-limit": (_device_limit, {
        "default/p": ("", _FILTER + "claim default/c: number of requested devices 33 exceeds "
                      "the claim limit of 32", {})}),
    "deallocated-in-dry-run": (_deallocated_in_dry_run, {
        # n1 would fit with "low" gone, but the claim still sits on n2 for the dry run.
        "default/p": ("", "0/3 nodes are available: 1 resourceclaim not available on the "
                      "node, 2 Insufficient cpu. deallocation of ResourceClaim completed, "
                      "preemption: 0/3 nodes are available: 1 No preemption victims found for "
                      "incoming pod, 1 Preemption is not helpful for scheduling, 1 resourceclaim "
                      "not available on the node.", {})}),
    "admin-access": (_admin_access, {
        "default/p": ("", _cannot(1), {})}),
    "slice-selector-terms": (_slice_selector_terms, {
        "default/p": ("", _FILTER + "create NodeSelector for claim c: unsupported "
                      "ResourceSlice.NodeSelector with 2 terms", {})}),
    "subrequest-cache": (_subrequest_cache, {
        "default/p": ("", _cannot(1), {})}),
    "all-subrequest": (_all_subrequest, {
        "default/p": ("n1", "", {"default/c": [f"{GPU}/n1/g0"]})}),
}
