Feature: API-initiated eviction (seed 003 §13)
  The Eviction API is a DELETE guarded by PodDisruptionBudgets: it answers
  200 and deletes the pod gracefully, 429 while a budget allows no
  disruption, and 500 when more than one budget selects the pod.

  # B-003-13-01
  Scenario: B-003-13-01 an eviction gracefully terminates the pod through the API
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod web on n1 cpu=1 grace-period=30s
      at 10s evict pod web
      at 10s expect pod web evicted reason=API
      at 10s expect pod web terminating
      at 39s expect pod web terminating
      expect pod web evicted reason=API
      expect eviction web status 200
      expect pods web running count=0
      """
    Then the expectations hold

  # B-003-13-02
  Scenario: B-003-13-02 the eviction honours the budget and the pod's termination grace period
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1 grace-period=2m
      pdb web-pdb selector(app=web) min-available=2
      at 10s evict pod web-1
      at 10s evict pod web-2
      at 10s expect eviction web-1 status 200
      at 10s expect eviction web-2 status 429
      at 2m9s expect pod web-1 terminating
      at 2m10s expect pods web-1 terminating count=0
      expect pod web-1 evicted reason=API
      expect pod web-2 not evicted
      """
    Then the expectations hold

  # B-003-13-03
  Scenario: B-003-13-03 an Eviction names the pod: quux in namespace default
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod default/quux on n1 cpu=1
      at 5s evict pod default/quux
      expect eviction default/quux status 200
      expect pod default/quux evicted reason=API
      """
    Then the expectations hold

  # B-003-13-04
  Scenario: B-003-13-04 200 OK: the pod is deleted as a DELETE would, and its deployment replaces it
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1 grace-period=0s
      pdb web-pdb selector(app=web) max-unavailable=1
      at 10s evict pod web-1
      expect eviction web-1 status 200
      expect pod web-1 evicted reason=API
      expect pod web-3 running
      expect pods web-* running count=2
      """
    Then the expectations hold

  # B-003-13-05
  Scenario: B-003-13-05 429 while the budget allows no disruption; a retry later succeeds
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s evict pod web-1
      at 10s expect eviction web-1 status 429
      at 10s expect pdb web-pdb disruptions-allowed=0
      at 20s scale deployment web replicas=3
      at 20s expect pdb web-pdb disruptions-allowed=1
      at 30s evict pod web-1
      expect eviction web-1 status 200
      expect pod web-1 evicted reason=API
      """
    Then the expectations hold

  # B-003-13-05
  Scenario: B-003-13-05 a maxUnavailable budget spends one disruption per eviction
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=4 labels(app=web) cpu=1 grace-period=1m
      pdb web-pdb selector(app=web) max-unavailable=2
      at 10s expect pdb web-pdb disruptions-allowed=2
      at 10s evict pod web-1
      at 10s evict pod web-2
      at 10s evict pod web-3
      expect eviction web-1 status 200
      expect eviction web-2 status 200
      expect eviction web-3 status 429
      """
    Then the expectations hold

  # B-003-13-06 CTL-EVICT-4
  Scenario: B-003-13-06 500 when two budgets select the same pod
    # EvictionREST.Create: len(pdbs) > 1 (TestEviction's multiple-PDB Status)
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=3 labels(app=web, tier=front) cpu=1
      pdb by-app selector(app=web) max-unavailable=1
      pdb by-tier selector(tier=front) max-unavailable=1
      at 10s evict pod web-1
      expect eviction web-1 status 500 message="This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
      expect pod web-1 running
      expect pod web-1 not evicted
      """
    Then the expectations hold

  # B-003-13-07
  Scenario: B-003-13-07 a pod no budget selects always gets 200
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1
      pod batch on n1 labels(app=batch) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s evict pod batch
      at 10s evict pod web-1
      expect eviction batch status 200
      expect eviction web-1 status 429
      """
    Then the expectations hold

  # B-003-13-08
  Scenario: B-003-13-08 an allowed eviction sets a deletion timestamp and the grace period, then the pod goes
    # Endpoints and EndpointSlices (step 3) are not modelled; the pod stops
    # counting as healthy for its budget as soon as it is terminating.
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1 grace-period=45s
      pdb web-pdb selector(app=web) max-unavailable=1
      at 10s evict pod web-1
      at 10s expect pod web-1 terminating
      at 10s expect pod web-3 pending
      at 10s expect pdb web-pdb disruptions-allowed=0
      at 54s expect pod web-1 terminating
      at 55s expect pods web-1 terminating count=0
      at 55s expect pod web-3 running
      at 55s expect pdb web-pdb disruptions-allowed=1
      """
    Then the expectations hold

  # B-003-13-10
  Scenario: B-003-13-10 a stuck eviction is unstuck by deleting the pod directly
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s evict pod web-1
      at 10s expect eviction web-1 status 429
      at 20s delete pod web-1
      expect pod web-1 deleted
      expect pod web-1 not evicted
      expect pods web-* running count=2
      """
    Then the expectations hold

  # CTL-EVICT-1 CTL-EVICT-2 CTL-EVICT-3
  Scenario: CTL-EVICT-1 pods that are Pending, finished or already terminating bypass the budget
    # eviction.go canIgnorePDB; TestEviction "pod pending", "pod succeeded",
    # "pod failed"; TestEvictionIgnorePDB "pod terminating"
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pod done on n1 labels(app=web)
      pdb web-pdb selector(app=web) min-available=5
      at 10s complete pod done
      at 10s evict pod web-3
      at 10s evict pod done
      at 11s delete pod web-1
      at 12s evict pod web-1
      expect eviction web-3 status 200
      expect eviction done status 200
      expect eviction web-1 status 200
      expect pod web-1 deleted
      """
    Then the expectations hold

  # CTL-EVICT-5
  Scenario: CTL-EVICT-5 an unready pod is evicted without budget only while the application is healthy
    # eviction.go: unhealthyPodEvictionPolicy IfHealthyBudget (the default):
    # currentHealthy >= desiredHealthy > 0; TestEvictionIgnorePDB "pod unhealthy, unhealthy pod ours"
    Given the scenario:
      """
      # the node has no room for replacements while evicted pods terminate
      node n1 cpu=3 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s unready pod web-3
      at 11s evict pod web-3
      at 11s expect eviction web-3 status 200
      at 20s unready pod web-2
      at 21s evict pod web-2
      at 21s expect eviction web-2 status 429 message="The disruption budget web-pdb needs 2 healthy pods and has 1 currently"
      """
    Then the expectations hold

  # CTL-EVICT-5
  Scenario: CTL-EVICT-5 unhealthyPodEvictionPolicy AlwaysAllow evicts unready pods whatever the budget
    # TestEvictionIgnorePDB "skips the PDB check and deletes"
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=3 unhealthy-pod-eviction-policy=AlwaysAllow
      at 10s unready pod web-2
      at 10s unready pod web-3
      at 11s evict pod web-2
      at 11s evict pod web-1
      expect eviction web-2 status 200
      expect eviction web-1 status 429 message="Cannot evict pod as it would violate the pod's disruption budget."
      """
    Then the expectations hold

  # CTL-EVICT-6
  Scenario: CTL-EVICT-6 a dry-run eviction answers as the real one and changes nothing
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=1
      at 10s evict pod web-1 dry-run
      at 10s expect eviction web-1 status 200
      at 10s expect pdb web-pdb disruptions-allowed=1
      at 20s evict pod web-2
      at 30s evict pod web-1 dry-run
      expect eviction web-1 status 429
      expect pod web-1 running
      expect pod web-2 evicted reason=API
      """
    Then the expectations hold

  # CTL-EVICT-7
  Scenario: CTL-EVICT-7 a budget created in the same instant is still being processed
    # eviction.go checkAndDecrement: observedGeneration < generation answers 429
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      at 10s {
        create pdb web-pdb selector(app=web) max-unavailable=1
        evict pod web-1
      }
      at 10s expect eviction web-1 status 429 message="The disruption budget web-pdb is still being processed by the server."
      at 11s evict pod web-2
      expect eviction web-2 status 200
      """
    Then the expectations hold

  Scenario: an empty selector guards every pod of its namespace for the Eviction API
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod a on n1 labels(app=a) cpu=1
      pod b on n1 labels(app=b) cpu=1
      pod other/c on n1 labels(app=a) cpu=1
      pdb all selector() min-available=2
      at 10s evict pod a
      at 10s evict pod other/c
      expect eviction a status 429
      expect eviction other/c status 200
      """
    Then the expectations hold
