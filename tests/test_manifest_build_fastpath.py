"""Shortcuts taken while building pods of a cluster dump must not change what is loaded.

* Pods whose spec text the JSON item decoder has seen before share the
  SpecFields of the first one (kept on the decoder's remembered spec), with
  no compare of their specs; naked pods and pods of other namespaces or
  controllers included.
* The file is decoded straight from a mapping of it.

Every dump is loaded with these shortcuts and with them bypassed (the plain
decoder and ``Path.read_text``); objects are compared attribute by
attribute, with phases, notes and error messages.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from kruleset.errors import ManifestError
from kruleset.manifests import documents, load_manifests, loader
from kruleset.manifests._jsonitems import ItemDecoder


class _NoNotes(ItemDecoder):
    """The item decoder as before: specs copied, but no remembered spec told to the loader."""

    def item(self, text: str, pos: int) -> tuple[dict[str, Any], int] | None:
        out = super().item(text, pos)
        self.spec_seen = None
        return out


class _Plain(ItemDecoder):
    """No fast decoding at all: every item is decoded by the json module."""

    def item(self, text: str, pos: int) -> None:  # type: ignore[override]
        return None


def _fields(obj: Any) -> Any:
    """Every attrs field of ``obj`` (those left out of ``==`` too), recursively, with types."""
    if attrs.has(type(obj)):
        return (type(obj).__name__,
                tuple((a.name, _fields(getattr(obj, a.name))) for a in attrs.fields(type(obj))))
    if isinstance(obj, tuple | list):
        return (type(obj).__name__, tuple(_fields(x) for x in obj))
    if isinstance(obj, Mapping):
        return (type(obj).__name__, tuple((k, _fields(v)) for k, v in obj.items()))
    return (type(obj).__name__, obj)


def _load(path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool,
          decoder: type[ItemDecoder] = ItemDecoder) -> Any:
    with monkeypatch.context() as m:
        m.setattr(loader, "ItemDecoder", decoder)
        if not fast:
            m.setattr(documents, "read_text", lambda p: p.read_text(encoding="utf-8"))
        try:
            loaded = load_manifests(path)
        except ManifestError as e:
            return f"{type(e).__name__}: {e} | {e.file} {e.document} {e.field}"
    return (loaded.objects, _fields(loaded.objects), dict(loaded.pod_phases), loaded.notes)


def _assert_same(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    fast = _load(path, monkeypatch, True)
    for decoder in (_NoNotes, _Plain):
        assert fast == _load(path, monkeypatch, False, decoder), decoder.__name__
    return fast


# --- dumps --------------------------------------------------------------------------------

_SPECS: list[dict[str, Any]] = [
    {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}],
     "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
                      "operator": "Exists", "tolerationSeconds": 300}]},
    {"containers": [{"name": "app", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
     "priority": 5, "priorityClassName": "mid"},
    {"containers": [{"name": "app", "ports": [{"containerPort": 80}]}], "hostNetwork": True,
     "runtimeClassName": "kata"},
    {"containers": [{"name": "app"}], "runtimeClassName": "kata", "overhead": {"cpu": "10m"},
     "nodeSelector": {"disk": "ssd"}},
    {"containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"memory": "1Mi"}}}],
     "initContainers": [{"name": "i", "restartPolicy": "Always"}],
     "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "x"}}}]}}},
]


def _pod(rng: random.Random, i: int, spec: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {"creationTimestamp": "2024-05-01T08:00:00Z"}
    if rng.random() < 0.2:
        meta["annotations"] = rng.choice([
            {"kubernetes.io/config.source": "file"}, {"kubernetes.io/config.mirror": "x"},
            {"kubernetes.io/config.source": "api"}, {"kubernetes.io/config.mirror": ""},
            {"other": "y"}, {}, None])
    if rng.random() < 0.95:
        meta["labels"] = {"app": f"a{rng.randrange(3)}", "pod-template-hash": "h"}
    if rng.random() < 0.05:
        meta["deletionTimestamp"] = "2024-05-01T08:00:30Z"
    meta["name"] = f"p-{i}"
    if rng.random() < 0.9:
        meta["namespace"] = rng.choice(["default", "team-a", "team-b"])
    owner = rng.random()
    if owner < 0.5:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "controller": True,
                                    "kind": "ReplicaSet", "name": f"web-{rng.randrange(3)}-h"}]
    elif owner < 0.6:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Node", "name": "n1"},
            {"apiVersion": "apps/v1", "controller": True, "kind": "DaemonSet", "name": "ds"}]
    elif owner < 0.65:
        meta["ownerReferences"] = [{"kind": "Job", "name": "j", "controller": False}]
    elif owner < 0.7:
        meta["ownerReferences"] = [{"apiVersion": "v1", "controller": True,
                                    "kind": "ReplicationController", "name": "rc"}]
    elif owner < 0.75:
        meta["ownerReferences"] = rng.choice([[], None])
    spec = dict(spec)
    node = rng.random()
    if node < 0.8:
        spec["nodeName"] = f"n{rng.randrange(1, 4)}"
    elif node < 0.85:
        spec["nodeName"] = ""
    status: dict[str, Any] = {"phase": rng.choice(["Running"] * 6 + ["Pending", "Succeeded"])}
    if rng.random() < 0.9:
        second = rng.randrange(60)
        status["startTime"] = rng.choice([
            f"2024-05-0{rng.randrange(1, 4)}T0{rng.randrange(3)}:1{rng.randrange(2)}:"
            f"{second:02d}Z",
            f"2024-05-01T08:00:{second:02d}.5Z", f"2024-05-01T08:00:{second:02d}+02:00",
            f"2024-05-01 08:00:{second:02d}Z"])
    if rng.random() < 0.7:
        status["conditions"] = [{"type": "Initialized", "status": "True"},
                                {"type": "Ready", "status": rng.choice(["True", "False"])}]
    if rng.random() < 0.05:
        status["nominatedNodeName"] = "n2"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": status}


def _dump(seed: int, runtime_class_first: bool) -> str:
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": f"n{i}", "labels": {"zone": "ab"[i % 2]}},
         "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}
        for i in range(1, 4)]
    runtime = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
               "metadata": {"name": "kata"}, "handler": "kata",
               "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "web-1", "namespace": "team-a"},
                  "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "a1"}},
                                                        "spec": _SPECS[0]}}}
    if runtime_class_first:
        items.append(runtime)
    pods = [_pod(rng, i, rng.choice(_SPECS)) for i in range(200)]
    items += pods[:100] + [deployment] + pods[100:]
    if not runtime_class_first:
        items.append(runtime)
    return json.dumps({"apiVersion": "v1", "items": items, "kind": "List"},
                      indent=rng.choice([None, 2, 4]))


@pytest.mark.parametrize("seed", range(6))
def test_random_dumps_build_the_same_pods(seed: int, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods sharing spec texts across controllers, namespaces and none load as without shortcuts."""
    path = tmp_path / "dump.json"
    path.write_text(_dump(seed, runtime_class_first=seed % 2 == 0), encoding="utf-8")
    loaded = _assert_same(path, monkeypatch)
    assert not isinstance(loaded, str), loaded
    assert len(loaded[0]) > 200


