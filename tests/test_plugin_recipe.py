"""ARCHITECTURE.md's recipe for a scheduler plugin from outside kruleset, followed to the letter.

The test writes the files the recipe names, and only those, into a fresh
folder (a package with its rules and the module registering them), loads the
package as the recipe says (``--rules``, or ``KRULESET_RULES`` as an installed
package's entry point would be) and checks that a KubeSchedulerConfiguration
enables the plugin by name, that the plugin decides, and that with every fast
path on it decides as with all of them off, on the preemption generator's
clusters where its filter rejects nodes (the filter declares no fast form:
the fast paths must step aside for it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_files import python_with_plugins
from test_preemption_fastpath import scenario

ROOT = Path(__file__).resolve().parent.parent

RULES_PY = '''\
"""AppAQuota's rules: at most two app=a pods per node; fewer pods score higher."""
import kruleset
from kruleset.rules.scheduler.node_selection import node_pods


def crowded(ctx, args, pod, node):
    if pod.labels.get("app") != "a":
        return None
    # The node's pods as a preemption dry run sees them (victims taken away).
    if sum(1 for ps in node_pods(ctx, node) if ps.pod.labels.get("app") == "a") >= 2:
        return kruleset.Failure("node(s) already run two app=a pods")
    return None


def fewer_pods(ctx, args, pod, node):
    return max(0, 10 - len(node.pods)) * 10


def fewer_pods_all(ctx, args, pod, nodes):
    return [fewer_pods(ctx, args, pod, n) for n in nodes]
'''

INIT_PY = '''\
"""The AppAQuota scheduler plugin: its rules, registered; the plugin, named."""
import kruleset
from kruleset.rules.scheduler.config import register_plugin

from .rules import crowded, fewer_pods, fewer_pods_all

kruleset.register(kruleset.Rule("myorg.filter.AppAQuota", doc="At most two app=a pods per node.",
                                source="myplugin/rules.py", fn=crowded, enabled=False),
                  "scheduler.filter")
kruleset.register(kruleset.Rule("myorg.score.AppAQuota", doc="Fewer pods, higher score.",
                                source="myplugin/rules.py", fn=fewer_pods, enabled=False,
                                batch=fewer_pods_all),
                  "scheduler.score")
register_plugin("AppAQuota", {"filter": ("myorg.filter.AppAQuota",),
                              "score": ("myorg.score.AppAQuota",)})
'''

PLUGIN_FILES = {"myplugin/rules.py": RULES_PY, "myplugin/__init__.py": INIT_PY}

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        enabled:
          - name: AppAQuota
"""

SMALL = """\
config scheduler "sched.yaml"
node node-1 cpu=8 memory=16Gi
node node-2 cpu=4 memory=8Gi
pod a1 on node-1 requests(cpu=1) labels(app=a)
pod a2 on node-1 requests(cpu=1) labels(app=a)
pod b on node-2 requests(cpu=3)
pod a3 requests(cpu=1) labels(app=a)
expect pod a3 running on node-2
"""

# Runs each file with every fast path on and off; prints the files that differ,
# then how many nodes the plugin's filter rejected and how many pods were preempted.
DRIVER = """\
import json
import sys

import attrs

import kruleset
from kruleset.rules.scheduler.framework import FastPaths
from kruleset.sim.core import Simulation

NONE = FastPaths(**{k: False for k in attrs.asdict(FastPaths())})
differ, rejected, preempted = [], 0, 0
for path in sys.argv[1:]:
    runs = []
    for fast in (NONE, FastPaths()):
        sim = Simulation(kruleset.load(path), fast=fast, trace=True)
        sim.run()
        runs.append(([d.to_json() for d in sim.decisions],
                     [(e.rule, e.subject, e.result, e.why) for e in sim.trace.entries]))
    if runs[0] != runs[1]:
        differ.append(path)
    rejected += sum(1 for e in runs[1][1] if e[0] == "myorg.filter.AppAQuota" and e[2] == "fail")
    preempted += sum(1 for d in runs[1][0] if d["kind"] == "preempted")
print(json.dumps([differ, rejected, preempted]))
"""


def _recipe_files() -> set[str]:
    """The files ARCHITECTURE.md's recipe for a plugin from outside names."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    recipe = text.split("- A scheduler plugin from outside kruleset", 1)[1].split("\n- ", 1)[0]
    return set(re.findall(r"`(myplugin/[\w./]+)`", recipe))


def test_the_recipe_names_the_files_written_here() -> None:
    assert _recipe_files() == set(PLUGIN_FILES)


def test_a_plugin_made_by_the_recipe_is_enabled_by_name_and_decides(tmp_path: Path) -> None:
    for name, body in PLUGIN_FILES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    (tmp_path / "sched.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "s.kr").write_text(SMALL, encoding="utf-8")
    (tmp_path / "off.kr").write_text(SMALL.replace('config scheduler "sched.yaml"\n', ""),
                                     encoding="utf-8")
    cli = ["-m", "kruleset", "run"]
    done = python_with_plugins([*cli, "--rules", "myplugin", "s.kr"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # Registered but not enabled by the configuration: a3 goes where the defaults put it.
    assert python_with_plugins([*cli, "--rules", "myplugin", "off.kr"], tmp_path).returncode == 1
    # Not loaded: the configuration names an unknown plugin.
    unknown = python_with_plugins([*cli, "s.kr"], tmp_path)
    assert unknown.returncode == 2 and "unknown scheduler plugin 'AppAQuota'" in unknown.stderr

    paths = []
    for seed in range(0, 48, 2):
        path = tmp_path / f"gen{seed}.kr"
        path.write_text('config scheduler "sched.yaml"\n' + scenario(seed), encoding="utf-8")
        paths.append(path.name)
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    run = python_with_plugins(["driver.py", *paths], tmp_path, {"KRULESET_RULES": "myplugin"})
    assert run.returncode == 0, run.stderr
    differ, rejected, preempted = json.loads(run.stdout)
    assert differ == []
    assert rejected > 10 and preempted > 10
