# Seed 003 §9: scheduler performance tuning (percentageOfNodesToScore).
Feature: Scheduler performance tuning (seed 003 §9)

  # B-003-09-02
  # B-003-09-05
  # B-003-09-07
  # 200 nodes at 10% would be 20 nodes, but at least 100 are found: the first pod
  # scores n001-n100, the next search starts where that one stopped (n101).
  Scenario: B-003-09-05 at least 100 feasible nodes are found, and the next search continues round-robin
    Given the scenario:
      """
      config scheduler "pct-10.yaml"
      nodes n[001..200] cpu=4 memory=8Gi
      pod a
      at 1s create pod b
      at 2s create pod c
      expect pod a running on n001
      expect pod b running on n101
      expect pod c running on n002
      """
    Then the expectations hold

  # B-003-09-04
  Scenario: B-003-09-04 percentageOfNodesToScore 100 scores every node
    Given the scenario:
      """
      config scheduler "pct-100.yaml"
      nodes n[001..200] cpu=4 memory=8Gi
      pod a
      at 1s create pod b
      expect pod a running on n001
      expect pod b running on n002
      """
    Then the expectations hold

  # B-003-09-01
  # B-003-09-03
  # 1000 nodes, no value (0 means the default): 50 - 1000/125 = 42% = 420 nodes.
  Scenario: B-003-09-03 the adaptive default scores 42% of a 1000-node cluster
    Given the scenario:
      """
      config scheduler "pct-0.yaml"
      nodes n[0001..1000] cpu=4 memory=8Gi
      pod a
      at 1s create pod b
      expect pod a running on n0001
      expect pod b running on n0421
      """
    Then the expectations hold

  # B-003-09-06
  Scenario: B-003-09-06 a low value can leave the best node unscored
    Given the scenario:
      """
      config scheduler "pct-10.yaml"
      nodes n[001..149] cpu=4 memory=8Gi
      node best cpu=4 memory=8Gi labels(fast=true)
      nodes m[151..200] cpu=4 memory=8Gi
      pod a {
        affinity node preferred weight=100 fast=true
      }
      expect pod a running on n001
      """
    Then the expectations hold

  # B-003-09-08
  # Zone 1 = n001-n150, zone 2 = n151-n200: the visiting order is n001, n151,
  # n002, n152, …; the first 100 visited hold n001-n050 and n151-n200, so the
  # second search starts at n051.
  Scenario: B-003-09-08 nodes of several zones are interleaved
    Given the scenario:
      """
      config scheduler "pct-10.yaml"
      nodes n[001..150] cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=zone-1)
      nodes n[151..200] cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=zone-2)
      pod a
      at 1s create pod b
      expect pod a running on n001
      expect pod b running on n051
      """
    Then the expectations hold
