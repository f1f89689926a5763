"""Building many Pods that share a spec, without recomputing their derived facts.

A Pod computes its effective requests, limits and QoS class when it is built;
in a cluster dump thousands of pods share the same containers and overhead,
so those facts are computed once per shape and copied.  Everything else goes
through the same converters and defaults as ``Pod(...)``.

This is only done when the Pod class has exactly the derived fields listed
below; if the model grows another derived fact, every pod is built the normal
way again (slower, never wrong).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from ..model.objects import EXTRA_FIELDS, NO_EXTRAS, Pod, pod_extras

__all__ = ["PER_POD", "build_pod", "checked_labels", "copier", "pod_labels", "template_values"]

# Derived facts that depend only on (containers, init_containers, overhead).
_FROM_SHAPE = ("requests", "nonzero_requests", "limits", "qos")
# Derived facts recomputed or copied under a key that covers their inputs.
_OTHER_DERIVED = ("key", "critical")

_ATTRS = attrs.fields(Pod)
_INIT: tuple[tuple[str, Any, Any], ...] = tuple(
    (a.name, a.default, a.converter) for a in _ATTRS if a.init
)
_DERIVED = tuple(a.name for a in _ATTRS if not a.init and a.default is attrs.NOTHING)
# Fields set to a plain default by __init__, not given to it (Pod.range_head).
_SET_DEFAULTS = tuple((a.name, a.default) for a in _ATTRS
                      if not a.init and a.default is not attrs.NOTHING)
# What a pod of a cluster dump has of its own; everything else is its spec's.
PER_POD = ("namespace", "name", "labels", "node_name", "started", "owner_kind", "owner_name",
           "ready", "span")
ENABLED = sorted(_DERIVED) == sorted(_FROM_SHAPE + _OTHER_DERIVED) and not any(
    isinstance(default, attrs.Factory) for _, default in _SET_DEFAULTS  # type: ignore[arg-type]
) and all(
    a.validator is None and not (isinstance(a.default, attrs.Factory)  # type: ignore[arg-type]
                                 and a.default.takes_self)  # type: ignore[union-attr]
    for a in _ATTRS
) and all(
    a.converter is None for a in _ATTRS if a.name in PER_POD and a.name != "labels"
) and Pod.__setattr__ is not object.__setattr__  # frozen: we must bypass it knowingly

_SHAPES: dict[object, tuple[Any, ...]] = {}
_new = object.__new__
_set = object.__setattr__


def build_pod(shape: object, fields: dict[str, Any]) -> Pod:
    """``Pod(**fields)``, reusing derived facts of an earlier pod of the same ``shape``.

    ``shape`` must identify ``containers``, ``init_containers``, ``overhead``,
    ``static`` and ``priority`` (the inputs of the copied facts); ``None``
    means "no shape known": the pod is built the normal way.
    """
    if not ENABLED or shape is None:
        return Pod(**fields)
    fields = dict(fields)
    if not EXTRA_FIELDS.isdisjoint(fields):
        # Fields a pod keeps in its shared PodExtras, as Pod(...) takes them.
        cold = {n: fields.pop(n) for n in EXTRA_FIELDS & fields.keys()}
        fields["extras"] = pod_extras(fields.get("extras", NO_EXTRAS), cold)
    derived = _SHAPES.get(shape)
    if derived is None:
        pod = Pod(**fields)
        if len(_SHAPES) > 20_000:
            _SHAPES.clear()
        _SHAPES[shape] = tuple(getattr(pod, n) for n in _FROM_SHAPE) + (pod.critical,)
        return pod
    if "containers" in fields:
        fields["container_spec"] = fields.pop("containers")  # the slot Pod(containers=) sets
    names = tuple(fields)
    plan = _PLANS.get(names)
    if plan is None:
        plan = _PLANS[names] = _plan(frozenset(names))
    plain, factories, converters = plan
    pod = _new(Pod)
    for name, value in fields.items():
        _set(pod, name, value)
    for name, value in plain:
        _set(pod, name, value)
    for name, factory in factories:
        _set(pod, name, factory())
    for name, converter in converters:
        _set(pod, name, converter(getattr(pod, name)))
    for name, value in _SET_DEFAULTS:
        _set(pod, name, value)
    for name, value in zip(_FROM_SHAPE, derived, strict=False):
        _set(pod, name, value)
    _set(pod, "critical", derived[-1])
    _set(pod, "key", f"{fields['namespace']}/{fields['name']}")
    return pod


_Plan = tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]
_PLANS: dict[tuple[str, ...], _Plan] = {}


def _plan(given: frozenset[str]) -> _Plan:
    """For a set of given field names: defaults to set, factories to call, converters to apply."""
    plain, factories, converters = [], [], []
    for name, default, converter in _INIT:
        if name not in given:
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                factories.append((name, default.factory))
            else:
                plain.append((name, default))
        if converter is not None:
            converters.append((name, converter))
    return tuple(plain), tuple(factories), tuple(converters)


_Copier = Any  # (template values, *PER_POD values) -> Pod
_COPIERS: dict[frozenset[str], _Copier] = {}
template_values = operator.attrgetter(*(a.name for a in _ATTRS))


def copier(given: frozenset[str]) -> _Copier | None:
    """A function making pods like a template pod but for the :data:`PER_POD` fields.

    ``copy(template_values(t), *per_pod)`` equals ``Pod(**fields)`` where
    ``fields`` are those ``t`` was built from (names ``given``) with the
    :data:`PER_POD` ones replaced; ``labels`` is passed through
    :func:`pod_labels` first (the only one of them with a converter).
    Factories run again as in ``__init__``, ``key`` is recomputed, and every
    other value (derived facts included, which depend on neither) is the
    template's.  Pods of one controller differ only there, and one
    straight-line function setting each slot builds them about twice as fast
    as ``__init__``.  ``None`` when the Pod class has fields this does not
    know how to treat.
    """
    if not ENABLED:
        return None
    found = _COPIERS.get(given)
    if found is None:
        found = _COPIERS[given] = _make_copier(given)
    return found


_CONVERT_LABELS: Any = attrs.fields(Pod).labels.converter or (lambda labels: labels)
_LABELS: dict[tuple[tuple[Any, Any], ...], Any] = {}


def pod_labels(labels: Mapping[str, str]) -> Mapping[str, str]:
    """What ``Pod.labels`` holds for ``labels``: one read-only mapping per distinct set.

    The pods of a controller carry the same few label sets; sharing them
    saves converting each, and leaves the collector fewer objects to scan.
    """
    key = tuple(labels.items())
    found = _LABELS.get(key)
    if found is None:
        found = _CONVERT_LABELS(labels)
        if type(found) is not MappingProxyType:  # not known to be read-only: no sharing
            return found  # type: ignore[no-any-return]
        if len(_LABELS) > 50_000:
            _LABELS.clear()
        _LABELS[key] = found
    return found  # type: ignore[no-any-return]


_CHECKED: dict[tuple[tuple[Any, Any], ...], Any] = {}


def checked_labels(labels: dict[Any, Any]) -> Mapping[str, str] | None:
    """:func:`pod_labels` of ``labels`` if every key and value is a string, else ``None``.

    A dump repeats a few label sets thousands of times: a set already seen
    (and checked) is found by one lookup, without checking each label again.
    """
    key = tuple(labels.items())
    found = _CHECKED.get(key)
    if found is None:
        for k, v in key:
            if type(k) is not str or type(v) is not str:
                return None
        found = pod_labels(labels)
        if len(_CHECKED) > 50_000:
            _CHECKED.clear()
        _CHECKED[key] = found
    return found  # type: ignore[no-any-return]


def _make_copier(given: frozenset[str]) -> _Copier:
    env: dict[str, Any] = {"_new": _new, "Pod": Pod}
    lines = [f"def copy(t, {', '.join(PER_POD)}):", "    pod = _new(Pod)"]
    fields: tuple[attrs.Attribute[Any], ...] = tuple(_ATTRS)
    for i, a in enumerate(fields):
        set_slot = f"_set_{a.name}"
        env[set_slot] = getattr(Pod, a.name).__set__
        if a.name in PER_POD:
            lines.append(f"    {set_slot}(pod, {a.name})")
            continue
        if a.name == "key":
            value = "f'{namespace}/{name}'"
        elif not a.init and a.default is not attrs.NOTHING:
            env[f"_default_{a.name}"] = a.default
            value = f"_default_{a.name}"
        elif a.init and a.name not in given and isinstance(a.default, attrs.Factory):  # type: ignore[arg-type]
            # A fresh default each time: the template's may be mutable (usage).
            env[f"_factory_{a.name}"] = a.default.factory  # type: ignore[union-attr]
            value = f"_factory_{a.name}()"
        else:
            lines.append(f"    {set_slot}(pod, t[{i}])")
            continue
        if a.converter is not None:
            env[f"_convert_{a.name}"] = a.converter
            value = f"_convert_{a.name}({value})"
        lines.append(f"    {set_slot}(pod, {value})")
    lines.append("    return pod")
    exec("\n".join(lines), env)  # noqa: S102 - generated from attrs.fields(Pod) above
    return env["copy"]


def _self_check() -> bool:
    """Whether a copied pod equals a built one in every field (run once at import)."""
    from ..model.objects import Container
    from ..model.resources import Resources

    c = (Container("c", Resources(100, 1 << 20), Resources(200, 1 << 21)),)
    base: dict[str, Any] = {"namespace": "ns", "name": "a", "containers": c,
                            "labels": {"b": "1", "a": "2"}, "priority": 7, "node_name": "n"}
    other: dict[str, Any] = dict(base, name="b", labels={"x": "y"}, node_name="m")
    build_pod("self-check", base)
    copied = build_pod("self-check", other)
    built = Pod(**other)
    _SHAPES.clear()
    own = dict(other, started=-5, owner_kind="ReplicaSet", owner_name="o", ready=False,
               span=attrs.fields(Pod).span.default)
    made = _make_copier(frozenset(base))(template_values(Pod(**base)), *(
        pod_labels(own[n]) if n == "labels" else own[n] for n in PER_POD))
    return all(getattr(copied, a.name) == getattr(built, a.name) for a in _ATTRS) and all(
        getattr(made, a.name) == getattr(Pod(**own), a.name) for a in _ATTRS)


if ENABLED:
    ENABLED = _self_check()
