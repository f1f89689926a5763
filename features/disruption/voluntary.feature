Feature: Voluntary and involuntary disruptions (seed 003 §0, §12, §13)
  Only voluntary disruptions go through the Eviction API and honour
  PodDisruptionBudgets. The kubelet's node-pressure eviction is involuntary:
  it never asks the API and ignores budgets.

  Background:
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1 memory=1Gi usage(memory=500Mi)
      pod cache on n1 labels(app=web) cpu=1 memory=1Gi usage(memory=3Gi)
      pdb web-pdb selector(app=web) min-available=3
      at 5s expect pdb web-pdb disruptions-allowed=0
      """

  # B-003-00-01
  Scenario: B-003-00-01 a voluntary disruption asked through the Eviction API is held back by the budget
    Given the scenario:
      """
      at 10s evict pod cache
      at 20s drain node n1
      run until 2m
      expect eviction cache status 429
      expect pod cache running on n1
      expect pod cache not evicted
      expect pods web-* running count=2
      """
    Then the expectations hold

  # B-003-00-01 B-003-12-02
  Scenario: B-003-00-01 an involuntary disruption on the same cluster ignores the budget
    Given the scenario:
      """
      at 10s usage node n1 memory.available=50Mi
      expect pod cache evicted reason=MemoryPressure
      expect pdb web-pdb disruptions-allowed=0
      """
    Then the expectations hold

  # B-003-00-01 B-003-11-18
  Scenario: B-003-00-01 scheduler preemption on the same cluster respects the budget only on a best-effort basis
    Given the scenario:
      """
      priorityclass urgent value=1000
      at 10s create pod urgent priorityclass=urgent cpu=2
      expect pod urgent running
      expect pods default/* preempted count=1
      expect pdb web-pdb disruptions-allowed=0
      """
    Then the expectations hold
