"""The one YAML loader of kruleset: safe, a key given twice refused, aliases bounded.

Every YAML file kruleset reads (manifests, ``config``, ``apply``/``delete``,
profiles, ``--profile`` of ``run`` and ``sweep``) is loaded here.  PyYAML
builds an alias as a shared reference, which costs nothing, but whatever
walks the document afterwards walks each reference again: a few hundred
bytes of nested aliases ("billion laughs") are billions of values to check.
A document whose aliases add more than :data:`MAX_ALIAS_VALUES` values to
what is written is refused before it is built, naming the limit, as
sigs.k8s.io/yaml refuses "excessive aliasing".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

__all__ = ["MAX_ALIAS_VALUES", "AliasBomb", "load", "load_all"]

#: The most values aliases may add to one document (its values once each, expanded).
MAX_ALIAS_VALUES = 1_000_000

_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"


class AliasBomb(yaml.YAMLError):
    """A document whose aliases expand beyond :data:`MAX_ALIAS_VALUES`."""

    def __init__(self, mark: Any) -> None:
        where = f" (the document at line {mark.line + 1})" if mark is not None else ""
        super().__init__(
            f"YAML aliases expand this document by more than {MAX_ALIAS_VALUES:,} values, "
            f"the limit kruleset reads{where}; write the repeated parts out instead")


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(root: Any) -> None:
    """Raise :class:`AliasBomb` when ``root`` expanded exceeds its distinct values by the limit."""
    # Sizes are exact: an integer of a few hundred bits at worst, cheaper than a cap.
    sizes: dict[int, int] = {}   # expanded size of a node, once computed
    open_: set[int] = set()      # nodes being computed: met again, an alias to an ancestor
    distinct = 0
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            continue
        if key in sizes:
            continue
        if key in open_:  # a recursive alias: an endless document
            raise AliasBomb(getattr(root, "start_mark", None))
        distinct += 1
        kids = _children(node)
        if not kids:
            sizes[key] = 1
            continue
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in kids if id(c) not in sizes)
    if sizes[id(root)] - distinct > MAX_ALIAS_VALUES:
        raise AliasBomb(getattr(root, "start_mark", None))


class _Loader(_BASE):  # type: ignore[misc]
    """The safe loader, refusing a key given twice in one mapping (YAML keeps the last)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        keys = [k.value for k, _ in node.value
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE]
        if len(keys) != len(set(keys)):
            seen: set[str] = set()
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != _MERGE:
                    if k.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {k.value!r} is given twice", k.start_mark)
                    seen.add(k.value)
        return super().construct_mapping(node, deep)


class _AliasLoader(_Loader):
    """:class:`_Loader` for a text that may hold aliases: each document's expansion checked."""

    def construct_document(self, node: Any) -> Any:
        _check_expansion(node)
        return super().construct_document(node)


def _loader(text: str) -> Any:
    # An alias needs an anchor (&) and a reference (*): without both, nothing to walk.
    return _AliasLoader if "&" in text and "*" in text else _Loader


def load_all(text: str) -> Iterator[Any]:
    """Every document of ``text``; raises ``yaml.YAMLError`` (:class:`AliasBomb` included)."""
    return yaml.load_all(text, Loader=_loader(text))  # noqa: S506 - a safe loader


def load(text: str) -> Any:
    """The single document of ``text`` (None when empty), as ``yaml.safe_load``."""
    return yaml.load(text, Loader=_loader(text))  # noqa: S506 - a safe loader
