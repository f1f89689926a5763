Feature: Who may preempt (seed 002 §1-§2; seed 003 §11.2)
  PodEligibleToPreemptOthers: preemptionPolicy Never never preempts; a pod already
  nominated to a node where its lower-priority victims are still terminating waits
  for them instead of preempting again.

  # B-002-01-04 B-002-02-01 B-003-11-07 B-003-11-10: a non-preempting pod keeps its place
  # in the queue (ahead of lower-priority pods) but waits until room frees up naturally.
  Scenario: B-002-02-01 a pod with preemptionPolicy Never does not preempt and waits
    Given the scenario:
      """
      priorityclass high-priority-nonpreempting value=1000000 preemption=Never
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      at 10s create pod job priorityclass=high-priority-nonpreempting requests(cpu=1)
      at 10s create pod small priority=5 requests(cpu=1500m)
      at 10s expect pod job pending reason="preemption: not eligible due to preemptionPolicy=Never."
      at 20s delete pod low grace-period=0s
      at 20s expect pod job running on n1
      expect pod low not preempted
      expect pod small pending
      expect victims of default/job = []
      expect pod job priority=1000000 preemption=Never
      """
    Then the expectations hold

  # B-003-11-09: non-preempting pods can themselves be preempted.
  Scenario: B-003-11-09 a non-preempting pod can still be preempted by a higher-priority pod
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod quiet on n1 priority=500 preemption=Never requests(cpu=1500m)
      at 10s create pod urgent priority=1000 requests(cpu=1)
      expect pod quiet preempted by default/urgent
      expect pod urgent running on n1
      """
    Then the expectations hold

  # B-003-11-08: kruleset retries a pending pod when the cluster changes instead of modelling
  # back-off timers, so a lower-priority pod that fits is scheduled while the
  # non-preempting pod waits.
  Scenario: B-003-11-08 lower-priority pods that fit are scheduled while a non-preempting pod waits
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      at 10s create pod big priority=1000 preemption=Never requests(cpu=1)
      at 10s create pod tiny priority=1 requests(cpu=500m)
      expect pod tiny running on n1
      expect pod big pending
      """
    Then the expectations hold

  # B-002-02-03: a pod with the default policy and no nomination is eligible.
  # B-002-01-04: PreemptLowerPriority is the default.
  Scenario: B-002-02-03 a pod with the default policy is eligible
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      at 10s create pod p priorityclass=high requests(cpu=1)
      expect pod p priority=1000 preemption=PreemptLowerPriority
      expect victims of default/p = [default/low]
      """
    Then the expectations hold

  # B-002-02-02: a nominated pod whose victims are still terminating does not preempt again.
  # v1.35's queue retries p at 11s for tiny's deletion (NodeResourcesFit's hint queues it for a
  # deleted assigned pod); a node label alone is no event NodeResourcesFit registers for
  # (checked with the timeline oracle).
  Scenario: B-002-02-02 a nominated pod waits for its terminating victims instead of preempting again
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      node n2 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      pod other on n2 priority=10 requests(cpu=1500m)
      pod tiny on n2 priority=10 requests(cpu=100m)
      at 10s create pod p priority=1000 requests(cpu=1)
      at 11s label node n1 zone=a
      at 11s delete pod tiny grace-period=0s
      at 11s expect pod p attempts=2
      at 11s expect pod p pending reason="preemption: not eligible due to a terminating pod on the nominated node."
      expect victims of default/p = [default/low]
      expect pod other not preempted
      expect pod p running on n1
      """
    Then the expectations hold

  # B-002-02-02: the exception: the nominated node became UnschedulableAndUnresolvable.
  # v1.35's queue: a taint is no event NodeResourcesFit (p's rejecting plugin) registers for, so
  # tiny's deletion retries p at 12s; p is retried again at 40s (low gone: still no room, other
  # terminating) and binds at 42s when other is gone (checked with the timeline oracle).
  Scenario: B-002-02-02 a nominated pod preempts again when its node becomes unresolvable
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      node n2 cpu=2 memory=4Gi
      pod low on n1 priority=10 requests(cpu=1500m)
      pod other on n2 priority=20 requests(cpu=1500m)
      pod tiny on n2 priority=10 requests(cpu=100m)
      at 10s create pod p priority=1000 requests(cpu=1)
      at 10s expect pod p nominated n1
      at 12s taint node n1 maintenance=true:NoSchedule
      at 12s delete pod tiny grace-period=0s
      at 12s expect pod p nominated n2
      at 41s expect pod p attempts=3
      expect victims of default/p = [default/low, default/other]
      expect pod p running on n2
      expect pod p attempts=4
      """
    Then the expectations hold
