"""Fuzzing kruleset's input: generators, a mutation corpus and the checks every input must pass.

Used by tests/test_fuzz_inputs.py (a bounded sample in every test run) and
scripts/fuzz.py (any number of inputs).

* :func:`corpus`: the project's own inputs — ``.kr`` files, the scenarios of
  ``features/`` and the YAML/JSON manifests — as (kind, text) pairs.
* :func:`mutate`: a random change to a text (bytes, lines, numbers grown
  huge, names broken, keys dropped or doubled).
* :func:`grammar_strategy`: hypothesis strings from the Lark grammar, its
  terminals drawn from the corpus's own words.
* :func:`random_scenario`: a valid scenario (nodes, classes, pods,
  deployments, quotas, a timeline), for the invariants.
* :func:`check_input`: loads (and runs) one input; any exception but a clear
  refusal is a failure.
* :func:`check_invariants`: no preemption of an equal or higher priority,
  allocatable never exceeded, quota max respected.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import kruleset
from kruleset.errors import KrulesetError, ScenarioError

__all__ = ["check_input", "check_invariants", "corpus", "grammar_strategy", "mutate",
           "random_scenario"]

ROOT = Path(__file__).resolve().parents[1]
_DOCSTRING = re.compile(r'^\s*"""\n(.*?)^\s*"""', re.S | re.M)
_STEP = re.compile(r"^\s*(?:Given|When|Then|And|But) (?!the scenario:|the expectations)(.*)$",
                   re.M)


@lru_cache(maxsize=1)
def corpus() -> tuple[tuple[str, str], ...]:
    """Every input the project ships: ("kr" | "yaml" | "json", text)."""
    out: list[tuple[str, str]] = []
    for path in sorted([*ROOT.glob("examples/**/*.kr"), *ROOT.glob("tests/lang_cases/*.kr")]):
        out.append(("kr", path.read_text(encoding="utf-8")))
    for path in sorted(ROOT.glob("features/**/*.feature")):
        text = path.read_text(encoding="utf-8")
        for block in _DOCSTRING.findall(text):
            out.append(("kr", "\n".join(line.strip() for line in block.splitlines()) + "\n"))
        steps = [m.strip() for m in _STEP.findall(text)]
        if steps:
            out.append(("kr", "\n".join(steps) + "\n"))
    for pattern in ("examples/**/*.yaml", "features/**/*.yaml", "tests/data/**/*.yaml"):
        for path in sorted(ROOT.glob(pattern)):
            out.append(("yaml", path.read_text(encoding="utf-8")))
    for path in sorted(ROOT.glob("tests/data/**/*.json")):
        out.append(("json", path.read_text(encoding="utf-8")))
    return tuple(out)


_HUGE = ["99999999999", "1e400", "9" * 331, "-1", "0", "1000000001", "2147483648",
         "1e18", "18446744073709551616", "0.0000001", "NaN", "inf", "1Ei", "99999Ei"]
_ODD = ["", " ", "\t", "*", "é", "\x00", '"', "'", "{", "}", "[", "]", "(", ")", "#", ":",
        "---", "- ", "null", "~", "true", "{}", "[]", "&a", "*a", "<<: *a", "\\", "\u202e",
        "a" * 300, "system-x", "Bad_Name", "-x-", "a/b/c"]
_NUMBER = re.compile(r"(?<![A-Za-z])[0-9]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


def mutate(rng: random.Random, text: str, rounds: int | None = None) -> str:
    """``text`` changed 1-4 times at random places."""
    for _ in range(rounds if rounds is not None else rng.randint(1, 4)):
        lines = text.split("\n")
        kind = rng.randrange(11)
        if kind == 0 and text:  # delete a span
            i = rng.randrange(len(text))
            text = text[:i] + text[i + rng.randint(1, 12):]
        elif kind == 1:  # insert something odd
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(_ODD) + text[i:]
        elif kind == 2 and lines:  # drop a line
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 3 and lines:  # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 4 and len(lines) > 1:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind in (5, 6):  # a number grows huge, negative or odd
            found = list(_NUMBER.finditer(text))
            if found:
                m = rng.choice(found)
                text = text[:m.start()] + rng.choice(_HUGE) + text[m.end():]
        elif kind == 7:  # a word misspelt (a typo in a key or keyword)
            found = list(_WORD.finditer(text))
            if found:
                m = rng.choice(found)
                w = m.group()
                i = rng.randrange(len(w))
                w = w[:i] + w[i + 1:] if rng.random() < 0.5 else w[:i] + w[i] + w[i:]
                text = text[:m.start()] + w + text[m.end():]
        elif kind == 8 and lines:  # indentation broken
            i = rng.randrange(len(lines))
            lines[i] = rng.choice(["", "  ", "    ", "\t"]) + lines[i].lstrip()
            text = "\n".join(lines)
        elif kind == 9 and lines:  # a line from another input
            other = rng.choice(corpus())[1].split("\n")
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(other))
            text = "\n".join(lines)
        elif kind == 10 and text:  # a random byte
            i = rng.randrange(len(text))
            text = text[:i] + chr(rng.randrange(0, 0x2FF)) + text[i + 1:]
    return text


def grammar_strategy() -> Any:
    """Hypothesis strategy: texts the Lark grammar derives, with the corpus's words as RUNs."""
    from hypothesis import strategies as st
    from hypothesis.extra.lark import from_lark
    from lark import Lark

    from kruleset.lang.grammar import grammar_text

    runs: set[str] = set()
    for kind, text in corpus():
        if kind == "kr":
            for line in text.splitlines():
                line = line.split("#")[0].strip()
                if line and not any(c in line for c in '"{}[]'):
                    runs.add(line)
                    runs.update(line.split())
    words = sorted(runs)
    return from_lark(Lark(grammar_text(), start="start", parser="lalr"), explicit={
        "RUN": st.sampled_from(words),
        "STRING": st.sampled_from(['"x"', '"objects.yaml"', '"reason"', '""', '"a b"']),
        "_NL": st.just("\n"), "WS": st.just(" "), "COMMENT": st.just("# c"),
    })


