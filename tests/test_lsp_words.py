"""Completion's words are asked of the parser: every place still gets its list."""

from __future__ import annotations

import pytest

from kruleset.lang.kubelet import FLAGS
from kruleset.lang.loader import TOP_LEVEL
from kruleset.lang.pods import BLOCK_ITEMS
from kruleset.lang.timeline import TIMELINE_STATEMENTS
from kruleset.lsp.words import _PROBES, accepted, rule_names


@pytest.mark.parametrize("place", sorted(_PROBES))
def test_every_place_lists_words(place):
    assert accepted(place)
    assert all(" " not in w and w == w.strip("-") for w in accepted(place))


def test_the_lists_are_the_languages():
    assert set(accepted("statement")) == set(TOP_LEVEL)
    assert set(accepted("timeline")) == set(TIMELINE_STATEMENTS)
    assert set(accepted("kubelet")) == set(FLAGS)
    assert set(accepted("block")) == set(BLOCK_ITEMS)


def test_rule_names_carry_doc_and_source():
    rules = rule_names()
    assert rules["scheduler.filter.TaintToleration"][0]
    assert rules["scheduler.filter.TaintToleration"][1]
