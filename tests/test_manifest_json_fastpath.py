"""Shortcuts taken while loading cluster dumps must not change what is loaded or admitted.

* The manifest loader reads the items of a JSON List with ``ItemDecoder``,
  which copies a pod spec whose text was seen before instead of decoding it
  again (with this pod's ``nodeName``).  Every dump below is loaded with the
  decoder and with it bypassed (every item decoded by the json module), and
  the loaded objects, phases, notes and errors must be the same.
* Priority admission returns a pod that already has a priority, no class name
  and a preemption policy as it is, and skips running the rule set for it
  while the class-resolving rule is the only admission rule.  The results
  must be those of running the rule set, and rules added to the set must run.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

import kruleset
from kruleset.errors import ManifestError
from kruleset.manifests import _jsonitems, documents, load_manifests, loader
from kruleset.manifests._jsonitems import ItemDecoder
from kruleset.manifests.documents import read_documents
from kruleset.manifests.schema import STRICT
from kruleset.model.objects import NEVER, PREEMPT_LOWER, Pod, PriorityClass
from kruleset.rules import priority
from kruleset.rules.engine import REJECTED, Failure, Rule
from kruleset.rules.priority import ADMISSION, admit_priority
from kruleset.rules.profile import Override, Profile
from kruleset.sim.core import Simulation

# --- building kubectl-like dumps ------------------------------------------------------


def node(name: str, zone: str = "a", cpu: str = "4") -> dict[str, Any]:
    """A Node as ``kubectl get -o json`` prints it (keys in kubectl's order)."""
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "creationTimestamp": "2024-05-01T08:00:00Z",
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
            "name": name,
            "resourceVersion": "100",
            "uid": f"uid-{name}",
        },
        "spec": {"podCIDR": "10.0.0.0/24"},
        "status": {
            "allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
            "capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
        },
    }


def pod_spec(node_name: str | None = None, *, cpu: str = "100m", memory: str = "64Mi",
             toleration_seconds: int = 300, selector: dict[str, str] | None = None,
             args: list[str] | None = None, extra: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """A PodSpec in the order of the Go struct (nodeName in the middle, as kubectl writes it)."""
    spec: dict[str, Any] = {
        "containers": [{
            "args": args or ["--port=8080"],
            "image": "registry.example/app:1.2.3",
            "imagePullPolicy": "IfNotPresent",
            "name": "app",
            "resources": {"limits": {"memory": "2Gi"},
                          "requests": {"cpu": cpu, "memory": memory}},
            "terminationMessagePath": "/dev/termination-log",
        }],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
    }
    if selector is not None:
        spec["nodeSelector"] = selector
    if node_name is not None:
        spec["nodeName"] = node_name
    spec.update({
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": [
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
             "operator": "Exists", "tolerationSeconds": toleration_seconds},
            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
             "operator": "Exists", "tolerationSeconds": toleration_seconds},
        ],
    })
    if extra:
        spec.update(extra)
    return spec


def pod(name: str, spec: dict[str, Any], *, namespace: str = "default",
        labels: dict[str, str] | None = None, owner: str | None = None,
        phase: str = "Running", start: str | None = "2024-05-01T08:05:00Z",
        annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """A Pod as kubectl prints it: apiVersion, kind, metadata, spec, status."""
    meta: dict[str, Any] = {"creationTimestamp": "2024-05-01T08:05:00Z"}
    if annotations is not None:
        meta["annotations"] = annotations
    meta["labels"] = labels if labels is not None else {"app": "web"}
    meta["name"] = name
    meta["namespace"] = namespace
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "blockOwnerDeletion": True,
                                    "controller": True, "kind": "ReplicaSet", "name": owner,
                                    "uid": f"uid-{owner}"}]
    meta["uid"] = f"uid-{namespace}-{name}"
    status: dict[str, Any] = {"phase": phase, "qosClass": "Burstable"}
    if start is not None:
        status["startTime"] = start
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": status}


def dump(items: list[dict[str, Any]], **dumps: Any) -> str:
    """``kubectl get -o json`` of ``items`` (``indent=4`` unless told otherwise)."""
    dumps.setdefault("indent", 4)
    return json.dumps({"apiVersion": "v1", "items": items, "kind": "List",
                       "metadata": {"resourceVersion": ""}}, **dumps) + "\n"


def nodes(count: int = 3) -> list[dict[str, Any]]:
    return [node(f"n{i}", "ab"[i % 2]) for i in range(1, count + 1)]


