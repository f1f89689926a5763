"""Hostile inputs for the fuzzing of tests/fuzzing.py: what a structural mutation finds.

Used by scripts/fuzz.py and tests/test_fuzz_hostile.py.  Each generator returns a
:class:`Case` (what to feed, and how); :func:`check_case` feeds it and raises
AssertionError for anything but a clean answer (a refusal with a message, a run,
exit status 0, 1 or 2 without a traceback).

* :func:`structural_yaml`: a YAML/JSON document of the corpus (every kind kruleset
  reads: KubeSchedulerConfiguration, KubeletConfiguration, Pods, Nodes, workloads,
  policies, DRA objects) decoded and changed where it matters: a list item made
  null, a value of the wrong type, a document given twice (duplicate objects), a
  key given twice, a small alias bomb; fed by ``include``, ``config`` or
  ``apply``/``delete`` at a time.
* :func:`profile_case`: a ``--profile`` file (kruleset profile, scheduler or
  kubelet configuration) of the wrong shape.
* :func:`sweep_case`: ``sweep --set`` / ``--seeds`` values, valid and hostile.
* :func:`long_token_case`: a ``.kr`` text with a word or string of 10 KB to 200 KB.
* :func:`output_case`: ``-o`` to a file that cannot be written.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
from pathlib import Path
from typing import Any

import attrs
import yaml

import kruleset
from kruleset.errors import KrulesetError, ScenarioError

__all__ = ["Case", "check_case", "hostile_case", "long_token_case", "output_case",
           "profile_case", "structural_yaml", "sweep_case"]

_WRONG: list[Any] = [None, [], {}, [None], "x", "", -1, 0, 2**63, 1.5, True, "1Gi",
                     {"a": None}, ["a", None], "é" * 3]

_BOMB = ('a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
         + "".join(f"{c}: &{c} [{','.join(['*' + p] * 10)}]\n"
                   for p, c in zip("abcdefg", "bcdefgh", strict=True)))

_SCENARIO = """\
nodes n[1..3] cpu=4 memory=8Gi labels(zone=a)
priorityclass high value=100
deployment web replicas=2 priorityclass=high requests(cpu=500m)
pdb web-pdb selector(app=web) min-available=1
quota team min(cpu=1) max(cpu=2)
kubelet * {
  eviction-hard memory.available<100Mi
}
pod team/p1 requests(cpu=1)
"""


@attrs.frozen
class Case:
    """One hostile input: ``how`` it is fed ("kr", "file", "profile", "sweep", "output")."""

    how: str
    text: str = ""
    statement: str = ""       # for "file": the .kr statement naming the file (F)
    suffix: str = ".yaml"
    args: tuple[str, ...] = ()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a decoded document (keys and indexes)."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _set(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return doc


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _structural(rng: random.Random, doc: Any) -> Any:
    """``doc`` with one structural change (a null item, a wrong type, a list grown)."""
    paths = _paths(doc)
    lists = [p for p in paths if isinstance(_get(doc, p), list)]
    kind = rng.randrange(4)
    if kind == 0 and lists:  # a null list item
        target = _get(doc, rng.choice(lists))
        target.insert(rng.randrange(len(target) + 1), None)
        return doc
    if kind == 1 and lists:  # a list item repeated (duplicate names, objects)
        target = _get(doc, rng.choice(lists))
        if target:
            target.append(json.loads(json.dumps(rng.choice(target))))
        return doc
    path = rng.choice(paths[1:] or [()])
    # A copy: the same list set twice could end up holding itself.
    return _set(doc, path, copy.deepcopy(rng.choice(_WRONG)))  # type confusion


def _config_statement(rng: random.Random, text: str) -> str:
    if "KubeSchedulerConfiguration" in text:
        return 'config scheduler "F"'
    if "KubeletConfiguration" in text:
        return 'config kubelet "F"'
    return rng.choice(['include "F"', 'at 5s apply "F"', 'at 5s delete "F"',
                       'at 5s apply "F"\nat 10s delete "F"'])


# Kinds the corpus has few of, so that each is changed often enough.
_EXTRA = [("yaml", """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}}
    capacity: {memory: {value: 80Gi}}
  - name: gpu-1
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com, count: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: per-pod}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: one-gpu}]
  containers:
  - name: c
    resources: {requests: {cpu: "1"}, claims: [{name: gpu}]}