def random_scenario(rng: random.Random) -> str:
    """A valid scenario of a few nodes and pods with a timeline, to check invariants on."""
    lines = []
    nodes = [f"n{i}" for i in range(rng.randint(1, 4))]
    room: dict[str, list[int]] = {}  # node -> [millicores, MiB, pods] left for `on` pods
    for n in nodes:
        cpu, mem, count = rng.randint(1, 8), rng.randint(1, 16), rng.randint(2, 20)
        room[n] = [cpu * 1000, mem * 1024, count]
        lines.append(f"node {n} cpu={cpu} memory={mem}Gi pods={count}")
    prios = sorted({rng.choice([0, 1, 10, 100, 1000]) for _ in range(3)})
    for p in prios:
        lines.append(f"priorityclass p{p} value={p}")
    quota = rng.random() < 0.3
    if quota:
        lines.append(f"quota team min(cpu={rng.randint(1, 4)}) max(cpu={rng.randint(2, 8)})")
    pods = []
    sizes = {"100m": 100, "500m": 500, "1": 1000, "2": 2000, "128Mi": 128, "1Gi": 1024,
             "2Gi": 2048}
    for i in range(rng.randint(1, 12)):
        ns = "team/" if quota and rng.random() < 0.5 else ""
        cpu, mem = rng.choice(["100m", "500m", "1", "2"]), rng.choice(["128Mi", "1Gi", "2Gi"])
        where = ""
        node = rng.choice(nodes)
        left = room[node]
        # Pods declared on a node are the cluster as it is (not admitted): only where they fit.
        if not ns and rng.random() < 0.3 and left[0] >= sizes[cpu] and \
                left[1] >= sizes[mem] and left[2] >= 1:
            where = f" on {node}"
            left[0] -= sizes[cpu]
            left[1] -= sizes[mem]
            left[2] -= 1
        name = f"{ns}p{i}"
        pods.append(name)
        lines.append(f"pod {name}{where} priorityclass=p{rng.choice(prios)} "
                     f"requests(cpu={cpu}, memory={mem})")
    if rng.random() < 0.5:
        lines.append(f"deployment web replicas={rng.randint(0, 6)} priorityclass=p{prios[0]} "
                     f"requests(cpu={rng.choice(['250m', '1'])})")
    t = 0
    for i in range(rng.randint(0, 8)):
        t += rng.randint(1, 30)
        action = rng.randrange(5)
        if action == 0:
            lines.append(f"at {t}s create pod c{i} priorityclass=p{rng.choice(prios)} "
                         f"requests(cpu={rng.choice(['500m', '1', '3'])})")
        elif action == 1 and pods:
            lines.append(f"at {t}s delete pod {rng.choice(pods)}")
        elif action == 2 and pods:
            lines.append(f"at {t}s evict pod {rng.choice(pods)}")
        elif action == 3:
            lines.append(f"at {t}s cordon node {rng.choice(nodes)}")
        else:
            lines.append(f"at {t}s uncordon node {rng.choice(nodes)}")
    return "\n".join(lines) + "\n"


