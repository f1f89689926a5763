"""What keeps a pod small: shared PodExtras and NamedAfterPod, spans reading
their line from the source, origins read from spans (benchmarks.parse_memory)."""

from __future__ import annotations

import pickle

import attrs
import pytest

import kruleset
from kruleset.errors import Span
from kruleset.lang.errors import LazySpan
from kruleset.model.objects import NO_EXTRAS, Container, NamedAfterPod, Pod
from kruleset.model.resources import Resources

TEXT = ("node n1 cpu=4 memory=8Gi pods=110\n"
        "pod p0 requests(cpu=1m, memory=1Mi)\n"
        "pod p1 requests(cpu=1m, memory=1Mi)\n"
        "pods r-[1..3] requests(cpu=1m, memory=1Mi) grace-period=5s\n")


def _pods(text: str = TEXT) -> list[Pod]:
    return [o for o in kruleset.load(text).objects if isinstance(o, Pod)]


def test_pods_of_one_line_or_one_text_share_their_container_and_extras() -> None:
    pods = _pods()
    assert [p.name for p in pods] == ["p0", "p1", "r-1", "r-2", "r-3"]
    # Each reads one container named after itself ...
    assert [[c.name for c in p.containers] for p in pods] == [[p.name] for p in pods]
    # ... held as one shared object by the pods of the same text and by a range.
    assert pods[0].container_spec is pods[1].container_spec
    assert isinstance(pods[0].container_spec, NamedAfterPod)
    assert len({id(p.container_spec) for p in pods[2:]}) == 1
    assert pods[0].extras is pods[1].extras is NO_EXTRAS
    assert pods[2].extras is pods[4].extras
    assert [p.grace_period for p in pods] == [30_000, 30_000, 5_000, 5_000, 5_000]


def test_a_pod_equals_the_pod_built_with_its_container_named() -> None:
    shared = NamedAfterPod((Container("anything", Resources(cpu=1)),))
    a = Pod("default", "web", containers=shared, restarts=2)
    b = Pod("default", "web", containers=(Container("web", Resources(cpu=1)),), restarts=2)
    assert a == b
    assert (a != b) is False
    assert a.requests == b.requests
    assert a != attrs.evolve(b, restarts=3)
    assert attrs.evolve(a, restarts=3) == attrs.evolve(b, restarts=3)


def test_extras_are_given_and_changed_by_their_own_names() -> None:
    pod = Pod("default", "p", grace_period=1_000, created_at=-5, restarts=4)
    assert (pod.grace_period, pod.created_at, pod.restarts, pod.static) == (1_000, -5, 4, False)
    changed = pod.replace(restarts=0, priority=3)
    assert (changed.restarts, changed.grace_period, changed.priority) == (0, 1_000, 3)
    assert attrs.evolve(pod, static=True).critical
    # Equal extras are one object; a pod with none keeps the shared default.
    assert Pod("a", "b", restarts=1).extras is Pod("c", "d", restarts=1).extras
    assert Pod("a", "b").extras is NO_EXTRAS
    with pytest.raises(TypeError):
        Pod("a", "b", no_such_field=1)  # type: ignore[call-arg]


def test_a_kept_span_is_the_span_it_stands_for() -> None:
    pod = _pods()[1]
    span = pod.span
    assert isinstance(span, LazySpan)
    plain = Span(span.file, 3, 1, "pod p1 requests(cpu=1m, memory=1Mi)")
    assert (span.line, span.column, span.text) == (3, 1, plain.text)
    assert span == plain and plain == span and hash(span) == hash(plain)
    assert repr(span) == repr(plain)
    copied = pickle.loads(pickle.dumps(span))
    assert type(copied) is Span and copied == plain
    assert type(attrs.evolve(span, column=2)) is Span


def test_a_second_declaration_names_the_line_of_the_first() -> None:
    with pytest.raises(kruleset.ScenarioError) as err:
        kruleset.load(TEXT + "node n2 cpu=4\npod p1 cpu=1\n")
    assert "pod 'default/p1' is already declared (line 3)" in str(err.value)


def test_objects_keep_the_order_of_their_statements() -> None:
    text = "pod a cpu=1m\nnode n1 cpu=4\npods b-[1..2] cpu=1m\nnode n2 cpu=4\n"
    names = [o.name for o in kruleset.load(text).objects]
    assert names == ["a", "n1", "b-1", "b-2", "n2"]


def test_the_repr_lists_every_field_as_read() -> None:
    # A workload's revision names hash its template's repr: it must not
    # depend on how a pod holds its fields.
    pod = _pods()[1]
    text = repr(pod)
    assert text.startswith("Pod(namespace='default', name='p1', containers=(Container("
                           "name='p1', ")
    assert ", init_containers=(), overhead=Resources(" in text
    assert ", grace_period=30000, started=None, static=False, " in text
    assert text.endswith(", resource_claims=(), key='default/p1', qos='Burstable', "
                         "critical=False)")
