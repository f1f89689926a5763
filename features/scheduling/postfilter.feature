# v1.35's default profile has the DynamicResources plugin, whose PostFilter runs
# before DefaultPreemption's.  A pod without ResourceClaims gets "no new claims to
# deallocate" from it, and the framework joins the reasons of every PostFilter
# plugin that rejected the pod with ", " after the filters' message.  The seed
# documents predate it (their messages end with the preemption part alone);
# v1.35 wins.  Every message here is the one kube-scheduler v1.35.4 gives
# (checked with ../shared/oracle/bin/kr-oracle).
Feature: PostFilter plugins and the FailedScheduling message (v1.35)

  Scenario: no victims anywhere: DynamicResources' reason, then preemption's
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=2 memory=8Gi
      node n2 cpu=2 memory=8Gi
      pod a on n1 priorityclass=high requests(cpu=2)
      pod b on n2 priorityclass=high requests(cpu=2)
      pod p requests(cpu=2)
      expect pod p pending reason="0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
      """
    Then the expectations hold

  Scenario: a pod that may not preempt: both reasons
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=2 memory=8Gi
      pod a on n1 requests(cpu=2)
      pod p priorityclass=high preemption=Never requests(cpu=2)
      expect pod p pending reason="0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
      """
    Then the expectations hold

  Scenario: a nomination drops the rejected reasons: the filters' message alone
    Given the scenario:
      """
      priorityclass high value=1000
      node n1 cpu=2 memory=8Gi
      pod a on n1 requests(cpu=2)
      at 1s create pod p priorityclass=high requests(cpu=2)
      at 1s expect pod p nominated n1
      at 1s expect pod p pending reason="0/1 nodes are available: 1 Insufficient cpu."
      """
    Then the expectations hold

  Scenario: a profile without DynamicResources has preemption's reason alone
    Given the scenario:
      """
      config scheduler "no-dynamic-resources.yaml"
      node n1 cpu=2 memory=8Gi
      pod a on n1 priority=1000 requests(cpu=2)
      pod p requests(cpu=2)
      expect pod p pending reason="0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
      """
    Then the expectations hold

  Scenario: a profile without DefaultPreemption ends with DynamicResources' reason, no full stop
    Given the scenario:
      """
      config scheduler "no-default-preemption.yaml"
      node n1 cpu=2 memory=8Gi
      pod a on n1 requests(cpu=2)
      pod p priority=1000 requests(cpu=2)
      expect pod p pending reason="0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate"
      expect pod a running on n1
      """
    Then the expectations hold

  Scenario: plugins enabled at postFilter come first, and so does their reason
    Given the scenario:
      """
      config scheduler "preemption-first.yaml"
      node n1 cpu=2 memory=8Gi
      pod a on n1 priority=1000 requests(cpu=2)
      pod p requests(cpu=2)
      expect pod p pending reason="0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod., no new claims to deallocate"
      """
    Then the expectations hold
