"""Dynamic Resource Allocation: the CEL layer, the allocator, the language and the files."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from kruleset import api
from kruleset.errors import ScenarioError
from kruleset.model import dra_cel as cel
from kruleset.model.dra import (
    ALL,
    CelSelector,
    ClaimSpec,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    ResourceSlice,
    Version,
)
from kruleset.rules.dra.allocator import AllocationError, ClaimInput, allocate, gather_pools
from kruleset.rules.dra.state import generated_name

D = "gpu.example.com"
GI = 2**30


def _gpu(name: str, model: str = "a100", mem: int = 80, **more: object) -> Device:
    return Device(name, {D: {"model": model, **more}}, {D: {"memory": Fraction(mem * GI)}})


# --- CEL ------------------------------------------------------------------------

@pytest.mark.parametrize(("expr", "want"), [
    (f'device.capacity["{D}"].memory.compareTo(quantity("40Gi")) >= 0', True),
    (f'device.capacity["{D}"].memory == quantity("81920Mi")', True),
    (f'device.capacity["{D}"].memory.isLessThan(quantity("1Ti"))', True),
    (f'device.capacity["{D}"].memory.add(quantity("1Gi")).asInteger() == {81 * GI}', True),
    ('quantity("1.5").isInteger()', False),
    (f'device.attributes["{D}"].v.isGreaterThan(semver("1.10.0"))', False),
    (f'device.attributes["{D}"].v.major() == 1 && semver("1.2.3-rc1").isLessThan(semver("1.2.3"))',
     True),
    ('"other.example.com" in device.attributes', False),
    (f'"{D}" in device.attributes && "x" in device.attributes["zz.example.com"] == false', True),
    (f'device.attributes["{D}"]["model"] == "a100"', True),
    (f'device.driver == "{D}"', True),
])
def test_cel_kubernetes_layer(expr: str, want: bool) -> None:
    dev = _gpu("gpu-0", v=Version("1.2.3"))
    assert cel.evaluate(D, dev, expr) is want


def test_a_missing_key_is_a_runtime_error_in_cel_go_words() -> None:
    with pytest.raises(cel.CelRuntimeError, match="no such key: nosuch"):
        cel.evaluate(D, _gpu("g"), 'device.attributes["other.example.com"].nosuch == 1')


@pytest.mark.parametrize(("expr", "line", "column", "text"), [
    ("device.driver ==", 1, 17, "Syntax error: mismatched input '<EOF>'"),
    ("device.driver == 'x' &&\n  noSuchVar", 2, 3, "undeclared reference to 'noSuchVar'"),
    ("size(device.driver)", 1, 1, "must evaluate to bool or the unknown type, not int"),
    ("frobnicate(device) == 1", 1, 1, "undeclared reference to 'frobnicate'"),
])
def test_bad_selectors_are_refused_with_cels_message_and_position(
        expr: str, line: int, column: int, text: str) -> None:
    with pytest.raises(cel.CelCompileError) as err:
        cel.check(expr)
    assert text in err.value.message
    assert (err.value.line, err.value.column) == (line, column)


def test_results_are_kept_per_device_and_expression() -> None:
    ev = cel.Evaluator()
    dev = _gpu("g")
    expr = f'device.attributes["{D}"].model == "a100"'
    assert ev.matches(D, dev, expr)
    ev._contexts.clear()  # a second answer must not need the device's CEL value again
    assert ev.matches(D, dev, expr)


# --- allocator -------------------------------------------------------------------

CLASS = DeviceClass("gpu", (CelSelector(f'device.driver == "{D}"'),))


def _pools(*devices: Device, node: str = "n1", count: int = 1) -> list:
    return gather_pools([ResourceSlice("s", D, node, devices, 1, count, node_name=node)],
                        node, {})


def test_first_fit_backtracks_across_requests_for_a_constraint() -> None:
    devices = (_gpu("g0", model="t4"), _gpu("g1"), _gpu("g2"))
    spec = ClaimSpec((DeviceRequest("a", "gpu"), DeviceRequest("b", "gpu")),
                     (DeviceConstraint(f"{D}/model"),))
    got = allocate([ClaimInput("ns/c", spec)], _pools(*devices), {"gpu": CLASS}, {},
                   cel.Evaluator())
    assert got is not None
    assert [d.device for d in got[0].devices] == ["g1", "g2"]
    assert got[0].node == "n1"


def test_backtracking_across_claims_of_one_pod() -> None:
    devices = (_gpu("g0"), _gpu("g1", model="t4"))
    any_gpu = ClaimSpec((DeviceRequest("r", "gpu"),))
    t4 = ClaimSpec((DeviceRequest("r", "gpu", (CelSelector(
        f'device.attributes["{D}"].model == "t4"'),)),))
    a100 = ClaimSpec((DeviceRequest("r", "gpu", (CelSelector(
        f'device.attributes["{D}"].model == "a100"'),)),))
    got = allocate([ClaimInput("ns/any", any_gpu), ClaimInput("ns/a100", a100)],
                   _pools(*devices), {"gpu": CLASS}, {}, cel.Evaluator())
    assert got is not None and [a.devices[0].device for a in got] == ["g1", "g0"]
    assert allocate([ClaimInput("ns/t4", t4), ClaimInput("ns/a100", a100)], _pools(*devices),
                    {"gpu": CLASS}, {"gpu.example.com/n1/g0": "ns/other"},
                    cel.Evaluator()) is None


def test_all_mode_errors_and_limits() -> None:
    all_spec = ClaimSpec((DeviceRequest("r", "gpu", mode=ALL, count=0),))
    with pytest.raises(AllocationError, match="is currently being updated"):
        allocate([ClaimInput("ns/c", all_spec)], _pools(_gpu("g0"), count=2), {"gpu": CLASS},
                 {}, cel.Evaluator())
    many = ClaimSpec((DeviceRequest("r", "gpu", count=33),))
    with pytest.raises(AllocationError, match="exceeds the claim limit of 32"):
        allocate([ClaimInput("ns/c", many)], _pools(_gpu("g0")), {"gpu": CLASS}, {},
                 cel.Evaluator())
    # An All request takes every matching device; one in use means no solution.
    got = allocate([ClaimInput("ns/c", all_spec)], _pools(_gpu("g0"), _gpu("g1")),
                   {"gpu": CLASS}, {}, cel.Evaluator())
    assert got is not None and len(got[0].devices) == 2
    assert allocate([ClaimInput("ns/c", all_spec)], _pools(_gpu("g0"), _gpu("g1")),
                    {"gpu": CLASS}, {"gpu.example.com/n1/g1": "x"}, cel.Evaluator()) is None


def test_admin_access_takes_devices_in_use_without_consuming_them() -> None:
    spec = ClaimSpec((DeviceRequest("r", "gpu", admin_access=True),))
    got = allocate([ClaimInput("ns/c", spec)], _pools(_gpu("g0")), {"gpu": CLASS},
                   {"gpu.example.com/n1/g0": "ns/other"}, cel.Evaluator())
    assert got is not None and got[0].devices[0].admin_access


def test_generated_claim_names_are_deterministic_and_use_upstreams_alphabet() -> None:
    a = generated_name("default", "pod-with-cats", "cat-0")
    assert a == generated_name("default", "pod-with-cats", "cat-0")
    assert a != generated_name("default", "pod-with-cats", "cat-1")
    suffix = a.rsplit("-", 1)[1]
    assert len(suffix) == 5 and set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")
    long = generated_name("ns", "p" * 60, "c" * 20)
    assert len(long) <= 57 + 6


# --- the language ------------------------------------------------------------------

BASE = """\
nodes n[1..2] cpu=4 memory=8Gi
devices gpu-[0..1] on n1 driver=gpu.example.com attributes(index=#)
deviceclass gpu driver=gpu.example.com
"""


@pytest.mark.parametrize(("text", "message"), [
    ("devices gpu-0 on n1 driver=gpu.example.com", "device 'gpu-0' is declared twice"),
    ("devices x-1 on n2 driver=d attributes(i=#)", "'#' stands for the device's number"),
    ("claim c class=gpu count=0", "count must be at least 1"),
    ("claim c class=gpu count=2 all", "count=N or all, not both"),
    ("claim c {\n  request a class=gpu\n  constraint match-attribute=model\n}",
     "fully qualified name"),
    ("claim c {\n  request a class=gpu\n  constraint match-attribute=d/x requests(b)\n}",
     "names request 'b'"),
    ("claim c class=gpu allocated(gpu-7)", "unknown device 'gpu-7'"),
    ("claim c class=gpu allocated(gpu-0)\nclaim d class=gpu allocated(gpu-0)",
     "already allocated to claim default/c"),
    ("claim c class=gpu reserved-for(ghost)", "unknown pod"),
    ("claim Bad class=gpu", "is not a valid claim name"),
    ("pod p claims(gpu=nosuch)", "unknown claim 'nosuch'"),
    ("pod p on n1 claims(gpu=c)\nclaim c class=gpu", "is not reserved for it"),
    ('claim c class=gpu selector("device.nope(")', "Syntax error"),
])
def test_dra_statements_refuse_bad_input(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        api.load(BASE + text + "\n")
    assert message in err.value.render()


def test_a_cel_error_points_at_the_kr_column() -> None:
    line = 'claim c class=gpu selector("device.driver == \\"x\\" && nosuchvar")'
    with pytest.raises(ScenarioError) as err:
        api.load(BASE + line + "\n")
    assert err.value.line == 4
    assert line[err.value.column - 1:].startswith("nosuchvar")


def test_devices_numbered_by_a_range_and_typed_attributes() -> None:
    sc = api.load("node n1 cpu=1\ndevices g-[3..4] on n1 driver=d attributes(i=#, ok=true, "
                  'v=version("1.2.3"), s="x y", other.example.com/numa=1) capacity(mem=1Gi)\n')
    (sl,) = [o for o in sc.objects if isinstance(o, ResourceSlice)]
    assert [d.attributes["d"]["i"] for d in sl.devices] == [3, 4]
    first = sl.devices[0]
    assert first.attributes["d"]["ok"] is True
    assert first.attributes["d"]["v"] == Version("1.2.3")
    assert first.attributes["d"]["s"] == "x y"
    assert first.attributes["other.example.com"]["numa"] == 1
    assert first.capacity["d"]["mem"] == GI
    assert sl.slice_count == 1 and sl.pool == "n1"


# --- Kubernetes files -----------------------------------------------------------------

V1BETA2 = """\
apiVersion: resource.k8s.io/v1beta2
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  allNodes: true
  pool: {name: shared, generation: 1, resourceSliceCount: 1}
  devices:
  - name: g0
    attributes: {model: {string: a100}}
    capacity: {memory: {value: 80Gi}}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: legacy}
