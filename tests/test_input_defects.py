"""Regression tests for the defects real-world input and fuzzing found (issue: real-world input).

Each test feeds the input that used to hang, crash or pass silently and checks
the clear refusal (file, line, field) or the documented behaviour instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kruleset
from kruleset.errors import ScenarioError
from kruleset.model.quantity import MAX_QUANTITY, QuantityError, parse_quantity
from kruleset.sim.core import Simulation, SimulationDidNotSettle


def refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        kruleset.load(text)
    return e.value


# --- 1. workload sizes are capped --------------------------------------------------------------

def test_kr_replicas_above_the_cap_are_refused_at_their_word() -> None:
    e = refused("deployment web replicas=99999999999 cpu=1\n")
    assert (e.line, e.column) == (1, 25)
    assert "at most 100000" in e.message


def test_kr_scale_above_the_cap_is_refused() -> None:
    e = refused("deployment web replicas=1 cpu=1\nat 1s scale deployment web replicas=100001\n")
    assert e.line == 2 and "at most 100000" in e.message


def test_yaml_replicas_above_the_cap_are_refused_with_the_field(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                 "spec:\n  replicas: 1000000000\n  template:\n    spec:\n"
                 "      containers: [{name: web}]\n")
    e = refused(f'include "{f}"\n')
    assert "spec.replicas" in e.message and "100000" in e.message


# --- 2. evicting a pod already preempted settles ----------------------------------------------

EVICT_PREEMPTED = """
node n1 cpu=2 memory=4Gi
pod low on n1 priority=1 requests(cpu=2) grace-period=5s
at 1s create pod h0 priority=10 requests(cpu=1)
at 1s create pod h1 priority=100 requests(cpu=1)
at 1s create pod h2 priority=1000 requests(cpu=1)
at 3s evict pod low
"""


def test_evicting_a_preempted_pod_with_nominated_pods_settles_as_upstream() -> None:
    # The eviction replaces the victim's DisruptionTarget reason, so h2 may
    # preempt again; it clears h1's nomination, h1 is nominated again, and
    # nothing else is retried: both bind once low is gone (5s grace from 1s).
    res = kruleset.run(EVICT_PREEMPTED)
    scheduled = [(d.time, d.pod) for d in res.decisions if d.kind == "scheduled"]
    assert scheduled == [(6000, "default/h2"), (6000, "default/h1")]
    api = [(d.time, d.reason) for d in res.decisions if d.kind == "eviction-api"]
    assert api == [(3000, "200 OK")]


class _Flapper:
    """A controller that changes something every round (a bug), for the report."""

    name = "flapper"
    phase = 3

    def __init__(self) -> None:
        self.n = 0

    def step(self, sim: Simulation) -> bool:
        self.n += 1
        sim.record("nominated" if self.n % 2 else "pending", "default/a", "n1", "flapper",
                   "Flap", "back and forth")
        return True

    def next_time(self, sim: Simulation) -> None:
        return None


def test_a_simulation_that_does_not_settle_names_the_pods_that_loop_and_why() -> None:
    sim = Simulation(kruleset.load("node n1 cpu=1 memory=1Gi\n"))
    sim.controllers.append(_Flapper())
    with pytest.raises(SimulationDidNotSettle) as e:
        sim.run()
    text = str(e.value)
    assert "did not settle at 0s" in text
    assert "flapper changed the cluster 50 times" in text
    assert "default/a: nominated on n1 by flapper (25 times): back and forth" in text
    assert "default/a: pending on n1 by flapper (25 times)" in text


# --- 3. an unknown container in an expectation ------------------------------------------------

def test_expect_oom_score_adj_of_an_unknown_container_is_refused_at_its_line() -> None:
    e = refused("node n1 cpu=2 memory=4Gi\npod p on n1 cpu=1\n"
                "expect pod p container UNKNOWN oom-score-adj=5\n")
    assert (e.line, e.column) == (3, 24)
    assert "UNKNOWN" in e.message


def test_expect_oom_score_adj_suggests_the_deployment_container() -> None:
    e = refused("node n1 cpu=2 memory=4Gi\ndeployment web replicas=2 cpu=1\n"
                "expect pod web-1 container wbe oom-score-adj=5\n")
    assert e.line == 3 and "did you mean 'web'" in e.message


def test_expect_oom_score_adj_of_a_known_container_still_runs() -> None:
    res = kruleset.run("node n1 cpu=2 memory=4Gi\npod p on n1 cpu=1\n"
                       "expect pod p container p oom-score-adj=999\n")
    assert res.passed


# --- 4. quantities are bounded -----------------------------------------------------------------

def test_a_331_digit_node_cpu_is_refused_with_the_bound() -> None:
    e = refused(f"node n1 cpu={'9' * 331} memory=1Gi\n")
    assert e.line == 1 and str(MAX_QUANTITY) in e.message


def test_quantity_bound_is_int64_in_the_internal_unit() -> None:
    assert parse_quantity(f"{MAX_QUANTITY}m", "cpu") == MAX_QUANTITY
    with pytest.raises(QuantityError, match="too large"):
        parse_quantity(f"{MAX_QUANTITY + 1}")
    with pytest.raises(QuantityError, match="too large"):
        parse_quantity("9223372036854775807", "cpu")  # cores: 1000x too many millicores


def test_yaml_huge_quantity_is_refused_with_the_field(tmp_path: Path) -> None:
    f = tmp_path / "n.yaml"
    f.write_text(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\n"
                 f"status:\n  capacity: {{cpu: '{'9' * 331}', memory: 1Gi}}\n")
    e = refused(f'include "{f}"\n')
    assert "status.capacity.cpu" in e.message and "too long" in e.message


# --- 7. errors that had no file or line -----------------------------------------------------------

def _include(tmp_path: Path, name: str, content: str | bytes) -> ScenarioError:
    f = tmp_path / name
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content)
    return refused(f'include "{f}"\n')


def test_include_of_a_name_too_long_is_refused_at_its_line() -> None:
    e = refused('include "' + "a" * 300 + '.yaml"\n')
    assert (e.line, e.column) == (1, 9) and "File name too long" in e.message


def test_a_label_with_an_integer_key_names_the_field(tmp_path: Path) -> None:
    e = _include(tmp_path, "n.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
                                     "  labels: {1: a}\nspec: {containers: [{name: c}]}\n")
    assert "field metadata.labels.1" in e.message and "not a string" in e.message


def test_a_json_integer_over_4300_digits_is_refused(tmp_path: Path) -> None:
    e = _include(tmp_path, "n.json", '{"kind": "Node", "x": ' + "9" * 5000 + "}")
    assert "more than 4,300 digits" in e.message and "n.json" in e.message


def test_very_deep_json_is_refused_with_the_file(tmp_path: Path) -> None:
    e = _include(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in e.message and "deep.json" in e.message


def test_a_json_file_with_a_bom_is_read_as_yaml_is(tmp_path: Path) -> None:
    f = tmp_path / "n.json"
    f.write_bytes(b'\xef\xbb\xbf{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},'
                  b' "status": {"capacity": {"cpu": "1"}}}')
    assert [o.name for o in kruleset.load(f'include "{f}"\n').objects] == ["n1"]


def test_a_duplicate_yaml_key_is_refused(tmp_path: Path) -> None:
    e = _include(tmp_path, "d.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                                     "status: {capacity: {cpu: '1'}}\n"
                                     "status: {capacity: {cpu: '2'}}\n")
    assert "'status' is given twice at line 5" in e.message


def test_a_quantity_with_spaces_is_refused(tmp_path: Path) -> None:
    e = _include(tmp_path, "s.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                                     "status: {capacity: {cpu: ' 4'}}\n")
    assert "status.capacity.cpu" in e.message and "' 4' is not a quantity" in e.message


def test_a_node_without_status_is_a_warning(tmp_path: Path) -> None:
    f = tmp_path / "n.yaml"
    f.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    sc = kruleset.load(f'include "{f}"\n')
    assert sc.notices == (f"{f}: warning: Node n1 has no status.capacity or status.allocatable:"
                          " it is read with no cpu or memory and 110 pods",)


# --- 8. the dump is not mapped into memory ----------------------------------------------------

def test_the_dump_reader_does_not_map_the_file() -> None:
    # A mapped file truncated while it is read kills Python with a bus error;
    # reading it whole gives a short text (and a syntax error) instead.
    from kruleset.manifests import documents

    assert "mmap" not in vars(documents)


# --- found by fuzzing 100,000 inputs --------------------------------------------------------------

def test_a_timeline_beyond_seven_days_is_refused_at_its_word() -> None:
    # `at 2147483648s` (68 years) stepped the kubelet every 10 s for hours.
    e = refused("node n1 cpu=1 memory=1Gi\nat 2147483648s create pod p cpu=1\n")
    assert (e.line, e.column) == (2, 4) and "beyond the 7 days" in e.message
    e = refused("node n1 cpu=1 memory=1Gi\nrun until 169h\n")
    assert e.line == 2 and "beyond the 7 days" in e.message
    with pytest.raises(ScenarioError, match="at most 7 days"):
        kruleset.run("node n1 cpu=1 memory=1Gi\n", until=8 * 86_400_000)
    assert kruleset.run("node n1 cpu=1 memory=1Gi\nat 168h create pod p cpu=1\n").decisions
