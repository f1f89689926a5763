"""Applying a variant to a loaded scenario: new objects only where a value changes.

A :class:`~kruleset.model.scenario.Scenario` is frozen; a variant is the same
scenario with a few objects replaced (``attrs.evolve``), sharing every other
object, the timeline and the expectations with the scenario it came from.
Nothing is parsed again.

Paths of ``--set`` (``KIND:NAME:FIELD``; a REF is ``namespace/name``, or
``name`` in ``default``):

==========================================  =============================================
``priorityclass:NAME:value``                the class's value (an integer)
``pdb:REF:min-available``                   ``N`` or ``N%``; replaces max-unavailable
``pdb:REF:max-unavailable``                 ``N`` or ``N%``; replaces min-available
``quota:NAMESPACE:min.RESOURCE``            a quantity (``quota:team-a:max.cpu=4``)
``quota:NAMESPACE:max.RESOURCE``            (the ElasticQuota of that namespace)
``deployment:REF:replicas``                 the replicas declared (later ``scale``
                                            statements still apply)
``kubelet:NODE:eviction-hard.SIGNAL``       a threshold, ``100Mi`` or ``10%``, on that
``kubelet:*:eviction-hard.SIGNAL``          node's kubelet or every node's (``*``)
``kubelet:NODE|*:eviction-soft.SIGNAL``     a soft threshold already declared for SIGNAL
                                            (its grace period is kept)
==========================================  =============================================

A value changes the object wherever the scenario declares it: at time 0 and
in ``create`` statements.  A kubelet threshold replaces that signal's
threshold in the configuration in force (the defaults when none was written;
for a NODE without its own block, a copy of the ``*`` one).  ``kubelet:*``
does not reach nodes with a block of their own (each block is a complete
configuration, as in a scenario).

``--profile`` files: a KubeSchedulerConfiguration replaces the scenario's
``config scheduler``, a KubeletConfiguration its ``kubelet *``
configuration, and a kruleset profile (``rulesets:``) is applied on top of
the scenario's own profile.

``--seeds N``: seed ``k`` reorders, with Python's ``random.Random(k)``, the
pods the scenario creates pending at one instant (declared without ``on``, or
by ``create pod`` statements of one instant): the order the API server would
see them in, which a scenario leaves open.  Pods a deployment creates keep
their name order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml

from ..errors import did_you_mean
from ..model.config import KubeletConfig
from ..model.limits import replicas_problem, whole_number
from ..model.objects import (
    Deployment,
    ElasticQuota,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
)
from ..model.quantity import QuantityError, parse_quantity
from ..model.resources import Resources
from ..model.scenario import Create, Event, KubeletBlock, Scenario
from ..readfile import read_regular_text
from ..rules.profile import Profile
from ..yamlload import load as load_yaml
from .axes import SetPath, SweepError, Variant

__all__ = ["Choice", "apply_sets", "load_choice", "prepare", "shuffle_arrivals"]


@attrs.frozen(slots=True)
class Choice:
    """A ``--profile`` file as read: what it replaces in a variant."""

    name: str
    kind: str       # "profile" | "scheduler" | "kubelet"
    value: Any      # Profile | SchedulerConfig | KubeletConfig


def load_choice(path: str) -> Choice:
    """Read a ``--profile`` file, telling the three kinds apart by ``kind:``."""
    from ..errors import ScenarioError

    p = Path(path)
    try:
        text = read_regular_text(p)
    except (OSError, UnicodeDecodeError) as e:
        raise SweepError(f"--profile {path}: cannot read it ({getattr(e, 'strerror', None) or e})",
                         suggestion="give a YAML file") from None
    try:
        doc = load_yaml(text)
    except yaml.YAMLError:
        doc = None  # load_profile reports the YAML error with its position
    kind = doc.get("kind") if isinstance(doc, dict) else None
    try:
        if kind == "KubeSchedulerConfiguration":
            from ..manifests.scheduler_config import load_scheduler_config
            from ..rules.scheduler.config import profile_for

            cfg = load_scheduler_config(p)
            profile_for(cfg, quotas_present=False)  # refuse bad plugin args now
            return Choice(path, "scheduler", cfg)
        if kind == "KubeletConfiguration":
            from ..manifests.kubelet_config import load_kubelet_config

            return Choice(path, "kubelet", load_kubelet_config(p))
        from ..rules.profile import load_profile

        return Choice(path, "profile", load_profile(p))
    except ScenarioError:
        raise
    except ValueError as e:  # a ManifestError
        raise SweepError(f"--profile {path}: {e}") from None


def prepare(scenario: Scenario, variant: Variant, choices: Mapping[str, Choice]
            ) -> tuple[Scenario, Profile]:
    """The scenario and scheduler profile ``variant`` runs (before any failure)."""
    from ..sim.setup import build_profile

    sc = apply_sets(scenario, variant.sets)
    extra: Profile | None = None
    if variant.profile is not None:
        choice = choices[variant.profile]
        if choice.kind == "scheduler":
            sc = attrs.evolve(sc, scheduler=choice.value)
        elif choice.kind == "kubelet":
            blocks = [b for b in sc.kubelets if b.node != "*"]
            sc = attrs.evolve(sc, kubelets=(KubeletBlock("*", choice.value), *blocks))
        else:
            extra = choice.value
    if variant.seed is not None:
        sc = shuffle_arrivals(sc, variant.seed)
    profile = build_profile(sc)
    if extra is not None:
        profile = profile.merged(extra)
    return sc, profile


# --- --set ----------------------------------------------------------------------------

def apply_sets(scenario: Scenario, sets: tuple[tuple[SetPath, str], ...]) -> Scenario:
    """``scenario`` with each path set to its value; raises :class:`SweepError`."""
    for path, value in sets:
        scenario = _APPLY[path.kind](scenario, path, value)
    return scenario


def _ref(name: str) -> str:
    return name if "/" in name else f"default/{name}"


def _replace_objects(scenario: Scenario, path: SetPath, cls: type,
                     key: Callable[[Any], str], change: Callable[[Any], Any]) -> Scenario:
    """Replace the objects of type ``cls`` whose ``key`` is the path's name, wherever declared."""
    want = _ref(path.name) if cls in (PodDisruptionBudget, Deployment) else path.name
    found: list[str] = []
    hit = False

    def swap(obj: Any) -> Any:
        nonlocal hit
        if not isinstance(obj, cls):
            return obj
        found.append(key(obj))
        if key(obj) != want:
            return obj
        hit = True
        return change(obj)

    objects = tuple(swap(o) for o in scenario.objects)
    events = tuple(
        attrs.evolve(e, action=attrs.evolve(e.action, obj=swap(e.action.obj)))
        if isinstance(e.action, Create) and isinstance(e.action.obj, cls) else e
        for e in scenario.events)
    if not hit:
        kind = path.kind
        known = sorted(set(found))
        raise SweepError(
            f"--set {path.text}: the scenario has no {kind} '{want}'",
            expected=(f"one of: {', '.join(known[:10])}" + (" …" if len(known) > 10 else ""))
            if known else f"a {kind} the scenario declares",
            suggestion=did_you_mean(want, known))
    return attrs.evolve(scenario, objects=objects, events=events)