def _kubectl() -> str:
    """Replicas of two controllers and naked pods, on several nodes and pending."""
    items = nodes()
    for i in range(6):
        items.append(pod(f"web-7d9f-{i}", pod_spec(f"n{i % 3 + 1}"), owner="web-7d9f",
                         labels={"app": "web", "pod-template-hash": "7d9f"}))
    for i in range(4):
        items.append(pod(f"db-{i}", pod_spec(f"n{3 - i % 3}", cpu="250m", memory="1Gi"),
                         owner="db", labels={"app": "db"}))
    for i in range(3):  # no controller: the loader's own memo does not apply
        items.append(pod(f"naked-{i}", pod_spec(f"n{i + 1}")))
    for i in range(2):
        items.append(pod(f"pending-{i}", pod_spec(None), phase="Pending", start=None))
        items.append(pod(f"unbound-{i}", pod_spec(""), phase="Pending", start=None))
    items.append(pod("done", pod_spec("n1"), phase="Succeeded"))
    return dump(items)


def _nested_differences() -> str:
    """Specs equal but for one nested value, before or after nodeName, same prefix."""
    items = nodes()
    variants: list[dict[str, Any]] = [
        {}, {"cpu": "200m"}, {"memory": "65Mi"}, {"toleration_seconds": 301},
        {"toleration_seconds": 3000}, {"selector": {"disk": "ssd"}},
        {"selector": {"disk": "hdd"}}, {"args": ["--port=8081"]},
        {"extra": {"hostNetwork": True}}, {"extra": {"priority": 1}},
    ]
    for round_ in range(3):
        for i, kw in enumerate(variants):
            node_name = f"n{(i + round_) % 3 + 1}"
            items.append(pod(f"p-{round_}-{i}", pod_spec(node_name, **kw),
                             owner="rs" if round_ else None))
    # The same specs once more in reverse order and with longer node names.
    for i, kw in reversed(list(enumerate(variants))):
        items.append(pod(f"q-{i}", pod_spec(f"n{i % 3 + 1}", **kw)))
    return dump(items)


def _nested_node_name() -> str:
    """``nodeName`` written elsewhere than as the spec's key: nested keys and string values."""
    items = nodes()
    shapes = [
        pod_spec("n1", selector={"nodeName": "n2"}),  # a nested key besides the real one
        pod_spec(None, selector={"nodeName": "n2"}),  # a nested key only
        pod_spec("n2", args=["nodeName", "--nodeName=n3", '"nodeName": "n3"']),
        pod_spec("n3", extra={"hostname": "nodeName"}),
        pod_spec(None, extra={"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In",
                                  "values": ["n2"]}]}]}}},
            "subdomain": "nodeName"}),
        pod_spec("n1", extra={"overhead": None, "nodeSelector": {'a"nodeName': "v"}}),
    ]
    for round_ in range(3):
        for i, spec in enumerate(shapes):
            spec = copy.deepcopy(spec)
            if "nodeName" in spec:
                spec["nodeName"] = f"n{(i + round_) % 3 + 1}"
            items.append(pod(f"p-{round_}-{i}", spec, annotations={"nodeName": "n9"}))
    return dump(items)


def _escapes() -> str:
    """Escaped characters in names, labels, node names and the head of items."""
    items = nodes()
    labels = {"app": 'we"b', "path": "a\\b", "line": "one\ntwo", "tab": "x\ty",
              "accent": "caf\u00e9", "slash": "a/b"}
    for i in range(4):
        items.append(pod(f"p-{i}", pod_spec(f"n{i % 3 + 1}", selector={"q": 'say "hi"'}),
                         labels=labels))
    text = dump(items)
    # A nodeName (value or key), a kind, an apiVersion and a name written with escapes.
    escaped = [
        pod("esc-0", pod_spec("n1")),
        pod("esc-1", pod_spec("n2")),
        pod("esc-2", pod_spec("n3")),
        pod("esc-3", pod_spec("n1")),
        pod("esc-4", pod_spec("n2")),
    ]
    more = dump(escaped)
    more = _replace_nth(more, '"nodeName": "n2"', '"nodeName": "n\\u0032"', 0)
    more = _replace_nth(more, '"nodeName": "n3"', '"node\\u004eame": "n3"', 0)
    more = _replace_nth(more, '"kind": "Pod"', '"kind": "P\\u006fd"', 3)
    more = _replace_nth(more, '"apiVersion": "v1",\n            "kind"',
                        '"apiVersion": "v\\u0031",\n            "kind"', 4)
    more = _replace_nth(more, '"name": "esc-4"', '"name": "esc\\u002d4"', 0)
    assert more.count("\\u") >= 4
    return _concat(text, more)


def _replace_nth(text: str, old: str, new: str, n: int) -> str:
    """``text`` with the ``n``-th (0-based) occurrence of ``old`` replaced by ``new``."""
    at = -1
    for _ in range(n + 1):
        at = text.index(old, at + 1)
    return text[:at] + new + text[at + len(old):]


def _concat(*texts: str) -> str:
    """One List with the items of several dumps, their text kept as written."""
    bodies = []
    for t in texts:
        start = t.index('"items": [') + len('"items": [')
        end = t.rindex("],")
        bodies.append(t[start:end].strip())
    return ('{\n    "apiVersion": "v1",\n    "items": [\n        '
            + ",\n        ".join(bodies)
            + '\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n'
            '    }\n}\n')


