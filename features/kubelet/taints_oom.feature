Feature: Taint-based eviction (seed 003 §6) and OOM score adjust (seed 003 §12.8)

  # B-003-06-07 B-003-06-10 B-003-06-08
  Scenario: B-003-06-10 tolerationSeconds 3600 keeps the pod 3600s after the taint appears
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi
      pod a on n1 tolerations(key1=value1:NoExecute for 3600s)
      pod b on n1 tolerations(key1=value1:NoExecute for 3600s)
      pod c on n1
      at 10s taint node n1 key1=value1:NoExecute
      at 10s expect pod c evicted reason=Taint
      at 100s untaint node n1 key1:NoExecute
      at 200s taint node n1 key1=value1:NoExecute
      at 3609s expect pod a running
      at 3800s expect pod a evicted reason=Taint
      """
    Then the expectations hold

  # B-003-06-13 B-003-06-14 B-003-06-16 B-003-06-17
  # DefaultTolerationSeconds: pods get not-ready and unreachable for 300s unless they set their own.
  Scenario: B-003-06-14 a not-ready node evicts pods after the default 300s, daemon-style pods stay
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi
      pod web on n1
      pod daemon on n1 tolerations(node.kubernetes.io/not-ready:NoExecute, node.kubernetes.io/unreachable:NoExecute)
      pod patient on n1 tolerations(node.kubernetes.io/not-ready:NoExecute for 6000s)
      run until 2h
      at 10s node n1 not-ready
      at 10s expect node n1 taint node.kubernetes.io/not-ready:NoExecute
      at 309s expect pod web running
      at 310s expect pod web evicted reason=Taint
      expect pod daemon running
      expect pod patient evicted reason=Taint
      """
    Then the expectations hold

  # B-003-06-04 B-003-06-09: nodeName bypasses the scheduler, not the kubelet's NoExecute check.
  Scenario: B-003-06-04 a pod bound by name to a NoExecute-tainted node is refused by the kubelet
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi taints(key1=value1:NoSchedule, key1=value1:NoExecute, key2=value2:NoSchedule)
      at 5s create pod a on n1 tolerations(key1=value1:NoSchedule)
      at 5s create pod b on n1 tolerations(key1=value1:NoSchedule, key1=value1:NoExecute)
      expect pod a rejected reason="TaintToleration"
      expect pod b running on n1
      """
    Then the expectations hold

  # B-003-12-40 B-003-12-39 B-003-12-41 B-003-12-42: the table; the Burstable formula with integer
  # division and upstream's clamp to [3, 999] (the document's lower bound 2 is older).
  # Only the score is observable; the kernel's OOM kill and restarts are not modelled.
  Scenario: B-003-12-40 oom_score_adj by QoS class
    Given the scenario:
      """
      node n1 cpu=8 memory=10Gi
      pod g on n1 requests(cpu=1, memory=1Gi) limits(cpu=1, memory=1Gi)
      pod be on n1
      pod bu on n1 requests(memory=1Gi)
      pod huge on n1 requests(memory=9.99Gi)
      pod tiny on n1 requests(memory=1)
      pod kube-system/node-agent on n1 priorityclass=system-node-critical
      pod kube-system/cluster-agent on n1 priorityclass=system-cluster-critical
      expect pod g oom-score-adj=-997
      expect pod be oom-score-adj=1000
      expect pod bu oom-score-adj=900
      expect pod huge oom-score-adj=3
      expect pod tiny oom-score-adj=999
      expect pod kube-system/node-agent oom-score-adj=-997
      expect pod kube-system/cluster-agent oom-score-adj=1000
      """
    Then the expectations hold
