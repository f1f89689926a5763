# Seed 003 §6: taints and tolerations, as the scheduler sees them.
Feature: Taints and tolerations in scheduling (seed 003 §6)

  # Wording: the seed documents quote older releases ("node(s) had untolerated
  # taint {key1: value1}", "had taint {k: v}, that the pod didn't tolerate");
  # v1.35 wins: its TaintToleration filter says "node(s) had untolerated
  # taint(s)", naming no taint, so nodes failing for different taints are one count.

  # B-003-06-01
  # B-003-06-05
  Scenario: B-003-06-01 a toleration allows a tainted node but does not guarantee it
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi taints(key1=value1:NoSchedule)
      node node2 cpu=4 memory=8Gi
      pod busy on node1 requests(cpu=2)
      pod tolerant tolerations(key1=value1:NoSchedule) requests(cpu=1)
      pod plain requests(cpu=3)
      pod plain2 requests(cpu=1)
      expect pod tolerant running on node2
      expect pod busy running on node1
      expect pod plain running on node2
      expect pod plain2 pending reason="0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)."
      """
    Then the expectations hold

  # B-003-06-02
  Scenario: B-003-06-02 kubectl taint adds key1=value1:NoSchedule; removing it lets the pod in
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi
      at 1s taint node node1 key1=value1:NoSchedule
      at 2s create pod p
      at 5s expect pod p pending reason="0/1 nodes are available: 1 node(s) had untolerated taint(s)."
      at 10s untaint node node1 key1:NoSchedule
      expect pod p running on node1
      """
    Then the expectations hold

  # B-003-06-03
  Scenario: B-003-06-03 Equal with the value, or Exists without one, both match key1=value1:NoSchedule
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi taints(key1=value1:NoSchedule)
      pod equal tolerations(key1=value1:NoSchedule)
      pod exists tolerations(key1:NoSchedule)
      pod every-effect tolerations(key1=value1)
      pod everything tolerations(*)
      pod wrong-value tolerations(key1=value2:NoSchedule)
      pod wrong-effect tolerations(key1=value1:NoExecute)
      expect pod equal running on node1
      expect pod exists running on node1
      expect pod every-effect running on node1
      expect pod everything running on node1
      expect pod wrong-value pending reason="untolerated taint(s)"
      expect pod wrong-effect pending reason="untolerated taint(s)"
      """
    Then the expectations hold

  # B-003-06-04
  Scenario: B-003-06-04 a pod with nodeName is bound even to a node with a NoSchedule taint
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi taints(key1=value1:NoSchedule)
      at 1s create pod direct on node1
      expect pod direct running on node1
      """
    Then the expectations hold

  # B-003-06-05
  Scenario: B-003-06-05 NoSchedule does not evict the pods already running
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi
      pod old on node1
      at 10s taint node node1 key1=value1:NoSchedule
      at 20s create pod new
      expect pod old running on node1
      expect pod new pending reason="untolerated taint(s)"
      """
    Then the expectations hold

  # B-003-06-06
  Scenario: B-003-06-06 PreferNoSchedule is avoided when possible, but not guaranteed
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi taints(key1=value1:PreferNoSchedule)
      node node2 cpu=4 memory=8Gi
      pod first requests(cpu=3)
      pod second requests(cpu=3)
      expect pod first running on node2
      expect pod second running on node1
      """
    Then the expectations hold

  # B-003-06-08
  # B-003-06-09
  Scenario: B-003-06-09 the three-taint node1: key2=value2:NoSchedule stays untolerated
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi
      pod running-before on node1 tolerations(key1=value1:NoSchedule, key1=value1:NoExecute)
      at 1s taint node node1 key1=value1:NoSchedule
      at 1s taint node node1 key1=value1:NoExecute
      at 1s taint node node1 key2=value2:NoSchedule
      at 2s create pod new tolerations(key1=value1:NoSchedule, key1=value1:NoExecute)
      expect pod new pending reason="0/1 nodes are available: 1 node(s) had untolerated taint(s)."
      expect pod running-before running on node1
      """
    Then the expectations hold

  # B-003-06-08
  Scenario: B-003-06-08 a NoExecute taint also keeps new pods off; PreferNoSchedule only when nothing else fits
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi taints(key1=value1:NoExecute)
      node node2 cpu=4 memory=8Gi taints(key2=value2:PreferNoSchedule)
      pod p
      pod q tolerations(key2:PreferNoSchedule) node-selector(kubernetes.io/hostname=node1)
      expect pod p running on node2
      expect pod q pending reason="0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s)."
      """
    Then the expectations hold

  # B-003-06-07
  # B-003-06-10
  Scenario: B-003-06-10 tolerationSeconds 3600 keeps a running pod for an hour after a NoExecute taint
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi
      pod stays on node1 tolerations(key1=value1:NoExecute)
      pod hour on node1 tolerations(key1=value1:NoExecute for 3600s)
      pod gone on node1
      at 10s taint node node1 key1=value1:NoExecute
      at 20s expect pod gone evicted
      at 3000s expect pod hour running on node1
      expect pod hour evicted
      expect pod stays running on node1
      """
    Then the expectations hold

  # B-003-06-11
  Scenario: B-003-06-11 dedicated nodes: the toleration opens them, node affinity keeps the group there
    Given the scenario:
      """
      node dedicated-1 cpu=4 memory=8Gi labels(dedicated=groupName) taints(dedicated=groupName:NoSchedule)
      node general cpu=4 memory=8Gi
      pod busy on dedicated-1 requests(cpu=2)
      pod member tolerations(dedicated=groupName:NoSchedule)
      pod kept tolerations(dedicated=groupName:NoSchedule) node-selector(dedicated=groupName)
      pod outsider
      expect pod member running on general
      expect pod kept running on dedicated-1
      expect pod outsider running on general
      """
    Then the expectations hold

  # B-003-06-12
  # The ExtendedResourceToleration admission plugin (off by default) would add
  # the toleration for pods requesting example.com/gpu; here the pod carries it.
  Scenario: B-003-06-12 special hardware nodes keep pods that do not need the hardware away
    Given the scenario:
      """
      node gpu-1 cpu=4 memory=8Gi example.com/gpu=2 taints(example.com/gpu=true:NoSchedule)
      node cpu-1 cpu=1 memory=8Gi
      pod trainer requests(cpu=1, example.com/gpu=1) tolerations(example.com/gpu:NoSchedule)
      pod web requests(cpu=2)
      expect pod trainer running on gpu-1
      expect pod web pending reason="0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)."
      """
    Then the expectations hold

  # B-003-06-18
  # B-003-06-19
  # The memory-pressure toleration the documentation says non-BestEffort pods get
  # comes from the PodTolerationRestriction admission plugin, which upstream does
  # not enable by default; the pod here carries it as that plugin would add it.
  # v1.35: the disk-pressure and memory-pressure nodes fail for different taints
  # and are counted together (older releases listed each taint apart).
  Scenario: B-003-06-18 the scheduler checks the condition taints: disk-pressure keeps new pods off
    Given the scenario:
      """
      node disk cpu=4 memory=8Gi ephemeral-storage=100Gi
      node mem cpu=4 memory=8Gi ephemeral-storage=100Gi
      at 0s usage node disk nodefs.available=5Gi
      at 0s usage node mem memory.available=50Mi
      at 25s create pod besteffort
      at 25s create pod burstable requests(cpu=100m) tolerations(node.kubernetes.io/memory-pressure:NoSchedule)
      at 25s expect node disk taint node.kubernetes.io/disk-pressure:NoSchedule
      at 25s expect pod besteffort pending reason="0/2 nodes are available: 2 node(s) had untolerated taint(s)."
      at 25s expect pod burstable running on mem
      """
    Then the expectations hold

  # B-003-06-20
  Scenario: B-003-06-20 daemon pods tolerate the pressure, unschedulable and network-unavailable taints
    Given the scenario:
      """
      node sick cpu=4 memory=8Gi unschedulable taints(node.kubernetes.io/memory-pressure:NoSchedule, node.kubernetes.io/disk-pressure:NoSchedule, node.kubernetes.io/pid-pressure:NoSchedule, node.kubernetes.io/network-unavailable:NoSchedule)
      pod agent tolerations(node.kubernetes.io/memory-pressure:NoSchedule, node.kubernetes.io/disk-pressure:NoSchedule, node.kubernetes.io/pid-pressure:NoSchedule, node.kubernetes.io/unschedulable:NoSchedule, node.kubernetes.io/network-unavailable:NoSchedule)
      pod app
      expect pod agent running on sick
      expect pod app pending reason="0/1 nodes are available: 1 node(s) were unschedulable."
      """
    Then the expectations hold