def _duplicate_keys() -> str:
    """Keys written twice (the json module keeps the last value, in the first one's place)."""
    base = dump(nodes() + [pod(f"p-{i}", pod_spec(f"n{i % 3 + 1}")) for i in range(10)])
    out = base
    # nodeName twice in one spec, then the same text with another first value.
    for first, second in [("n1", "n2"), ("n3", "n2"), ("n2", "n1")]:
        out = out.replace(f'"nodeName": "{first}",',
                          f'"nodeName": "{first}", "nodeName": "{second}",', 1)
    # nodeName once escaped, once plain, in both orders.
    out = out.replace('"nodeName": "n1",', '"node\\u004eame": "n3", "nodeName": "n1",', 1)
    out = out.replace('"nodeName": "n2",', '"nodeName": "n2", "node\\u004eame": "n3",', 1)
    # An item with two specs, one with two kinds, one with two statuses.
    out = out.replace('"status": {\n                "phase": "Running"',
                      '"spec": {"containers": [], "nodeName": "n1"},\n'
                      '            "status": {\n                "phase": "Running"', 1)
    out = out.replace('"kind": "Pod",', '"kind": "Pod", "kind": "Node",', 1)
    out = out.replace('"qosClass": "Burstable",\n', '"qosClass": "Burstable",\n'
                      '"phase": "Succeeded",\n', 1)
    assert out != base
    return out


def _hidden_node_name() -> str:
    """The spec's nodeName key written escaped, with a plain ``"nodeName"`` text elsewhere.

    Several pods write the same text but for the plain one's value, which is
    not their node: a copy must not put that value in their nodeName.
    """
    items: list[dict[str, Any]] = nodes()
    for i in range(9):
        # The key is escaped; a nodeSelector key is the only plain "nodeName".
        items.append(pod(f"nested-{i}", pod_spec(f"TOPn{i % 3 + 1}",
                                                 selector={"nodeName": f"s{i % 4}"})))
        # A key whose text ends in "nodeName" (an escaped quote before it).
        items.append(pod(f"quoted-{i}", pod_spec(f"TOPn{i % 2 + 1}",
                                                 selector={'a"nodeName': f"v{i % 4}"})))
        # The plain key first, an escaped one later: the later value wins.
        items.append(pod(f"twice-{i}", pod_spec(f"n{i % 3 + 1}",
                                                extra={"zz-dup": f"n{i % 2 + 1}"})))
    text = dump(items)
    text = text.replace('"nodeName": "TOP', '"node\\u004eame": "')
    return text.replace('"zz-dup"', '"node\\u004eame"')


def _key_order() -> str:
    """Items and specs whose keys are not in kubectl's order."""
    items: list[dict[str, Any]] = nodes()
    for i in range(3):
        p = pod(f"kind-first-{i}", pod_spec(f"n{i + 1}"))
        items.append({"kind": p["kind"], "apiVersion": p["apiVersion"], **p})
        p = pod(f"status-first-{i}", pod_spec(f"n{i + 1}"))
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": p["metadata"],
                      "status": p["status"], "spec": p["spec"]})
        spec = pod_spec(f"n{i + 1}")
        items.append(pod(f"nodename-first-{i}", {"nodeName": spec.pop("nodeName"), **spec}))
        p = pod(f"meta-last-{i}", pod_spec(f"n{i + 1}"))
        items.append({"apiVersion": "v1", "kind": "Pod", "spec": p["spec"],
                      "status": p["status"], "metadata": p["metadata"]})
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": f"bare-{i}"},
                      "spec": {"nodeName": f"n{i + 1}", "containers": [{"name": "c"}]}})
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"head-{i}"}})
    return dump(items)


def _unicode() -> str:
    """Node names and labels beyond ASCII, written raw (ensure_ascii=False) and escaped."""
    names = ["n\u0153ud-1", "\u0443\u0437\u0435\u043b-2", "rocket-\U0001f680",
             "\x7fkruleset-node-name-probe\x7f", "plain"]
    # The API server refuses such names for Nodes; pods may still name them (and stay pending).
    items: list[dict[str, Any]] = [node(f"node-{i}") for i in range(len(names))]
    for round_ in range(2):
        for i, n in enumerate(names):
            items.append(pod(f"p-{round_}-{i}", pod_spec(n, selector={"zone": "z\u00fcrich"}),
                             labels={"app": "\u00e9t\u00e9"}))
    raw = dump(items, ensure_ascii=False)
    escaped = dump([pod(f"e-{i}", pod_spec(n)) for i, n in enumerate(names)])
    return _concat(raw, escaped)


def _compact() -> str:
    """No indentation or spaces at all: short specs, nodeName within the first characters."""
    items: list[dict[str, Any]] = nodes()
    for i in range(8):
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"s-{i}"},
                      "spec": {"nodeName": f"n{i % 3 + 1}", "containers": [{"name": "c"}]}})
        items.append(pod(f"p-{i}", pod_spec(f"n{i % 3 + 1}")))
    return dump(items, indent=None, separators=(",", ":"))


