"""No input crashes kruleset: each class of input a fuzzing round found crashing, hanging or
silently accepted, fed as it was, and the clean answer it gets now (exit 0, 1 or 2 with a
message naming the file, field or option; 3 only for a bug, never a traceback)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import kruleset
from kruleset.cli import main
from kruleset.errors import ScenarioError
from kruleset.exitcode import ExitCode
from kruleset.lang.syntax import MAX_TOKEN
from kruleset.yamlload import MAX_ALIAS_VALUES

OK = "node n1 cpu=4 memory=8Gi\npod web-1 requests(cpu=1)\nexpect pod web-1 running on n1\n"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["run", "-j", "1", "--color", "never", *argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        kruleset.load(text)
    assert not e.value.internal, e.value.render()
    return e.value


# --- 1. DRA objects through apply / delete ----------------------------------------------------

DRA_OBJECTS = """\
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
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
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
"""


def test_dra_objects_applied_from_a_file_allocate_a_device(tmp_path: Path) -> None:
    _write(tmp_path, "gpu.yaml", DRA_OBJECTS)
    scenario = _write(tmp_path, "s.kr", """\
node n1 cpu=4 memory=8Gi
at 10s apply "gpu.yaml"
at 20s create pod trainer requests(cpu=1) claims(gpu=one-gpu)
at 20s create pod second requests(cpu=1) claims(gpu=template/per-pod)
run until 25s
expect pod trainer running on n1
expect pod second pending
""")
    result = kruleset.run(kruleset.load(scenario))
    assert not result.failed, [r.message for r in result.expectations]


def test_dra_objects_deleted_from_a_file_are_gone(tmp_path: Path) -> None:
    _write(tmp_path, "gpu.yaml", DRA_OBJECTS)
    scenario = _write(tmp_path, "s.kr", """\
node n1 cpu=4 memory=8Gi
at 10s apply "gpu.yaml"
at 15s delete "gpu.yaml"
at 20s create pod trainer requests(cpu=1) claims(gpu=one-gpu)
expect pod trainer pending
""")
    result = kruleset.run(kruleset.load(scenario))
    assert not result.failed
    dra = result.state.dra
    assert not dra.slices and not dra.classes and "default/per-pod" not in dra.templates


def test_applying_an_existing_claim_leaves_it_unchanged(tmp_path: Path) -> None:
    _write(tmp_path, "gpu.yaml", DRA_OBJECTS)
    scenario = _write(tmp_path, "s.kr", 'node n1 cpu=4 memory=8Gi\nat 10s apply "gpu.yaml"\n'
                                        'at 20s apply "gpu.yaml"\n')
    result = kruleset.run(kruleset.load(scenario))
    unchanged = [d for d in result.decisions if d.kind == "unchanged"]
    assert {d.pod for d in unchanged} == {"default/one-gpu", "default/per-pod"}
    assert len(result.state.dra.slices) == 1  # the slice of the same name is replaced


# --- 2. a CEL expression past 65,535 characters; any BaseException is an internal error ------

def test_a_cel_selector_over_10_kib_is_refused_as_the_api_server_does(tmp_path: Path) -> None:
    expr = "device.driver == 'a' && " * 1000 + " ((("
    e = _refused(f'nodes n[1..1] cpu=4\ndeviceclass gpu.example.com driver=gpu.example.com '
                 f'selector("{expr}")\n')
    assert "Too long: may not be more than 10240 bytes" in e.message
    # Past 65,535 characters the CEL library panicked: the YAML route never reaches it now.
    long = "device.driver == 'a' && " * 3000 + " ((("
    _write(tmp_path, "dc.yaml", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                                f"metadata: {{name: gpu}}\nspec:\n  selectors:\n"
                                f"  - cel: {{expression: \"{long}\"}}\n")
    e = _refused(f'node n1 cpu=4\ninclude "{tmp_path / "dc.yaml"}"\n')
    assert "Too long: may not be more than 10240 bytes" in e.message


class _Panic(BaseException):
    """What a Rust library's panic raises in Python (a BaseException, not an Exception)."""


def test_a_panic_while_reading_exits_3_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import kruleset.lang.loader as loader

    def panic(*args: object, **kwargs: object) -> None:
        raise _Panic("Formatting argument out of range")

    monkeypatch.setattr(loader, "CHUNKED_FROM", 1 << 62)  # the whole-file parse
    monkeypatch.setattr(loader, "parse_statements_raw", panic)
    path = _write(tmp_path, "s.kr", OK)
    for command in ("run", "check"):
        code = main([command, "-j", "1", str(path)])
        err = capsys.readouterr().err
        assert code == ExitCode.ERROR and "internal error" in err and "_Panic" in err
        assert "Traceback" not in err


