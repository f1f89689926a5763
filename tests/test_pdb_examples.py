"""The examples in the PDB and Eviction API docstrings run and say what they show."""

from __future__ import annotations

import doctest

import pytest

from kruleset.rules.disruption import eviction_api as api_eviction
from kruleset.rules.disruption import pdb


@pytest.mark.parametrize("module", [pdb, api_eviction], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0
