"""A pod the kubelet refuses was bound first: its nomination ended with the binding."""

from __future__ import annotations

import kruleset


def test_a_pod_the_kubelet_refuses_after_preempting_keeps_no_nomination(tmp_path) -> None:
    # NodeAffinity disabled in the scheduler: the pod preempts on a node its
    # nodeSelector does not match, is bound there and refused by the kubelet.
    # The binding ended its nomination (kube-scheduler v1.35.4 reports none), so
    # it holds no room afterwards.
    cfg = tmp_path / "sched.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\nprofiles:\n"
                   "  - schedulerName: default-scheduler\n    plugins:\n"
                   "      multiPoint:\n        disabled:\n          - name: NodeAffinity\n")
    text = (f'config scheduler "{cfg}"\npriorityclass high value=10000\n'
            "node n2 cpu=2 memory=8Gi\npod p4 on n2 requests(cpu=1500m) grace-period=0\n"
            "at 1s create pod in3 priorityclass=high requests(cpu=2) node-selector(disk=hdd)\n")
    result = kruleset.run(kruleset.load(text))
    ps = result.state.pods["default/in3"]
    assert ps.outcome == "rejected"
    assert ps.nominated is None
    assert not result.state.nominations
