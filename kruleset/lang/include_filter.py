"""``include "FILE" namespaces(…) selector(…)``: part of a dump, and the load summary.

A dump of a whole cluster often holds far more than a what-if is about.  The
filters keep:

* ``namespaces(a, b)``: namespaced objects (pods, workloads, PDBs, quotas,
  claims, …) of those namespaces only; Namespace objects other than those
  are left out too.  Cluster-scoped objects (nodes, classes) are always kept.
* ``selector(app=web, tier in (a, b))``: pods whose labels match, and
  workloads (Deployments, StatefulSets, DaemonSets, Jobs) whose pod template's
  labels match, so the pods they create match too.  Other kinds are kept.

Nodes are never filtered out: a pod left out frees its node's resources, a
node left out would leave its pods nowhere.  What was read and what the
filters left out is said in one line, the *load summary*, shown as a warning
on stderr with the file's other notices.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from ..model.objects import Namespace, Node, Pod
from ..model.selectors import LabelSelector
from .cursor import Cursor, attr_from
from .errors import Source
from .syntax import Group, Word
from .values import label_selector, split_commas

__all__ = ["IncludeFilter", "filter_loaded", "load_summary", "parse_filter"]


@attrs.frozen(slots=True)
class IncludeFilter:
    """The namespaces and the label selector an ``include`` keeps (None: no filter)."""

    namespaces: frozenset[str] | None = None
    selector: LabelSelector | None = None
    selector_text: str = ""

    @property
    def empty(self) -> bool:
        """No filter given."""
        return self.namespaces is None and self.selector is None


def parse_filter(src: Source, cur: Cursor) -> IncludeFilter:
    """The ``namespaces(…)`` and ``selector(…)`` after the file name."""
    namespaces: frozenset[str] | None = None
    selector: LabelSelector | None = None
    text = ""
    while not cur.at_end():
        attr = attr_from(cur)
        if attr.name not in ("namespaces", "selector") or attr.group is None:
            raise src.error(f"unknown include option '{attr.name}'", attr.key,
                            expected="namespaces(NS, …) or selector(KEY=VALUE, …)")
        if (namespaces if attr.name == "namespaces" else selector) is not None:
            raise src.error(f"'{attr.name}(…)' is given twice", attr.key)
        if attr.name == "namespaces":
            namespaces = frozenset(_names(src, attr.group))
        else:
            selector = label_selector(src, attr.group)
            text = str(selector)
    return IncludeFilter(namespaces, selector, text)


def _names(src: Source, group: Group) -> list[str]:
    out = []
    for entry in split_commas(src, group, allow_empty=False):
        w = entry[0]
        if len(entry) != 1 or not isinstance(w, Word) or w.kind not in ("WORD", "STRING"):
            raise src.error("expected a namespace name", entry[0], expected="namespaces(a, b)")
        out.append(w.text if w.text is not None else w.value)
    return out


def _kind(obj: object) -> str:
    kind = getattr(obj, "kind", None)
    return kind if isinstance(kind, str) else type(obj).__name__


def _kept_by(f: IncludeFilter, obj: object) -> str | None:
    """Why ``obj`` is left out (``namespace`` or ``selector``), None when kept."""
    if isinstance(obj, Node):
        return None
    if f.namespaces is not None:
        if isinstance(obj, Namespace):
            return None if obj.name in f.namespaces else "namespace"
        ns = getattr(obj, "namespace", None)
        if isinstance(ns, str) and ns not in f.namespaces:
            return "namespace"
    if f.selector is not None:
        labels = None
        if isinstance(obj, Pod):
            labels = obj.labels
        else:
            template = getattr(obj, "template", None)
            if isinstance(template, Pod):
                labels = template.labels
        if labels is not None and not f.selector.matches(labels):
            return "selector"
    return None


def filter_loaded(loaded: Any, f: IncludeFilter) -> tuple[Any, Counter[tuple[str, str]]]:
    """``loaded`` (a LoadedManifests) with what the filter leaves out removed.

    The second value counts what was left out, by (kind, why).
    """
    kept: list[Any] = []
    dropped: Counter[tuple[str, str]] = Counter()
    gone_pods: set[str] = set()
    for obj in loaded.objects:
        why = _kept_by(f, obj)
        if why is None:
            kept.append(obj)
            continue
        dropped[_kind(obj), why] += 1
        if isinstance(obj, Pod):
            gone_pods.add(obj.key)
    if not dropped:
        return loaded, dropped
    usage = loaded.usage
    if usage is not None:  # the Summary of a pod left out is not a warning
        for key in gone_pods:
            usage.pods.pop(key, None)
    return attrs.evolve(
        loaded, objects=tuple(kept),
        pod_phases={k: v for k, v in loaded.pod_phases.items() if k not in gone_pods},
        nominated={k: v for k, v in loaded.nominated.items() if k not in gone_pods},
        terminating={k: v for k, v in loaded.terminating.items() if k not in gone_pods},
    ), dropped


def _plural(n: int, kind: str) -> str:
    word = kind.lower()
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}{'es' if word.endswith('s') else 's'}"


def load_summary(label: str, loaded: Any, dropped: Counter[tuple[str, str]],
                 f: IncludeFilter) -> str:
    """One line: what ``label`` gave the scenario, and what the filters left out."""
    counts: Counter[str] = Counter(_kind(o) for o in loaded.objects)
    order = ("Node", "Pod", "Deployment", "Workload", "PodDisruptionBudget", "ElasticQuota")
    kinds = sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k))
    parts = [_plural(counts[k], k) for k in kinds]
    line = f"{label}: loaded {', '.join(parts) if parts else 'nothing'}"
    if not f.empty:
        given = []
        if f.namespaces is not None:
            given.append(f"namespaces({', '.join(sorted(f.namespaces))})")
        if f.selector is not None:
            given.append(f"selector({f.selector_text})")
        left = [f"{_plural(n, kind)} ({why})" for (kind, why), n in sorted(dropped.items())]
        line += (f"; {' '.join(given)} left out " + (", ".join(left) if left else "nothing"))
    return line