spec:
  controller: gpu.example.com
  devices:
    requests: [{name: r, deviceClassName: gpu, allocationMode: ExactCount, count: 1}]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimName: legacy}]
"""


def test_versions_in_their_own_shapes(tmp_path: Path) -> None:
    (tmp_path / "dra.yaml").write_text(V1BETA2)
    kr = tmp_path / "s.kr"
    kr.write_text('node n1 cpu=4 memory=8Gi\ninclude "dra.yaml"\nexpect pod p running on n1\n'
                  "expect claim legacy allocated devices(gpu.example.com/shared/g0)\n")
    result = api.run(api.load(kr))
    assert all(r.passed for r in result.expectations), [r.message for r in result.expectations]


def test_a_bad_selector_in_a_file_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\nspec:\n"
        "  selectors: [{cel: {expression: 'device.driver =='}}]\n")
    kr = tmp_path / "s.kr"
    kr.write_text('include "c.yaml"\n')
    with pytest.raises(ScenarioError) as err:
        api.load(kr)
    text = err.value.render()
    assert "spec.selectors[0].cel.expression" in text and "Syntax error" in text
    assert "line 5, column 51" in text  # the file's line and column of the end of input


def test_the_seed_manifests_load_with_two_warnings() -> None:
    root = Path(__file__).resolve().parent.parent
    folder = root / "features" / "dra"
    sc = api.load(f'node node-1 cpu=4\ninclude "{folder / "cats-slice.yaml"}"\n'
                  f'include "{folder / "pod-with-cats.yaml"}"\n')
    flaws = [n for n in sc.notices if "pod-with-cats.yaml" in n]
    assert len(flaws) == 2, sc.notices
    assert any("v1alpha2" in w for w in flaws)
    assert any("metadata.name" in w for w in flaws)


def test_prioritized_lists_need_their_gate(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n"
        "  devices:\n    requests:\n    - name: r\n      firstAvailable:\n"
        "      - {name: a, deviceClassName: gpu}\n")
    kr = tmp_path / "s.kr"
    body = (BASE + f'include "{tmp_path / "c.yaml"}"\npod p cpu=1 claims(gpu=c)\n')
    kr.write_text(body + "expect pod p running on n1\n")
    assert all(r.passed for r in api.run(api.load(kr)).expectations)
    kr.write_text("feature-gates(DRAPrioritizedList=false)\n" + body + 'expect pod p pending '
                  'reason="resource claim default/c, request r: has subrequests, but the '
                  'DRAPrioritizedList feature is disabled"\n')
    assert all(r.passed for r in api.run(api.load(kr)).expectations)


def test_admin_access_needs_the_namespace_label() -> None:
    text = BASE + "claim c class=gpu admin-access\n"
    with pytest.raises(ScenarioError) as err:
        api.load(text)
    assert "requires the `resource.kubernetes.io/admin-access: true` label" in err.value.render()
    api.load("namespace default labels(resource.kubernetes.io/admin-access=true)\n" + text)
