# Seed 003 §1 (kube-scheduler), §3 (pod overhead), §4 (scheduling gates), §7 (framework).
Feature: The scheduler, pod overhead, scheduling gates and the framework (seed 003 §1, §3, §4, §7)

  # B-003-01-01
  # B-003-01-05
  Scenario: B-003-01-01 a newly created pod is placed on a suitable node and bound there
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      at 5s create pod web requests(cpu=1)
      expect pod web running on n1
      """
    Then the expectations hold

  # B-003-01-02
  # B-003-01-03
  # B-003-07-02
  # B-003-07-04
  Scenario: B-003-01-02 with no feasible node the pod stays unscheduled until a node can take it
    Given the scenario:
      """
      node small cpu=1 memory=8Gi
      pod big requests(cpu=4)
      at 10s expect pod big pending reason="0/1 nodes are available: 1 Insufficient cpu."
      at 20s create node large cpu=8 memory=8Gi
      expect pod big running on large
      """
    Then the expectations hold

  # B-003-01-04
  # B-003-07-10
  Scenario: B-003-01-04 the highest score wins; among equal scores kruleset takes the node declared first
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi
      node n3 cpu=8 memory=16Gi
      pod a requests(cpu=2, memory=2Gi)
      pod b requests(cpu=2, memory=2Gi) node-selector(size=small)
      at 1s label node n1 size=small
      at 1s label node n2 size=small
      expect pod a running on n3
      expect pod b running on n1
      """
    Then the expectations hold

  # B-003-01-06
  # B-003-07-20
  Scenario: B-003-01-06 a scheduler profile can disable a plugin
    Given the scenario:
      """
      config scheduler "no-taint-filter.yaml"
      node tainted cpu=4 memory=8Gi taints(key1=value1:NoSchedule)
      pod p
      expect pod p running on tainted
      """
    Then the expectations hold

  # B-003-03-01
  # B-003-03-02
  # B-003-03-03
  # B-003-03-06
  # B-003-03-07
  # test-pod's containers have limits 500m/100Mi and 1500m/100Mi (requests default
  # to them, 2000m/200Mi); with kata-fc's overhead the scheduler needs 2250m and
  # 320Mi, exactly node fits' allocatable.  The cgroup sizes of B-003-03-06/07
  # (sum of limits or requests plus overhead) are not simulated.
  Scenario: B-003-03-03 the scheduler adds the RuntimeClass overhead to the container requests
    Given the scenario:
      """
      runtimeclass kata-fc overhead(cpu=250m, memory=120Mi)
      node short cpu=2200m memory=8Gi
      node fits cpu=2250m memory=320Mi
      pod test-pod runtimeclass=kata-fc {
        container busybox-ctr limits(cpu=500m, memory=100Mi)
        container nginx-ctr limits(cpu=1500m, memory=100Mi)
      }
      pod nothing-left requests(memory=1Mi) node-selector(kubernetes.io/hostname=fits)
      expect pod test-pod running on fits
      expect pod test-pod qos=Guaranteed
      expect pod nothing-left pending reason="0/2 nodes are available: 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector."
      """
    Then the expectations hold

  # B-003-03-04
  # B-003-03-05
  # The quota's used total counts the requests plus the overhead (seed 003 §3);
  # the kubelet compares usage with the same requests when ranking for eviction.
  Scenario: B-003-03-04 quota accounting counts requests plus overhead
    Given the scenario:
      """
      runtimeclass kata-fc overhead(cpu=250m, memory=120Mi)
      node n1 cpu=8 memory=8Gi
      quota team min(cpu=4, memory=4Gi) max(cpu=8, memory=8Gi)
      pod team/test-pod runtimeclass=kata-fc requests(cpu=2, memory=200Mi)
      expect pod team/test-pod running on n1
      expect quota team used(cpu=2250m, memory=320Mi)
      """
    Then the expectations hold

  # B-003-04-01
  # B-003-04-04
  # B-003-07-03
  # Gated pods are told apart from unschedulable ones by their status
  # (SchedulingGated), as the queue="gated" metric label does upstream.
  Scenario: B-003-04-01 a pod with scheduling gates is SchedulingGated, not Unschedulable
    Given the scenario:
      """
      node node-1 cpu=4 memory=8Gi
      pod test-pod gates(example.com/foo, example.com/bar)
      pod other requests(cpu=8)
      expect pod test-pod pending reason="SchedulingGated"
      expect pod other pending reason="Insufficient cpu"
      """
    Then the expectations hold

  # B-003-04-02
  # B-003-04-03
  Scenario: B-003-04-03 once every gate is removed, in any order, the pod is scheduled
    Given the scenario:
      """
      node node-1 cpu=4 memory=8Gi
      node node-2 cpu=4 memory=8Gi
      pod busy on node-1 requests(cpu=2)
      pod test-pod gates(example.com/foo, example.com/bar)
      at 10s ungate pod test-pod example.com/bar
      at 15s expect pod test-pod pending reason="SchedulingGated"
      at 20s ungate pod test-pod example.com/foo
      expect pod test-pod running on node-2
      """
    Then the expectations hold

  # B-003-04-05
  # B-003-04-06
  # B-003-04-07
  # B-003-04-08
  # The language has no statement that updates a pod's spec, so the API
  # server's tightening-only validation of a gated pod is not simulated; this
  # shows the directives a gated pod was created with apply once it is ungated.
  Scenario: B-003-04-06 a gated pod's nodeSelector and node affinity decide once it is ungated
    Given the scenario:
      """
      node a cpu=4 memory=8Gi labels(disk=ssd, zone=z1)
      node b cpu=4 memory=8Gi labels(disk=ssd, zone=z2)
      node c cpu=4 memory=8Gi labels(disk=hdd, zone=z2)
      pod gated gates(example.com/foo) node-selector(disk=ssd) {
        affinity node required zone=z2
        affinity node preferred weight=10 disk=hdd
      }
      at 10s ungate pod gated example.com/foo
      expect pod gated running on b
      """
    Then the expectations hold

  # B-003-07-01
  # B-003-07-05
  Scenario: B-003-07-05 the queue takes the higher priority first; each cycle sees the previous one's pod
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=4 memory=8Gi
      pod low requests(cpu=3)
      pod high priorityclass=high requests(cpu=3)
      pod small requests(cpu=1)
      expect pod high running on n1
      expect pod small running on n1
      expect pod low pending reason="0/1 nodes are available: 1 Insufficient cpu."
      """
    Then the expectations hold

  # B-003-07-07
  # v1.35 wording for TaintToleration ("untolerated taint(s)"); the seed quotes an older one.
  Scenario: B-003-07-07 filters run in order and the first failure is the node's reason
    Given the scenario:
      """
      node n1 cpu=1 memory=8Gi taints(key1=value1:NoSchedule)
      node n2 cpu=1 memory=8Gi unschedulable taints(key1=value1:NoSchedule)
      pod p requests(cpu=2)
      expect pod p pending reason="0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable."
      """
    Then the expectations hold

  # B-003-07-08
  Scenario: B-003-07-08 PostFilter (preemption) runs only when no node is feasible
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi
      pod low-1 on n1 requests(cpu=3)
      pod high-1 priorityclass=high requests(cpu=1)
      expect pod high-1 running on n2
      expect pod low-1 not preempted
      """
    Then the expectations hold

  # B-003-07-11
  # NodeAffinity's preferred weight (1 or 100) is normalised to 0-100 before its
  # plugin weight (2) applies, so weight 1 counts as much as weight 100 would.
  Scenario: B-003-07-11 each plugin's scores are normalised before they are combined
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(pick=me)
      node n2 cpu=4 memory=8Gi
      pod busy on n1 requests(cpu=3, memory=6Gi)
      pod p requests(cpu=100m) {
        affinity node preferred weight=1 pick=me
      }
      expect pod p running on n1
      """
    Then the expectations hold

  # B-003-07-10
  Scenario: B-003-07-10 plugin weights from the configuration change the combination
    Given the scenario:
      """
      config scheduler "affinity-weight.yaml"
      node n1 cpu=4 memory=8Gi labels(pick=me)
      node n2 cpu=4 memory=8Gi
      pod busy on n1 requests(cpu=3, memory=6Gi)
      pod p requests(cpu=100m) {
        affinity node preferred weight=1 pick=me
      }
      expect pod p running on n2
      """
    Then the expectations hold

  # B-003-07-06
  # B-003-07-09
  # B-003-07-12
  # B-003-07-13
  # B-003-07-14
  # B-003-07-15
  # B-003-07-16
  # B-003-07-17
  # B-003-07-18
  # B-003-07-19
  # kruleset's built-in plugins never fail at PreFilter, PreScore, Reserve,
  # Permit, PreBind or Bind, and have no Permit waits: a cycle that finds a node
  # always binds it (DefaultBinder), and an aborted cycle puts the pod back in
  # the queue to be retried on the next change.
  Scenario: B-003-07-12 a cycle that chose a node goes on to bind it; the others are retried
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      pod first requests(cpu=2)
      pod second requests(cpu=2)
      at 5s expect pod first running on n1
      at 5s expect pod second pending
      at 10s delete pod first grace-period=0s
      expect pod second running on n1
      """
    Then the expectations hold