def _many_specs() -> str:
    """More specs sharing a long prefix than the decoder keeps per prefix, revisited."""
    items: list[dict[str, Any]] = nodes()
    order = list(range(20)) * 3
    random.Random(7).shuffle(order)
    for j, k in enumerate(order):
        items.append(pod(f"p-{j}", pod_spec(f"n{j % 3 + 1}", extra={"priority": k})))
    return dump(items)


def _odd_specs() -> str:
    """Pod specs that are not objects or are empty, and a Node spec like a pod's."""
    items: list[dict[str, Any]] = nodes()
    items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "null-spec"},
                  "spec": None})
    items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "empty-spec"},
                  "spec": {}})
    items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "empty-spec-2"},
                  "spec": {}})
    n = node("n4")
    n["spec"] = {"nodeName": "n1", "podCIDR": "10.0.0.0/24"}
    items.append(n)
    items.append(pod("after-node", {"nodeName": "n1", "podCIDR": "10.0.0.0/24",
                                    "containers": [{"name": "c"}]}))
    items.append(pod("after-node-2", {"nodeName": "n2", "podCIDR": "10.0.0.0/24",
                                      "containers": [{"name": "c"}]}))
    return dump(items)


DUMPS = {
    "kubectl": _kubectl,
    "nested-differences": _nested_differences,
    "nested-node-name": _nested_node_name,
    "escapes": _escapes,
    "duplicate-keys": _duplicate_keys,
    "hidden-node-name": _hidden_node_name,
    "key-order": _key_order,
    "unicode": _unicode,
    "compact": _compact,
    "many-specs": _many_specs,
    "odd-specs": _odd_specs,
}


