Feature: Scheduler preemption, from a pod that fits nowhere to its binding (seed 002 §1, §3, §7; seed 003 §11.4)
  When no node fits a pod, the DefaultPreemption PostFilter looks for one node where
  removing lower-priority pods makes room, deletes them with their grace period,
  nominates the node for the pod, and the pod binds once they are gone.

  # B-002-01-01 B-002-01-05 B-002-03-02 B-002-07-02 B-003-11-13 B-003-11-14 B-003-11-22
  # B-002-01-03: a class maps a name to a value and a policy; the pod names it.
  Scenario: B-002-01-01 a pod that fits nowhere preempts a lower-priority pod and binds after its grace period
    Given the scenario:
      """
      priorityclass high-priority value=1000000 description="for the web tier"
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      at 10s create pod web priorityclass=high-priority requests(cpu=1)
      at 10s expect pod web nominated n1
      at 10s expect pod low terminating
      at 10s expect pod web pending reason="0/1 nodes are available: 1 Insufficient cpu."
      at 39s expect pod web pending
      at 40s expect pod web running on n1
      expect pod low preempted by default/web
      expect victims of default/web = [default/low]
      expect pod web priority=1000000 preemption=PreemptLowerPriority
      """
    Then the expectations hold

  # B-002-01-01: a pod that fits is bound without any preemption.
  Scenario: B-002-01-01 no preemption when a node fits
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=500m)
      at 10s create pod web priority=1000 requests(cpu=1)
      expect pod web running on n1
      expect pod low not preempted
      expect victims of default/web = []
      """
    Then the expectations hold

  # B-002-01-02: the default profile has one PostFilter plugin, DefaultPreemption; when it
  # finds no node the pod stays Unschedulable with the plugin's message.
  Scenario: B-002-01-02 when no PostFilter plugin nominates a node the pod stays unschedulable
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod peer on n1 priority=1000 requests(cpu=1500m)
      at 10s create pod web priority=1000 requests(cpu=1)
      expect pod web pending reason="preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
      expect pod peer not preempted
      """
    Then the expectations hold

  # B-002-07-01 B-003-11-17 B-003-11-23: victims get their own grace period (30s by default);
  # the gap closes sooner with a short grace period.
  Scenario: B-003-11-17 victims keep their grace period, so the preemptor waits that long
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      node n2 cpu=2 memory=4Gi
      pod slow on n1 priority=10 requests(cpu=1500m)
      pod quick on n2 priority=10 requests(cpu=1500m) grace-period=2s
      at 10s create pod a priority=1000 requests(cpu=1500m)
      at 10s create pod b priority=1000 requests(cpu=1500m)
      at 12s expect pod b running on n2
      at 12s expect pod a pending
      at 39s expect pod slow terminating
      at 40s expect pod a running on n1
      expect victims of default/a = [default/slow]
      expect victims of default/b = [default/quick]
      """
    Then the expectations hold

  # B-003-11-17 B-002-07-01: with grace period 0 the preemptor binds in the same instant.
  Scenario: B-003-11-17 a zero grace period closes the gap
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m) grace-period=0s
      at 10s create pod web priority=1000 requests(cpu=1)
      at 10s expect pod web running on n1
      """
    Then the expectations hold

  # B-003-11-15: another node frees up while the victims terminate; nominatedNodeName and
  # nodeName then differ.
  Scenario: B-003-11-15 the preemptor binds elsewhere when another node frees up first
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      node n2 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      pod busy on n2 priority=5000 requests(cpu=1500m)
      at 10s create pod web priority=1000 requests(cpu=1)
      at 10s expect pod web nominated n1
      at 20s delete pod busy grace-period=0s
      at 20s expect pod web running on n2
      expect pod low preempted by default/web
      """
    Then the expectations hold

  # B-003-11-16 B-003-11-24 B-002-07-02: a higher-priority pod arriving meanwhile takes the
  # node; the first preemptor preempts elsewhere.  v1.35 (checked with the timeline oracle):
  # urgent's preemption deletes nothing (low is already terminating), so its asynchronous
  # preemption does not run and p keeps its nomination until low is gone at 40s; then urgent
  # binds, p is retried, preempts mid on n2 and binds when mid is gone at 70s.
  Scenario: B-003-11-16 a higher-priority pod arriving while the victims terminate takes the node
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      node n2 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      pod mid on n2 priority=500 requests(cpu=1500m)
      at 10s create pod p priority=1000 requests(cpu=1500m)
      at 10s expect pod p nominated n1
      at 15s create pod urgent priority=2000 requests(cpu=1500m)
      at 15s expect pod urgent nominated n1
      at 15s expect pod p nominated n1
      at 40s expect pod urgent running on n1
      at 40s expect pod p nominated n2
      at 69s expect pod p pending
      at 70s expect pod p running on n2
      expect pod p attempts=3
      # p's first preemption (low) counts too: both were deleted for it
      expect victims of default/p = [default/low, default/mid]
      expect victims of default/urgent = [default/low]
      """
    Then the expectations hold

  # B-002-07-03: nominated pods of higher or equal priority hold their room when others are
  # filtered; lower-priority nominees are ignored.
  Scenario: B-002-07-03 a nominated pod's room is kept from equal- and lower-priority pods
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      at 10s create pod p priority=1000 requests(cpu=1500m)
      at 11s create pod same priority=1000 requests(cpu=1)
      at 11s create pod small priority=100 requests(cpu=500m)
      # same: even without low, p's reserved 1500m leaves no room
      at 11s expect pod same pending reason="preemption: 0/1 nodes are available: 1 Insufficient cpu."
      # small fits beside p once low is gone: it waits for the same victim
      at 11s expect pod small nominated n1
      at 40s expect pod p running on n1
      at 40s expect pod small running on n1
      expect pod same pending
      """
    Then the expectations hold

  # B-002-08-01 B-003-11-22: the victim's event carries reason Preempted and names the
  # preemptor and the node. B-002-08-02: kruleset keeps no metrics; the decisions report
  # has one "nominated" decision per successful attempt and lists every victim.
  Scenario: B-002-08-01 the victim's Preempted event names the preemptor and the node
    Given the scenario:
      """
      node worker cpu=2 memory=4Gi
      pod batch on worker priority=10 requests(cpu=2)
      at 10s create pod api priority=1000 requests(cpu=1)
      expect pod batch preempted by default/api
      expect victims of default/api = [default/batch]
      """
    Then the expectations hold
    And expect pod batch preempted