def _integer(path: SetPath, value: str, minimum: int | None = None) -> int:
    n = whole_number(value)
    if n is None:
        raise SweepError(f"--set {path.text}={value}: not an integer",
                         expected="a whole number in ASCII digits, e.g. 1000")
    if minimum is not None and n < minimum:
        raise SweepError(f"--set {path.text}={value}: must be {minimum} or more")
    return n


def _set_priority_class(sc: Scenario, path: SetPath, value: str) -> Scenario:
    from ..rules.priority import validate_priority_class

    n = _integer(path, value)

    def change(o: PriorityClass) -> PriorityClass:
        new = attrs.evolve(o, value=n)
        problem = validate_priority_class(new)  # as .kr and YAML classes are checked
        if problem is not None:
            raise SweepError(f"--set {path.text}={value}: {problem}")
        return new

    return _replace_objects(sc, path, PriorityClass, lambda o: o.name, change)


def _budget(path: SetPath, value: str) -> int | str:
    if value.endswith("%"):
        num = whole_number(value[:-1])
        if num is None or not 0 <= num <= 100 or value[0] in "+-":
            raise SweepError(f"--set {path.text}={value}: a percentage is a whole number "
                             "from 0% to 100%", expected="N or N%, e.g. 50%")
        return f"{num}%"
    return _integer(path, value, minimum=0)


def _set_pdb(sc: Scenario, path: SetPath, value: str) -> Scenario:
    v = _budget(path, value)
    fields = ({"min_available": v, "max_unavailable": None} if path.field == "min-available"
              else {"min_available": None, "max_unavailable": v})
    return _replace_objects(sc, path, PodDisruptionBudget, lambda o: o.key,
                            lambda o: attrs.evolve(o, **fields))


def _set_quota(sc: Scenario, path: SetPath, value: str) -> Scenario:
    try:
        q = parse_quantity(value, path.sub)
    except QuantityError as e:
        raise SweepError(f"--set {path.text}={value}: {e}",
                         expected="a quantity such as 4, 500m or 8Gi") from None

    def change(o: ElasticQuota) -> ElasticQuota:
        old: Resources | None = getattr(o, path.field)
        values = dict(old.items()) if old is not None else {}
        values[path.sub] = q
        changed: dict[str, Any] = {path.field: Resources.of(values)}
        return attrs.evolve(o, **changed)

    return _replace_objects(sc, path, ElasticQuota, lambda o: o.namespace, change)


