"""Which lines `check` sets aside after an error, to find the errors after it."""

from __future__ import annotations

from kruleset.diagnose import statement_lines

SOURCE = """\
node n1 cpu=4 memory=8Gi   # a comment with ( and {
pod b requests(cpu=1,
   memry=1Gi)
kubelet n1 {
  eviction-hard memory.available<100Mi
  eviction-soft memory.available<1Gi
}
pod s labels(x="a ) string")
pod open requests(cpu=1
expect pod b running
"""
TEXT = SOURCE.split("\n")


def test_a_one_line_statement() -> None:
    assert list(statement_lines(TEXT, 1)) == [1]
    assert list(statement_lines(TEXT, 8)) == [8]  # a bracket inside a string does not count


def test_a_statement_carried_over_by_brackets() -> None:
    assert list(statement_lines(TEXT, 2)) == [2, 3]
    assert list(statement_lines(TEXT, 3)) == [2, 3]


def test_a_line_of_a_block_alone() -> None:
    assert list(statement_lines(TEXT, 5)) == [5]
    assert list(statement_lines(TEXT, 4)) == [4, 5, 6, 7]  # the block's head: all of it


def test_an_unclosed_bracket_runs_to_the_end() -> None:
    assert list(statement_lines(TEXT, 9)) == list(range(9, len(TEXT) + 1))