@pytest.mark.parametrize(("old", "new"), [
    ('"nodeName": "n2"', '"nodeName": 7'),
    ('"cpu": "100m"', '"cpu": "lots"'),
    ('"status": "True"', '"status": true'),
    ('"phase": "Running"', '"phase": 3'),
    ('"kind": "ReplicaSet"', '"kind": 1'),
    ('"startTime": "2024-05-0', '"startTime": "2024-13-0'),
    ("SECONDS", "60"),
    (':3', ':x'),
    ('"pod-template-hash": "h"', '"pod-template-hash": 5'),
    ('"kubernetes.io/config.mirror": "x"', '"kubernetes.io/config.mirror": null'),
    ('"kubernetes.io/config.source": "file"', '"kubernetes.io/config.source": ["file"]'),
])
def test_a_bad_value_in_a_later_pod_fails_the_same_way(old: str, new: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An error in a pod whose spec text was seen before names the same item and field."""
    text = _dump(11, runtime_class_first=True)
    if old == "SECONDS":  # a leap second in a start time of kubectl's form
        at = text.index('"startTime": "2024-05-0', len(text) // 2) + len('"startTime": "') + 17
        old = text[at:at + 2]
    else:
        at = text.index(old, len(text) // 2)
    path = tmp_path / "bad.json"
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    _assert_same(path, monkeypatch)


@pytest.mark.parametrize("content", [
    b"", b"{}", b'{"a": 1}\r\n', b'{"a":\r 1}', b"\xef\xbb\xbf{}", b'{"a": "\xc3\xa9"}',
    b'{"a": "\xff"}', b'{"a": "\xc3"}', b"\n" * 10,
])
def test_file_text_is_that_of_read_text(content: bytes, tmp_path: Path) -> None:
    """The file decodes to read_text's text, newlines and errors included, less a BOM.

    A byte order mark is dropped for JSON as for YAML (the YAML parser drops it).
    """
    path = tmp_path / "f.json"
    path.write_bytes(content)
    try:
        expected: object = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        expected = (e.reason, e.start)
    try:
        got: object = documents.read_text(path)
    except UnicodeDecodeError as e:
        got = (e.reason, e.start)
    assert got == expected
    with pytest.raises(FileNotFoundError):
        documents.read_text(tmp_path / "missing.json")


def test_the_shortcuts_are_on() -> None:
    """The pod builders check the Pod class at import and turn themselves off when it has
    fields they do not know how to set; a new field must be taught to them, not lose them."""
    from kruleset.manifests import _fastpod

    assert _fastpod.ENABLED
