"""kube-scheduler: one scheduling cycle and the plugins of its default profile.

``framework``/``cycle`` hold the extension points and the cycle, ``defaults``
the v1.35 default profile as data, ``config`` KubeSchedulerConfiguration,
``node_selection`` findNodesThatFitPod, ``filters``/``scores`` one module per
upstream plugin, ``preemption`` the PostFilter plugins' shared evaluator,
``fast`` the caches and batch plans behind the reference path.
"""
