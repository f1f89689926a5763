Feature: Deployment rollouts and ReplicaSet scale-down, as the v1.35 controllers decide
  The Deployment controller (pkg/controller/deployment: rolling.go, recreate.go,
  sync.go, util/deployment_util.go) scales one ReplicaSet per pod template; the
  ReplicaSet controller (pkg/controller/replicaset/replica_set.go) creates and
  deletes pods, the ones to delete ranked by controller.ActivePodsWithRanks.

  # CTL-DEP-1: rolling.go reconcileNewReplicaSet, deployment_util.go NewRSNewReplicas
  Scenario: CTL-DEP-1 the new ReplicaSet surges by maxSurge (rounded up) above replicas
    Given the scenario:
      """
      nodes n[1..2] cpu=16 memory=32Gi
      deployment web replicas=4 labels(app=web) cpu=1 max-surge=25% max-unavailable=0 readiness-delay=10s
      at 1m apply deployment web replicas=4 labels(app=web) cpu=2 max-surge=25% max-unavailable=0 readiness-delay=10s
      at 1m expect deployment web replicas=5 updated=1 available=4
      """
    Then the expectations hold

  # CTL-DEP-2: rolling.go scaleDownOldReplicaSetsForRollingUpdate, ResolveFenceposts
  Scenario: CTL-DEP-2 old ReplicaSets scale down only while replicas - maxUnavailable stay available
    Given the scenario:
      """
      nodes n[1..2] cpu=16 memory=32Gi
      deployment web replicas=4 labels(app=web) cpu=1 max-surge=0 max-unavailable=1 readiness-delay=10s
      at 1m apply deployment web replicas=4 labels(app=web) cpu=2 max-surge=0 max-unavailable=1 readiness-delay=10s
      at 1m expect deployment web replicas=4 updated=1 available=3
      at 1m5s expect deployment web available=3
      at 1m10s expect deployment web updated=2 available=3
      at 2m expect deployment web replicas=4 updated=4 available=4
      """
    Then the expectations hold

  # CTL-DEP-3: ResolveFenceposts: maxUnavailable rounds down; both zero -> maxUnavailable 1
  Scenario: CTL-DEP-3 maxSurge 0 and a maxUnavailable percentage that rounds to 0 still allow one pod down
    Given the scenario:
      """
      nodes n[1..2] cpu=16 memory=32Gi
      deployment web replicas=3 labels(app=web) cpu=1 max-surge=0 max-unavailable=10%
      at 1m apply deployment web replicas=3 labels(app=web) cpu=2 max-surge=0 max-unavailable=10%
      at 1m expect pods web-* terminating count=3
      run until 3m
      expect deployment web updated=3 available=3
      """
    Then the expectations hold

  # CTL-DEP-4: util.IsPodAvailable with minReadySeconds (the controller re-syncs then)
  Scenario: CTL-DEP-4 a pod is available minReadySeconds after it became Ready
    Given the scenario:
      """
      node n1 cpu=8 memory=16Gi
      deployment web replicas=2 labels(app=web) cpu=1 readiness-delay=5s min-ready-seconds=20
      at 4s expect deployment web replicas=2 ready=0 available=0
      at 5s expect deployment web ready=2 available=0
      at 24s expect deployment web available=0
      at 25s expect deployment web available=2 unavailable=0
      """
    Then the expectations hold

  # CTL-DEP-5: recreate.go rolloutRecreate, oldPodsRunning
  Scenario: CTL-DEP-5 Recreate creates new pods only once no old pod is left, terminating ones included
    Given the scenario:
      """
      nodes n[1..2] cpu=8 memory=16Gi
      deployment web replicas=2 labels(app=web) cpu=1 strategy=Recreate grace-period=30s
      at 1m apply deployment web replicas=2 labels(app=web) cpu=2 strategy=Recreate grace-period=30s
      at 1m29s expect deployment web replicas=0 updated=0
      at 1m29s expect pods web-* terminating count=2
      at 1m30s expect deployment web replicas=2 updated=2
      """
    Then the expectations hold

  # CTL-DEP-6: sync.go scale, GetProportion (leftovers to the largest ReplicaSet)
  Scenario: CTL-DEP-6 replicas changed mid-rollout are spread proportionally over the ReplicaSets
    Given the scenario:
      """
      nodes n[1..4] cpu=32 memory=64Gi
      deployment web replicas=10 labels(app=web) cpu=1 max-surge=0 max-unavailable=5 readiness-delay=1h
      at 1m apply deployment web replicas=10 labels(app=web) cpu=2 max-surge=0 max-unavailable=5 readiness-delay=1h
      at 1m expect deployment web replicas=10 updated=5
      at 2m scale deployment web replicas=20
      at 2m expect deployment web replicas=20 updated=10
      """
    Then the expectations hold

  # CTL-DEP-7: deployment_controller.go syncDeployment (paused -> sync only), kubectl rollout undo
  Scenario: CTL-DEP-7 a paused Deployment does not roll out; undo brings back the previous template
    Given the scenario:
      """
      nodes n[1..2] cpu=8 memory=16Gi
      deployment web replicas=2 labels(app=web) cpu=1
      at 10s rollout pause deployment web
      at 20s apply deployment web replicas=2 labels(app=web) cpu=2
      at 30s expect deployment web updated=0 replicas=2
      at 40s rollout resume deployment web
      at 50s expect deployment web updated=2 available=2
      at 1m rollout undo deployment web
      at 2m expect deployment web updated=2 available=2
      expect pods web-* running count=2
      """
    Then the expectations hold

  # CTL-DEP-8: apps validation ValidateRollingUpdateDeployment
  Scenario: CTL-DEP-8 both maxSurge and maxUnavailable 0 is refused, as the API server refuses it
    Given the scenario:
      """
      node n1 cpu=8 memory=16Gi
      deployment web replicas=2 cpu=1 max-surge=0% max-unavailable=0
      """
    Then the scenario is refused with "may not be 0 when `maxSurge` is 0"

  # CTL-RS-1: replica_set.go getPodsToDelete, getPodsRankedByRelatedPodsOnSameNode
  Scenario: CTL-RS-1 scaling down deletes pods doubled up on a node first
    Given the scenario:
      """
      nodes n[1..2] cpu=8 memory=16Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pods web-[1..2] on n1 deployment=web
      pod web-3 on n2 deployment=web
      at 10s scale deployment web replicas=2
      at 10s expect pod web-1 terminating
      expect pod web-3 running
      """
    Then the expectations hold

  # CTL-RS-2: controller_utils.go ActivePodsWithRanks.Less (4. pod-deletion-cost)
  Scenario: CTL-RS-2 a lower pod-deletion-cost is deleted first
    Given the scenario:
      """
      nodes n[1..3] cpu=8 memory=16Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pod web-1 on n1 deployment=web deletion-cost=100
      pod web-2 on n2 deployment=web deletion-cost=-5
      pod web-3 on n3 deployment=web deletion-cost=10
      at 10s scale deployment web replicas=2
      at 10s expect pod web-2 terminating
      """
    Then the expectations hold

  # CTL-RS-3: ActivePodsWithRanks.Less (6. ready time in log2 buckets; 7. restarts)
  Scenario: CTL-RS-3 the pod Ready for less time goes first, then the one with more restarts
    Given the scenario:
      """
      nodes n[1..3] cpu=8 memory=16Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pod web-1 on n1 deployment=web ready-since=-10h
      pod web-2 on n2 deployment=web ready-since=-1m restarts=3
      pod web-3 on n3 deployment=web ready-since=-1m
      at 10s scale deployment web replicas=1
      at 10s expect pod web-2 terminating
      at 10s expect pod web-3 terminating
      expect pod web-1 running
      """
    Then the expectations hold

  # CTL-DEP-9: deployment status in Gherkin steps (sync.go calculateStatus)
  Scenario: CTL-DEP-9 a rollout step by step in Gherkin: surge, then the old pods go
    Given nodes n[1..2] cpu=8 memory=16Gi
    And deployment web replicas=4 labels(app=web) cpu=1 max-surge=2 max-unavailable=0 readiness-delay=30s
    When at 1m apply deployment web replicas=4 labels(app=web) cpu=2 max-surge=2 max-unavailable=0 readiness-delay=30s
    And at 1m expect deployment web replicas=6 updated=2 available=4 unavailable=2
    And at 1m30s expect deployment web replicas=6 updated=4 ready=4 available=4
    Then expect deployment web replicas=4 updated=4 available=4 unavailable=0
    And the expectations hold

  # CTL-RS-4: replica_set.go manageReplicas: a replacement is made as soon as a pod terminates
  Scenario: CTL-RS-4 a deleted replica is replaced at once, from its own ReplicaSet's template
    Given the scenario:
      """
      nodes n[1..2] cpu=8 memory=16Gi
      deployment web replicas=2 labels(app=web) cpu=1
      at 10s delete pod web-1
      at 10s expect pod web-1 terminating
      at 10s expect pod web-3 running
      at 10s expect deployment web replicas=2 updated=2 available=2
      """
    Then the expectations hold
