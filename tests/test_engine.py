"""The rules engine: rule sets of each kind, profiles, traces."""

from collections.abc import Mapping
from typing import Any

import pytest

from kruleset.errors import ScenarioError
from kruleset.rules import Failure, Profile, Rule, RuleSet, Stop, Trace, load_profile
from kruleset.rules.engine import ActiveRuleSet
from kruleset.rules.profile import Override
from kruleset.rules.registry import define_ruleset, get_ruleset, register, rulesets


class Ctx:
    def __init__(self, trace: Trace | None = None) -> None:
        self.trace = trace


def _pred(name: str, fails_on: int) -> Rule:
    def fn(ctx: Any, args: Mapping[str, Any], x: int) -> Failure | None:
        return Failure(f"{name} refuses {x}") if x == fails_on else None
    return Rule(name, f"refuses {fails_on}", "test", fn)


def test_predicate_first_failure_names_the_rule() -> None:
    rs = RuleSet("t.pred", "predicate", "test", [_pred("t.a", 1), _pred("t.b", 2)])
    act = rs.defaults()
    assert act.first_failure(Ctx(), 3) is None
    f = act.first_failure(Ctx(), 2)
    assert f is not None and f.rule == "t.b" and f.reason == "t.b refuses 2"
    assert [f.rule for f in act.all_failures(Ctx(), 1)] == ["t.a"]


def test_ordering_is_lexicographic_and_explains_the_decider() -> None:
    def by_prio(ctx: Any, args: Mapping[str, Any], x: tuple[int, int]) -> int:
        return x[0]

    def by_time(ctx: Any, args: Mapping[str, Any], x: tuple[int, int]) -> int:
        return x[1]

    rs = RuleSet("t.order", "ordering", "test", [
        Rule("t.prio", "lower first", "test", by_prio, describe=lambda k: f"priority {k}"),
        Rule("t.time", "earlier first", "test", by_time),
    ])
    act = rs.defaults()
    items = [(20, 1), (10, 5), (10, 2)]
    assert act.sort(Ctx(), items) == [(10, 2), (10, 5), (20, 1)]
    assert act.decider(Ctx(), (10, 5), (20, 1)) == ("t.prio", "priority 10 < priority 20")
    assert act.decider(Ctx(), (10, 5), (10, 2)) == ("t.time", "5 > 2")
    assert act.decider(Ctx(), (1, 1), (1, 1)) is None


