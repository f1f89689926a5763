Feature: How many pods a PodDisruptionBudget expects: the disruption controller's finders
  For a percentage or a maxUnavailable the disruption controller sums the
  spec.replicas of the selected pods' controllers, asking in order for a
  ReplicationController, a Deployment (through its ReplicaSet), a ReplicaSet,
  a StatefulSet, then any scale subresource
  (pkg/controller/disruption/disruption.go: finders, getExpectedScale,
  getExpectedPodCount; unit tests in disruption_test.go).

  # CTL-PDB-1 CTL-PDB-2
  Scenario: CTL-PDB-2 a StatefulSet from a cluster dump under maxUnavailable 1 allows one disruption
    # getPodStatefulSet; TestStatefulSetController. expectedPods is the
    # StatefulSet's replicas (2), desiredHealthy 2 - 1 = 1.
    Given the scenario:
      """
      include "redis-statefulset.yaml"
      expect pdb shop/redis expected-pods=2 desired-healthy=1 current-healthy=2 disruptions-allowed=1 condition=SufficientPods
      at 10s evict pod shop/redis-0
      at 10s evict pod shop/redis-1
      at 10s expect eviction shop/redis-0 status 200
      at 10s expect eviction shop/redis-1 status 429 message="The disruption budget redis needs 1 healthy pods and has 1 currently"
      at 10s expect pdb shop/redis disruptions-allowed=0 condition=InsufficientPods
      """
    Then the expectations hold

  # CTL-PDB-1 CTL-PDB-3
  Scenario: CTL-PDB-3 a ReplicationController and a ReplicaSet without Deployment add up
    # getPodReplicationController, getPodReplicaSet; TestTwoControllers: 50% of 3 + 2 rounds up to 3
    Given the scenario:
      """
      include "legacy-controllers.yaml"
      expect pdb shop/shop expected-pods=5 desired-healthy=3 current-healthy=5 disruptions-allowed=2
      """
    Then the expectations hold

  # CTL-PDB-3
  Scenario: CTL-PDB-3 two Deployments under one budget count each one's replicas once
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=3 labels(app=shop) cpu=1
      deployment api replicas=2 labels(app=shop) cpu=1
      pdb shop selector(app=shop) max-unavailable=20%
      # 20% of 5 rounds up to 1: desiredHealthy 4
      expect pdb shop expected-pods=5 desired-healthy=4 disruptions-allowed=1
      """
    Then the expectations hold

  # CTL-PDB-4
  Scenario: CTL-PDB-4 a DaemonSet has no scale: the budget fails to sync and allows nothing
    # getScaleController/implementsScale, failSafe. The status was never
    # written, so the Eviction API answers "still being processed".
    Given the scenario:
      """
      include "agent-daemonset.yaml"
      expect pdb ops/agent condition=SyncFailed message="daemonsets.apps does not implement the scale subresource" disruptions-allowed=0 expected-pods=0
      at 10s evict pod ops/agent-x7k2p
      expect eviction ops/agent-x7k2p status 429 message="The disruption budget agent is still being processed by the server."
      """
    Then the expectations hold

  # CTL-PDB-5
  Scenario: CTL-PDB-5 pods without a controller are skipped by a percentage budget but counted by an integer one
    # getExpectedScale (unmanaged pods), getExpectedPodCount; TestNakedPod, TestUnavailable
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      pods solo-[1..3] on n1 labels(app=solo) cpu=1
      pdb pct selector(app=solo) min-available=28%
      expect pdb pct expected-pods=0 desired-healthy=0 current-healthy=3 disruptions-allowed=0 condition=InsufficientPods
      """
    Then the expectations hold

  # CTL-PDB-5
  Scenario: CTL-PDB-5 an integer minAvailable expects every selected pod
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      pods solo-[1..3] on n1 labels(app=solo) cpu=1
      pdb int selector(app=solo) min-available=2
      expect pdb int expected-pods=3 desired-healthy=2 current-healthy=3 disruptions-allowed=1
      """
    Then the expectations hold

  # CTL-PDB-6
  Scenario: CTL-PDB-6 percentages round up: 30% of 7 replicas may be unavailable, so 3
    # intstr.GetScaledValueFromIntOrPercent(..., roundUp=true); TestPercentageMaxUnavailableWithScaling
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=7 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) max-unavailable=30%
      at 5s expect pdb web-pdb expected-pods=7 desired-healthy=4 disruptions-allowed=3
      at 10s scale deployment web replicas=3
      # 30% of 3 rounds up to 1
      at 10s expect pdb web-pdb expected-pods=3 desired-healthy=2
      """
    Then the expectations hold

  # CTL-PDB-7
  Scenario: CTL-PDB-7 the DisruptionAllowed condition follows disruptionsAllowed
    # UpdateDisruptionAllowedCondition: SufficientPods while > 0, InsufficientPods at 0
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=1
      at 5s expect pdb web-pdb condition=SufficientPods disruptions-allowed=1
      at 10s unready pod web-1
      at 10s expect pdb web-pdb condition=InsufficientPods current-healthy=1 disruptions-allowed=0
      """
    Then the expectations hold

  # CTL-PDB-8
  Scenario: CTL-PDB-8 disruptedPods holds an evicted pod only until it starts terminating
    # checkAndDecrement writes the entry; buildDisruptedPodMap drops it once the
    # pod has a deletionTimestamp (TestUpdateDisruptedPods)
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1 grace-period=1m
      pdb web-pdb selector(app=web) max-unavailable=1
      at 10s evict pod web-1
      at 10s expect pod web-1 terminating
      at 10s expect pdb web-pdb disrupted-pods=0 current-healthy=3 disruptions-allowed=1
      """
    Then the expectations hold

  # CTL-PDB-9
  Scenario: CTL-PDB-9 a budget the API server's validation refuses is refused with its field path
    # ValidatePodDisruptionBudgetSpec: IsNotMoreThan100Percent
    Given the scenario:
      """
      include "bad-pdb.yaml"
      """
    Then the scenario is refused with "field spec.maxUnavailable: Invalid value: "120%": must not be greater than 100%"