def test_the_top_level_guard_turns_any_escape_into_exit_3(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import kruleset.runner

    def panic(*args: object, **kwargs: object) -> int:
        raise _Panic("boom")

    monkeypatch.setattr(kruleset.runner, "execute", panic)
    assert main(["run", "x.kr"]) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert "internal error" in err and "boom" in err and "Traceback" not in err


def test_an_internal_error_while_reading_exits_3_not_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import kruleset.lang.loader as loader

    def bug(*args: object, **kwargs: object) -> None:
        raise KeyError("x")

    # both ways a file is read: a pass at a time (the scan), and whole
    monkeypatch.setattr(loader, "scan", bug)
    code, err = _run(capsys, str(_write(tmp_path, "s.kr", OK)))
    assert code == ExitCode.ERROR and "internal error" in err
    monkeypatch.undo()
    monkeypatch.setattr(loader, "CHUNKED_FROM", 1 << 62)
    monkeypatch.setattr(loader, "parse_statements_raw", bug)
    code, err = _run(capsys, str(_write(tmp_path, "s.kr", OK)))
    assert code == ExitCode.ERROR and "internal error" in err


# --- 3. duplicate Pods in one included file ---------------------------------------------------

POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n"


def test_two_pods_of_one_name_in_one_file_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "dup.yaml", POD + "---\n" + POD)
    e = _refused(f'node n1 cpu=4\ninclude "{tmp_path / "dup.yaml"}"\n')
    assert "pod 'default/a' is already declared" in e.message


def test_a_null_exit_code_in_a_pod_failure_policy_is_refused(tmp_path: Path) -> None:
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n"
           "  podFailurePolicy:\n    rules:\n    - action: FailJob\n"
           "      onExitCodes: {operator: In, values: [1, null]}\n"
           "  template:\n    spec:\n      restartPolicy: Never\n"
           "      containers: [{name: main, image: busybox}]\n")
    _write(tmp_path, "job.yaml", job)
    e = _refused(f'node n1 cpu=4\ninclude "{tmp_path / "job.yaml"}"\n')
    assert not e.internal and "spec.podFailurePolicy.rules[0].onExitCodes.values[1]" in e.message
    assert "expected an integer, found null" in e.message


# --- 4. KubeSchedulerConfiguration with null items or a key given twice -----------------------

SCHED = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


@pytest.mark.parametrize(("body", "field"), [
    ("profiles: [null]", "profiles[0]"),
    ("profiles: [{plugins: {score: {enabled: [null]}}}]", "profiles[0].plugins.score.enabled[0]"),
    ("profiles: [{pluginConfig: [{name: PodTopologySpread, args: {defaultConstraints: [null], "
     "defaultingType: List}}]}]", "args.defaultConstraints[0]"),
    ("profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: "
     "RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [null]}}}}]}]",
     "requestedToCapacityRatio.shape[0]"),
])
def test_null_list_items_in_a_scheduler_configuration_are_refused(
        tmp_path: Path, body: str, field: str) -> None:
    _write(tmp_path, "sc.yaml", SCHED + body + "\n")
    e = _refused(f'node n1 cpu=4\nconfig scheduler "{tmp_path / "sc.yaml"}"\n')
    assert field in e.message and "a list item is null" in e.message


def test_a_json_configuration_giving_a_key_twice_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "sc.json", '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": '
                                '"KubeSchedulerConfiguration", "profiles": [], "profiles": [{}]}')
    e = _refused(f'node n1 cpu=4\nconfig scheduler "{tmp_path / "sc.json"}"\n')
    assert "the key 'profiles' is given twice" in e.message


# --- 5. YAML alias bombs, in every reader -----------------------------------------------------

BOMB = "".join([
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n',
    *(f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi",
                                                                    strict=True)),
])


@pytest.mark.parametrize("statement", ['config scheduler "F"', 'config kubelet "F"',
                                       'include "F"', 'at 1s apply "F"'])
def test_an_alias_bomb_is_refused_at_once_naming_the_limit(tmp_path: Path, statement: str
                                                           ) -> None:
    path = _write(tmp_path, "bomb.yaml", SCHED + BOMB + "profiles: *i\n")
    began = time.process_time()
    e = _refused(f"node n1 cpu=4\n{statement.replace('F', str(path))}\n")
    assert time.process_time() - began < 5
    assert f"more than {MAX_ALIAS_VALUES:,} values" in e.message