def test_score_weights_and_normalize() -> None:
    def raw(ctx: Any, args: Mapping[str, Any], pod: str, node: int) -> int:
        return node

    def norm(ctx: Any, args: Mapping[str, Any], pod: str, nodes: Any, scores: list[int]
             ) -> list[int]:
        top = max(scores)
        return [s * 100 // top for s in scores]

    rs = RuleSet("t.score", "score", "test", [
        Rule("t.s1", "raw", "test", raw, weight=2),
        Rule("t.s2", "normalised", "test", raw, normalize=norm),
    ])
    totals, per = rs.defaults().scores(Ctx(), "p", [1, 2, 4])
    assert per["t.s2"] == [25, 50, 100]
    assert totals == [2 + 25, 4 + 50, 8 + 100]


def test_pipeline_stops_and_traces() -> None:
    def double(ctx: Any, args: Mapping[str, Any], x: int) -> int:
        return x * 2

    def stop_big(ctx: Any, args: Mapping[str, Any], x: int) -> Stop | None:
        return Stop(x, "too big") if x > 5 else None

    rs = RuleSet("t.pipe", "pipeline", "test", [
        Rule("t.double", "", "test", double), Rule("t.stop", "", "test", stop_big),
        Rule("t.double2", "", "test", double)])
    trace = Trace()
    assert rs.defaults().run(Ctx(trace), 1) == 4
    out = rs.defaults().run(Ctx(trace), 3)
    assert isinstance(out, Stop) and out.result == 6 and out.why == "too big"
    assert [e.result for e in trace.entries][-2:] == ["continue", "stop"]


def test_tracing_off_records_nothing() -> None:
    rs = RuleSet("t.pred2", "predicate", "test", [_pred("t.x", 1)])
    ctx = Ctx(None)
    assert rs.defaults().first_failure(ctx, 1) is not None  # no trace, no error


def test_profile_enable_disable_order_args() -> None:
    def arg_rule(ctx: Any, args: Mapping[str, Any], x: int) -> Failure | None:
        return Failure("limit") if x > args["limit"] else None

    rs = define_ruleset("t.profiled", "predicate", "test")
    if not rs.rules:
        rs.add(Rule("t.p.one", "", "test", arg_rule, {"limit": 10}))
        rs.add(Rule("t.p.two", "", "test", arg_rule, {"limit": 5}))
        rs.add(Rule("t.p.off", "", "test", arg_rule, {"limit": 0}, enabled=False))
    assert Profile.default().active("t.profiled").names() == ("t.p.one", "t.p.two")
    p = Profile({"t.profiled": Override(disable=("t.p.one",), enable=("t.p.off",),
                                        order=("t.p.off",), args={"t.p.two": {"limit": 7}})})
    act: ActiveRuleSet = p.active("t.profiled")
    assert act.names() == ("t.p.off", "t.p.two")
    assert act.get("t.p.two").args["limit"] == 7  # type: ignore[union-attr]


def test_profile_yaml_refuses_unknown_names(tmp_path: Any) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("rulesets:\n  scheduler.filtr:\n    disable: [x]\n")
    with pytest.raises(ScenarioError, match="did you mean 'scheduler.filter'"):
        load_profile(f)
    f.write_text("rulesets:\n  scheduler.filter:\n    disable: [scheduler.filter.NodeNme]\n")
    with pytest.raises(ScenarioError, match="NodeName"):
        load_profile(f)
    f.write_text("rulesets:\n  scheduler.filter:\n    disable: [scheduler.filter.NodeName]\n"
                 "settings:\n  percentageOfNodesToScore: 50\n")
    p = load_profile(f)
    assert "scheduler.filter.NodeName" not in p.active("scheduler.filter").names()
    assert p.setting("percentageOfNodesToScore") == 50


def test_user_rules_register_and_are_listed() -> None:
    def no_big(ctx: Any, args: Mapping[str, Any], pod: Any, node: Any) -> Failure | None:
        return None

    rule = Rule("example.filter.Nothing", "refuses nothing", "a test", no_big, enabled=False)
    if "example.filter.Nothing" not in [r.name for r in get_ruleset("scheduler.filter").rules]:
        register(rule, "scheduler.filter")
    names = [r.name for rs in rulesets() for r in rs.rules]
    assert "example.filter.Nothing" in names
    assert "example.filter.Nothing" not in Profile.default().active("scheduler.filter").names()


def test_deferred_groups_read_as_one_group_each() -> None:
    """``defer_groups`` records what one ``defer`` per group records, in order; a budgeted
    walk is asked about each group apart."""
    def part(i: int) -> list[tuple[str, str, str, str]]:
        return [("r", f"s{i}", "res", f"line {j}") for j in range(i + 1)]

    grouped, single = Trace(), Trace()
    for t in (grouped, single):
        t.add("a", "x", "pass")
        t.now = 5
    grouped.defer_groups((1, 2, 3), part)
    for i in range(3):
        single.defer(i + 1, lambda i=i: part(i))
    for t in (grouped, single):
        t.add("b", "y", "fail", "why")
    assert len(grouped) == len(single) == 8
    asked: list[int] = []

    def budget(count: int) -> bool:
        asked.append(count)
        return count != 2

    walked = list(grouped.walk(budget))
    assert asked == [1, 2, 3]
    assert walked == list(single.walk(lambda count: count != 2))
    assert [w[1] for w in walked] == ["x", "s0", "s2", "s2", "s2", "y"]
    assert [w[4] for w in walked] == [0, 5, 5, 5, 5, 5]
    assert grouped.entries == single.entries
    assert [str(e) for e in grouped.entries][1:4] == [
        "r [s0] res: line 0", "r [s1] res: line 0", "r [s1] res: line 1"]
