"""The `.kr` text the language server finds in a `.feature` file, and its editor settings
(no server needed)."""

from __future__ import annotations

from pathlib import Path

from kruleset.lsp.regions import regions
from kruleset.lsp.settings import Settings

FEATURE = '''Feature: f
  Background:
    Given node n1 cpu=4

  Scenario: one
    Given the scenario:
      """
      pod a
        on n1
      """
    When at 1s drain node n1
    When the scenario runs
    Then expect pod a running
    Then the expectations hold

  Scenario Outline: many
    Given node <name> cpu=4

    Examples:
      | name |
      | n2   |
'''


def test_a_scenario_is_its_background_then_its_statements_in_order():
    found = regions(FEATURE, feature=True)
    assert [r.name for r in found] == ["one", "many"]
    one = found[0]
    assert one.lines == ["node n1 cpu=4", "pod a", "  on n1", "at 1s drain node n1",
                         "expect pod a running"]
    lines = FEATURE.split("\n")
    for text, (line, column) in zip(one.lines, one.origins, strict=True):
        assert lines[line][column:].startswith(text)
    assert found[1].outline and not one.outline and not one.refused


def test_a_kr_file_is_one_region_line_for_line():
    (region,) = regions("node n1\n  pod a\n", feature=False)
    assert region.place(1, 2) == (1, 2)


def test_cluster_settings(tmp_path: Path):
    settings = Settings.read(str(tmp_path), {"cluster": {"w/*.kr": ["d.json"]}})
    assert settings.clusters_for(str(tmp_path / "w" / "a.kr")) == (
        str((tmp_path / "d.json").resolve()),)
    assert settings.clusters_for(str(tmp_path / "b.kr")) == ()
    assert Settings.read(str(tmp_path), {"cluster": ["d.json"]}).clusters_for(
        str(tmp_path / "b.kr")) == (str((tmp_path / "d.json").resolve()),)
    wrong = Settings.read(str(tmp_path), {"cluster": "d.json"})
    assert wrong.clusters == () and "initializationOptions.cluster" in wrong.problems[0]