def check_input(kind: str, text: str, folder: Path, run: bool = True,
                invariants: bool = False) -> str:
    """Load ``text`` (a .kr text, or a YAML/JSON file included by one) and run it.

    ``invariants``: also check :func:`check_invariants` on the run (for
    generated scenarios; a mutated one may declare pods overcommitting a node).

    Returns "refused", "ran" or "error" (a KrulesetError that is not a bug,
    such as an expectation about a mechanism not simulated); raises
    AssertionError for an internal error or any other exception.
    """
    if kind == "kr":
        source = text
    else:
        f = folder / f"input.{kind}"
        f.write_text(text, encoding="utf-8", errors="surrogatepass")
        source = f'include "{f}"\n'
    try:
        scenario = kruleset.load(source, allow_unknown_fields=False)
    except ScenarioError as err:
        assert "internal error" not in err.message, err.render()
        assert err.render()
        return "refused"
    except KrulesetError:
        return "error"
    except Exception as exc:  # noqa: BLE001 - what fuzzing is for
        raise AssertionError(f"{type(exc).__name__} while loading: {exc}\n---\n{text}") from exc
    if not run:
        return "loaded"
    try:
        result = kruleset.run(scenario)
    except ScenarioError as err:
        assert "internal error" not in err.message, err.render()
        return "refused"
    except KrulesetError as err:
        assert "did not settle" not in str(err), f"{err}\n---\n{text}"
        return "error"
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"{type(exc).__name__} while running: {exc}\n---\n{text}") from exc
    if invariants:
        check_invariants(result)
    return "ran"


def _violations(result: Any) -> Iterator[str]:
    st = result.state
    prio = {k: ps.pod.effective_priority for k, ps in st.pods.items()}
    for d in result.decisions:
        if d.kind == "preempted" and any(
                r.startswith("scheduler.postfilter.DefaultPreemption") for r in d.rules) and \
                prio.get(d.pod, 0) >= prio.get(d.by, 0):
            yield (f"{d.by} (priority {prio.get(d.by)}) preempted {d.pod} "
                   f"(priority {prio.get(d.pod)})")
    for node in st.nodes.values():
        used = node.requested
        for name, cap in node.node.allocatable.items():
            if name == "pods":
                bound = sum(1 for ps in node.pods.values() if not ps.gone)
                if bound > cap:
                    yield f"node {node.name} holds {bound} pods, allocatable {cap}"
            elif used.get(name) > cap:
                yield f"node {node.name} has {name} requests {used.get(name)} > allocatable {cap}"
    for ns, quota in st.quotas.items():
        if quota.max is None:
            continue
        for name, cap in quota.max.items():
            used = sum(ps.pod.requests.get(name) for ps in st.by_namespace.get(ns, {}).values()
                       if ps.node is not None and not ps.gone and not ps.terminating)
            if used > cap:
                yield f"quota {ns}: {name} used {used} > max {cap}"


def check_invariants(result: Any) -> None:
    """Raise AssertionError naming every invariant the run broke."""
    bad = list(_violations(result))
    assert not bad, "; ".join(bad)