def test_an_alias_bomb_profile_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    prof = _write(tmp_path, "p.yaml", BOMB + "rulesets: *i\n")
    code, err = _run(capsys, "--profile", str(prof), str(_write(tmp_path, "s.kr", OK)))
    assert code == ExitCode.REFUSED and "aliases expand" in err


def test_a_few_aliases_are_still_read(tmp_path: Path) -> None:
    _write(tmp_path, "p.yaml", "apiVersion: v1\nkind: List\nitems:\n"
                               "- {apiVersion: v1, kind: Pod, metadata: {name: a, labels: &l "
                               "{app: x}}, spec: {containers: [{name: c}]}}\n"
                               "- {apiVersion: v1, kind: Pod, metadata: {name: b, labels: *l}, "
                               "spec: {containers: [{name: c}]}}\n")
    sc = kruleset.load(f'node n1 cpu=4\ninclude "{tmp_path / "p.yaml"}"\n')
    pods = [o for o in sc.objects if getattr(o, "name", "") in ("a", "b")]
    assert [dict(o.labels) for o in pods] == [{"app": "x"}, {"app": "x"}]


# --- 6. -o FILE that cannot be written after it opened --------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_output_to_a_full_device_is_a_clean_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, err = _run(capsys, "--format", fmt, "-o", "/dev/full",
                     str(_write(tmp_path, "s.kr", OK)))
    assert code == ExitCode.REFUSED
    assert "--output: cannot write /dev/full: No space left on device" in err


# --- 7. --profile files with wrong types, non-positive weights -------------------------------

@pytest.mark.parametrize(("profile", "needle"), [
    ("rulesets: []", "field rulesets: expected a mapping"),
    ("[1, 2]", "a profile is a mapping"),
    ("rulesets: {scheduler.filter: {disable: [null]}}",
     "rulesets.scheduler.filter.disable[0]: expected a rule name"),
    ("rulesets: {scheduler.filter: {order: 5}}", "rulesets.scheduler.filter.order"),
    ("rulesets: {scheduler.filter: [1]}", "field rulesets.scheduler.filter"),
    ("rulesets: {scheduler.score: {weights: {scheduler.score.TaintToleration: '3'}}}",
     "a weight is a positive integer"),
    ("rulesets: {scheduler.score: {weights: {scheduler.score.TaintToleration: -3}}}",
     "a weight is a positive integer"),
    ("rulesets: {scheduler.score: {weights: {scheduler.score.TaintToleration: 0}}}",
     "a weight is a positive integer"),
    ("rulesets: {scheduler.score: {weights: [1]}}", "rulesets.scheduler.score.weights"),
    ("rulesets: {scheduler.filter: {args: {scheduler.filter.NodeResourcesFit: "
     "{ignoredResources: 5}}}}", "ignoredResources: expected a list"),
    ("rulesets: {scheduler.filter: {args: {scheduler.filter.TaintToleration: {x: 1}}}}",
     "takes no args"),
    ("settings: {percentageOfNodesToScore: x}", "settings.percentageOfNodesToScore"),
    ("settings: {percentageOfNode: 5}", "did you mean 'percentageOfNodesToScore'"),
    ("rulesets: {scheduler.filter: {enabled: []}}", "did you mean 'enable'"),
])
def test_a_profile_of_the_wrong_shape_is_refused_with_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], profile: str, needle: str) -> None:
    prof = _write(tmp_path, "p.yaml", profile + "\n")
    code, err = _run(capsys, "--profile", str(prof), str(_write(tmp_path, "s.kr", OK)))
    assert code == ExitCode.REFUSED and needle in err, err


def test_a_good_profile_still_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prof = _write(tmp_path, "p.yaml", "rulesets:\n  scheduler.score:\n    weights:\n"
                                      "      scheduler.score.TaintToleration: 3\n"
                                      "settings: {percentageOfNodesToScore: 50}\n")
    code, _ = _run(capsys, "--profile", str(prof), str(_write(tmp_path, "s.kr", OK)))
    assert code == ExitCode.OK


# --- 8. devices and FIFOs wherever a path is read ---------------------------------------------

@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    return path