def _malformed() -> dict[str, str]:
    """Dumps the json module refuses, each broken in a pod whose spec text was seen before."""
    good = dump(nodes() + [pod(f"p-{i}", pod_spec(f"n{i % 3 + 1}")) for i in range(6)])
    last = good.rindex('"nodeName": "n3"')
    after_spec = good.rindex('"terminationGracePeriodSeconds": 30,')
    return {
        "trailing comma after a copied nodeName": (
            good[:last] + '"nodeName": "n3",}' + good[last + len('"nodeName": "n3"'):]),
        "unterminated node name": good[:last] + '"nodeName": "n3\n' + good[last + 17:],
        "control character in node name": good[:last] + '"nodeName": "n\t3"'
        + good[last + len('"nodeName": "n3"'):],
        "missing comma in the spec tail": (
            good[:after_spec] + good[after_spec:].replace("30,", "30", 1)),
        "missing comma between items": good.replace("},\n        {", "}\n        {", 5),
        "truncated": good[: len(good) * 2 // 3],
        "bad status": good.replace('"qosClass": "Burstable"', '"qosClass": Burstable', 1),
        "status only partly written": good.replace('"phase": "Running",', '"phase": ', 4),
        "bracket closing an object": good.replace('"securityContext": {}',
                                                  '"securityContext": {]', 5),
        "single quotes": good.replace('"nodeName": "n2"', "'nodeName': 'n2'", 1),
    }


# --- loading with and without the fast path -------------------------------------------


class _Plain(ItemDecoder):
    """The decoder bypassed: every item is decoded by the json module."""

    def item(self, text: str, pos: int) -> None:  # type: ignore[override]
        return None


class _Counting(ItemDecoder):
    """The real decoder, counting items it read and specs it copied."""

    read = 0
    specs = 0
    learnt = 0

    def item(self, text: str, pos: int) -> tuple[dict[str, Any], int] | None:
        out = super().item(text, pos)
        if out is not None:
            type(self).read += 1
        return out

    def _spec(self, text: str, pos: int) -> tuple[dict[str, Any], int]:
        type(self).specs += 1
        return super()._spec(text, pos)

    def _learn(self, key: str, spec_text: str, value: dict[str, Any]) -> None:
        type(self).learnt += 1
        super()._learn(key, spec_text, value)


def _fields(obj: Any) -> Any:
    """Every attrs field of ``obj`` (those left out of ``==`` too), recursively."""
    if attrs.has(type(obj)):
        return (type(obj).__name__,
                tuple((a.name, _fields(getattr(obj, a.name))) for a in attrs.fields(type(obj))))
    if isinstance(obj, tuple | list):
        return tuple(_fields(x) for x in obj)
    if isinstance(obj, Mapping):
        return tuple((k, _fields(v)) for k, v in obj.items())
    return obj


def _load(path: Path, decoder: type[ItemDecoder],
          monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...] | str:
    """What load_manifests gives with ``decoder`` in the loader, or its error message."""
    with monkeypatch.context() as m:
        m.setattr(loader, "ItemDecoder", decoder)
        try:
            loaded = load_manifests(path)
        except ManifestError as e:
            return f"{type(e).__name__}: {e} | {e.file} {e.document} {e.field}"
    return (loaded.objects, _fields(loaded.objects), dict(loaded.pod_phases), loaded.notes,
            loaded.terminated)


def _documents(path: Path, decoder: ItemDecoder | None) -> list[tuple[str, str]]:
    """Each document's field prefix and its value as JSON text (key order included)."""
    docs: Iterator[tuple[Any, object]]
    docs = documents.iter_documents(path, None, decoder) if decoder else read_documents(path)
    return [(d.prefix, json.dumps(v, ensure_ascii=False)) for d, v in docs]


@pytest.fixture(autouse=True)
def _lenient() -> Iterator[None]:
    """The dumps hold odd fields on purpose (a Node's nodeName, a Pod's podCIDR): warnings here."""
    token = STRICT.set(False)
    yield
    STRICT.reset(token)


@pytest.fixture(autouse=True)
def _counts() -> None:
    _Counting.read = _Counting.specs = _Counting.learnt = 0


@pytest.mark.parametrize("name", DUMPS)
def test_fast_path_loads_what_json_loads(name: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading a dump through ItemDecoder gives the objects, phases and notes of plain json."""
    path = tmp_path / "dump.json"
    path.write_text(DUMPS[name](), encoding="utf-8")
    plain = _load(path, _Plain, monkeypatch)
    fast = _load(path, _Counting, monkeypatch)
    assert _Counting.read > 0, "the fast path was not taken at all"
    assert not isinstance(plain, str), plain
    assert fast == plain
    # The values handed to the loader are those of the json module, key order included.
    assert _documents(path, ItemDecoder()) == _documents(path, None)


def test_fast_path_copies_repeated_specs(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The kubectl-like dump really exercises the copy: most pod specs are not decoded again."""
    path = tmp_path / "dump.json"
    path.write_text(_kubectl(), encoding="utf-8")
    _load(path, _Counting, monkeypatch)
    assert _Counting.specs >= 18
    assert _Counting.learnt <= 4  # one per distinct spec text around nodeName


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_fast_path_with_a_small_memory(limit: int, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Forgetting seen specs (the bound on memory) changes nothing that is loaded."""
    monkeypatch.setattr(_jsonitems, "_MAX_SPECS", limit)
    monkeypatch.setattr(_jsonitems, "_PER_PREFIX", limit)
    for name in ("nested-differences", "many-specs", "nested-node-name"):
        path = tmp_path / f"{name}.json"
        path.write_text(DUMPS[name](), encoding="utf-8")
        assert _load(path, _Counting, monkeypatch) == _load(path, _Plain, monkeypatch), name
        assert _documents(path, ItemDecoder()) == _documents(path, None), name


def test_random_specs_decode_as_json(tmp_path: Path) -> None:
    """Random pods drawn from a few specs and node names: every decoded item equals json's."""
    rng = random.Random(2026)
    specs = [pod_spec("x", cpu=f"{c}m", toleration_seconds=t, selector=s)
             for c in (100, 250) for t in (300, 30) for s in (None, {"nodeName": "n1"})]
    names = ["n1", "n2", "node-3", "", "nœud", 'n"4', "n\\5", "n\u00e9", "x"]
    items: list[dict[str, Any]] = []
    for i in range(300):
        spec = copy.deepcopy(rng.choice(specs))
        choice = rng.random()
        if choice < 0.1:
            del spec["nodeName"]
        elif choice < 0.15:
            spec["nodeName"] = None
        else:
            spec["nodeName"] = rng.choice(names)
        items.append(pod(f"p-{i}", spec))
    for ascii_only in (True, False):
        path = tmp_path / f"random-{ascii_only}.json"
        path.write_text(dump(items, ensure_ascii=ascii_only), encoding="utf-8")
        assert _documents(path, ItemDecoder()) == _documents(path, None)


@pytest.mark.parametrize("name", list(_malformed()))
def test_malformed_dump_fails_the_same_way(name: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A malformed dump is refused with json's message, line and column, fast path or not."""
    path = tmp_path / "bad.json"
    path.write_text(_malformed()[name], encoding="utf-8")
    with pytest.raises(ValueError):
        json.loads(path.read_text(encoding="utf-8"))
    plain = _load(path, _Plain, monkeypatch)
    fast = _load(path, _Counting, monkeypatch)
    assert isinstance(plain, str) and "not valid JSON" in plain and "line" in plain
    assert "column" in plain
    assert fast == plain


@pytest.mark.parametrize(("old", "new", "message"), [
    ('"nodeName": "n2"', '"nodeName": 5', "items[7].spec.nodeName"),
    ('"terminationGracePeriodSeconds": 30', '"terminationGracePeriodSeconds": -1',
     "items[7].spec.terminationGracePeriodSeconds"),
    ('"cpu": "100m"', '"cpu": "lots"', "items[7].spec.containers[0].resources.requests.cpu"),
])
def test_bad_field_in_a_copied_spec_fails_the_same_way(old: str, new: str, message: str,
                                                       tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A field error in a pod whose spec text was seen before names the same item and field."""
    text = dump(nodes() + [pod(f"p-{i}", pod_spec(f"n{i % 3 + 1}")) for i in range(6)])
    at = text.rindex(old, 0, text.rindex('"name": "p-5"'))
    text = text[:at] + new + text[at + len(old):]
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    plain = _load(path, _Plain, monkeypatch)
    assert isinstance(plain, str) and message in plain
    assert _load(path, _Counting, monkeypatch) == plain


def test_copied_specs_are_owned_by_each_item(tmp_path: Path) -> None:
    """Pods sharing a spec text keep their own nodeName, even if a reader changes a spec.

    The loader pops and puts back ``nodeName`` in the spec it is given; a copy
    that shared its top-level mapping with the spec it came from (or with the
    decoder's memory) would hand later pods an earlier pod's node.
    """
    node_names: list[str | None] = ["n1", "n2", "n3", "n1", "", "n2", "n3"]
    items = [pod(f"p-{i}", pod_spec(n)) for i, n in enumerate(node_names)]
    # Specs copied whole: no nodeName, a null one, one written with an escape.
    items += [pod(f"q-{i}", pod_spec(None)) for i in range(3)]
    items += [pod(f"r-{i}", pod_spec(None, extra={"nodeName": None})) for i in range(3)]
    items += [pod(f"s-{i}", pod_spec("ESC")) for i in range(3)]
    path = tmp_path / "dump.json"
    path.write_text(dump(items).replace('"ESC"', '"n\\u0031"'), encoding="utf-8")
    expected = [json.dumps(v) for _, v in read_documents(path)]
    kept: list[dict[str, Any]] = []
    for i, (_, value) in enumerate(documents.iter_documents(path, None, ItemDecoder())):
        assert isinstance(value, dict)
        assert json.dumps(value) == expected[i]
        spec = value["spec"]
        kept.append(spec)
        # What a reader may do to the top level of a decoded spec.
        spec["nodeName"] = f"changed-{i}"
        spec.pop("dnsPolicy")
        spec["added"] = i
    assert len(kept) == len(items)
    assert [s["nodeName"] for s in kept] == [f"changed-{i}" for i in range(len(kept))]
    assert len({id(s) for s in kept}) == len(kept)
    # Nothing done to one item's spec shows in another.
    assert [s["added"] for s in kept] == list(range(len(kept)))
    assert all("dnsPolicy" not in s for s in kept)


def test_pods_of_one_spec_text_differ_only_in_their_node(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Loaded pods of one spec text get their own node and the same other fields."""
    node_names = ["n1", "n2", "n3", "n2", "n1", ""]
    items = nodes() + [pod(f"p-{i}", pod_spec(n)) for i, n in enumerate(node_names)]
    path = tmp_path / "dump.json"
    path.write_text(dump(items), encoding="utf-8")
    loaded = _load(path, _Counting, monkeypatch)
    assert not isinstance(loaded, str)
    pods = [o for o in loaded[0] if isinstance(o, Pod)]
    assert [p.node_name for p in pods] == node_names
    first = pods[0]
    same = {"name", "node_name", "span", "key", "started"}
    for p in pods[1:]:
        for a in attrs.fields(Pod):
            if a.name not in same:
                assert getattr(p, a.name) == getattr(first, a.name), a.name


def test_included_dump_simulates_as_without_the_fast_path(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A scenario including a dump decides the same whether its pods were copied or decoded."""
    (tmp_path / "dump.json").write_text(_nested_differences(), encoding="utf-8")
    (tmp_path / "s.kr").write_text(
        'include "dump.json"\npriorityclass high value=1000\n'
        "pods new-[1..4] priorityclass=high cpu=1500m\n"
        "pod low priority=5 preemption=Never cpu=1\n")

    def simulate(decoder: type[ItemDecoder]) -> Any:
        with monkeypatch.context() as m:
            m.setattr(loader, "ItemDecoder", decoder)
            sim = Simulation(kruleset.load(tmp_path / "s.kr"))
        sim.run()
        return ([d.to_json() for d in sim.decisions],
                [(ps.pod, _fields(ps.pod), ps.phase, ps.node) for ps in sim.state.pods.values()])

    plain = simulate(_Plain)
    fast = simulate(_Counting)
    assert _Counting.read > 0
    assert fast == plain
    assert any(d["kind"] == "preempted" for d in plain[0])


# --- priority admission ---------------------------------------------------------------

HIGH = PriorityClass("high", 1000)
NEVER_CLASS = PriorityClass("polite", 50, preemption_policy=NEVER)
DEFAULT = PriorityClass("fallback", 7, global_default=True, preemption_policy=NEVER)
CLASS_SETS = {
    "none": {},
    "named": {c.name: c for c in (HIGH, NEVER_CLASS)},
    "default": {c.name: c for c in (HIGH, NEVER_CLASS, DEFAULT)},
}


def _pods() -> list[Pod]:
    out = []
    for prio in (None, 0, 7, 1000, -5, 2_000_000_000):
        for cls in ("", "high", "polite", "nope", "system-node-critical"):
            for policy in (None, "", NEVER, PREEMPT_LOWER):
                for static in (False, True):
                    out.append(Pod("ns", f"p-{prio}-{cls}-{policy}-{static}", priority=prio,
                                   priority_class=cls, preemption_policy=policy,
                                   static=static))
    return out


def _outcome(out: Pod | Failure) -> Any:
    if isinstance(out, Failure):
        return ("refused", _fields(out))
    return ("admitted", out, _fields(out), out.critical, out.node_critical)


def _without_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Admission as before the shortcut: the rule set always runs, the pod is rebuilt."""
    monkeypatch.setattr(priority, "_already_admitted", lambda pod: False)


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_admission_decides_as_without_the_shortcut(classes: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every combination of priority, class name and policy is admitted (or refused) as before."""
    pcs = CLASS_SETS[classes]
    pods = _pods()
    fast = [_outcome(admit_priority(p, pcs)) for p in pods]
    with monkeypatch.context() as m:
        _without_shortcut(m)
        slow = [_outcome(admit_priority(p, pcs)) for p in pods]
    for p, f, s in zip(pods, fast, slow, strict=True):
        assert f == s, p.name


def test_a_pod_with_a_priority_and_no_class_is_admitted_unchanged() -> None:
    """priority + no class + a policy: kept as they are, whatever the default class says."""
    classes = CLASS_SETS["default"]
    for policy in (NEVER, PREEMPT_LOWER):
        p = Pod("default", "web", priority=5, preemption_policy=policy)
        out = admit_priority(p, classes)
        assert isinstance(out, Pod)
        assert out == p and _fields(out) == _fields(p)
        assert (out.priority, out.priority_class, out.preemption_policy) == (5, "", policy)
    # Without a policy the default class's policy is still filled in.
    out = admit_priority(Pod("default", "web", priority=5), classes)
    assert isinstance(out, Pod)
    assert (out.priority, out.priority_class, out.preemption_policy) == (5, "", NEVER)
    # A critical priority makes a critical pod either way.
    out = admit_priority(Pod("default", "sys", priority=2_000_000_000,
                             preemption_policy=PREEMPT_LOWER), classes)
    assert isinstance(out, Pod) and out.critical


def test_a_class_name_is_still_resolved() -> None:
    """A pod naming a class is checked against it even with a priority and a policy set."""
    classes = CLASS_SETS["default"]
    out = admit_priority(Pod("default", "a", priority_class="high",
                             preemption_policy=NEVER), classes)
    assert isinstance(out, Pod)
    assert (out.priority, out.priority_class, out.preemption_policy) == (1000, "high", NEVER)
    out = admit_priority(Pod("default", "b", priority_class="polite", priority=50,
                             preemption_policy=PREEMPT_LOWER), classes)
    assert isinstance(out, Pod)
    assert (out.priority, out.preemption_policy) == (50, PREEMPT_LOWER)
    bad = admit_priority(Pod("default", "c", priority_class="high", priority=5,
                             preemption_policy=NEVER), classes)
    assert isinstance(bad, Failure) and "must not be provided in pod spec" in bad.reason
    gone = admit_priority(Pod("default", "d", priority_class="nope", priority=5,
                              preemption_policy=NEVER), classes)
    assert isinstance(gone, Failure)
    assert gone.reason == "no PriorityClass with name nope was found"
    node = admit_priority(Pod("default", "e", priority_class="system-node-critical",
                              priority=2_000_001_000, preemption_policy=PREEMPT_LOWER), {})
    assert isinstance(node, Pod) and node.node_critical


def _rule(name: str, fn: Any) -> Rule:
    return Rule(name, "a test rule", "a test", fn)


def _mark(ctx: Any, args: Any, data: Any) -> Any:
    """After the class rule: tag every admitted pod."""
    return data.replace(gates=(*data.gates, "test/admitted")) if isinstance(data, Pod) else None


def _refuse(ctx: Any, args: Any, data: Any) -> Any:
    return Failure("refused by a test rule", REJECTED)


def _set_rules(monkeypatch: pytest.MonkeyPatch, rules: list[Rule]) -> None:
    monkeypatch.setattr(ADMISSION, "rules", rules)


ADMITTED = Pod("default", "dump-pod", priority=0, preemption_policy=PREEMPT_LOWER)


@pytest.mark.parametrize("warm", [False, True])
def test_added_admission_rules_run_for_already_admitted_pods(warm: bool,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """A rule added to priority admission runs even for pods the class rule leaves alone.

    ``warm``: admission already ran (and remembered the default rules) before
    the rule was added.
    """
    if warm:
        assert admit_priority(ADMITTED, {}) == ADMITTED
    _set_rules(monkeypatch, [*ADMISSION.rules, _rule("test.admission.mark", _mark)])
    out = admit_priority(ADMITTED, {})
    assert isinstance(out, Pod) and out.gates == ("test/admitted",)
    _set_rules(monkeypatch, [*ADMISSION.rules[:1], _rule("test.admission.refuse", _refuse)])
    refused = admit_priority(ADMITTED, {})
    assert isinstance(refused, Failure) and refused.reason == "refused by a test rule"
    # A rule set without the class rule at all.
    _set_rules(monkeypatch, [_rule("test.admission.only", _refuse)])
    assert isinstance(admit_priority(ADMITTED, {}), Failure)
    monkeypatch.undo()
    # Back to the defaults: the pod is admitted as it is again.
    assert admit_priority(ADMITTED, {}) == ADMITTED


def test_disabled_added_rule_keeps_admission_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule registered off by default changes nothing (only enabled rules run)."""
    off = Rule("test.admission.off", "a test rule", "a test", _refuse, enabled=False)
    _set_rules(monkeypatch, [*ADMISSION.rules, off])
    assert admit_priority(ADMITTED, {}) == ADMITTED
    classes = CLASS_SETS["default"]
    fast = [_outcome(admit_priority(p, classes)) for p in _pods()]
    _without_shortcut(monkeypatch)
    assert [_outcome(admit_priority(p, classes)) for p in _pods()] == fast


SCENARIO = """\
priorityclass high value=1000 preemption=Never
priorityclass fallback value=10 default
priorityclass top value=100000
node n1 cpu=2 memory=4Gi
node n2 cpu=2 memory=4Gi
pod run-a on n1 priority=5 preemption=Never cpu=1
pod run-b on n2 priority=7 preemption=PreemptLowerPriority cpu=1500m
pod run-c on n1 priorityclass=high cpu=500m
pod plain cpu=500m
pod bare priority=3 cpu=1
pod named priorityclass=top preemption=PreemptLowerPriority cpu=2
pod polite priority=50 preemption=Never cpu=2
pods many-[1..3] priority=20 preemption=PreemptLowerPriority cpu=1
at 5s {
  create pod late priority=900 preemption=PreemptLowerPriority cpu=2
  create pod late-named priorityclass=high cpu=1
}
"""


def _simulate(monkeypatch: pytest.MonkeyPatch, shortcut: bool,
              profile: Profile | None = None, text: str = SCENARIO) -> Any:
    with monkeypatch.context() as m:
        if not shortcut:
            _without_shortcut(m)
        sim = Simulation(kruleset.load(text), profile=profile)
        sim.run()
    return ([d.to_json() for d in sim.decisions],
            [(ps.pod, _fields(ps.pod), ps.phase, ps.node) for ps in sim.state.pods.values()])


PROFILES = {
    "default": None,
    "class rule disabled": Profile({"priority.admission": Override(
        disable=("priority.admission.resolve-class",))}),
    "all admission rules disabled": Profile({"priority.admission": Override(
        disable_all=True)}),
}


@pytest.mark.parametrize("profile", PROFILES)
def test_simulation_admits_as_without_the_shortcut(profile: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A scenario with bare priorities, classes and a default class runs as before the shortcut.

    Also under profiles that switch priority-admission rules off: the shortcut
    must not make a difference there either.
    """
    fast = _simulate(monkeypatch, True, PROFILES[profile])
    slow = _simulate(monkeypatch, False, PROFILES[profile])
    assert fast == slow
    pods = {p.name: p for p, *_ in fast[1]}
    if PROFILES[profile] is not None:
        # The profile's admission rules are the ones that run: with the class
        # rule off, every pod keeps its priority fields as written.
        assert (pods["bare"].priority, pods["bare"].priority_class,
                pods["bare"].preemption_policy) == (3, "", None)
        assert (pods["plain"].priority, pods["plain"].priority_class) == (None, "")
        assert (pods["late-named"].priority, pods["late-named"].priority_class) == (None, "high")
        return
    assert (pods["bare"].priority, pods["bare"].priority_class,
            pods["bare"].preemption_policy) == (3, "", "PreemptLowerPriority")
    assert (pods["plain"].priority, pods["plain"].priority_class) == (10, "fallback")
    assert (pods["late-named"].priority, pods["late-named"].preemption_policy) == (1000, NEVER)
    assert (pods["named"].priority, pods["named"].priority_class) == (100000, "top")


def test_simulation_runs_added_admission_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a simulation, a rule added to priority admission refuses pods with a bare priority."""
    _set_rules(monkeypatch, [*ADMISSION.rules, _rule("test.admission.refuse", _refuse)])
    decisions, _ = _simulate(monkeypatch, True)
    refused = {d["pod"] for d in decisions if d["kind"] == "refused"}
    assert {"default/bare", "default/polite", "default/late", "default/many-1"} <= refused