def _set_replicas(sc: Scenario, path: SetPath, value: str) -> Scenario:
    n = _integer(path, value)
    problem = replicas_problem(n)  # the bound .kr and YAML workloads have
    if problem is not None:
        raise SweepError(f"--set {path.text}={value}: replicas {problem}")
    return _replace_objects(sc, path, Deployment, lambda o: o.key,
                            lambda o: attrs.evolve(o, replicas=n))


def _set_kubelet(sc: Scenario, path: SetPath, value: str) -> Scenario:
    from ..model.config import SIGNALS
    from ..model.kubelet_settings import KubeletConfigError, threshold_value

    if path.sub not in SIGNALS:
        raise SweepError(f"--set {path.text}: unknown eviction signal '{path.sub}'",
                         expected=", ".join(SIGNALS), suggestion=did_you_mean(path.sub, SIGNALS))
    setting = "hard" if path.field == "eviction-hard" else "soft"
    try:
        new = threshold_value(path.sub, value, setting)
    except KubeletConfigError as e:
        raise SweepError(f"--set {path.text}={value}: {e.message}",
                         suggestion=e.suggestion) from None

    def change(cfg: KubeletConfig) -> KubeletConfig:
        if setting == "hard":
            kept = tuple(t for t in cfg.effective_hard if t.signal != path.sub)
            return attrs.evolve(cfg, hard=kept + ((new,) if new is not None else ()))
        old = [t for t in cfg.soft if t.signal == path.sub]
        if not old:
            raise SweepError(f"--set {path.text}: no soft threshold for {path.sub} is declared "
                             f"on kubelet {path.name}, so there is no grace period to keep",
                             suggestion="declare it with its grace period in the scenario")
        kept = tuple(t for t in cfg.soft if t.signal != path.sub)
        if new is None:
            return attrs.evolve(cfg, soft=kept)
        return attrs.evolve(cfg, soft=kept + (attrs.evolve(
            new, grace_period=old[0].grace_period,
            min_reclaim_quantity=old[0].min_reclaim_quantity,
            min_reclaim_percentage=old[0].min_reclaim_percentage),))

    _known_node(sc, path)
    blocks = list(sc.kubelets)
    mine = [i for i, b in enumerate(blocks) if b.node == path.name]
    if not mine:
        star = next((b.config for b in blocks if b.node == "*"), KubeletConfig())
        blocks.append(KubeletBlock(path.name, star))
        mine = [len(blocks) - 1]
    for i in mine:
        blocks[i] = attrs.evolve(blocks[i], config=change(blocks[i].config))
    events = tuple(
        attrs.evolve(e, action=attrs.evolve(e.action, config=change(e.action.config)))
        if isinstance(e.action, KubeletBlock) and e.action.node == path.name else e
        for e in sc.events)
    return attrs.evolve(sc, kubelets=tuple(blocks), events=events)


def _known_node(sc: Scenario, path: SetPath) -> None:
    """Refuse ``kubelet:NODE`` for a node the scenario never has, as a ``kubelet NODE`` block."""
    if path.name == "*":
        return
    nodes = {o.name for o in sc.objects if isinstance(o, Node)}
    nodes.update(e.action.obj.name for e in sc.events
                 if isinstance(e.action, Create) and isinstance(e.action.obj, Node))
    if path.name not in nodes:
        known = sorted(nodes)
        raise SweepError(f"--set {path.text}: the scenario has no node '{path.name}'",
                         expected=(f"* or one of: {', '.join(known[:10])}"
                                   + (" …" if len(known) > 10 else "")),
                         suggestion=did_you_mean(path.name, known))


_APPLY: dict[str, Callable[[Scenario, SetPath, str], Scenario]] = {
    "priorityclass": _set_priority_class,
    "pdb": _set_pdb,
    "quota": _set_quota,
    "deployment": _set_replicas,
    "kubelet": _set_kubelet,
}


# --- --seeds ----------------------------------------------------------------------------

def _pending_pod(obj: Any) -> bool:
    return isinstance(obj, Pod) and not obj.node_name


def shuffle_arrivals(scenario: Scenario, seed: int) -> Scenario:
    """Reorder the pending pods created at each instant, as seed ``seed`` draws it."""
    rng = random.Random(seed)
    objects = list(scenario.objects)
    slots = [i for i, o in enumerate(objects) if _pending_pod(o)]
    drawn = [objects[i] for i in slots]
    rng.shuffle(drawn)
    for i, o in zip(slots, drawn, strict=True):
        objects[i] = o
    events = sorted(scenario.events, key=lambda e: (e.time, e.seq))
    by_time: dict[int, list[int]] = {}
    for i, e in enumerate(events):
        if isinstance(e.action, Create) and _pending_pod(e.action.obj):
            by_time.setdefault(e.time, []).append(i)
    for slots in by_time.values():
        actions = [events[i].action for i in slots]
        rng.shuffle(actions)
        for i, a in zip(slots, actions, strict=True):
            events[i] = Event(events[i].time, events[i].seq, a)
    return attrs.evolve(scenario, objects=tuple(objects), events=tuple(events))
