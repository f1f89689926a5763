"""Small builders shared by the kubelet tests."""

from __future__ import annotations

from kruleset.model.objects import Container, Node, Pod
from kruleset.model.resources import Resources
from kruleset.model.selectors import Toleration

Mi = 2**20
Gi = 2**30


def res(cpu: int = 0, memory: int = 0, storage: int = 0, **other: int) -> Resources:
    """A resource vector: cpu in millicores, memory and storage in bytes."""
    return Resources.of({"cpu": cpu, "memory": memory, "ephemeral-storage": storage, **other})


def pod(name: str, *, req: Resources | None = None, lim: Resources | None = None,
        priority: int | None = None, static: bool = False, priority_class: str = "",
        tolerations: tuple[Toleration, ...] = (), usage: dict[str, int] | None = None,
        grace: int = 30_000, ns: str = "default", **kw: object) -> Pod:
    """A one-container pod called ``name`` (container ``name`` too)."""
    c = Container(name, req or Resources(), lim or Resources())
    return Pod(ns, name, containers=(c,), priority=priority, static=static,
               priority_class=priority_class, tolerations=tolerations, usage=usage or {},
               grace_period=grace, **kw)  # type: ignore[arg-type]


def node(name: str = "n1", cpu: int = 4000, memory: int = 4 * Gi, pods: int = 110,
         storage: int = 0, **kw: object) -> Node:
    """A node with these capacities."""
    return Node(name, res(cpu, memory, storage, pods=pods), **kw)  # type: ignore[arg-type]


def run(text: str):  # type: ignore[no-untyped-def]
    """Run a .kr scenario and return the result."""
    import kruleset

    return kruleset.run(kruleset.load(text))


def failed(result) -> list[str]:  # type: ignore[no-untyped-def]
    """The expectations that did not hold, with why."""
    return [f"{e.expectation.text}: {e.message}" for e in result.expectations if not e.passed]
