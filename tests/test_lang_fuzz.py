"""Property tests: no input makes the parser raise anything but ScenarioError."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kruleset.errors import ScenarioError
from kruleset.lang import parse_text

sys.path.insert(0, str(Path(__file__).parent))
from fuzzing import check_input, corpus, grammar_strategy, mutate, random_scenario  # noqa: E402

CASES = Path(__file__).parent / "lang_cases"
EXAMPLES = [(CASES / name).read_text() for name in ("language_example.kr", "everything.kr")]
VOCAB = ["pod", "pods", "node", "nodes", "at", "10s", "expect", "create", "delete", "{", "}",
         "(", ")", "[", "]", ",", "|", "=", "!", "<", ">", '"', "#", "\n", " ", "cpu=1",
         "a=b", "n[1..3]", "web-[1..2]", "*", "priorityclass", "kubelet", "*:NoSchedule",
         "for", "60s", "-5", "0%", "100%", "1e3", "run", "until", "in", "notin", "selector()",
         "requests(cpu=1)", "on", "n1", "default/a", "\\", "'", "\t", "é", "\x00", "value=1"]
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def check(text: str) -> None:
    try:
        parse_text(text, "fuzz.kr")
    except ScenarioError as err:
        assert "internal error" not in err.message, err.render()
        assert err.render()


def test_examples_parse() -> None:
    for text in EXAMPLES:
        parse_text(text, "example.kr")


@SETTINGS
@given(st.text(max_size=200))
def test_random_text(text: str) -> None:
    check(text)


@SETTINGS
@given(st.lists(st.sampled_from(VOCAB), max_size=40))
def test_random_token_soup(words: list[str]) -> None:
    check(" ".join(words))


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(EXAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "drop-line", "dup-line",
                                     "swap-lines"]))
        lines = text.split("\n")
        if kind == "delete" and text:
            i = draw(st.integers(0, len(text) - 1))
            j = draw(st.integers(i, min(len(text), i + 8)))
            text = text[:i] + text[j:]
        elif kind == "insert":
            i = draw(st.integers(0, len(text)))
            text = text[:i] + draw(st.sampled_from(VOCAB)) + text[i:]
        elif kind == "replace" and text:
            words = text.split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from(VOCAB))
            text = " ".join(words)
        elif kind == "drop-line":
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "\n".join(lines)
        elif kind == "dup-line":
            k = draw(st.integers(0, len(lines) - 1))
            lines.insert(k, lines[k])
            text = "\n".join(lines)
        elif kind == "swap-lines":
            a = draw(st.integers(0, len(lines) - 1))
            b = draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_examples(text: str) -> None:
    check(text)


# --- the whole input: grammar-derived text, the project's corpus mutated, random scenarios ------
# A bounded sample in every run (well under a minute); scripts/fuzz.py runs any number.

_FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))


_SCRATCH = Path(tempfile.mkdtemp(prefix="kruleset-fuzz-"))


@_FUZZ
@given(text=st.deferred(grammar_strategy))
def test_grammar_derived_text_is_refused_cleanly_or_runs(text: str) -> None:
    check_input("kr", text, _SCRATCH)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_corpus_kr_yaml_json_never_crash(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    inputs = corpus()
    assert {k for k, _ in inputs} == {"kr", "yaml", "json"}
    for _ in range(150):
        kind, text = rng.choice(inputs)
        check_input(kind, mutate(rng, text), tmp_path)


@pytest.mark.parametrize("seed", range(3))
def test_random_scenarios_keep_the_invariants(seed: int, tmp_path: Path) -> None:
    rng = random.Random(1000 + seed)
    outcomes = [check_input("kr", random_scenario(rng), tmp_path, invariants=True)
                for _ in range(60)]
    assert outcomes.count("ran") == len(outcomes)  # the generator writes valid scenarios


def test_output_is_byte_identical_across_runs_and_jobs(tmp_path: Path) -> None:
    rng = random.Random(7)
    for i in range(6):
        (tmp_path / f"s{i}.kr").write_text(random_scenario(rng))
    outs = []
    for jobs in ("1", "1", "2"):
        done = subprocess.run([sys.executable, "-m", "kruleset", "run", "--format", "json",
                               "-j", jobs, str(tmp_path)], capture_output=True,
                              cwd=Path(__file__).resolve().parents[1], check=False)
        assert done.returncode in (0, 1), done.stderr.decode()
        outs.append(done.stdout)
    assert outs[0] == outs[1] == outs[2]


# --- hostile inputs: structural changes to every kind, profiles, sweep values, long tokens ------
# What the fuzzing round of issue 33 found; a bounded sample (a few seconds), scripts/fuzz.py
# runs any number.

@pytest.mark.parametrize("seed", range(3))
def test_hostile_inputs_are_answered_cleanly(seed: int, tmp_path: Path) -> None:
    from fuzzing_hostile import check_case, hostile_case

    rng = random.Random(33_000 + seed)
    outcomes = [check_case(hostile_case(rng, corpus()), tmp_path) for _ in range(40)]
    assert "refused" in outcomes  # the generators do reach the refusals they are for


@pytest.mark.parametrize("generator", ["structural_yaml", "profile_case", "sweep_case",
                                       "long_token_case", "output_case"])
def test_each_hostile_generator_is_answered_cleanly(generator: str, tmp_path: Path) -> None:
    import fuzzing_hostile

    make = getattr(fuzzing_hostile, generator)
    rng = random.Random(generator)
    for _ in range(8):
        case = make(rng, corpus()) if generator == "structural_yaml" else make(rng)
        fuzzing_hostile.check_case(case, tmp_path)