def test_profile_of_a_device_or_fifo_is_refused(tmp_path: Path, fifo: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(_write(tmp_path, "s.kr", OK))
    for special in ("/dev/zero", str(fifo)):
        code, err = _run(capsys, "--profile", special, scenario)
        assert code == ExitCode.REFUSED and "not a regular file" in err
        assert main(["sweep", scenario, "--profile", special, "-j", "1", "-q"]) == 2
        assert "not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("statement", ['include "F"', 'config scheduler "F"',
                                       'config kubelet "F"', 'at 1s apply "F"',
                                       'at 1s delete "F"'])
def test_every_file_statement_refuses_a_fifo_or_device(fifo: Path, statement: str) -> None:
    for special in (str(fifo), "/dev/zero"):
        e = _refused(f"node n1 cpu=4\n{statement.replace('F', special)}\n")
        assert "not a regular file" in e.message


# --- 9. over-long tokens in .kr -----------------------------------------------------------------

@pytest.mark.parametrize(("make", "what"), [
    (lambda n: "node n1 cpu=4 " + "a" * n, "word"),
    (lambda n: 'node n1 cpu=4\npod p description="' + "a" * n + '"', "string"),
])
def test_an_over_long_token_is_refused_at_its_position(make: object, what: str) -> None:
    e = _refused(make(2 * MAX_TOKEN) + "\n")  # type: ignore[operator]
    assert f"a {what} of " in e.message and f"longer than the {MAX_TOKEN:,}" in e.message
    assert e.line in (1, 2) and e.column > 1
    assert len(e.source_line) < 5000  # the quoted line is cut


def test_a_long_word_is_lexed_in_linear_memory() -> None:
    import tracemalloc

    text = "node n1 cpu=4 " + "a" * 3_000_000 + "\n"
    tracemalloc.start()
    try:
        _refused(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * len(text), peak  # it was about 140 bytes a byte in the lexer alone


# --- 10-12. sweep --set / --seeds go through the language's checks ----------------------------

SWEEP = """\
node n1 cpu=4 memory=8Gi
priorityclass high value=100
deployment web replicas=1 requests(cpu=100m)
pdb web-pdb selector(app=web) min-available=1
quota team min(cpu=1) max(cpu=2)
"""


@pytest.mark.parametrize(("args", "needle"), [
    (["--set", "deployment:web:replicas=100001"], "must be at most 100000"),
    (["--set", "deployment:web:replicas=99999999999"], "must be at most 100000"),
    (["--seeds", "1000000000"], "--seeds 1000000000: must be from 0 to 10,000"),
    (["--set", "priorityclass:high:value=-2147483649"], "is not a 32-bit integer"),
    (["--set", "priorityclass:high:value=1000000001"],
     "maximum allowed value of a user defined priority is 1000000000"),
    (["--set", "kubelet:nx:eviction-hard.memory.available=1Gi"], "has no node 'nx'"),
    (["--set", "priorityclass:high:value=\u0661"], "not an integer"),
    (["--set", "deployment:web:replicas=\uff11"], "not an integer"),
    (["--set", "pdb:web-pdb:min-available=\u00b2%"], "a percentage is a whole number"),
    (["--set", "quota:team:max.cpu=\u0661"], "is not a quantity"),
    (["--set", "deployment:web:replicas=" + ",".join(map(str, range(1, 401))),
      "--seeds", "300"], "more than the 100,000 one sweep runs"),
])
def test_sweep_refuses_what_the_language_refuses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str
) -> None:
    scenario = _write(tmp_path, "s.kr", SWEEP)
    began = time.process_time()
    code = main(["sweep", str(scenario), "-j", "1", "-q", *args])
    err = capsys.readouterr().err
    assert time.process_time() - began < 10
    assert code == ExitCode.REFUSED and needle in err and "Traceback" not in err, err


