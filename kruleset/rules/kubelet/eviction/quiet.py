"""The quiet kubelet pass: a pass that is certain to decide nothing, without its steps.

A large cluster's every node takes its first eviction-manager pass at 0s;
on 65,000 nodes running the pipeline for each was seconds before the first
scheduling decision.  :func:`quiet_pass` answers for the nodes it can prove
idle and leaves the others to :func:`kruleset.rules.kubelet.eviction.manager.eviction_pass`
(``tests/test_kubelet_idle_pass.py`` compares both).
"""

from __future__ import annotations

from kruleset.model.config import KubeletConfig
from kruleset.model.state import ClusterState, NodeState
from kruleset.rules.engine import Trace
from kruleset.rules.profile import Profile

from .manager import PASS, PassResult, default_steps, manager_state
from .signals import Layout, observe
from .thresholds import effective_thresholds, threshold_signals, thresholds_met

__all__ = ["quiet_pass"]


def quiet_pass(state: ClusterState, node: NodeState, config: KubeletConfig, now: int, *,
               profile: Profile, trace: Trace | None = None) -> PassResult | None:
    """The pass :func:`eviction_pass` would run now on a node with nothing to remember, cheaply.

    None unless it is certain to decide nothing: no trace is kept, the
    profile runs the default steps, the manager remembers nothing of the
    node (no threshold met, timing or held: its first pass, typically, at
    time 0 on every node of a large cluster), no threshold is met by what is
    observed now, and no active pod could break a local-storage limit (none
    has an emptyDir or an ephemeral-storage limit).  Then the steps would
    only record the observations' time and end at local-storage with "no
    threshold due"; that is done here without running them, and the node
    is marked idle as :func:`eviction_pass` marks it.
    """
    if trace is not None:
        return None
    st = manager_state(node)
    if st.thresholds_met or st.first_observed or st.last_observed:
        return None
    active = profile.active(PASS.name)
    if not default_steps(active):
        return None
    for ps in node.pods.values():
        pod = ps.pod
        if (pod.emptydirs or pod.limits.ephemeral_storage) and not ps.terminating:
            return None
    if st.config is not config:
        st.config = config
        st.thresholds = effective_thresholds(config)
        st.layout = Layout(config.filesystems, node)
    assert st.layout is not None
    obs = observe(node, st.layout, threshold_signals(st.thresholds))
    if thresholds_met(st.thresholds, obs, False):
        return None
    st.conditions = []
    last = st.last_obs_time
    for signal in obs:
        last[signal] = now
    st.last_pass = now
    st.idle = True
    st.idle_signals = tuple(obs)
    st.idle_node = node.node
    return PassResult(node.name, now, ())
