Feature: A drain's verdict: complete, failed, or blocked and by which pod
  `expect drain NODE complete | failed | blocked [by REF]` reads the latest
  `drain node NODE`; the text report says when a drain finished, or, at the
  end of the run, what keeps it from finishing (kubectl drain's evictPods
  and waitForDelete, staging/src/k8s.io/kubectl/pkg/drain/drain.go).

  # CTL-DRAIN-1
  Scenario: CTL-DRAIN-1 a drain blocked by a budget, then complete once another pod is Ready
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pods web-[1..2] on n1 labels(app=web) cpu=1
      pod web-3 on n2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s drain node n1
      # web-1 goes (3 healthy, 2 needed); web-2 would leave only one
      at 10s expect eviction web-1 status 200
      at 20s expect drain n1 blocked by web-2
      at 30s create pod web-4 on n2 labels(app=web) cpu=1
      # the retry at 35s finds 2 healthy pods besides web-2
      at 35s expect eviction web-2 status 200
      expect drain n1 complete
      """
    Then the expectations hold
    And the report says "node/n1 drained"

  # CTL-DRAIN-1
  Scenario: CTL-DRAIN-1 a drain that cannot finish says at the end which pod blocks it
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      node n2 cpu=1 memory=8Gi
      deployment web replicas=3 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=2
      at 10s drain node n1
      run until 1m
      expect drain n1 blocked by web-3
      """
    Then the expectations hold
    And the report says "node/n1 not drained after 50s: eviction refused for default/web-3: Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web-pdb needs 2 healthy pods and has 2 currently (11 attempts)"

  # CTL-DRAIN-1
  Scenario: CTL-DRAIN-1 a drain whose eviction is refused with 500 fails
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=1 labels(app=web, tier=front) cpu=1
      pdb by-app selector(app=web) max-unavailable=1
      pdb by-tier selector(tier=front) max-unavailable=1
      at 10s drain node n1
      expect drain n1 failed
      """
    Then the expectations hold
    And the report says "node n1 not drained: eviction refused for default/web-1"

  # CTL-DRAIN-2
  Scenario: CTL-DRAIN-2 a drain waits for the evicted pod, not for its same-name StatefulSet replacement
    # waitForDelete compares UIDs: redis-0 recreated on a spare node is a new pod
    Given the scenario:
      """
      include "redis-statefulset.yaml"
      nodes spare-[1..2] cpu=4 memory=16Gi
      at 10s drain node node-1
      at 10s expect eviction shop/redis-1 status 429
      expect drain node-1 complete
      expect pods shop/redis-* running count=2
      expect pod shop/redis-0 running on spare-1
      """
    Then the expectations hold
    And the report says "node/node-1 drained"

  # CTL-DRAIN-1
  Scenario: CTL-DRAIN-1 a drain verdict names a node that was drained
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      expect drain n1 complete
      """
    Then the scenario is refused with "no 'drain node n1' statement comes before this expectation"
