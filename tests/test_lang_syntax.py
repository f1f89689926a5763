"""The .kr grammar: statements, groups, blocks, strings, comments, syntax errors."""

from __future__ import annotations

import pytest

from kruleset.errors import ScenarioError
from kruleset.lang import expand_range, load, parse_text
from kruleset.lang.grammar import grammar_text, parser
from kruleset.lang.values import RangeError


def refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_text(text, "t.kr")
    return info.value


def test_grammar_loads_and_parser_is_cached() -> None:
    assert "start:" in grammar_text()
    assert parser() is parser()


def test_comments_blank_lines_and_no_final_newline() -> None:
    s = parse_text('# head\n\nscenario "x # not a comment"  # a comment\n\n# tail\nnode n1 cpu=1')
    assert s.title == "x # not a comment"
    assert [o.name for o in s.objects] == ["n1"]


def test_string_escapes() -> None:
    s = parse_text('priorityclass p value=1 description="a \\"b\\" \\\\ c"\n')
    assert s.objects[0].description == 'a "b" \\ c'


def test_groups_continue_over_lines_with_comments() -> None:
    s = parse_text("node n1 cpu=1 labels(a=b,   # first\n   c=d\n)\n")
    assert dict(s.objects[0].labels) == {"a": "b", "c": "d", "kubernetes.io/hostname": "n1"}


def test_bracket_lists_continue_over_lines() -> None:
    s = parse_text("pods p-[1..3]\nexpect evictions = [\n  p-1,\n  p-2\n]\n")
    assert s.expectations[0].args["refs"] == ("default/p-1", "default/p-2")
    assert s.expectations[0].text == "expect evictions = [ p-1, p-2 ]"


@pytest.mark.parametrize(("text", "names"), [
    ("n[1..3]", ["n1", "n2", "n3"]),
    ("n[01..10]", [f"n{i:02d}" for i in range(1, 11)]),
    ("web-[1..2]-x", ["web-1-x", "web-2-x"]),
    ("plain", ["plain"]),
    ("a[7..7]", ["a7"]),
])
def test_expand_range(text: str, names: list[str]) -> None:
    assert expand_range(text) == names


def test_expand_range_refuses_downward_ranges() -> None:
    with pytest.raises(RangeError):
        expand_range("n[3..1]")


@pytest.mark.parametrize(("text", "line", "column", "message"), [
    ("pod a requests(cpu=1\npod b\n", 1, 15, "'(' is never closed"),
    ("pod a {\n  container x }\n", 2, 15, "'}' must stand on its own line"),
    ("pod a { container x\n}\n", 1, 7, "'{' must end the line"),
    ("pod a {\n} x\n", 2, 3, "'}' must stand on its own line"),
    ("}\n", 1, 1, "'}' without a matching '{'"),
    ("pod a )\n", 1, 7, "')' without a matching '('"),
    ("pod 'a'\n", 1, 5, "unexpected character \"'\""),
    ('pod a description="x\n', 1, 19, "unterminated string"),
    ("pod a {\n  container x\n", 1, 7, "'{' is never closed"),
    ('pod a labels(x="\\n")\n', 1, 17, "unknown escape"),
    ("pod a $x\n", 1, 7, "unexpected character '$'"),
    ("{\n}\n", 1, 1, "a block '{' must follow a statement"),
])
def test_syntax_errors_point_at_the_problem(text: str, line: int, column: int,
                                            message: str) -> None:
    err = refused(text)
    assert message in err.message
    assert (err.line, err.column) == (line, column)
    assert err.file == "t.kr"
    assert err.source_line == text.split("\n")[line - 1]
    rendered = err.render()
    assert rendered.startswith(f"t.kr:{line}:{column}: ")
    assert "\n    " + " " * (column - 1) + "^" in rendered


def test_unclosed_string_gives_expected_text() -> None:
    err = refused('scenario "oops\n')
    assert err.expected == 'a closing " on the same line'


def test_base_line_shifts_line_numbers() -> None:
    with pytest.raises(ScenarioError) as info:
        parse_text("node n1 cpu=1\npod a on n2\n", "steps.feature", base_line=10)
    assert info.value.line == 12
    assert info.value.source_line == "pod a on n2"


def test_load_reads_a_file_and_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "s.kr"
    path.write_text('scenario "from file"\n')
    assert load(path).title == "from file"
    assert load(str(path)).file == str(path)
    assert load('scenario "text"\n').title == "text"
    with pytest.raises(ScenarioError, match="file not found"):
        load(str(tmp_path / "missing.kr"))


def test_load_refuses_non_utf8(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.kr"
    path.write_bytes(b"scenario \"\xff\"\n")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load(path)


def test_keywords_are_not_reserved() -> None:
    s = parse_text("node node cpu=1 labels(pod=expect)\npod critical on node critical "
                   "gates(at)\npod expect labels(running=pending)\n"
                   "expect pod critical running on node\n")
    pods = [o for o in s.objects if type(o).__name__ == "Pod"]
    assert [p.name for p in pods] == ["critical", "expect"]
    assert pods[0].gates == ("at",)
    assert pods[0].priority_class == "system-cluster-critical"


@pytest.mark.parametrize("bad", [None, 5, b"node n1"])
def test_load_refuses_other_types(bad: object) -> None:
    with pytest.raises(ScenarioError, match="expected a path or .kr text"):
        load(bad)  # type: ignore[arg-type]


def test_deep_nesting_and_long_lines_are_refused_cleanly() -> None:
    assert "in labels" in refused("pod a labels" + "(" * 3000 + ")" * 3000 + "\n").message
    assert "never closed" in refused("[" * 3000).message


def test_nested_blocks_in_the_timeline() -> None:
    s = parse_text("node n1 cpu=1\nat 5s {\n  create pod x {\n    container c requests(cpu=1)\n"
                   "  }\n  kubelet n1 {\n    eviction-hard memory.available<1Gi\n  }\n}\n")
    assert [type(e.action).__name__ for e in s.events] == ["Create", "KubeletBlock"]
    assert s.events[0].action.obj.containers[0].name == "c"  # type: ignore[union-attr]


def test_internal_errors_are_reported_as_scenario_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    import kruleset.lang as lang

    def boom(*args: object, **kw: object) -> None:
        raise KeyError("x")

    monkeypatch.setattr(lang, "build_scenario", boom)
    with pytest.raises(ScenarioError, match="internal error"):
        parse_text("node n1 cpu=1\n")
