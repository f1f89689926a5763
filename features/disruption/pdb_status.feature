Feature: PodDisruptionBudget status, as the disruption controller computes it
  disruptionsAllowed = currentHealthy - desiredHealthy, never below 0, and 0
  while nothing is expected (pkg/controller/disruption).

  # B-003-13-02
  Scenario: B-003-13-02 a percentage minAvailable is rounded up: 34% of 3 replicas needs 2
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=34%
      expect pdb web-pdb disruptions-allowed=1
      """
    Then the expectations hold

  # B-003-13-02
  Scenario: B-003-13-02 a percentage maxUnavailable is rounded up: 30% of 7 replicas allows 3
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=7 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) max-unavailable=30%
      expect pdb web-pdb disruptions-allowed=3
      at 10s evict pod web-1
      at 10s evict pod web-2
      at 10s evict pod web-3
      at 10s evict pod web-4
      expect eviction web-3 status 200
      expect eviction web-4 status 429
      """
    Then the expectations hold

  Scenario: pods without a controller are not expected by a maxUnavailable budget
    # pdb-max-unavailable-naked-pod: expectedPods 0 -> no disruption allowed
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      pods solo-[1..3] on n1 labels(app=solo) cpu=1
      pdb solo-pdb selector(app=solo) max-unavailable=1
      at 10s evict pod solo-1
      expect pdb solo-pdb disruptions-allowed=0
      expect eviction solo-1 status 429
      """
    Then the expectations hold

  Scenario: a Ready pod without a controller still counts as healthy
    # pdb-replication-controller-and-rogue-pod: 34% of 3 is 2; 4 healthy -> 2 allowed
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pod rogue on n1 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=34%
      expect pdb web-pdb disruptions-allowed=2
      """
    Then the expectations hold

  Scenario: an integer minAvailable expects every selected pod, pending ones included
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=1
      expect pod web-3 pending
      expect pdb web-pdb disruptions-allowed=1
      """
    Then the expectations hold

  Scenario: unready and terminating pods are not healthy
    Given the scenario:
      """
      node n1 cpu=8 memory=8Gi
      deployment web replicas=4 labels(app=web) cpu=1 grace-period=1m
      pdb web-pdb selector(app=web) max-unavailable=2
      at 0s expect pdb web-pdb disruptions-allowed=2
      at 10s unready pod web-1
      at 10s expect pdb web-pdb disruptions-allowed=1
      # web-2 terminates for a minute; its replacement web-5 is Ready at once:
      # healthy are web-3, web-4 and web-5
      at 20s delete pod web-2
      at 20s expect pod web-2 terminating
      at 20s expect pdb web-pdb disruptions-allowed=1
      at 30s ready pod web-1
      at 30s expect pdb web-pdb disruptions-allowed=2
      """
    Then the expectations hold
