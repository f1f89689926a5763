Feature: Draining a node through the Eviction API (seed 003 §13, kubectl drain)
  `drain node` cordons the node and evicts each of its pods through the
  Eviction API, retrying every 5 seconds while a budget answers 429, as
  `kubectl drain --ignore-daemonsets --delete-emptydir-data --force` does.

  # B-003-13-01 B-003-13-05
  Scenario: B-003-13-05 a drain evicts what the budget allows, waits for replacements to become Ready, and finishes
    Given the scenario:
      """
      nodes n[1..3] cpu=2 memory=8Gi
      deployment web replicas=4 labels(app=web) cpu=1 not-ready
      pdb web-pdb selector(app=web) max-unavailable=1
      at 5s {
        ready pod web-1
        ready pod web-2
        ready pod web-3
        ready pod web-4
      }
      at 5s expect pdb web-pdb disruptions-allowed=1
      at 10s drain node n1
      # web-1 goes at once; web-4 must wait: its replacement web-5 is not Ready yet
      at 10s expect eviction web-1 status 200
      at 10s expect eviction web-4 status 429
      at 10s expect pod web-5 running
      at 25s expect eviction web-4 status 429
      at 25s expect pod web-4 running on n1
      at 27s ready pod web-5
      # the retry at 30s finds the budget has room again
      at 30s expect eviction web-4 status 200
      at 30s expect pod web-4 evicted reason=API
      at 32s ready pod web-6
      expect pod web-1 evicted reason=API
      expect pods web-* running count=4
      expect pdb web-pdb disruptions-allowed=1
      """
    Then the expectations hold

  # B-003-13-09
  Scenario: B-003-13-09 a drain is stuck while the replacements can never become Ready
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      node n2 cpu=1 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s drain node n1
      run until 10m
      expect pod web-1 evicted reason=API
      expect pod web-4 pending
      expect pod web-3 running on n1
      expect eviction web-3 status 429
      expect pdb web-pdb disruptions-allowed=0
      """
    Then the expectations hold

  # B-003-13-09
  Scenario: B-003-13-09 evictions get 429 until the last evicted pod's long grace period ends
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1 grace-period=2m
      pdb web-pdb selector(app=web) min-available=1
      at 10s evict pod web-1
      at 20s evict pod web-2
      at 20s expect eviction web-2 status 429
      at 2m9s expect pod web-3 pending
      at 2m10s expect pod web-3 running
      at 2m20s evict pod web-2
      expect eviction web-2 status 200
      """
    Then the expectations hold

  # B-003-13-10
  Scenario: B-003-13-10 deleting the stuck pod directly lets the drain finish
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      node n2 cpu=1 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1 grace-period=0s
      pdb web-pdb selector(app=web) min-available=2
      at 10s drain node n1
      at 1m expect eviction web-3 status 429
      at 2m delete pod web-3
      expect pod web-3 deleted
      expect pod web-3 not evicted
      expect pods web-* running count=1
      """
    Then the expectations hold

  # B-003-13-06
  Scenario: B-003-13-06 a 500 is not retried by the drain
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pod api on n1 labels(app=web, tier=front) cpu=1
      pdb by-app selector(app=web) max-unavailable=1
      pdb by-tier selector(tier=front) max-unavailable=1
      at 10s drain node n1
      run until 1m
      expect eviction api status 500
      expect pod api running on n1
      """
    Then the expectations hold

  Scenario: a drain evicts pods without a controller and pods that are already terminating
    # --force evicts unmanaged pods; a terminating pod bypasses the budget
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pod lone on n1 cpu=1
      pod slow on n1 cpu=1 grace-period=5m
      at 5s delete pod slow
      at 10s drain node n1
      expect pod lone evicted reason=API
      expect eviction lone status 200
      expect eviction slow status 200
      expect pod slow deleted
      """
    Then the expectations hold

  Scenario: a drain leaves static pods where they are
    # kubectl drain skips mirror pods: the API cannot delete what the kubelet runs from a manifest
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pod etcd on n1 static cpu=1
      pod web on n1 cpu=1
      at 10s drain node n1
      expect pod etcd running on n1
      expect pod etcd not evicted
      expect pod web evicted reason=API
      """
    Then the expectations hold
