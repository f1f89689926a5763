"""DynamicResources' PostFilter for pods without claims, and how PostFilter reasons join.

Every expected message is kube-scheduler v1.35.4's (checked with the oracle).
"""

from __future__ import annotations

from pathlib import Path

import kruleset
from kruleset.model.config import PluginSet, SchedulerConfig
from kruleset.rules.scheduler.config import profile_for
from kruleset.rules.scheduler.preemption.postfilter import POSTFILTER

ROOT = Path(__file__).resolve().parent.parent


def _pending_message(text: str, pod: str = "default/p") -> str:
    result = kruleset.run(kruleset.load(text))
    found = [d.message for d in result.decisions if d.pod == pod and d.kind == "pending"]
    assert found, result.decisions
    return found[-1]


FULL = """
node n1 cpu=2 memory=8Gi
node n2 cpu=2 memory=8Gi
pod a on n1 priority=1000 requests(cpu=2)
pod b on n2 priority=1000 requests(cpu=2)
pod p requests(cpu=2)
"""


def test_default_profile_runs_dynamic_resources_before_default_preemption() -> None:
    names = [a.rule.name for a in profile_for(None, quotas_present=False)
             .active(POSTFILTER.name).rules]
    assert names[:2] == ["scheduler.postfilter.DynamicResources",
                         "scheduler.postfilter.DefaultPreemption"]


def test_no_victims_message_joins_both_reasons() -> None:
    assert _pending_message(FULL) == (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")


def test_a_nomination_leaves_the_filters_message_alone() -> None:
    text = """
node n1 cpu=2 memory=8Gi
pod a on n1 requests(cpu=2)
pod p priority=1000 requests(cpu=2)
"""
    assert _pending_message(text) == "0/1 nodes are available: 1 Insufficient cpu."


def test_without_default_preemption_the_message_ends_without_a_full_stop() -> None:
    text = ('config scheduler "features/scheduling/no-default-preemption.yaml"\n' + FULL)
    msg = _pending_message(text.replace('"features/', f'"{ROOT}/features/'))
    assert msg == "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate"


def test_quota_default_configuration_has_capacity_scheduling_alone_at_postfilter() -> None:
    profile = profile_for(None, quotas_present=True)
    names = [a.rule.name for a in profile.active(POSTFILTER.name).rules]
    assert names == ["scheduler.postfilter.CapacityScheduling"]


def test_profiles_disable_the_plugin_like_any_other() -> None:
    cfg = SchedulerConfig(plugins={"postFilter": PluginSet(disabled=("DynamicResources",))})
    names = [a.rule.name for a in profile_for(cfg, quotas_present=False)
             .active(POSTFILTER.name).rules]
    assert names == ["scheduler.postfilter.DefaultPreemption"]
