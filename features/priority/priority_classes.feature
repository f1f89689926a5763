Feature: PriorityClass and pod priority (seed 002 §1, §8; seed 003 §11.1, §11.3, §11.6)

  # B-003-11-01 B-003-11-11 B-002-01-03: a class maps a name to a value; nginx naming
  # high-priority gets 1000000.
  Scenario: B-003-11-11 priority admission resolves priorityClassName into the priority
    Given the scenario:
      """
      priorityclass high-priority value=1000000 description="This priority class should be used for XYZ service pods only."
      node n1 cpu=2 memory=4Gi
      at 0s create pod nginx priorityclass=high-priority requests(cpu=100m)
      expect pod nginx priority=1000000 preemption=PreemptLowerPriority
      """
    Then the expectations hold

  # B-003-11-11 B-003-11-06: a pod naming a class that does not exist is refused; deleting
  # a class leaves existing pods unchanged.
  Scenario: B-003-11-06 deleting a class keeps existing pods and refuses new ones naming it
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=2 memory=4Gi
      pod existing on n1 priorityclass=high requests(cpu=100m)
      at 10s delete priorityclass high
      at 20s create pod late priorityclass=high requests(cpu=100m)
      expect pod existing priority=1000
      expect pod existing running
      expect pods late pending count=0
      """
    Then the expectations hold

  # B-003-11-01: names starting with system- are reserved
  Scenario: B-003-11-01 a user class may not be named system-anything
    Given the scenario:
      """
      priorityclass system-mine value=10
      """
    Then the scenario is refused with "system-"

  # B-003-11-02: user values go up to 1,000,000,000
  Scenario: B-003-11-02 a user class above one billion is refused
    Given the scenario:
      """
      priorityclass too-high value=1000000001
      """
    Then the scenario is refused with "1000000000"

  # B-003-11-02: the whole negative int32 range is allowed, down to -2147483648
  Scenario: B-003-11-02 user values span the int32 range up to one billion
    Given the scenario:
      """
      priorityclass top value=1000000000
      priorityclass bottom value=-2147483648
      node n1 cpu=2 memory=4Gi
      pod a on n1 priorityclass=top
      pod b on n1 priorityclass=bottom
      expect pod a priority=1000000000
      expect pod b priority=-2147483648
      """
    Then the expectations hold

  # B-003-11-03 B-003-11-04: without a default class, pods without a class have priority 0
  Scenario: B-003-11-03 no default class gives priority 0
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=2 memory=4Gi
      pod legacy on n1 requests(cpu=100m)
      at 0s create pod fresh requests(cpu=100m)
      expect pod legacy priority=0 preemption=PreemptLowerPriority
      expect pod fresh priority=0
      """
    Then the expectations hold

  # B-003-11-03: only one class may be the default
  Scenario: B-003-11-03 only one class may be globalDefault
    Given the scenario:
      """
      priorityclass a value=10 default
      priorityclass b value=20 default
      """
    Then the scenario is refused with "already the default"

  # B-003-11-05: a new default class applies only to pods created afterwards
  Scenario: B-003-11-05 adding a default class does not change existing pods
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      at 0s create pod before requests(cpu=100m)
      at 10s create priorityclass standard value=500 default
      at 20s create pod after requests(cpu=100m)
      expect pod before priority=0
      expect pod after priority=500
      """
    Then the expectations hold

  # B-002-08-03: system-cluster-critical, production-high and a non-preempting development
  # class; development pods never preempt.
  Scenario: B-002-08-03 a development class with preemptionPolicy Never never preempts
    Given the scenario:
      """
      priorityclass production-high value=1000000
      priorityclass development value=100 preemption=Never
      node n1 cpu=2 memory=4Gi
      pod dns on n1 priorityclass=system-cluster-critical requests(cpu=500m)
      pod filler on n1 priority=0 requests(cpu=1500m)
      at 10s create pod dev priorityclass=development requests(cpu=1)
      at 20s create pod prod priorityclass=production-high requests(cpu=1)
      expect pod dns priority=2000000000
      expect pod prod priority=1000000 preemption=PreemptLowerPriority
      expect pod dev pending
      expect victims of default/dev = []
      expect victims of default/prod = [default/filler]
      """
    Then the expectations hold

  # B-003-11-12: the queue takes higher priority first; when it cannot be placed, lower
  # priority pods still are.
  Scenario: B-003-11-12 pending pods are scheduled highest priority first
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      at 10s {
        create pod low priority=10 requests(cpu=1500m)
        create pod high priority=1000 requests(cpu=1500m)
        create pod huge priority=5000 requests(cpu=3)
        create pod tiny priority=1 requests(cpu=500m)
      }
      expect pod high running on n1
      expect pod low pending
      expect pod huge pending
      expect pod tiny running on n1
      """
    Then the expectations hold

  # B-003-11-21: unintended preemption is fixed by pointing the pod at a lower class
  Scenario: B-003-11-21 a pod given a lower class no longer preempts
    Given the scenario:
      """
      priorityclass high value=1000
      priorityclass low value=10
      node n1 cpu=2 memory=4Gi
      pod running on n1 priorityclass=low requests(cpu=1500m)
      at 10s create pod batch priorityclass=low requests(cpu=1)
      expect pod running not preempted
      expect pod batch pending reason="No preemption victims found for incoming pod"
      """
    Then the expectations hold