# --- 13. what the API server refuses ----------------------------------------------------------

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
"""


@pytest.mark.parametrize(("text", "needle"), [
    (SLICE + "  - name: gpu-0\n  - name: gpu-0\n",
     'field spec.devices[1].name: Duplicate value: "gpu-0"'),
    (SLICE + "  - name: gpu-0\n  - null\n", "field spec.devices[1]: a list item is null"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: c\n"
     "    resources: {claims: [{name: gpu}]}\n",
     'field spec.containers[0].resources.claims[0]: Not found: "gpu": must be one of the '
     "names in pod.spec.resourceClaims which is empty"),
    ("apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr}\nspec:\n  limits:\n"
     "  - {type: Container, min: {cpu: '2'}, max: {cpu: '1'}}\n",
     'field spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max '
     "value 1"),
    ("apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr}\nspec:\n  limits:\n"
     "  - {type: Container, default: {memory: 2Gi}, max: {memory: 1Gi}}\n",
     # defaultRequest is defaulted from default before validation, and checked first
     'spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi '
     "is greater than max value 1Gi"),
    ("apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr}\nspec:\n  limits:\n"
     "  - {type: Container, default: {memory: 2Gi}, defaultRequest: {memory: 1Gi}, "
     "max: {memory: 1Gi}}\n",
     'spec.limits[0].default[memory]: Invalid value: "2Gi": default value 2Gi is greater '
     "than max value 1Gi"),
])
def test_objects_the_api_server_refuses_are_refused(tmp_path: Path, text: str,
                                                    needle: str) -> None:
    _write(tmp_path, "o.yaml", text)
    e = _refused(f'node n1 cpu=4\ninclude "{tmp_path / "o.yaml"}"\n')
    assert needle in e.message, e.message


@pytest.mark.parametrize(("args", "needle"), [
    ("{name: DefaultPreemption, args: {minCandidateNodesPercentage: 300}}",
     "args.minCandidateNodesPercentage: Invalid value: 300: not in valid range [0, 100]"),
    ("{name: DefaultPreemption, args: {minCandidateNodesAbsolute: -5}}",
     "args.minCandidateNodesAbsolute: Invalid value: -5: not in valid range [0, inf)"),
    ("{name: DefaultPreemption, args: {minCandidateNodesAbsolute: 0, "
     "minCandidateNodesPercentage: 0}}", "cannot be zero at the same time"),
    ("{name: InterPodAffinity, args: {hardPodAffinityWeight: 1000}}",
     "args.hardPodAffinityWeight: Invalid value: 1000: not in valid range [0, 100]"),
    ("{name: PodTopologySpread, args: {defaultingType: List, defaultConstraints: "
     "[{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}}",
     "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"),
    ("{name: NodeResourcesFit, args: {scoringStrategy: {type: LeastAllocated, "
     "resources: [{name: cpu, weight: 1000}]}}}",
     "resource weight of cpu not in valid range (0, 100]"),
    ("{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio, "
     "requestedToCapacityRatio: {shape: [{utilization: 50, score: 11}]}}}}",
     "scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]"),
    ("{name: NodeResourcesBalancedAllocation, args: {resources: [{name: cpu, weight: 2}]}}",
     "args.resources[0].weight: Invalid value: 2: must be 1"),
])
def test_scheduler_plugin_args_out_of_range_are_refused(tmp_path: Path, args: str,
                                                        needle: str) -> None:
    _write(tmp_path, "sc.yaml", SCHED + f"profiles:\n- pluginConfig:\n  - {args}\n")
    e = _refused(f'node n1 cpu=4\nconfig scheduler "{tmp_path / "sc.yaml"}"\n')
    assert needle in e.message, e.message


# --- --explain of a pod that does not exist ----------------------------------------------------

def test_explain_of_an_unknown_pod_is_refused_with_did_you_mean(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(_write(tmp_path, "s.kr", OK))
    code, err = _run(capsys, "--explain", "web1", scenario)
    assert code == ExitCode.REFUSED
    assert "no pod or node called web1" in err and "did you mean 'web-1'?" in err
    assert _run(capsys, "--explain", "web-1", scenario)[0] == ExitCode.OK
    assert _run(capsys, "--explain", "n1", scenario)[0] == ExitCode.OK


# --- found by the 100,000-input campaign ------------------------------------------------------

@pytest.mark.parametrize("value", ["9" * 300, "2147483648"])
def test_a_spread_max_skew_beyond_int32_is_refused(value: str) -> None:
    e = _refused(f"node n1 cpu=4\npod p labels(a=b) {{\n  spread max-skew={value} topology=zone "
                 "selector(a=b)\n}\n")
    assert "max-skew must be at most 2147483647" in e.message


def test_an_integer_beyond_int64_is_refused_everywhere() -> None:
    e = _refused("node n1 cpu=4 pid-max=" + "9" * 5000 + "\n")
    assert "must be at most 9223372036854775807" in e.message and len(e.message) < 200


def test_pod_status_conditions_of_the_wrong_type_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"
                               "spec: {nodeName: n1, containers: [{name: c}]}\n"
                               "status: {phase: Running, conditions: 9223372036854775808}\n")
    e = _refused(f'node n1 cpu=4\nat 5s apply "{tmp_path / "p.yaml"}"\n')
    assert "field status.conditions: expected a list" in e.message
