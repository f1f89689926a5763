"""Unknown fields in DRA objects (resource.k8s.io) are caught like those of every other kind.

ResourceSlice, DeviceClass, ResourceClaim and ResourceClaimTemplate are
checked against v1.35's types in every API version the reader accepts, each
in its own shape (v1 and v1beta2: requests under ``exactly``, attributes on
the device; v1beta1 and the seed's v1alpha3: requests inline, devices under
``basic``).  A typo is an error with the file, line, field path and a
did-you-mean; ``--allow-unknown-fields`` turns it into a warning; a field of
a DRA feature kruleset does not simulate is a warning naming it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kruleset
from kruleset.errors import ScenarioError
from kruleset.manifests.dra import DRA_KINDS, DRA_VERSIONS
from kruleset.manifests.known_fields import DRA_OBJECTS

INLINE = ("v1beta1", "v1alpha3")  # versions with inline requests and devices under basic


def _slice(version: str, attributes: str, extra: str = "") -> str:
    """A ResourceSlice with one device; ``extra``: one more ``key: value`` of the device."""
    pad = "    " if version not in INLINE else "      "
    device = "  - name: g0\n" + ("" if version not in INLINE else "    basic:\n") + \
        f"{pad}attributes: {attributes}\n" + (f"{pad}{extra}\n" if extra else "")
    return (f"apiVersion: resource.k8s.io/{version}\nkind: ResourceSlice\nmetadata: {{name: s}}\n"
            "spec:\n  driver: gpu.example.com\n  nodeName: n1\n"
            "  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n  devices:\n" + device)


def _request(version: str, fields: str, indent: str) -> str:
    if version in INLINE:
        return f"{indent}- name: r\n{indent}  {fields}\n"
    return f"{indent}- name: r\n{indent}  exactly: {{{fields}}}\n"


def _claim(version: str, fields: str) -> str:
    return (f"apiVersion: resource.k8s.io/{version}\nkind: ResourceClaim\nmetadata: {{name: c}}\n"
            "spec:\n  devices:\n    requests:\n" + _request(version, fields, "    "))


def _template(version: str, devices_key: str) -> str:
    return (f"apiVersion: resource.k8s.io/{version}\nkind: ResourceClaimTemplate\n"
            "metadata: {name: t}\nspec:\n  spec:\n    devices:\n"
            f"      requests:\n{_request(version, 'deviceClassName: gpu', '      ')}"
            f"      {devices_key}: []\n")


def _class(version: str, cel_key: str, extra: str = "") -> str:
    return (f"apiVersion: resource.k8s.io/{version}\nkind: DeviceClass\nmetadata: {{name: gpu}}\n"
            f"spec:\n  selectors:\n  - cel: {{{cel_key}: 'device.driver == \"gpu.example.com\"'}}"
            "\n" + (f"  {extra}\n" if extra else ""))


def _typo(kind: str, version: str) -> tuple[str, str, str, str]:
    """A document of ``kind`` with one misspelt field: (text, bad key, field path, suggestion)."""
    basic = "basic." if version in INLINE else ""
    if kind == "ResourceSlice":
        return (_slice(version, "{model: {strng: a100}}"), "strng",
                f"spec.devices[0].{basic}attributes.model.strng", "string")
    if kind == "DeviceClass":
        return (_class(version, "expresion"), "expresion", "spec.selectors[0].cel.expresion",
                "expression")
    if kind == "ResourceClaim":
        exactly = "" if version in INLINE else "exactly."
        return (_claim(version, "deviceClasName: gpu"), "deviceClasName",
                f"spec.devices.requests[0].{exactly}deviceClasName", "deviceClassName")
    return (_template(version, "constrains"), "constrains", "spec.spec.devices.constrains",
            "constraints")


def _harmless_typo(kind: str) -> tuple[str, str, str, str]:
    """:func:`_typo` in v1, misspelling a field the object can do without (read past)."""
    if kind == "ResourceSlice":
        return (_slice("v1", "{model: {string: a100}}", "capacty: {}"), "capacty",
                "spec.devices[0].capacty", "capacity")
    if kind == "DeviceClass":
        return _class("v1", "expression", "confg: []"), "confg", "spec.confg", "config"
    if kind == "ResourceClaim":
        return (_claim("v1", "deviceClassName: gpu, allocationMod: ExactCount"),
                "allocationMod", "spec.devices.requests[0].exactly.allocationMod",
                "allocationMode")
    return _typo(kind, "v1")


def test_every_kind_and_version_the_reader_accepts_has_a_schema() -> None:
    assert sorted(DRA_OBJECTS) == sorted(DRA_KINDS)
    for kind in DRA_KINDS:
        assert sorted(DRA_OBJECTS[kind]) == sorted(DRA_VERSIONS), kind


@pytest.mark.parametrize("version", DRA_VERSIONS)
@pytest.mark.parametrize("kind", DRA_KINDS)
def test_a_misspelt_field_is_refused_with_line_path_and_suggestion(
        tmp_path: Path, kind: str, version: str) -> None:
    text, bad, path, near = _typo(kind, version)
    f = tmp_path / "dra.yaml"
    f.write_text(text, encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if bad in row)
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'include "{f}"\n')
    err = e.value
    assert (err.file_line, err.field, err.suggestion) == (  # type: ignore[attr-defined]
        line, path, f"did you mean '{near}'?")
    assert f"{f}:{line}, document 1, field {path}" in str(err)
    assert f'unknown field "{bad}"' in str(err)


@pytest.mark.parametrize("kind", DRA_KINDS)
def test_allow_unknown_fields_turns_them_into_warnings(tmp_path: Path, kind: str) -> None:
    text, bad, path, near = _harmless_typo(kind)
    f = tmp_path / "dra.yaml"
    f.write_text(text, encoding="utf-8")
    sc = kruleset.load(f'node n1 cpu=4\ninclude "{f}"\n', allow_unknown_fields=True)
    assert sc.notices == (f'{f}: warning: field {path.replace("[0]", "[]")}: unknown field '
                          f"\"{bad}\", ignored (did you mean '{near}'?)",)


def test_the_same_documents_without_the_typo_load_in_every_version(tmp_path: Path) -> None:
    # The schemas must not refuse what the reader reads: each version's shape loads.
    for version in DRA_VERSIONS:
        f = tmp_path / f"{version}.yaml"
        f.write_text("---\n".join((
            _slice(version, "{model: {string: a100}}"), _class(version, "expression"),
            _claim(version, "deviceClassName: gpu"), _template(version, "constraints"))))
        sc = kruleset.load(f'node n1 cpu=4\ninclude "{f}"\n')
        assert sc.notices == (), (version, sc.notices)


def test_a_json_list_names_the_item(tmp_path: Path) -> None:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                 "deviceClassName": "gpu", "allocationMod": "ExactCount"}}]}}}
    f = tmp_path / "claims.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [claim]}, indent=2))
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'include "{f}"\n')
    assert e.value.field == "items[0].spec.devices.requests[0].exactly.allocationMod"  # type: ignore[attr-defined]
    assert "did you mean 'allocationMode'?" in str(e.value)


def test_every_typo_of_a_file_is_reported_in_one_run(tmp_path: Path) -> None:
    f = tmp_path / "dra.yaml"
    f.write_text("---\n".join(_typo(kind, "v1")[0] for kind in DRA_KINDS))
    with pytest.raises(ScenarioError) as e:
        kruleset.load(f'include "{f}"\n')
    fields = [x.field for x in e.value.errors]  # type: ignore[attr-defined]
    assert fields == [_typo(kind, "v1")[2] for kind in DRA_KINDS]


@pytest.mark.parametrize(("field", "words"), [
    ("taints: [{key: k, effect: NoSchedule}]",
     "spec.devices[].taints is read but not simulated by kruleset: device taints and "
     "tolerations (DRADeviceTaints) are not simulated"),
    ("consumesCounters: [{counterSet: s, counters: {mem: {value: 1Gi}}}]",
     "spec.devices[].consumesCounters is read but not simulated by kruleset: partitionable "
     "devices (DRAPartitionableDevices: shared counters, per-device node selection) are "
     "not simulated"),
    ("allowMultipleAllocations: true",
     "spec.devices[].allowMultipleAllocations is read but not simulated by kruleset: "
     "consumable capacity (DRAConsumableCapacity) is not simulated"),
])
def test_fields_of_features_not_simulated_are_warnings(tmp_path: Path, field: str,
                                                       words: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(_slice("v1", "{model: {string: a100}}", field))
    sc = kruleset.load(f'node n1 cpu=4\ninclude "{f}"\n')
    assert sc.notices == (f"{f}: warning: {words}",)


def test_request_tolerations_and_class_extended_resources_are_warnings(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text(_claim("v1", "deviceClassName: gpu, tolerations: [{operator: Exists}]") +
                 "---\n" + _class("v1", "expression") + "  extendedResourceName: example.com/gpu\n")
    sc = kruleset.load(f'include "{f}"\n')
    assert sc.notices == (
        f"{f}: warning: spec.devices.requests[].exactly.tolerations is read but not simulated "
        "by kruleset: device taints and tolerations (DRADeviceTaints) are not simulated",
        f"{f}: warning: spec.extendedResourceName is read but not simulated by kruleset: "
        "extended resources backed by devices (DRAExtendedResource) are not simulated")


def test_the_seed_manifests_still_load_with_their_two_warnings_only() -> None:
    folder = Path(__file__).resolve().parent.parent / "features" / "dra"
    sc = kruleset.load(f'node node-1 cpu=4\ninclude "{folder / "cats-slice.yaml"}"\n'
                       f'include "{folder / "pod-with-cats.yaml"}"\n')
    # The DeviceClass's top-level name is moved into metadata, not refused as unknown.
    assert len(sc.notices) == 2, sc.notices
    assert all("pod-with-cats.yaml" in n for n in sc.notices)
