# Which PostFilter plugins run with CapacityScheduling, and how their reasons are
# joined (v1.35; messages as kube-scheduler v1.35.4 with the scheduler-plugins
# CapacityScheduling of the same line gives them).  The plugin's documented
# configuration disables every other PostFilter, so DynamicResources' "no new
# claims to deallocate" is not there; enabling CapacityScheduling through
# multiPoint alone keeps DynamicResources' and DefaultPreemption's before it.
Feature: CapacityScheduling among the PostFilter plugins (v1.35)

  Scenario: the documented configuration: CapacityScheduling's reason alone
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi
      quota ns1 min(cpu=2, memory=100Gi) max(cpu=8, memory=100Gi)
      quota ns2 min(cpu=2, memory=100Gi) max(cpu=8, memory=100Gi)
      pod ns1/a on n1 requests(cpu=4)
      pod ns1/b on n2 requests(cpu=4)
      at 1s create pod ns2/p requests(cpu=2)
      at 1s expect pod ns2/p pending reason="0/2 nodes are available: Pod ns2/p is rejected in PreFilter because total ElasticQuota used is more than min. 0/2 nodes are available: 2 global quota max exceeded."
      """
    Then the expectations hold

  Scenario: CapacityScheduling through multiPoint only: three reasons, in plugin order
    Given the scenario:
      """
      config scheduler "capacity-multipoint.yaml"
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi
      quota ns1 min(cpu=2, memory=100Gi) max(cpu=8, memory=100Gi)
      quota ns2 min(cpu=2, memory=100Gi) max(cpu=8, memory=100Gi)
      pod ns1/a on n1 requests(cpu=4)
      pod ns1/b on n2 requests(cpu=4)
      at 2s create pod ns1/q requests(cpu=2)
      at 2s expect pod ns1/q pending reason="0/2 nodes are available: Pod ns1/q is rejected in PreFilter because ElasticQuota ns1 is more than Max. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod., 0/2 nodes are available: 1 No victims found on node n1 for preemptor pod q, 1 No victims found on node n2 for preemptor pod q."
      """
    Then the expectations hold