"""), ("yaml", """\
apiVersion: v1
kind: LimitRange
metadata: {name: lr}
spec:
  limits:
  - type: Container
    min: {cpu: 100m}
    default: {cpu: 500m, memory: 1Gi}
    defaultRequest: {cpu: 200m}
    max: {cpu: "2", memory: 2Gi}
    maxLimitRequestRatio: {cpu: "4"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq}
spec: {hard: {requests.cpu: "4", pods: "10"}}
""")]


def structural_yaml(rng: random.Random, corpus: tuple[tuple[str, str], ...]) -> Case:
    """A corpus YAML/JSON file changed structurally, fed by the statement that reads it."""
    kind, text = rng.choice([c for c in corpus if c[0] != "kr"] + _EXTRA * 10)
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError:
        docs = []
    what = rng.randrange(10)
    if docs and what < 6:
        i = rng.randrange(len(docs))
        docs[i] = _structural(rng, docs[i])
        out = yaml.safe_dump_all(docs, sort_keys=False)
    elif docs and what < 7:  # a document given twice: duplicate objects
        d = rng.choice(docs)
        out = yaml.safe_dump_all([*docs, d], sort_keys=False)
    elif what < 8:  # an alias bomb in the file's own kind
        head = text.split("\n", 2)[:2]
        out = "\n".join(head) + "\n" + _BOMB + "metadata: {name: *h}\nprofiles: *h\n"
    elif what < 9:  # a key given twice
        lines = text.split("\n")
        keyed = [i for i, line in enumerate(lines) if ":" in line and line.strip()]
        if keyed:
            i = rng.choice(keyed)
            lines.insert(i, lines[i])
        out = "\n".join(lines)
    else:
        out = text
    if kind == "json" and docs and rng.random() < 0.5:
        return Case("file", json.dumps(docs[0]), _config_statement(rng, text), ".json")
    return Case("file", out, _config_statement(rng, text))


_PROFILES = [
    "rulesets:\n  scheduler.filter:\n    disable: [scheduler.filter.TaintToleration]\n",
    "rulesets:\n  scheduler.score:\n    weights: {scheduler.score.TaintToleration: 3}\n",
    "rulesets:\n  scheduler.filter:\n    args:\n      scheduler.filter.NodeResourcesFit: "
    "{ignoredResources: [example.com/foo]}\nsettings: {percentageOfNodesToScore: 50}\n",
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n"
    "      - {name: NodeResourcesBalancedAllocation, weight: 2}\n",
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    "evictionHard: {memory.available: 200Mi}\n",
]


def profile_case(rng: random.Random) -> Case:
    """A ``--profile`` file of one of the three kinds, changed structurally (or a bomb)."""
    text = rng.choice(_PROFILES)
    if rng.random() < 0.1:
        return Case("profile", _BOMB + "rulesets: *h\n")
    doc = yaml.safe_load(text)
    for _ in range(rng.randint(1, 2)):
        doc = _structural(rng, doc)
    return Case("profile", yaml.safe_dump(doc, sort_keys=False),
                args=(rng.choice(["run", "sweep"]),))


_SETS = ["priorityclass:high:value", "pdb:web-pdb:min-available", "pdb:web-pdb:max-unavailable",
         "quota:team:max.cpu", "quota:team:min.memory", "deployment:web:replicas",
         "kubelet:n1:eviction-hard.memory.available", "kubelet:*:eviction-hard.nodefs.available",
         "kubelet:nx:eviction-hard.memory.available", "kubelet:n1:eviction-soft.memory.available",
         "priorityclass:nope:value", "pods:x:y", "deployment:web", "quota:team:max."]
_VALUES = ["1", "2", "0", "-1", "100001", "99999999999", "-2147483649", "2147483648",
           "1000000001", "\u0661", "\uff11", "\u00b2", "1Gi", "500m", "50%", "101%", "\u00b2%",
           "-5%", "1e3", "", "x", "9" * 400, "10%", "100Mi", "NaN", "1.5"]
_SEEDS = ["0", "1", "2", "-1", "1000000000", "10001", "99999999999999999999"]


def sweep_case(rng: random.Random) -> Case:
    """``kruleset sweep`` of a small scenario with hostile ``--set`` and ``--seeds`` values."""
    args: list[str] = []
    for _ in range(rng.randint(0, 2)):
        values = ",".join(rng.choice(_VALUES) for _ in range(rng.randint(1, 2)))
        args += ["--set", f"{rng.choice(_SETS)}={values}"]
    if rng.random() < 0.5 or not args:
        args += ["--seeds", rng.choice(_SEEDS)]
    return Case("sweep", _SCENARIO, args=tuple(args))


def long_token_case(rng: random.Random) -> Case:
    """A scenario with one word or string of 10 KB to 200 KB somewhere."""
    n = rng.choice([10_000, 65_536, 65_537, 200_000])
    token = rng.choice(["a" * n, '"' + "b" * n + '"', "x=" + "1" * n, "a" * n + "=1",
                        "(" + "c" * n + ")", "[" + "1" * n + "]"])
    lines = _SCENARIO.split("\n")
    i = rng.randrange(len(lines))
    lines[i] = lines[i] + " " + token
    return Case("kr", "\n".join(lines))


def output_case(rng: random.Random) -> Case:
    """``kruleset run -o PATH`` where PATH cannot be written (or only opened)."""
    path = rng.choice(["/dev/full", "/proc/version", "/nonexistent/dir/out.txt", "/", "."])
    fmt = rng.choice(["text", "json", "junit", "tap", "html", "github"])
    return Case("output", "node n1 cpu=1 memory=1Gi\npod a requests(cpu=2)\n"
                          "expect pod a running\n", args=("--format", fmt, "-o", path))


def hostile_case(rng: random.Random, corpus: tuple[tuple[str, str], ...]) -> Case:
    """One of the generators above, drawn."""
    pick = rng.randrange(20)
    if pick < 12:
        return structural_yaml(rng, corpus)
    if pick < 15:
        return profile_case(rng)
    if pick < 17:
        return sweep_case(rng)
    if pick < 19:
        return long_token_case(rng)
    return output_case(rng)


def _cli(argv: list[str]) -> tuple[int, str]:
    from kruleset.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


def check_case(case: Case, folder: Path) -> str:
    """Feed ``case``; "refused", "ran" or "error"; AssertionError for anything unclean."""
    if case.how == "kr":
        return _load_and_run(case.text, folder)
    if case.how == "file":
        f = folder / f"input{case.suffix}"
        f.write_text(case.text, encoding="utf-8", errors="surrogatepass")
        stmt = case.statement.replace("F", str(f))
        return _load_and_run(f"nodes n[1..2] cpu=4 memory=8Gi\n{stmt}\n", folder)
    scenario = folder / "s.kr"
    scenario.write_text(case.text, encoding="utf-8")
    if case.how == "profile":
        prof = folder / "profile.yaml"
        prof.write_text(case.text, encoding="utf-8")
        scenario.write_text(_SCENARIO, encoding="utf-8")
        if case.args and case.args[0] == "sweep":
            argv = ["sweep", str(scenario), "--profile", str(prof), "-j", "1", "-q"]
        else:
            argv = ["run", "-j", "1", "-q", "--profile", str(prof), str(scenario)]
    elif case.how == "sweep":
        argv = ["sweep", str(scenario), "-j", "1", "-q", *case.args]
    else:
        argv = ["run", "-j", "1", "-q", *case.args, str(scenario)]
    code, err = _cli(argv)
    assert code in (0, 1, 2), f"exit {code} for {argv}:\n{err[-2000:]}\n---\n{case.text[:2000]}"
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    if case.how == "output" and case.args[-1] in ("/dev/full", "/proc/version"):
        assert code == 2 and "--output: cannot write" in err, err
    return "refused" if code == 2 else "ran"


def _load_and_run(text: str, folder: Path) -> str:
    try:
        scenario = kruleset.load(text)
    except ScenarioError as err:
        assert not err.internal and "internal error" not in err.message, err.render()[:3000]
        assert err.render()
        return "refused"
    except KrulesetError:
        return "error"
    except Exception as exc:  # noqa: BLE001 - what fuzzing is for
        raise AssertionError(f"{type(exc).__name__} while loading: {exc}\n---\n"
                             f"{text[:3000]}") from exc
    try:
        kruleset.run(scenario)
    except ScenarioError as err:
        assert not err.internal and "internal error" not in err.message, err.render()[:3000]
        return "refused"
    except KrulesetError as err:
        assert "did not settle" not in str(err), str(err)
        return "error"
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"{type(exc).__name__} while running: {exc}\n---\n"
                             f"{text[:3000]}") from exc
    return "ran"
