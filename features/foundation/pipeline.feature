# The whole pipeline end to end: declarations, timeline, scheduler, workload
# controller, grace periods and expectations (LANGUAGE.md §2-§5).
Feature: A scenario runs from declarations to expectations

  Scenario: pods are scheduled to the first node that fits, ties to the node declared first
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pod a requests(cpu=3)
      pod b requests(cpu=3)
      pod c requests(cpu=3)
      expect pod a running on n1
      expect pod b running on n2
      expect pod c pending reason="0/2 nodes are available: 2 Insufficient cpu."
      """
    Then the expectations hold

  Scenario: a deleted pod keeps its resources for its grace period, then the pending pod binds
    Given node n1 cpu=4 memory=8Gi
    And pod a requests(cpu=3) grace-period=20s
    And pod b requests(cpu=3)
    When at 10s delete pod a
    Then expect pod b running on n1
    And expect pod a deleted

  Scenario: expectations written at an instant are checked at that instant
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod a requests(cpu=3) grace-period=20s
      pod b requests(cpu=3)
      at 10s delete pod a
      at 15s expect pod a terminating
      at 15s expect pod b pending
      at 30s expect pod b running on n1
      """
    Then the expectations hold

  Scenario: a deployment replaces a deleted pod with the next free number
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      deployment web replicas=2 requests(cpu=1)
      at 10s delete pod web-1 grace-period=0s
      expect pods web-* running count=2
      expect pod web-3 running
      expect pod web-1 deleted
      """
    Then the expectations hold

  Scenario: a cordoned node takes no new pods
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      at 5s cordon node n1
      at 10s create pod a requests(cpu=1)
      expect pod a running on n2
      """
    Then the expectations hold

  Scenario: a failing expectation is reported as failing
    Given the scenario:
      """
      node n1 cpu=1 memory=1Gi
      pod a requests(cpu=2)
      expect pod a running
      """
    When the scenario runs
    Then the scenario's expectation on line 3 fails with "pending"

  Scenario: a misspelt priority class is refused with a suggestion
    Given the scenario:
      """
      priorityclass high value=1000
      pod a priorityclass=hgh
      """
    Then the scenario is refused with "did you mean 'high'?"
